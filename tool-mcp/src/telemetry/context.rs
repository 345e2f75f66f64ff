//! The trace context an MCP request carries, and the duration histograms (the `otel` feature).
//!
//! The application's global propagator reads and writes the context when it has one; otherwise
//! W3C Trace Context, which SEP-414 names for `params._meta`, is read and written here (checked
//! against the OpenTelemetry SDK's `TraceContextPropagator` by the tests).

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::OnceLock;
use std::time::Duration;

use http::HeaderMap;
use opentelemetry::metrics::Histogram;
use opentelemetry::propagation::{Extractor, Injector};
use opentelemetry::trace::{
    SpanContext, SpanId, TraceContextExt as _, TraceFlags, TraceId, TraceState,
};
use opentelemetry::{Context, KeyValue};
use rmcp::model::MetaObject;
use toolwright_runtime::__mcp::DURATION_BOUNDARIES;
use tracing::Span;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

const TRACEPARENT: &str = "traceparent";
const TRACESTATE: &str = "tracestate";

/// Makes `span` a child of the context the request carries: in `_meta` first (the MCP
/// conventions' place), else in the HTTP request's headers.
pub(crate) fn continue_trace(span: &Span, meta: &MetaObject, headers: Option<&HeaderMap>) {
    let from_meta = Fields::Meta(meta);
    let context = if meta.get_traceparent().is_some() {
        extract(&from_meta)
    } else if let Some(headers) = headers
        && headers.contains_key(TRACEPARENT)
    {
        extract(&Fields::Headers(headers))
    } else {
        // Another propagator's fields (B3, Jaeger), if the application set one.
        extract(&from_meta)
    };
    if context.span().span_context().is_valid() {
        // Fails only where no OpenTelemetry layer is installed: nothing to continue then.
        let _ = span.set_parent(context);
    }
}

/// Writes the trace context of `span` into a request's `_meta`.
pub(crate) fn send_context(span: &Span, meta: &mut MetaObject) {
    let context = span.context();
    if !context.span().span_context().is_valid() {
        return;
    }
    let mut fields = HashMap::new();
    if has_global_propagator() {
        opentelemetry::global::get_text_map_propagator(|propagator| {
            propagator.inject_context(&context, &mut fields);
        });
    } else {
        inject_w3c(context.span().span_context(), &mut fields);
    }
    for (key, value) in fields {
        meta.0.insert(key, serde_json::Value::String(value));
    }
}

/// Whether the application set a propagator (the default one has no fields).
fn has_global_propagator() -> bool {
    opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.fields().next().is_some()
    })
}

fn extract(fields: &dyn Extractor) -> Context {
    if has_global_propagator() {
        opentelemetry::global::get_text_map_propagator(|propagator| propagator.extract(fields))
    } else {
        extract_w3c(fields).map_or_else(Context::new, |remote| {
            Context::new().with_remote_span_context(remote)
        })
    }
}

/// Where a request's context is read from.
enum Fields<'a> {
    Meta(&'a MetaObject),
    Headers(&'a HeaderMap),
}

impl Extractor for Fields<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        match self {
            Fields::Meta(meta) => meta.0.get(key).and_then(serde_json::Value::as_str),
            Fields::Headers(headers) => headers.get(key).and_then(|value| value.to_str().ok()),
        }
    }

    fn keys(&self) -> Vec<&str> {
        match self {
            Fields::Meta(meta) => meta.0.keys().map(String::as_str).collect(),
            Fields::Headers(headers) => headers.keys().map(http::HeaderName::as_str).collect(),
        }
    }
}

/// A W3C `traceparent` (and `tracestate`) as the remote parent, by the Trace Context
/// recommendation's rules: version `00` exactly as specified, a later version by its first four
/// fields; all-zero ids and `ff` refused.
pub(crate) fn extract_w3c(fields: &dyn Extractor) -> Option<SpanContext> {
    let header = fields.get(TRACEPARENT)?.trim();
    let parts: Vec<&str> = header.split('-').collect();
    if parts.len() < 4 {
        return None;
    }
    let [version, trace, span, flags] = [parts[0], parts[1], parts[2], parts[3]];
    let lower_hex = |text: &str, len: usize| {
        text.len() == len
            && text
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    if !lower_hex(version, 2) || version == "ff" || (version == "00" && parts.len() != 4) {
        return None;
    }
    if !lower_hex(trace, 32) || !lower_hex(span, 16) || !lower_hex(flags, 2) {
        return None;
    }
    let trace = TraceId::from_hex(trace).ok()?;
    let span = SpanId::from_hex(span).ok()?;
    let flags = u8::from_str_radix(flags, 16).ok()?;
    if trace == TraceId::INVALID || span == SpanId::INVALID {
        return None;
    }
    let state = fields
        .get(TRACESTATE)
        .and_then(|state| TraceState::from_str(state).ok())
        .unwrap_or_default();
    let flags = TraceFlags::new(flags) & TraceFlags::SAMPLED;
    Some(SpanContext::new(trace, span, flags, true, state))
}

/// Writes `context` as W3C `traceparent` and `tracestate`.
pub(crate) fn inject_w3c(context: &SpanContext, fields: &mut dyn Injector) {
    if !context.is_valid() {
        return;
    }
    fields.set(
        TRACEPARENT,
        format!(
            "00-{}-{}-{:02x}",
            context.trace_id(),
            context.span_id(),
            context.trace_flags() & TraceFlags::SAMPLED
        ),
    );
    let state = context.trace_state().header();
    if !state.is_empty() {
        fields.set(TRACESTATE, state);
    }
}

/// Records a request's duration on `mcp.server.operation.duration` or
/// `mcp.client.operation.duration` (made from the global meter provider on first use).
pub(crate) fn record_duration(server: bool, elapsed: Duration, attributes: &[KeyValue]) {
    static SERVER: OnceLock<Histogram<f64>> = OnceLock::new();
    static CLIENT: OnceLock<Histogram<f64>> = OnceLock::new();
    let (cell, name, description) = if server {
        (
            &SERVER,
            "mcp.server.operation.duration",
            "MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.",
        )
    } else {
        (
            &CLIENT,
            "mcp.client.operation.duration",
            "The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received.",
        )
    };
    let histogram = cell.get_or_init(|| {
        opentelemetry::global::meter("toolwright-mcp")
            .f64_histogram(name)
            .with_unit("s")
            .with_description(description)
            .with_boundaries(DURATION_BOUNDARIES.to_vec())
            .build()
    });
    histogram.record(elapsed.as_secs_f64(), attributes);
}

#[cfg(test)]
mod tests {
    //! The W3C reading and writing here against the OpenTelemetry SDK's own
    //! `TraceContextPropagator`, on the Trace Context recommendation's valid and invalid
    //! headers.

    use std::collections::HashMap;

    use opentelemetry::propagation::TextMapPropagator as _;
    use opentelemetry::trace::TraceContextExt as _;
    use opentelemetry_sdk::propagation::TraceContextPropagator;

    use super::{extract_w3c, inject_w3c};

    const PARENTS: &[&str] = &[
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-ff",
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01",
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
        "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-future",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902g7-01",
        "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01",
        "",
        "garbage",
    ];

    /// Fields of the wrong length, which the recommendation refuses ("version", "trace-id",
    /// "parent-id" and "trace-flags" are exactly 2, 32, 16 and 2 hex digits) and the SDK reads as
    /// the number they spell: refused here, not compared.
    const WRONG_LENGTHS: &[&str] = &[
        "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",
        "0-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    ];

    #[test]
    fn fields_of_the_wrong_length_are_refused() {
        for parent in WRONG_LENGTHS {
            let fields = HashMap::from([("traceparent".to_owned(), (*parent).to_owned())]);
            assert!(extract_w3c(&fields).is_none(), "{parent}");
        }
    }

    const STATES: &[Option<&str>] = &[
        None,
        Some("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"),
        Some("rojo=00f067aa0ba902b7"),
        Some("not a valid state"),
        Some(""),
    ];

    #[test]
    fn reading_and_writing_agree_with_the_sdks_propagator() {
        let sdk = TraceContextPropagator::new();
        for parent in PARENTS {
            for state in STATES {
                let mut fields = HashMap::new();
                fields.insert("traceparent".to_owned(), (*parent).to_owned());
                if let Some(state) = state {
                    fields.insert("tracestate".to_owned(), (*state).to_owned());
                }
                let theirs = sdk.extract(&fields);
                let theirs = theirs.span().span_context().clone();
                let ours = extract_w3c(&fields);
                let case = format!("{parent} / {state:?}");
                match ours {
                    None => assert!(!theirs.is_valid(), "{case}: the SDK read {theirs:?}"),
                    Some(ours) => {
                        assert!(theirs.is_valid(), "{case}: the SDK refused it");
                        assert_eq!(ours.trace_id(), theirs.trace_id(), "{case}");
                        assert_eq!(ours.span_id(), theirs.span_id(), "{case}");
                        assert_eq!(ours.trace_flags(), theirs.trace_flags(), "{case}");
                        assert_eq!(ours.is_remote(), theirs.is_remote(), "{case}");
                        assert_eq!(
                            ours.trace_state().header(),
                            theirs.trace_state().header(),
                            "{case}"
                        );
                        // Written back, as the SDK writes it.
                        let mut written = HashMap::new();
                        inject_w3c(&ours, &mut written);
                        let mut expected = HashMap::new();
                        sdk.inject_context(
                            &opentelemetry::Context::new().with_remote_span_context(theirs),
                            &mut expected,
                        );
                        // The SDK writes an empty `tracestate`, which carries nothing; it is
                        // left out here (`_meta` stays as small as the request allows).
                        expected.retain(|key, value| key != "tracestate" || !value.is_empty());
                        assert_eq!(written, expected, "{case}");
                    }
                }
            }
        }
    }
}
