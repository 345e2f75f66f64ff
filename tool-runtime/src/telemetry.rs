//! What a call tells a tracing backend: its span, named and fielded by the OpenTelemetry GenAI
//! semantic conventions ("Execute tool span", `docs/gen-ai/gen-ai-spans.md`), and, with the
//! `otel` feature, its duration on a histogram.
//!
//! Spans go out through `tracing`, fielded so that `tracing-opentelemetry` maps them to the
//! conventions (`otel.name`, `otel.kind`, `otel.status_code`): no OpenTelemetry SDK is needed
//! for them. toolwright's own facts are fields under `toolwright.`.

use std::time::Instant;

use tracing::Span;
use tracing::field::Empty;

use crate::call::{Arguments, CallStatus, ToolCall};
use crate::result::{ResultDetail, ToolResult};
use crate::tool::ToolDefinition;
use toolwright_json::value as json;

/// The span of one call: `execute_tool {name}`, kind internal. `definition` is the tool's, when
/// the call names one; `capture` records the arguments (and, at the end, the result), which may
/// hold personal data.
#[inline]
pub(crate) fn call_span(
    call: &ToolCall,
    definition: Option<&ToolDefinition>,
    capture: bool,
) -> Span {
    let span = tracing::info_span!(
        "execute_tool",
        otel.name = %format_args!("execute_tool {}", call.name),
        otel.kind = "internal",
        otel.status_code = Empty,
        otel.status_description = Empty,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = %call.name,
        gen_ai.tool.call.id = %call.call_id,
        gen_ai.tool.description = Empty,
        gen_ai.tool.type = "function",
        gen_ai.tool.call.arguments = Empty,
        gen_ai.tool.call.result = Empty,
        error.type = Empty,
        toolwright.outcome = Empty,
        toolwright.duration_us = Empty,
        toolwright.repairs = Empty,
        toolwright.coercions = Empty,
        toolwright.cut_off = Empty,
        toolwright.retries_left = Empty,
    );
    if !span.is_disabled() {
        describe(&span, call, definition, capture);
    }
    span
}

#[cold]
#[inline(never)]
fn describe(span: &Span, call: &ToolCall, definition: Option<&ToolDefinition>, capture: bool) {
    if let Some(definition) = definition
        && !definition.description().is_empty()
    {
        span.record("gen_ai.tool.description", definition.description());
    }
    if call.status == CallStatus::Incomplete {
        span.record("toolwright.cut_off", true);
    }
    if capture {
        match &call.arguments {
            Arguments::Text(text) => span.record("gen_ai.tool.call.arguments", text.as_str()),
            // Written out only within the depth limit: `to_string` recurses.
            Arguments::Json(value) if json::measure(value, 128, usize::MAX).is_ok() => {
                span.record("gen_ai.tool.call.arguments", value.to_string())
            }
            Arguments::Json(_) => span.record(
                "gen_ai.tool.call.arguments",
                "(nested deeper than 128 levels: not recorded)",
            ),
        };
    }
}

/// When a call's clock starts: only when something observes it (its span, or with the `otel`
/// feature the duration histogram), since reading the clock costs more than a plain call.
#[inline(always)]
pub(crate) fn start(span: &Span) -> Option<Instant> {
    (cfg!(feature = "otel") || !span.is_disabled()).then(Instant::now)
}

/// Records a call's end on its span (outcome, status, `error.type`, the repairs and coercions its
/// arguments needed, the invalid calls it may still make) and its duration on the histogram.
#[inline(always)]
pub(crate) fn record(
    span: &Span,
    started: Option<Instant>,
    result: &ToolResult,
    capture: bool,
    retries_left: Option<u32>,
) {
    if let Some(started) = started {
        finish(span, started, result, capture, retries_left);
    }
}

#[inline(never)]
fn finish(
    span: &Span,
    started: Instant,
    result: &ToolResult,
    capture: bool,
    retries_left: Option<u32>,
) {
    let elapsed = started.elapsed();
    let error = error_type(result);
    if !span.is_disabled() {
        span.record("toolwright.outcome", outcome_name(result));
        span.record(
            "toolwright.duration_us",
            u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX),
        );
        let (repairs, coercions) = result
            .fixes()
            .map_or((0, 0), |fixes| (fixes.repairs.len(), fixes.coercions.len()));
        span.record("toolwright.repairs", repairs);
        span.record("toolwright.coercions", coercions);
        if let Some(left) = retries_left {
            span.record("toolwright.retries_left", left);
        }
        if let Some(error) = error {
            span.record("error.type", error);
            span.record("otel.status_code", "error");
            // The message may echo the arguments: only with them.
            if capture {
                span.record("otel.status_description", result.text());
            }
        } else if capture {
            span.record("gen_ai.tool.call.result", result.text());
        }
    }
    // A name no tool has is the model's text: kept off the histogram, whose series it would
    // multiply.
    #[cfg(feature = "otel")]
    metrics::tool_call(
        (!matches!(result.detail, ResultDetail::UnknownTool { .. })).then_some(&*result.tool_name),
        error,
        elapsed,
    );
    #[cfg(not(feature = "otel"))]
    let _ = elapsed;
}

/// Records, on a call's span, that the call was dropped before its end (its batch cancelled):
/// dropped unless [`done`](Self::done) first.
pub(crate) struct Unfinished<'a> {
    span: &'a Span,
    started: Option<Instant>,
    tool: Option<&'a str>,
}

impl<'a> Unfinished<'a> {
    #[inline(always)]
    pub(crate) fn new(span: &'a Span, started: Option<Instant>, tool: &'a str) -> Self {
        Unfinished {
            span,
            started,
            tool: Some(tool),
        }
    }

    /// The call ended: its result is recorded by [`record`].
    #[inline(always)]
    pub(crate) fn done(mut self) {
        self.started = None;
    }
}

impl Drop for Unfinished<'_> {
    fn drop(&mut self) {
        if let Some(started) = self.started {
            cancelled(self.span, started, self.tool.take().unwrap_or_default());
        }
    }
}

#[cold]
#[inline(never)]
fn cancelled(span: &Span, started: Instant, tool: &str) {
    let elapsed = started.elapsed();
    span.record("toolwright.outcome", "cancelled");
    span.record(
        "toolwright.duration_us",
        u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX),
    );
    span.record("error.type", "cancelled");
    span.record("otel.status_code", "error");
    #[cfg(feature = "otel")]
    metrics::tool_call(Some(tool), Some("cancelled"), elapsed);
    #[cfg(not(feature = "otel"))]
    let _ = (elapsed, tool);
}

/// A call that ends before any tool runs (unknown tool, a provider's own call, arguments cut
/// off): its span, opened and closed at once.
#[cold]
#[inline(never)]
pub(crate) fn refused(call: &ToolCall, result: &ToolResult, capture: bool) {
    let span = call_span(call, None, capture);
    let started = start(&span);
    record(&span, started, result, capture, None);
}

/// The class of error a call ended with, as `error.type` (a small fixed set, so that a
/// dashboard can group by it); `None` for a call that did not fail (an interrupt held for
/// approval is not a failure).
///
/// | value | the call |
/// |---|---|
/// | `invalid_arguments` | its arguments were rejected |
/// | `budget_exhausted` | its arguments were rejected, and that spent the tool's retry budget |
/// | `unknown_tool` | no tool has the name called |
/// | `timeout` | did not finish in time |
/// | `cancelled` | its batch was cancelled before it finished |
/// | `panic` | the tool (or its argument parser) panicked |
/// | `refused` | a hook denied it, a person rejected it, or it is not the toolbox's to run |
/// | `tool_error` | the tool returned an error |
pub fn error_type(result: &ToolResult) -> Option<&'static str> {
    Some(match &result.detail {
        ResultDetail::Arguments(_) => "invalid_arguments",
        ResultDetail::BudgetExhausted { .. } => "budget_exhausted",
        ResultDetail::UnknownTool { .. } => "unknown_tool",
        ResultDetail::TimedOut { .. } => "timeout",
        ResultDetail::Cancelled => "cancelled",
        ResultDetail::Panic(_) => "panic",
        ResultDetail::Rejected { .. } | ResultDetail::Denied | ResultDetail::NotLocal { .. } => {
            "refused"
        }
        _ if result.is_error => "tool_error",
        _ => return None,
    })
}

/// The outcome of a call, as its span's `toolwright.outcome` records it.
pub(crate) fn outcome_name(result: &ToolResult) -> &'static str {
    match &result.detail {
        ResultDetail::Arguments(_) => "invalid_arguments",
        ResultDetail::BudgetExhausted { .. } => "budget_exhausted",
        ResultDetail::Panic(_) => "panic",
        ResultDetail::Interrupt(_) => "interrupt",
        ResultDetail::TimedOut { .. } => "timed_out",
        ResultDetail::Cancelled => "cancelled",
        ResultDetail::Rejected { .. } => "rejected",
        ResultDetail::Denied => "denied",
        ResultDetail::NotLocal { .. } => "not_local",
        ResultDetail::UnknownTool { .. } => "unknown_tool",
        _ if result.is_error => "error",
        _ => "ok",
    }
}

/// The duration histogram (the `otel` feature), through the OpenTelemetry API: the application's
/// meter provider, installed globally, exports it.
#[cfg(feature = "otel")]
pub mod metrics {
    use std::sync::OnceLock;
    use std::time::Duration;

    use opentelemetry::KeyValue;
    use opentelemetry::metrics::Histogram;

    /// The bucket boundaries the MCP conventions give their operation durations, in seconds.
    pub const BOUNDARIES: [f64; 14] = [
        0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
    ];

    /// The name of the tool-call duration histogram (seconds), with `gen_ai.operation.name`,
    /// `gen_ai.tool.name` and, for a call that failed, `error.type`.
    pub const TOOL_CALL_DURATION: &str = "toolwright.tool.call.duration";

    /// The histogram, made from the global meter provider on the first call recorded: install the
    /// application's provider before the first call.
    fn histogram() -> &'static Histogram<f64> {
        static HISTOGRAM: OnceLock<Histogram<f64>> = OnceLock::new();
        HISTOGRAM.get_or_init(|| {
            opentelemetry::global::meter("toolwright")
                .f64_histogram(TOOL_CALL_DURATION)
                .with_unit("s")
                .with_description("The duration of a tool call, from its arguments to its result.")
                .with_boundaries(BOUNDARIES.to_vec())
                .build()
        })
    }

    pub(crate) fn tool_call(tool: Option<&str>, error: Option<&'static str>, elapsed: Duration) {
        let mut attributes = vec![KeyValue::new("gen_ai.operation.name", "execute_tool")];
        if let Some(tool) = tool {
            attributes.push(KeyValue::new("gen_ai.tool.name", tool.to_owned()));
        }
        if let Some(error) = error {
            attributes.push(KeyValue::new("error.type", error));
        }
        histogram().record(elapsed.as_secs_f64(), &attributes);
    }
}
