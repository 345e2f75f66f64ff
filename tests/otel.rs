//! OpenTelemetry (issue 45): the spans and metrics of tool calls and MCP requests, as a tracing
//! backend receives them. The application's setup is the real one (`tracing-opentelemetry`'s
//! layer, the OpenTelemetry SDK, the `opentelemetry-otlp` exporter over OTLP/HTTP protobuf);
//! the receiver is an HTTP server on loopback that decodes what arrives with the official
//! protobuf definitions (the `opentelemetry-proto` crate), and the checks read the spans field
//! for field. Alone in its binary: the subscriber and the providers are the process's.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::WithExportConfig as _;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::trace::v1::Span;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::SdkTracerProvider;
use prost::Message as _;
use serde_json::json;
use toolwright::exec::BatchOptions;
use toolwright::{ToolCall, Toolbox, tool};
use tracing_subscriber::layer::SubscriberExt as _;

#[path = "support/http.rs"]
mod http_support;

/// Adds two integers.
#[tool(concurrent)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Always panics.
#[tool]
fn boom() -> u32 {
    panic!("boom")
}

/// Takes longer than it may.
#[tool(timeout = "50ms")]
async fn slow() -> u32 {
    tokio::time::sleep(Duration::from_secs(5)).await;
    1
}

/// Waits, with no timeout of its own (the cancelled batch's running call).
#[tool]
async fn wait() -> u32 {
    tokio::time::sleep(Duration::from_secs(5)).await;
    1
}

fn toolbox() -> Toolbox {
    Toolbox::new()
        .with(AddTool)
        .unwrap()
        .with(BoomTool)
        .unwrap()
        .with(SlowTool)
        .unwrap()
        .with(WaitTool)
        .unwrap()
        .with_retry_budget(3)
}

/// What the receiver got: every span, and the names of the metrics with their data points'
/// attributes.
#[derive(Default)]
struct Received {
    spans: Vec<Span>,
    metrics: Vec<(String, Vec<BTreeMap<String, String>>)>,
}

struct Telemetry {
    received: Arc<Mutex<Received>>,
    traces: SdkTracerProvider,
    metrics: SdkMeterProvider,
}

impl Telemetry {
    /// Sends what is batched, and waits for the receiver to have it.
    fn flush(&self) {
        self.traces.force_flush().unwrap();
        self.metrics.force_flush().unwrap();
    }

    fn spans(&self) -> Vec<Span> {
        self.received.lock().unwrap().spans.clone()
    }
}

/// The receiver, the exporters and the subscriber, set up once for the process.
fn telemetry() -> &'static Telemetry {
    static TELEMETRY: OnceLock<Telemetry> = OnceLock::new();
    TELEMETRY.get_or_init(|| {
        let received = Arc::new(Mutex::new(Received::default()));
        let address = receiver(Arc::clone(&received));
        let endpoint = format!("http://{address}");
        let spans = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_endpoint(format!("{endpoint}/v1/traces"))
            .build()
            .unwrap();
        let traces = SdkTracerProvider::builder()
            .with_batch_exporter(spans)
            .build();
        let measurements = opentelemetry_otlp::MetricExporter::builder()
            .with_http()
            .with_endpoint(format!("{endpoint}/v1/metrics"))
            .build()
            .unwrap();
        let metrics = SdkMeterProvider::builder()
            .with_periodic_exporter(measurements)
            .build();
        opentelemetry::global::set_meter_provider(metrics.clone());
        // No propagator is set: the MCP client and server then speak W3C Trace Context
        // themselves, as SEP-414 says.
        let layer = tracing_opentelemetry::layer().with_tracer(traces.tracer("otel-test"));
        tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer))
            .unwrap();
        Telemetry {
            received,
            traces,
            metrics,
        }
    })
}

/// An OTLP/HTTP receiver on a loopback port, in a thread of its own: it decodes each export
/// request and keeps what it holds.
fn receiver(received: Arc<Mutex<Received>>) -> std::net::SocketAddr {
    let (sender, address) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            sender.send(listener.local_addr().unwrap()).unwrap();
            let service =
                hyper::service::service_fn(move |request: http::Request<hyper::body::Incoming>| {
                    let received = Arc::clone(&received);
                    async move {
                        let path = request.uri().path().to_owned();
                        let body: Bytes = request.into_body().collect().await?.to_bytes();
                        let mut received = received.lock().unwrap();
                        match path.as_str() {
                            "/v1/traces" => {
                                let export = ExportTraceServiceRequest::decode(body).unwrap();
                                for resource in export.resource_spans {
                                    for scope in resource.scope_spans {
                                        received.spans.extend(scope.spans);
                                    }
                                }
                            }
                            "/v1/metrics" => {
                                let export = ExportMetricsServiceRequest::decode(body).unwrap();
                                for resource in export.resource_metrics {
                                    for scope in resource.scope_metrics {
                                        for metric in scope.metrics {
                                            received
                                                .metrics
                                                .push((metric.name.clone(), points(&metric)));
                                        }
                                    }
                                }
                            }
                            other => panic!("an export to {other}"),
                        }
                        Ok::<_, hyper::Error>(
                            http::Response::builder()
                                .header("content-type", "application/x-protobuf")
                                .body(Full::new(Bytes::new()))
                                .unwrap(),
                        )
                    }
                });
            http_support::serve_hyper(listener, service);
            std::future::pending::<()>().await;
        });
    });
    address.recv().unwrap()
}

/// The attributes of a histogram's data points.
fn points(
    metric: &opentelemetry_proto::tonic::metrics::v1::Metric,
) -> Vec<BTreeMap<String, String>> {
    use opentelemetry_proto::tonic::metrics::v1::metric::Data;
    match &metric.data {
        Some(Data::Histogram(histogram)) => histogram
            .data_points
            .iter()
            .map(|point| attributes_of(&point.attributes))
            .collect(),
        _ => Vec::new(),
    }
}

fn attributes_of(
    attributes: &[opentelemetry_proto::tonic::common::v1::KeyValue],
) -> BTreeMap<String, String> {
    attributes
        .iter()
        .map(|kv| {
            let value = match kv.value.as_ref().and_then(|v| v.value.as_ref()) {
                Some(Any::StringValue(text)) => text.clone(),
                Some(Any::IntValue(n)) => n.to_string(),
                Some(Any::BoolValue(b)) => b.to_string(),
                Some(Any::DoubleValue(x)) => x.to_string(),
                other => format!("{other:?}"),
            };
            (kv.key.clone(), value)
        })
        .collect()
}

fn attributes(span: &Span) -> BTreeMap<String, String> {
    attributes_of(&span.attributes)
}

/// The span of the call with id `call_id`.
fn call_span<'a>(spans: &'a [Span], call_id: &str) -> &'a Span {
    spans
        .iter()
        .find(|span| {
            attributes(span)
                .get("gen_ai.tool.call.id")
                .map(String::as_str)
                == Some(call_id)
        })
        .unwrap_or_else(|| panic!("no span for call {call_id}: {:#?}", names(spans)))
}

fn names(spans: &[Span]) -> Vec<&str> {
    spans.iter().map(|span| span.name.as_str()).collect()
}

const INTERNAL: i32 = 1;
const SERVER: i32 = 2;
const CLIENT: i32 = 3;
const STATUS_UNSET: i32 = 0;
const STATUS_ERROR: i32 = 2;

fn status(span: &Span) -> (i32, String) {
    span.status
        .as_ref()
        .map_or((STATUS_UNSET, String::new()), |status| {
            (status.code, status.message.clone())
        })
}

/// Calls run one at a time: each test flushes and reads what the receiver has.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn alone() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The test toolbox as an MCP server over Streamable HTTP on a loopback port: its address.
async fn serve_toolbox(stateful: bool) -> std::net::SocketAddr {
    let server = toolwright::mcp::McpServer::new(Arc::new(toolbox()), ()).unwrap();
    http_support::serve(server.http_service(stateful)).await
}

/// Whether a data point has the attribute `key` with `value`.
fn has(point: &BTreeMap<String, String>, key: &str, value: &str) -> bool {
    point.get(key).map(String::as_str) == Some(value)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_valid_call_is_an_execute_tool_span_without_its_arguments_or_result() {
    let _alone = alone();
    let telemetry = telemetry();
    let call = ToolCall::new("valid-1", "add", json!({"a": 1, "b": "2"}));
    let result = toolbox().execute_blocking(&call, &());
    assert_eq!(result.text(), "3");
    telemetry.flush();
    let spans = telemetry.spans();
    let span = call_span(&spans, "valid-1");
    assert_eq!(span.name, "execute_tool add");
    assert_eq!(span.kind, INTERNAL);
    assert_eq!(status(span).0, STATUS_UNSET);
    let attributes = attributes(span);
    let expected = [
        ("gen_ai.operation.name", "execute_tool"),
        ("gen_ai.tool.name", "add"),
        ("gen_ai.tool.call.id", "valid-1"),
        ("gen_ai.tool.description", "Adds two integers."),
        ("gen_ai.tool.type", "function"),
        ("toolwright.outcome", "ok"),
        ("toolwright.repairs", "0"),
        ("toolwright.coercions", "1"),
    ];
    for (key, value) in expected {
        assert_eq!(
            attributes.get(key).map(String::as_str),
            Some(value),
            "{key}: {attributes:#?}"
        );
    }
    assert!(attributes.contains_key("toolwright.duration_us"));
    // Nothing the application did not ask for.
    for key in [
        "error.type",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "toolwright.retries_left",
    ] {
        assert!(
            !attributes.contains_key(key),
            "{key} recorded: {attributes:#?}"
        );
    }
    let leaked: Vec<&String> = attributes
        .values()
        .filter(|value| value.contains("\"2\""))
        .collect();
    assert!(leaked.is_empty(), "the arguments leaked: {leaked:?}");
}

#[test]
fn arguments_and_results_are_recorded_only_when_the_application_opts_in() {
    let _alone = alone();
    let telemetry = telemetry();
    let toolbox = toolbox().capture_content(true);
    let call = ToolCall::new("content-1", "add", json!({"a": 20, "b": 22}));
    assert_eq!(toolbox.execute_blocking(&call, &()).text(), "42");
    let invalid = ToolCall::new("content-2", "add", json!({"a": "secret-value"}));
    assert!(toolbox.execute_blocking(&invalid, &()).is_error);
    telemetry.flush();
    let spans = telemetry.spans();
    let valid = attributes(call_span(&spans, "content-1"));
    assert_eq!(valid["gen_ai.tool.call.arguments"], r#"{"a":20,"b":22}"#);
    assert_eq!(valid["gen_ai.tool.call.result"], "42");
    let failed = call_span(&spans, "content-2");
    assert_eq!(
        attributes(failed)["gen_ai.tool.call.arguments"],
        r#"{"a":"secret-value"}"#
    );
    assert!(!attributes(failed).contains_key("gen_ai.tool.call.result"));
    let (code, message) = status(failed);
    assert_eq!(code, STATUS_ERROR);
    assert!(
        message.contains("invalid arguments for tool `add`"),
        "{message}"
    );

    // The same calls without the opt-in: the value appears nowhere.
    let quiet = ToolCall::new("content-3", "add", json!({"a": "secret-value"}));
    assert!(self::toolbox().execute_blocking(&quiet, &()).is_error);
    telemetry.flush();
    let spans = telemetry.spans();
    let span = call_span(&spans, "content-3");
    let leaks: Vec<String> = attributes(span)
        .into_iter()
        .map(|(key, value)| format!("{key}={value}"))
        .chain([status(span).1])
        .filter(|text| text.contains("secret-value"))
        .collect();
    assert!(leaks.is_empty(), "the arguments leaked: {leaks:?}");
}

#[test]
fn failures_have_an_error_type_and_the_error_status() {
    let _alone = alone();
    let telemetry = telemetry();
    let toolbox = toolbox();
    let runtime = runtime();
    runtime.block_on(async {
        let invalid = ToolCall::new("fail-invalid", "add", json!({"a": "x"}));
        assert!(toolbox.execute(&invalid, &()).await.is_error);
        let timeout = ToolCall::new("fail-timeout", "slow", json!({}));
        assert!(toolbox.execute(&timeout, &()).await.is_error);
        let panic = ToolCall::new("fail-panic", "boom", json!({}));
        assert!(toolbox.execute(&panic, &()).await.is_error);
        let unknown = ToolCall::new("fail-unknown", "ad", json!({}));
        assert!(toolbox.execute(&unknown, &()).await.is_error);
    });
    telemetry.flush();
    let spans = telemetry.spans();
    for (id, name, error, outcome) in [
        (
            "fail-invalid",
            "execute_tool add",
            "invalid_arguments",
            "invalid_arguments",
        ),
        ("fail-timeout", "execute_tool slow", "timeout", "timed_out"),
        ("fail-panic", "execute_tool boom", "panic", "panic"),
        (
            "fail-unknown",
            "execute_tool ad",
            "unknown_tool",
            "unknown_tool",
        ),
    ] {
        let span = call_span(&spans, id);
        let attributes = attributes(span);
        assert_eq!(span.name, name);
        assert_eq!(span.kind, INTERNAL);
        assert_eq!(attributes["error.type"], error, "{id}");
        assert_eq!(attributes["toolwright.outcome"], outcome, "{id}");
        assert_eq!(attributes["gen_ai.operation.name"], "execute_tool");
        let (code, message) = status(span);
        assert_eq!(code, STATUS_ERROR, "{id}");
        // The message may quote the arguments: it is the application's to ask for.
        assert_eq!(message, "", "{id}");
    }
    // The invalid call spent one of the three the budget allows.
    assert_eq!(
        attributes(call_span(&spans, "fail-invalid"))["toolwright.retries_left"],
        "2"
    );
    // The metric: one histogram of every call, by tool and error.
    let metrics = telemetry.received.lock().unwrap().metrics.clone();
    let points: Vec<&BTreeMap<String, String>> = metrics
        .iter()
        .filter(|(name, _)| name == "toolwright.tool.call.duration")
        .flat_map(|(_, points)| points)
        .collect();
    assert!(
        points
            .iter()
            .any(|point| has(point, "gen_ai.tool.name", "slow")
                && has(point, "error.type", "timeout")),
        "{points:#?}"
    );
    assert!(
        points.iter().any(
            |point| has(point, "gen_ai.tool.name", "add")
                && !point.contains_key("error.type")
        ),
        "{points:#?}"
    );
    // A name no tool has stays off the histogram.
    assert!(
        points
            .iter()
            .all(|point| point.get("gen_ai.tool.name").map(String::as_str) != Some("ad"))
    );
}

#[test]
fn a_batch_is_the_parent_of_its_calls() {
    let _alone = alone();
    let telemetry = telemetry();
    let calls = [
        ToolCall::new("batch-1", "add", json!({"a": 1, "b": 2})),
        ToolCall::new("batch-2", "boom", json!({})),
    ];
    let results = toolbox().execute_all_blocking(&calls, &());
    assert_eq!(results.len(), 2);
    telemetry.flush();
    let spans = telemetry.spans();
    let first = call_span(&spans, "batch-1");
    let second = call_span(&spans, "batch-2");
    let batch = spans
        .iter()
        .find(|span| span.span_id == first.parent_span_id)
        .expect("the batch's span");
    assert_eq!(batch.name, "execute_tools");
    assert_eq!(batch.kind, INTERNAL);
    assert_eq!(second.parent_span_id, batch.span_id);
    assert_eq!(first.trace_id, batch.trace_id);
    assert_eq!(second.trace_id, batch.trace_id);
    let attributes = attributes(batch);
    assert_eq!(attributes["toolwright.calls"], "2");
    assert_eq!(attributes["toolwright.cancelled"], "0");
    // A batch of one call is that call.
    let one = [ToolCall::new("batch-3", "add", json!({"a": 1, "b": 2}))];
    let _ = toolbox().execute_all_blocking(&one, &());
    telemetry.flush();
    let spans = telemetry.spans();
    assert!(call_span(&spans, "batch-3").parent_span_id.is_empty());
}

#[test]
fn a_cancelled_batch_records_why_its_calls_ended() {
    let _alone = alone();
    let telemetry = telemetry();
    let toolbox = toolbox();
    let calls = [
        ToolCall::new("cancel-1", "wait", json!({})),
        ToolCall::new("cancel-2", "add", json!({"a": 1, "b": 2})),
    ];
    let runtime = runtime();
    runtime.block_on(async {
        let token = toolwright::exec::Cancellation::new();
        let batch = toolbox.execute_all_with(
            &calls,
            &(),
            BatchOptions::new()
                .concurrency(1)
                .cancellation(token.clone()),
        );
        // The first call is running (the second waits for it) when the batch is cancelled.
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            token.cancel();
        });
        let results = batch.await;
        assert!(results.iter().all(|result| result.is_error));
    });
    telemetry.flush();
    let spans = telemetry.spans();
    for id in ["cancel-1", "cancel-2"] {
        let attributes = attributes(call_span(&spans, id));
        assert_eq!(
            attributes["error.type"], "cancelled",
            "{id}: {attributes:#?}"
        );
    }
}

/// toolwright's MCP client calls a toolwright MCP server over Streamable HTTP: one trace, from
/// the client's tool span through the client's and the server's request spans to the server's
/// tool span, the context carried in `params._meta`.
#[test]
fn an_mcp_call_from_toolwrights_client_to_its_server_is_one_trace() {
    use toolwright::mcp::rmcp::model::ProtocolVersion;
    use toolwright::mcp::rmcp::transport::StreamableHttpClientTransport;
    use toolwright::mcp::{McpClient, McpTools, ToolboxExt as _};

    let _alone = alone();
    let telemetry = telemetry();
    let runtime = runtime();
    runtime.block_on(async {
        let address = serve_toolbox(true).await;
        // A revision with sessions, so that the server's span names one.
        let running = McpClient::new()
            .with_protocol_versions([ProtocolVersion::V_2025_11_25])
            .connect(StreamableHttpClientTransport::from_uri(format!(
                "http://{address}/mcp"
            )))
            .await
            .unwrap();
        let tools = McpTools::list(running.peer()).await.unwrap();
        let remote = Toolbox::new().with_mcp_tools(tools).unwrap();
        let call = ToolCall::new("mcp-1", "add", json!({"a": 2, "b": 3}));
        assert_eq!(remote.execute(&call, &()).await.text(), "5");
        let _ = running.cancel().await;
    });
    telemetry.flush();
    let spans = telemetry.spans();
    let by_id = |id: &[u8]| spans.iter().find(|span| span.span_id == id);
    let caller = call_span(&spans, "mcp-1");
    let client = spans
        .iter()
        .find(|span| span.parent_span_id == caller.span_id)
        .expect("the client's request span");
    assert_eq!(client.name, "tools/call add");
    assert_eq!(client.kind, CLIENT);
    let server = spans
        .iter()
        .find(|span| span.parent_span_id == client.span_id)
        .unwrap_or_else(|| panic!("no server span under the client's: {:#?}", names(&spans)));
    assert_eq!(server.name, "tools/call add");
    assert_eq!(server.kind, SERVER);
    let tool = spans
        .iter()
        .find(|span| span.parent_span_id == server.span_id)
        .expect("the server's tool span");
    assert_eq!(tool.name, "execute_tool add");
    assert_eq!(tool.kind, INTERNAL);
    for span in [client, server, tool] {
        assert_eq!(
            span.trace_id, caller.trace_id,
            "{} is in another trace",
            span.name
        );
    }
    assert!(
        by_id(&caller.parent_span_id).is_none(),
        "the caller's span is the root"
    );
    for (span, side) in [(client, "client"), (server, "server")] {
        let attributes = attributes(span);
        assert_eq!(attributes["mcp.method.name"], "tools/call", "{side}");
        assert_eq!(attributes["gen_ai.tool.name"], "add", "{side}");
        assert_eq!(
            attributes["gen_ai.operation.name"], "execute_tool",
            "{side}"
        );
        assert_eq!(attributes["mcp.protocol.version"], "2025-11-25", "{side}");
        assert!(
            attributes.contains_key("jsonrpc.request.id"),
            "{side}: {attributes:#?}"
        );
        assert!(!attributes.contains_key("error.type"), "{side}");
    }
    let server_attributes = attributes(server);
    assert_eq!(server_attributes["network.transport"], "tcp");
    assert_eq!(server_attributes["network.protocol.name"], "http");
    assert!(
        server_attributes.contains_key("mcp.session.id"),
        "{server_attributes:#?}"
    );
    // The server traced the listing too, each request a span of its own.
    assert!(
        spans
            .iter()
            .any(|span| span.name == "tools/list" && span.kind == SERVER)
    );
    assert!(
        spans
            .iter()
            .any(|span| span.name == "initialize" && span.kind == SERVER)
    );
    // And the MCP conventions' duration histograms.
    let metrics = telemetry.received.lock().unwrap().metrics.clone();
    for name in [
        "mcp.server.operation.duration",
        "mcp.client.operation.duration",
    ] {
        assert!(
            metrics.iter().any(|(metric, points)| metric == name
                && points
                    .iter()
                    .any(|point| has(point, "mcp.method.name", "tools/call")
                        && has(point, "gen_ai.tool.name", "add"))),
            "{name}: {metrics:#?}"
        );
    }
}

/// A failed MCP call: the server's span has the JSON-RPC error code as `error.type` and
/// `rpc.response.status_code`, a tool's error result `tool_error`.
#[test]
fn a_failed_mcp_request_has_its_error_code() {
    use toolwright::mcp::rmcp::ServiceExt as _;
    use toolwright::mcp::rmcp::model::CallToolRequestParams;
    use toolwright::mcp::rmcp::transport::StreamableHttpClientTransport;

    let _alone = alone();
    let telemetry = telemetry();
    let runtime = runtime();
    runtime.block_on(async {
        let address = serve_toolbox(true).await;
        let client = ()
            .serve(StreamableHttpClientTransport::from_uri(format!(
                "http://{address}/mcp"
            )))
            .await
            .unwrap();
        assert!(
            client
                .call_tool(CallToolRequestParams::new("nope"))
                .await
                .is_err()
        );
        let failed = client
            .call_tool(CallToolRequestParams::new("boom"))
            .await
            .unwrap();
        assert_eq!(failed.is_error, Some(true));
        let _ = client.cancel().await;
    });
    telemetry.flush();
    let spans = telemetry.spans();
    let server = |name: &str| {
        spans
            .iter()
            .find(|span| span.name == name && span.kind == SERVER)
            .unwrap_or_else(|| panic!("no {name}: {:#?}", names(&spans)))
    };
    let unknown = server("tools/call nope");
    let attributes = attributes(unknown);
    assert_eq!(attributes["error.type"], "-32602");
    assert_eq!(attributes["rpc.response.status_code"], "-32602");
    assert_eq!(status(unknown).0, STATUS_ERROR);
    assert!(status(unknown).1.contains("unknown tool"));
    let boom = server("tools/call boom");
    assert_eq!(self::attributes(boom)["error.type"], "tool_error");
    assert_eq!(status(boom).0, STATUS_ERROR);
}

/// A client that sends its trace context in the HTTP request's headers, not in `_meta` (rmcp's
/// own client, with a `traceparent` header): the server continues that trace.
#[test]
fn an_mcp_request_continues_the_trace_in_its_http_headers() {
    use std::collections::HashMap;

    use toolwright::mcp::rmcp::ServiceExt as _;
    use toolwright::mcp::rmcp::model::CallToolRequestParams;
    use toolwright::mcp::rmcp::transport::StreamableHttpClientTransport;
    use toolwright::mcp::rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

    const TRACE: &str = "5bf92f3577b34da6a3ce929d0e0e4736";
    const PARENT: &str = "10f067aa0ba902b7";
    let _alone = alone();
    let telemetry = telemetry();
    let runtime = runtime();
    runtime.block_on(async {
        let address = serve_toolbox(false).await;
        let headers = HashMap::from([(
            http::HeaderName::from_static("traceparent"),
            http::HeaderValue::from_str(&format!("00-{TRACE}-{PARENT}-01")).unwrap(),
        )]);
        let config = StreamableHttpClientTransportConfig::with_uri(format!("http://{address}/mcp"))
            .custom_headers(headers);
        let client = ().serve(StreamableHttpClientTransport::from_config(config)).await.unwrap();
        let mut arguments = serde_json::Map::new();
        arguments.insert("a".into(), json!(1));
        arguments.insert("b".into(), json!(1));
        let answer = client
            .call_tool(CallToolRequestParams::new("add").with_arguments(arguments))
            .await
            .unwrap();
        assert_eq!(answer.is_error, Some(false));
        let _ = client.cancel().await;
    });
    telemetry.flush();
    let spans = telemetry.spans();
    let server = spans
        .iter()
        .find(|span| {
            span.name == "tools/call add"
                && span.kind == SERVER
                && span.parent_span_id == hex(PARENT)
        })
        .unwrap_or_else(|| {
            panic!(
                "no server span under the header's parent: {:#?}",
                names(&spans)
            )
        });
    assert_eq!(server.trace_id, hex(TRACE));
    let tool = spans
        .iter()
        .find(|span| span.parent_span_id == server.span_id)
        .expect("the tool's span");
    assert_eq!(tool.name, "execute_tool add");
    assert_eq!(tool.trace_id, hex(TRACE));
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(&text[at..at + 2], 16).unwrap())
        .collect()
}

/// Pays; a person approves each payment.
#[tool(needs_approval)]
fn pay(amount: i64) -> i64 {
    amount
}

/// The other entry paths make the same span: a call read from a provider's body, a call held
/// for approval then approved, one rejected, and one a hook denies.
#[test]
fn every_entry_path_makes_the_same_span() {
    use toolwright::exec::{Before, Hook};
    use toolwright::provider::Provider;
    use toolwright::{ToolDefinition, ToolResult};

    struct NoBigAdds;
    impl Hook<()> for NoBigAdds {
        fn before(&self, _: &ToolDefinition, call: &ToolCall, _: &()) -> Before {
            if call.call_id.as_str() == "path-denied" {
                Before::Deny("too big".into())
            } else {
                Before::Continue
            }
        }
        fn after(&self, _: &ToolDefinition, _: &ToolCall, _: &(), _: &mut ToolResult) {}
    }

    let _alone = alone();
    let telemetry = telemetry();
    let toolbox = toolbox().with(PayTool).unwrap();
    let body = json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant",
        "tool_calls": [{"id": "path-body", "type": "function",
            "function": {"name": "add", "arguments": "{\"a\": 1, \"b\": 2}"}}],
    }}]});
    let turn = toolbox.read_response(Provider::OpenAiChat, &body).unwrap();
    assert_eq!(
        toolbox.execute_all_blocking(&turn.calls, &())[0].text(),
        "3"
    );
    let held = ToolCall::new("path-held", "pay", json!({"amount": 5}));
    assert!(toolbox.execute_blocking(&held, &()).interrupt().is_some());
    assert_eq!(toolbox.approve_blocking(&held, &()).text(), "5");
    let rejected = ToolCall::new("path-rejected", "pay", json!({"amount": 7}));
    assert!(toolbox.reject(&rejected, "no").is_error);
    let hooked = toolbox.with_hook(NoBigAdds);
    let denied = ToolCall::new("path-denied", "add", json!({"a": 1, "b": 2}));
    assert!(hooked.execute_blocking(&denied, &()).is_error);
    telemetry.flush();
    let spans = telemetry.spans();
    let body = attributes(call_span(&spans, "path-body"));
    assert_eq!(body["gen_ai.tool.name"], "add");
    assert_eq!(body["toolwright.outcome"], "ok");
    // Held, then approved: two spans of the one call, an interrupt (not a failure), then its run.
    let held: Vec<&Span> = spans
        .iter()
        .filter(|span| {
            attributes(span)
                .get("gen_ai.tool.call.id")
                .map(String::as_str)
                == Some("path-held")
        })
        .collect();
    let outcomes: Vec<String> = held
        .iter()
        .map(|span| attributes(span)["toolwright.outcome"].clone())
        .collect();
    assert_eq!(outcomes, ["interrupt", "ok"]);
    assert!(held.iter().all(|span| status(span).0 == STATUS_UNSET));
    for id in ["path-rejected", "path-denied"] {
        let span = call_span(&spans, id);
        assert_eq!(attributes(span)["error.type"], "refused", "{id}");
        assert_eq!(status(span).0, STATUS_ERROR, "{id}");
    }
}
