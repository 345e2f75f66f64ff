//! MCP both ways, in one process: a toolbox served by `McpServer` to rmcp's own client over an
//! in-memory pipe, and that server's tools used as another toolbox's through `McpTools`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CancelledNotificationParam, ClientRequest, ElicitRequestParams,
    ElicitResult, ElicitationAction, ErrorCode, PaginatedRequestParams, Request,
};
use rmcp::service::{PeerRequestOptions, RequestContext, RoleClient, RunningService, ServiceError};
use rmcp::{ClientHandler, ServiceExt};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use toolwright::mcp::{McpCallError, McpClient, McpServer, McpTools, ToolboxExt as _};
use toolwright::{CallInfo, ToolCall, ToolOutput, Toolbox, tool};

/// Add two integers.
#[tool(read_only, idempotent)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// A city's weather.
#[derive(Serialize, JsonSchema)]
struct Weather {
    city: String,
    temperature: i32,
}

/// Get the weather for a city.
#[tool(read_only, display = "Weather")]
fn get_weather(city: String) -> Weather {
    Weather {
        city,
        temperature: 21,
    }
}

/// A one-pixel PNG.
#[tool]
fn pixel() -> ToolOutput {
    ToolOutput::parts(toolwright::ContentPart::image(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
        "image/png",
    ))
}

/// Always fails.
#[tool]
fn explode() -> String {
    panic!("the secret is sk-do-not-leak")
}

/// Delete a file (needs a person's approval).
#[tool(needs_approval, destructive)]
fn delete_file(path: String) -> String {
    format!("deleted {path}")
}

static SEEN_CANCELLED: AtomicUsize = AtomicUsize::new(0);

/// Count to `to`, reporting progress at every step, until cancelled.
#[tool(blocking)]
fn count(to: u32, #[tool(call_info)] info: &CallInfo) -> u32 {
    for step in 1..=to {
        if info.is_cancelled() {
            SEEN_CANCELLED.fetch_add(1, Ordering::SeqCst);
            return step;
        }
        info.report_progress(f64::from(step), Some(f64::from(to)), Some("counting"));
        std::thread::sleep(Duration::from_millis(20));
    }
    to
}

pub(crate) fn toolbox() -> Toolbox {
    Toolbox::new()
        .with_all((
            AddTool,
            GetWeatherTool,
            PixelTool,
            ExplodeTool,
            DeleteFileTool,
            CountTool,
        ))
        .unwrap()
}

/// A server over an in-memory pipe, and rmcp's client (with `handler`) at the other end.
async fn connect<H: ClientHandler>(
    server: McpServer<()>,
    handler: H,
) -> RunningService<RoleClient, H> {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    handler.serve(client_io).await.unwrap()
}

fn server() -> McpServer<()> {
    McpServer::new(Arc::new(toolbox()), ()).unwrap()
}

pub(crate) fn call(name: &str, arguments: Value) -> CallToolRequestParams {
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object")
    };
    CallToolRequestParams::new(name.to_owned()).with_arguments(arguments)
}

pub(crate) fn text(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.clone()))
        .collect()
}

#[tokio::test]
async fn tools_are_listed_in_registration_order_a_page_at_a_time() {
    let client = connect(server().page_size(4), McpClient::new()).await;
    let first = client.list_tools(None).await.unwrap();
    let names: Vec<_> = first.tools.iter().map(|t| t.name.to_string()).collect();
    assert_eq!(names, ["add", "get_weather", "pixel", "explode"]);
    let cursor = first.next_cursor.clone().expect("a second page");
    let second = client
        .list_tools(Some(
            PaginatedRequestParams::default().with_cursor(Some(cursor)),
        ))
        .await
        .unwrap();
    let names: Vec<_> = second.tools.iter().map(|t| t.name.to_string()).collect();
    assert_eq!(names, ["delete_file", "count"]);
    assert!(second.next_cursor.is_none());
    // The MCP form: schemas, title, annotations.
    let weather = &first.tools[1];
    assert_eq!(weather.title.as_deref(), Some("Weather"));
    assert_eq!(weather.input_schema["required"], json!(["city"]));
    let output = weather.output_schema.as_ref().expect("an output schema");
    assert_eq!(output["type"], "object");
    assert_eq!(
        first.tools[0].annotations.as_ref().unwrap().read_only_hint,
        Some(true)
    );
    assert_eq!(client.list_all_tools().await.unwrap().len(), 6);

    let refused = client
        .list_tools(Some(
            PaginatedRequestParams::default().with_cursor(Some("ten".into())),
        ))
        .await
        .unwrap_err();
    let ServiceError::McpError(error) = refused else {
        panic!("a JSON-RPC error, not {refused:?}")
    };
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    assert!(
        error.message.contains("invalid cursor"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn calls_run_through_the_argument_pipeline() {
    let client = connect(server(), McpClient::new()).await;
    let ok = client
        .call_tool(call("add", json!({"a": 2, "b": 3})))
        .await
        .unwrap();
    assert_eq!((text(&ok), ok.is_error), ("5".into(), Some(false)));

    // Coerced: numbers sent as text, as models do.
    let coerced = client
        .call_tool(call("add", json!({"a": "2", "b": "40"})))
        .await
        .unwrap();
    assert_eq!(
        (text(&coerced), coerced.is_error),
        ("42".into(), Some(false))
    );

    // Wrong: every problem in one result the model reads, marked as an error.
    let wrong = client
        .call_tool(call("add", json!({"a": "two", "c": 1})))
        .await
        .unwrap();
    assert_eq!(wrong.is_error, Some(true));
    let feedback = text(&wrong);
    for part in ["`a`", "integer", "`b`", "`c`"] {
        assert!(feedback.contains(part), "{part} missing from {feedback}");
    }

    // No arguments at all is an empty object.
    let missing = client
        .call_tool(CallToolRequestParams::new("add"))
        .await
        .unwrap();
    assert_eq!(missing.is_error, Some(true));
    assert!(text(&missing).contains("`a`"), "{}", text(&missing));
}

#[tokio::test]
async fn an_unknown_tool_is_a_json_rpc_error_naming_the_close_matches() {
    let client = connect(server(), McpClient::new()).await;
    let refused = client
        .call_tool(call("get_wether", json!({"city": "Oslo"})))
        .await
        .unwrap_err();
    let ServiceError::McpError(error) = refused else {
        panic!("a JSON-RPC error, not {refused:?}")
    };
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    assert!(error.message.contains("`get_wether`"), "{}", error.message);
    assert!(error.message.contains("`get_weather`"), "{}", error.message);
    assert_eq!(error.data, Some(json!({"closeMatches": ["get_weather"]})));
}

#[tokio::test]
async fn structured_content_images_and_panics() {
    let client = connect(server(), McpClient::new()).await;
    let weather = client
        .call_tool(call("get_weather", json!({"city": "Oslo"})))
        .await
        .unwrap();
    let structured = weather
        .structured_content
        .clone()
        .expect("structured content");
    assert_eq!(structured, json!({"city": "Oslo", "temperature": 21}));
    let copy: Value = serde_json::from_str(&text(&weather)).unwrap();
    assert_eq!(copy, structured);

    let image = client.call_tool(call("pixel", json!({}))).await.unwrap();
    let rmcp::model::ContentBlock::Image(image) = &image.content[0] else {
        panic!("an image block, not {:?}", image.content)
    };
    assert_eq!(image.mime_type, "image/png");

    let exploded = client.call_tool(call("explode", json!({}))).await.unwrap();
    assert_eq!(exploded.is_error, Some(true));
    assert!(
        !text(&exploded).contains("sk-do-not-leak"),
        "{}",
        text(&exploded)
    );
    // The server lives on.
    let after = client
        .call_tool(call("add", json!({"a": 1, "b": 1})))
        .await
        .unwrap();
    assert_eq!(text(&after), "2");
}

/// Progress reports as `(progress, total)`.
type Reports = Vec<(f64, Option<f64>)>;

/// A client that keeps the progress the server reports.
#[derive(Clone, Default)]
struct Watching {
    progress: Arc<std::sync::Mutex<Reports>>,
}

impl ClientHandler for Watching {
    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: rmcp::service::NotificationContext<RoleClient>,
    ) {
        self.progress
            .lock()
            .unwrap()
            .push((params.progress, params.total));
    }
}

#[tokio::test]
async fn progress_reaches_the_client_and_cancellation_reaches_the_tool() {
    let watching = Watching::default();
    let client = connect(server(), watching.clone()).await;
    let done = client
        .call_tool(call("count", json!({"to": 3})))
        .await
        .unwrap();
    assert_eq!(text(&done), "3");
    // Notifications and the response travel apart: wait for the last report.
    for _ in 0..100 {
        if watching.progress.lock().unwrap().len() == 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        *watching.progress.lock().unwrap(),
        [(1.0, Some(3.0)), (2.0, Some(3.0)), (3.0, Some(3.0))]
    );

    let before = SEEN_CANCELLED.load(Ordering::SeqCst);
    let handle = client
        .send_cancellable_request(
            ClientRequest::CallToolRequest(Request::new(call("count", json!({"to": 10_000})))),
            PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    client
        .notify_cancelled(CancelledNotificationParam::new(
            Some(handle.id.clone()),
            Some("the user pressed stop".into()),
        ))
        .await
        .unwrap();
    for _ in 0..200 {
        if SEEN_CANCELLED.load(Ordering::SeqCst) > before {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(SEEN_CANCELLED.load(Ordering::SeqCst), before + 1);
    // No response comes for a cancelled request; the connection is still good.
    let after = client
        .call_tool(call("add", json!({"a": 1, "b": 2})))
        .await
        .unwrap();
    assert_eq!(text(&after), "3");
}

/// A client that answers every elicitation with `approve`.
#[derive(Clone)]
struct Approving(bool);

impl ClientHandler for Approving {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        let ElicitRequestParams::FormElicitationParams { message, .. } = request else {
            panic!("a form elicitation")
        };
        assert!(message.contains("delete_file"), "{message}");
        let mut result = ElicitResult::new(ElicitationAction::Accept);
        result.content = Some(json!({"approve": self.0}));
        Ok(result)
    }

    fn get_info(&self) -> rmcp::model::ClientConfig {
        rmcp::model::ClientConfig::new(
            rmcp::model::ClientCapabilities::builder()
                .enable_elicitation()
                .build(),
            rmcp::model::Implementation::new("approving", "1"),
        )
    }
}

#[tokio::test]
async fn approval_is_asked_by_elicitation_where_the_client_can() {
    let arguments = json!({"path": "/tmp/x"});
    let yes = connect(server(), Approving(true)).await;
    let ran = yes
        .call_tool(call("delete_file", arguments.clone()))
        .await
        .unwrap();
    assert_eq!(
        (text(&ran), ran.is_error),
        ("deleted /tmp/x".into(), Some(false))
    );

    let no = connect(server(), Approving(false)).await;
    let refused = no
        .call_tool(call("delete_file", arguments.clone()))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert!(text(&refused).contains("rejected"), "{}", text(&refused));

    let cannot = connect(server(), McpClient::new()).await;
    let held = cannot
        .call_tool(call("delete_file", arguments))
        .await
        .unwrap();
    assert_eq!(held.is_error, Some(true));
    assert!(
        text(&held).contains("needs a person's approval"),
        "{}",
        text(&held)
    );
}

#[tokio::test]
async fn numeric_request_ids_are_answered_as_numbers() {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server().serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let (read, mut write) = tokio::io::split(client_io);
    let mut lines = BufReader::new(read).lines();
    let mut send_line = async |mut line: String| {
        line.push('\n');
        write.write_all(line.as_bytes()).await.unwrap();
    };
    send_line(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}})
        .to_string(),
    )
    .await;
    let initialized: Value =
        serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(initialized["id"], json!(1));
    send_line(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string()).await;
    send_line(
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 20, "b": 22}}})
        .to_string(),
    )
    .await;
    send_line(
        json!({"jsonrpc": "2.0", "id": "eight", "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 1, "b": 1}}})
        .to_string(),
    )
    .await;
    let mut answers = Vec::new();
    while answers.len() < 2 {
        let line = lines.next_line().await.unwrap().unwrap();
        let message: Value = serde_json::from_str(&line).unwrap();
        if message.get("id").is_some() {
            answers.push(message);
        }
    }
    answers.sort_by_key(|answer| answer["id"].is_string());
    assert_eq!(answers[0]["id"], json!(7));
    assert_eq!(answers[0]["result"]["content"][0]["text"], "42");
    assert_eq!(answers[1]["id"], json!("eight"));

    // A line nested past serde_json's limit is not a request; the server lives on.
    let deep = format!(
        r#"{{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {{"name": "add", "arguments": {{"a": {}1{}}}}}}}"#,
        "[".repeat(300),
        "]".repeat(300)
    );
    send_line(deep).await;
    send_line(
        json!({"jsonrpc": "2.0", "id": 10, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 5, "b": 5}}})
        .to_string(),
    )
    .await;
    loop {
        let line = lines
            .next_line()
            .await
            .unwrap()
            .expect("the server still answers");
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == json!(10) {
            assert_eq!(message["result"]["content"][0]["text"], "10");
            break;
        }
    }
}

#[tokio::test]
async fn a_server_tools_are_a_toolbox_tools_with_repair_in_front() {
    let client = connect(server(), McpClient::new()).await;
    let tools = McpTools::list(client.peer())
        .await
        .unwrap()
        .prefixed("calc_");
    assert_eq!(tools.len(), 6);
    let toolbox = Toolbox::new().with_mcp_tools(tools).unwrap();
    assert_eq!(
        toolbox.definitions().map(|d| d.name()).collect::<Vec<_>>(),
        [
            "calc_add",
            "calc_get_weather",
            "calc_pixel",
            "calc_explode",
            "calc_delete_file",
            "calc_count"
        ]
    );
    assert_eq!(
        toolbox
            .get("calc_get_weather")
            .unwrap()
            .definition()
            .display_text(),
        Some("Weather")
    );

    // An OpenAI-shaped call with broken JSON: repaired here, then forwarded.
    let broken = ToolCall::new("c1", "calc_add", r#"{"a": 2, "b": 40"#);
    let result = toolbox.execute(&broken, &()).await;
    assert_eq!((result.text(), result.is_error), ("42".into(), false));
    assert!(result.fixes().is_some_and(|fixes| !fixes.is_empty()));
    // That tool is read-only (its annotations came from the server); one that is not is never
    // sent arguments that ended early, which closing could have changed (issue 28).
    let cut = ToolCall::new("c1b", "calc_delete_file", r#"{"path": "/home/user/tm"#);
    let result = toolbox.execute(&cut, &()).await;
    assert!(result.is_error);
    assert!(
        matches!(
            result.argument_error(),
            Some(toolwright::args::ArgumentError::CutOff { .. })
        ),
        "{}",
        result.text()
    );

    // Wrong arguments never reach the server: the model gets the feedback.
    let wrong = ToolCall::new("c2", "calc_add", r#"{"a": "two"}"#);
    let result = toolbox.execute(&wrong, &()).await;
    assert!(result.is_error);
    assert!(result.argument_error().is_some(), "{}", result.text());

    // Structured content is the native value; the server's errors are typed.
    let weather = ToolCall::new("c3", "calc_get_weather", r#"{"city": "Oslo"}"#);
    let result = toolbox.execute(&weather, &()).await;
    assert_eq!(
        result.native::<Value>(),
        Some(&json!({"city": "Oslo", "temperature": 21}))
    );
    let exploded = toolbox
        .execute(&ToolCall::new("c4", "calc_explode", "{}"), &())
        .await;
    assert!(exploded.is_error);
    assert!(matches!(
        exploded.tool_error::<McpCallError>(),
        Some(McpCallError::Tool { .. })
    ));
    let pixel = toolbox
        .execute(&ToolCall::new("c5", "calc_pixel", "{}"), &())
        .await;
    assert!(matches!(
        pixel.content[0],
        toolwright::ContentPart::Image { .. }
    ));
}

#[tokio::test]
async fn list_changed_reaches_the_client_which_refreshes_its_tools() {
    let server = McpServer::new(Arc::new(Toolbox::new().with(AddTool).unwrap()), ()).unwrap();
    let watcher = McpClient::new();
    let client = connect(server.clone(), watcher.clone()).await;
    let mut tools = McpTools::list(client.peer()).await.unwrap();
    let mut toolbox = Toolbox::new().with_mcp_tools(tools.clone()).unwrap();
    assert_eq!(toolbox.len(), 1);

    let changed = watcher.tools_changed();
    // The client's `initialized` may still be on its way: the server tells whoever listens.
    assert_eq!(serve_weather_too(&server).await, 1);
    tokio::time::timeout(Duration::from_secs(5), changed)
        .await
        .expect("notifications/tools/list_changed");
    assert!(watcher.tool_list_changes() >= 1);
    toolbox.refresh_mcp_tools(&mut tools).await.unwrap();
    assert_eq!(
        toolbox.definitions().map(|d| d.name()).collect::<Vec<_>>(),
        ["add", "get_weather"]
    );
    let result = toolbox
        .execute(
            &ToolCall::new("c1", "get_weather", r#"{"city": "Oslo"}"#),
            &(),
        )
        .await;
    assert!(!result.is_error, "{}", result.text());
}

fn toolbox_with_weather() -> Toolbox {
    Toolbox::new().with_all((AddTool, GetWeatherTool)).unwrap()
}

/// Swaps in `toolbox_with_weather` until some client hears of it (the one listening may not be
/// in the server's hands yet); how many did.
async fn serve_weather_too(server: &McpServer<()>) -> usize {
    for _ in 0..100 {
        let told = server
            .set_toolbox(Arc::new(toolbox_with_weather()))
            .await
            .unwrap();
        if told > 0 {
            return told;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    0
}

/// Nested one level per step: `{"a": {"a": ... 1}}`.
fn nested(depth: usize) -> Value {
    (0..depth).fold(json!(1), |inner, _| json!({"a": inner}))
}

/// Echo whatever it gets.
#[tool]
fn echo(value: Value) -> Value {
    value
}

#[tokio::test]
async fn argument_limits_hold_on_the_mcp_paths() {
    use toolwright::args::{ArgumentPolicy, JsonLimits};
    let limits = JsonLimits {
        max_depth: 16,
        max_len: 4096,
    };
    let toolbox = Toolbox::new()
        .with(EchoTool)
        .unwrap()
        .with_argument_policy(ArgumentPolicy::new().limits(limits));
    let served = McpServer::new(Arc::new(toolbox), ()).unwrap();
    let client = connect(served, McpClient::new()).await;

    // Served: a value too deep, and one too large, are answered as argument errors.
    let deep = client
        .call_tool(call("echo", json!({"value": nested(40)})))
        .await
        .unwrap();
    assert_eq!(deep.is_error, Some(true));
    assert!(text(&deep).contains("deep"), "{}", text(&deep));
    let large = client
        .call_tool(call("echo", json!({"value": "x".repeat(10_000)})))
        .await
        .unwrap();
    assert_eq!(large.is_error, Some(true));
    assert!(text(&large).contains("4096"), "{}", text(&large));
    let fine = client
        .call_tool(call("echo", json!({"value": nested(5)})))
        .await
        .unwrap();
    assert_eq!(fine.is_error, Some(false), "{}", text(&fine));

    // Used: the client's own toolbox refuses what its policy refuses, before the server sees it.
    let tools = McpTools::list(client.peer()).await.unwrap();
    let local = Toolbox::new()
        .with_mcp_tools(tools)
        .unwrap()
        .with_argument_policy(ArgumentPolicy::new().limits(JsonLimits {
            max_depth: 8,
            max_len: 1024,
        }));
    let too_deep = ToolCall::new("c1", "echo", json!({"value": nested(12)}));
    let result = local.execute(&too_deep, &()).await;
    assert!(result.argument_error().is_some(), "{}", result.text());
}

#[tokio::test]
async fn list_changed_reaches_a_2026_client_on_its_listen_stream() {
    use rmcp::model::{ProtocolVersion, ServerNotification, SubscriptionFilter};
    use rmcp::service::{ClientLifecycleMode, serve_client_with_lifecycle};

    let server = McpServer::new(Arc::new(Toolbox::new().with(AddTool).unwrap()), ()).unwrap();
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let serving = server.clone();
    tokio::spawn(async move {
        if let Ok(running) = serving.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    // Revision 2026-07-28: no `initialize`, no session; list_changed comes on a listen stream.
    let client = serve_client_with_lifecycle(
        McpClient::new(),
        client_io,
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    )
    .await
    .unwrap();
    let mut subscription = client
        .listen(SubscriptionFilter::builder().tools_list_changed().build())
        .await
        .unwrap();
    // The acknowledgment may reach the client before the server has the stream in hand.
    assert_eq!(serve_weather_too(&server).await, 1);
    let notification = tokio::time::timeout(Duration::from_secs(5), subscription.next())
        .await
        .expect("a notification in time")
        .unwrap()
        .expect("the stream is open");
    assert!(
        matches!(
            notification,
            ServerNotification::ToolListChangedNotification(_)
        ),
        "{notification:?}"
    );
    let names: Vec<_> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|tool| tool.name.to_string())
        .collect();
    assert_eq!(names, ["add", "get_weather"]);
}

/// Answers with a `_meta` for the client.
#[tool]
fn tagged() -> ToolOutput {
    ToolOutput::text("tagged").with_option("_meta", json!({"example.com/trace": "t-1"}))
}

#[tokio::test]
async fn a_results_meta_option_is_the_mcp_results_meta() {
    let toolbox = Toolbox::new().with(TaggedTool).unwrap();
    let client = connect(
        McpServer::new(Arc::new(toolbox), ()).unwrap(),
        McpClient::new(),
    )
    .await;
    let result = client.call_tool(call("tagged", json!({}))).await.unwrap();
    assert_eq!(text(&result), "tagged");
    let meta = serde_json::to_value(result.meta.expect("the result's _meta")).unwrap();
    assert_eq!(meta["example.com/trace"], "t-1");
}

/// A run-time tool over MCP: a schema that says nothing of other arguments passes them to the
/// tool, as its reported policy says; one that closes them refuses them; and feedback quotes
/// the arguments as sent.
#[tokio::test]
async fn unknown_arguments_and_feedback_over_mcp_keep_the_contracts() {
    use toolwright::dynamic::UnknownArgs;
    use toolwright::{DynamicTool, ToolDefinition};
    let schema = json!({"type": "object", "properties": {"query": {"type": "string"}}});
    let echo = |definition: ToolDefinition| {
        DynamicTool::new(
            definition,
            |args: serde_json::Map<String, Value>, (): &()| Ok::<_, String>(Value::Object(args)),
        )
    };
    let open = ToolDefinition::new("open", "Search.", schema.clone()).unwrap();
    let closed = ToolDefinition::new("closed", "Search.", schema)
        .unwrap()
        .with_unknown_args(UnknownArgs::Reject);
    assert_eq!(open.unknown_args(), UnknownArgs::Allow);
    let report = ToolDefinition::new(
        "report",
        "Report.",
        json!({"type": "object", "properties": {
            "x": {"type": "array", "items": {"type": "string", "enum": ["sales", "costs"]}},
        }}),
    )
    .unwrap();
    let tools = Toolbox::new()
        .with(echo(open))
        .and_then(|t| t.with(echo(closed)))
        .and_then(|t| t.with(echo(report)))
        .unwrap();
    let client = connect(
        McpServer::new(Arc::new(tools), ()).unwrap(),
        McpClient::new(),
    )
    .await;
    let sent = json!({"query": "rust", "max_results": 5});
    let open = client.call_tool(call("open", sent.clone())).await.unwrap();
    assert_ne!(open.is_error, Some(true), "{}", text(&open));
    assert_eq!(serde_json::from_str::<Value>(&text(&open)).unwrap(), sent);
    let closed = client.call_tool(call("closed", sent)).await.unwrap();
    assert_eq!(closed.is_error, Some(true));
    assert!(
        text(&closed).contains("unknown argument `max_results`"),
        "{}",
        text(&closed)
    );
    // The feedback quotes what the client sent, where it sent it, not the value coercion made.
    let report = client
        .call_tool(call("report", json!({"x": "data['sales']"})))
        .await
        .unwrap();
    assert_eq!(report.is_error, Some(true));
    let told = text(&report);
    assert!(
        told.contains(r#""x": "data['sales']"  // <- expected one of "sales" or "costs""#),
        "{told}"
    );
    assert!(!told.contains("x[0]"), "{told}");
}
