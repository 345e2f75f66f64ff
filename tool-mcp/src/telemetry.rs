//! MCP requests as the OpenTelemetry MCP conventions trace them (`docs/gen-ai/mcp.md`): a span
//! per request, `{mcp.method.name} {target}`, kind SERVER where the request is served and CLIENT
//! where it is sent; with the `otel` feature, the trace context the request carries (W3C
//! `traceparent` and `tracestate` in `params._meta`, SEP-414, or for HTTP in the headers)
//! continued, the client's own context sent, and the operation-duration histograms.

use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Instant;

use rmcp::model::{ErrorData, RequestId};
use rmcp::service::{RequestContext, RoleServer};
use tracing::Span;
use tracing::field::Empty;

#[cfg(feature = "otel")]
mod context;
#[cfg(feature = "otel")]
pub(crate) use context::{continue_trace, send_context};

/// The span name: the method, then the tool or prompt it is about.
struct Name<'a>(&'static str, Option<&'a str>);

impl fmt::Display for Name<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.1 {
            Some(target) => write!(f, "{} {target}", self.0),
            None => f.write_str(self.0),
        }
    }
}

/// A JSON-RPC request id as the conventions write it: the number or the string.
pub(crate) struct Id<'a>(pub(crate) &'a RequestId);

impl fmt::Display for Id<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            RequestId::Number(number) => write!(f, "{number}"),
            RequestId::String(text) => f.write_str(text),
        }
    }
}

/// What a request is about, for its span's name and attributes.
#[derive(Clone, Copy)]
pub(crate) enum Target<'a> {
    None,
    Tool(&'a str),
    Prompt(&'a str),
    Resource(&'a str),
}

impl<'a> Target<'a> {
    fn name(self) -> Option<&'a str> {
        match self {
            Target::Tool(name) | Target::Prompt(name) => Some(name),
            Target::None | Target::Resource(_) => None,
        }
    }
}

/// One traced MCP request: its span, and what its duration is recorded with.
pub(crate) struct Traced {
    pub(crate) span: Span,
    started: Option<Instant>,
    #[cfg(feature = "otel")]
    attributes: Vec<opentelemetry::KeyValue>,
    #[cfg(feature = "otel")]
    server: bool,
}

macro_rules! request_span {
    ($kind:literal, $method:expr, $target:expr) => {
        tracing::info_span!(
            "mcp_request",
            otel.name = %Name($method, $target.name()),
            otel.kind = $kind,
            otel.status_code = Empty,
            otel.status_description = Empty,
            mcp.method.name = $method,
            mcp.protocol.version = Empty,
            mcp.session.id = Empty,
            jsonrpc.request.id = Empty,
            network.transport = Empty,
            network.protocol.name = Empty,
            gen_ai.operation.name = Empty,
            gen_ai.tool.name = Empty,
            gen_ai.prompt.name = Empty,
            mcp.resource.uri = Empty,
            error.type = Empty,
            rpc.response.status_code = Empty,
        )
    };
}

impl Traced {
    /// The span of a request the server serves, child of the context the request carries.
    pub(crate) fn server(
        method: &'static str,
        target: Target<'_>,
        context: &RequestContext<RoleServer>,
    ) -> Self {
        let span = request_span!("server", method, target);
        let mut traced = Traced::new(span, true);
        if traced.started.is_none() {
            return traced;
        }
        let parts = context.extensions.get::<http::request::Parts>();
        let header = |name: &str| {
            parts
                .and_then(|parts| parts.headers.get(name))
                .and_then(|value| value.to_str().ok())
        };
        let version = context
            .meta
            .protocol_version()
            .map(|version| version.to_string())
            .or_else(|| header("mcp-protocol-version").map(str::to_owned))
            .or_else(|| {
                context
                    .peer
                    .peer_info()
                    .map(|info| info.protocol_version.to_string())
            });
        traced.set("mcp.method.name", method);
        if let Some(version) = version {
            traced.set("mcp.protocol.version", version);
        }
        if let Some(session) = header("mcp-session-id") {
            traced.span.record("mcp.session.id", session);
        }
        traced
            .span
            .record("jsonrpc.request.id", Id(&context.id).to_string());
        // Streamable HTTP: tcp; otherwise a byte stream of the process's, stdio.
        if parts.is_some() {
            traced.set("network.transport", "tcp");
            traced.set("network.protocol.name", "http");
        } else {
            traced.set("network.transport", "pipe");
        }
        traced.about(target);
        #[cfg(feature = "otel")]
        continue_trace(
            &traced.span,
            &context.meta,
            parts.map(|parts| &parts.headers),
        );
        traced
    }

    /// The span of a request the client sends, child of the current span.
    pub(crate) fn client(
        method: &'static str,
        target: Target<'_>,
        version: Option<String>,
    ) -> Self {
        let span = request_span!("client", method, target);
        let mut traced = Traced::new(span, false);
        if traced.started.is_none() {
            return traced;
        }
        traced.set("mcp.method.name", method);
        if let Some(version) = version {
            traced.set("mcp.protocol.version", version);
        }
        traced.about(target);
        traced
    }

    fn new(span: Span, server: bool) -> Self {
        let _ = server;
        Traced {
            started: (cfg!(feature = "otel") || !span.is_disabled()).then(Instant::now),
            span,
            #[cfg(feature = "otel")]
            attributes: Vec::new(),
            #[cfg(feature = "otel")]
            server,
        }
    }

    fn about(&mut self, target: Target<'_>) {
        match target {
            Target::Tool(name) => {
                self.set("gen_ai.operation.name", "execute_tool");
                self.set("gen_ai.tool.name", name.to_owned());
            }
            Target::Prompt(name) => self.set("gen_ai.prompt.name", name.to_owned()),
            // Not on the histogram: a URI is not a low-cardinality value.
            Target::Resource(uri) => {
                self.span.record("mcp.resource.uri", uri);
            }
            Target::None => {}
        }
    }

    /// Sets an attribute of both the span and the histogram.
    fn set(&mut self, key: &'static str, value: impl Into<String>) {
        let value = value.into();
        self.span.record(key, value.as_str());
        #[cfg(feature = "otel")]
        self.attributes
            .push(opentelemetry::KeyValue::new(key, value));
    }

    /// Records a request's end: `error` is the JSON-RPC error it got, or `tool_error` for a
    /// call whose result is an error.
    pub(crate) fn end(mut self, error: Option<End<'_>>) {
        let Some(started) = self.started.take() else {
            return;
        };
        match error {
            Some(End::Rpc(error)) => {
                let code = error.code.0.to_string();
                self.set("rpc.response.status_code", code.clone());
                self.set("error.type", code);
                self.span.record("otel.status_code", "error");
                self.span
                    .record("otel.status_description", error.message.as_ref());
            }
            Some(End::Failed(kind)) => {
                self.set("error.type", kind);
                self.span.record("otel.status_code", "error");
            }
            None => {}
        }
        #[cfg(feature = "otel")]
        context::record_duration(self.server, started.elapsed(), &self.attributes);
        #[cfg(not(feature = "otel"))]
        let _ = started;
    }
}

/// How a request failed.
pub(crate) enum End<'a> {
    /// With a JSON-RPC error.
    Rpc(&'a ErrorData),
    /// With a result that tells a failure (`tool_error`), or without an answer (a transport's
    /// failure, as a short fixed name).
    Failed(&'static str),
}

/// Serves a request under its span: the span is current while the request is served (the
/// tool's span is its child), and records how the request ended; `failed` tells a result that
/// reports a failure (a tool's error result).
pub(crate) fn served<T, F, P>(traced: Traced, request: F, failed: P) -> Observed<F, P>
where
    F: Future<Output = Result<T, ErrorData>>,
    P: FnOnce(&T) -> bool,
{
    Observed::new(traced, request, failed)
}

/// Sends a request under its client span (current while it is sent and answered) and records
/// how it ended: a JSON-RPC error by its code, a failure without an answer by a short fixed name,
/// a result that reports a failure (`failed`: a tool's error result) as `tool_error`.
pub(crate) fn sent<T, F, P>(traced: Traced, request: F, failed: P) -> Observed<F, P>
where
    F: Future<Output = Result<T, rmcp::ServiceError>>,
    P: FnOnce(&T) -> bool,
{
    Observed::new(traced, request, failed)
}

pin_project_lite::pin_project! {
    /// A request under its span, as [`served`] and [`sent`] make it. A future of its own, not an
    /// `async fn`: an `async fn` keeps the request's future it is given and, beside it, the
    /// instrumented one it awaits, two copies of a tool call's kilobytes that rmcp's task for
    /// each request then moves (BENCHMARKS.md, "MCP cost").
    pub(crate) struct Observed<F, P> {
        #[pin]
        request: F,
        traced: Option<Traced>,
        failed: Option<P>,
    }
}

impl<F, P> Observed<F, P> {
    fn new(traced: Traced, request: F, failed: P) -> Self {
        Observed {
            request,
            traced: Some(traced),
            failed: Some(failed),
        }
    }
}

/// A request's error as its span tells it.
pub(crate) trait Failure {
    fn end(&self) -> End<'_>;
}

impl Failure for ErrorData {
    fn end(&self) -> End<'_> {
        End::Rpc(self)
    }
}

impl Failure for rmcp::ServiceError {
    fn end(&self) -> End<'_> {
        match self {
            rmcp::ServiceError::McpError(error) => End::Rpc(error),
            other => End::Failed(service_error_type(other)),
        }
    }
}

impl<T, E, F, P> Future for Observed<F, P>
where
    E: Failure,
    F: Future<Output = Result<T, E>>,
    P: FnOnce(&T) -> bool,
{
    type Output = Result<T, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let answer = match this.traced {
            Some(traced) if !traced.span.is_disabled() => {
                let _current = traced.span.enter();
                ready!(this.request.poll(cx))
            }
            _ => ready!(this.request.poll(cx)),
        };
        if let (Some(traced), Some(failed)) = (this.traced.take(), this.failed.take()) {
            match &answer {
                Ok(result) if failed(result) => traced.end(Some(End::Failed("tool_error"))),
                Ok(_) => traced.end(None),
                Err(error) => traced.end(Some(error.end())),
            }
        }
        Poll::Ready(answer)
    }
}

/// A request's failure without a JSON-RPC error, as `error.type`.
fn service_error_type(error: &rmcp::ServiceError) -> &'static str {
    match error {
        rmcp::ServiceError::Timeout { .. } => "timeout",
        rmcp::ServiceError::Cancelled { .. } => "cancelled",
        rmcp::ServiceError::TransportClosed => "transport_closed",
        _ => "_OTHER",
    }
}
