//! The protocol beside plain calls, over real HTTP: notifications before results (on the wire,
//! a hundred calls in a row), retry budgets per conversation (two clients of one server),
//! approval and questions through MRTR on a stateless server, resources, prompts, completion and
//! subscriptions, and every kind of content both ways.

// Logging and `resources/subscribe` are deprecated from revision 2026-07-28 on (SEP-2577); these
// tests are clients of the revisions before it too.
#![expect(
    deprecated,
    reason = "clients before revision 2026-07-28 set a log level and subscribe"
)]

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    ArgumentInfo, ClientCapabilities, ClientConfig, CompleteRequestParams, ElicitRequestParams,
    ElicitResult, ElicitationAction, GetPromptRequestParams, GetPromptResult, Implementation,
    PromptMessage, ProtocolVersion, ReadResourceRequestParams, Reference,
    ResourceContents as McpContents, ResourceUpdatedNotificationParam, Role,
    SubscribeRequestParams,
};
use rmcp::service::{
    ClientLifecycleMode, NotificationContext, RequestContext, RoleClient,
    serve_client_with_lifecycle,
};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{Value, json};
use toolwright::exec::{LogLevel, ResourceContents};
use toolwright::mcp::{
    AskClient, AskError, McpServer, McpTools, Prompt, Resource, ResourceTemplate, ToolboxExt as _,
};
use toolwright::{CallInfo, ContentPart, ToolCall, ToolOutput, Toolbox, tool};

use crate::http::serve;
use crate::servers::{call, text};

/// What a call knows of its connection here: how to ask its client.
#[derive(Clone)]
pub(crate) struct Connection {
    ask: Option<AskClient>,
}

/// Reports three steps of progress and logs each, then answers at once after the last (the
/// case where a report sent on the side would come after the result).
#[tool]
async fn chatty(#[tool(call_info)] info: &CallInfo) -> &'static str {
    for step in 1..=3 {
        if step > 1 {
            tokio::task::yield_now().await;
        }
        info.report_progress(f64::from(step), Some(3.0), None);
        info.log(LogLevel::Info, format!("step {step}"));
    }
    "done"
}

/// Add two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Delete a file (a person must approve).
#[tool(needs_approval)]
fn delete_file(path: String) -> String {
    format!("deleted {path}")
}

/// Greet the user by the name they give when asked.
#[tool]
async fn greet(#[tool(context)] connection: &Connection) -> Result<String, String> {
    let Some(ask) = &connection.ask else {
        return Err("no client to ask".into());
    };
    let params = serde_json::from_value::<ElicitRequestParams>(json!({
        "message": "Your name?",
        "requestedSchema": {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"],
        },
    }))
    .map_err(|error| error.to_string())?;
    match ask.elicit("name", params).await {
        Ok(answer) => Ok(format!(
            "hello {}",
            answer
                .content
                .as_ref()
                .and_then(|content| content.get("name"))
                .and_then(Value::as_str)
                .unwrap_or("nobody")
        )),
        Err(AskError::InputRequired) => Err("asked".into()),
        Err(error) => Err(error.to_string()),
    }
}

/// Every kind of content a result can carry.
#[tool]
fn everything() -> ToolOutput {
    let mut link = ContentPart::resource_link("notes://1", "note one");
    if let ContentPart::ResourceLink(link) = &mut link {
        link.mime_type = Some("text/plain".into());
    }
    ToolOutput::parts(vec![
        ContentPart::text("all of it:"),
        ContentPart::image("iVBORw0KGgo=", "image/png"),
        ContentPart::audio("UklGRg==", "audio/wav"),
        ContentPart::resource(ResourceContents::text(
            "notes://2",
            Some("text/plain"),
            "second note",
        )),
        ContentPart::resource(ResourceContents::blob(
            "notes://3",
            Some("application/octet-stream"),
            "AAE=",
        )),
        link,
    ])
}

fn toolbox() -> Toolbox<Connection> {
    Toolbox::for_context()
        .with_all((
            ChattyTool,
            AddTool,
            DeleteFileTool,
            GreetTool,
            EverythingTool,
        ))
        .unwrap()
        .with_retry_budget(3)
}

pub(crate) fn server() -> McpServer<Connection> {
    McpServer::with_context(Arc::new(toolbox()), |context| Connection {
        ask: AskClient::of(context),
    })
    .unwrap()
}

pub(crate) async fn serve_http(server: &McpServer<Connection>, stateful: bool) -> SocketAddr {
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(stateful)
        .with_json_response(!stateful);
    serve(server.http_service_with(config)).await
}

/// A client on a revision before 2026-07-28 (rmcp's newest with `initialize`).
async fn client<H: ClientHandler>(
    address: SocketAddr,
    handler: H,
) -> rmcp::service::RunningService<RoleClient, H> {
    handler
        .serve(StreamableHttpClientTransport::from_uri(format!(
            "http://{address}/mcp"
        )))
        .await
        .unwrap()
}

/// A client on revision 2026-07-28: no `initialize`, no session.
async fn client_2026<H: ClientHandler>(
    address: SocketAddr,
    handler: H,
) -> rmcp::service::RunningService<RoleClient, H> {
    serve_client_with_lifecycle(
        handler,
        StreamableHttpClientTransport::from_config(StreamableHttpClientTransportConfig::with_uri(
            format!("http://{address}/mcp"),
        )),
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    )
    .await
    .unwrap()
}

/// The events of an SSE body, each event's data as JSON.
fn sse_messages(body: &str) -> Vec<Value> {
    body.split("\n\n")
        .filter_map(|event| {
            let data: String = event
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(str::trim_start)
                .collect();
            serde_json::from_str(&data).ok()
        })
        .collect()
}

/// The methods of a call's messages in the order they came (`result` for its answer), and its
/// progress values.
fn order(messages: &[Value], id: &Value) -> (Vec<String>, Vec<f64>) {
    let methods = messages
        .iter()
        .map(|message| {
            if message.get("id") == Some(id) {
                "result".to_owned()
            } else {
                message["method"].as_str().unwrap_or("?").to_owned()
            }
        })
        .collect();
    let progress = messages
        .iter()
        .filter_map(|message| message["params"]["progress"].as_f64())
        .collect();
    (methods, progress)
}

#[tokio::test]
async fn every_notification_of_a_call_goes_out_before_its_result_a_hundred_times_over_http() {
    let address = serve_http(&server(), true).await;
    let http = reqwest::Client::new();
    let url = format!("http://{address}/mcp");
    let post = |body: Value, session: Option<String>| {
        let mut request = http
            .post(&url)
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .json(&body);
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        request.send()
    };
    let initialized = post(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "wire", "version": "1"},
        }}),
        None,
    )
    .await
    .unwrap();
    let session = initialized.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    drop(initialized.text().await.unwrap());
    post(
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        Some(session.clone()),
    )
    .await
    .unwrap();
    // Progress rides the request's own stream, which the result closes: every report must be
    // on it, in order, before the result. (rmcp sends log messages on the session's GET
    // stream; their order against the result is checked on stdio below.)
    for round in 0..100 {
        let id = json!(10 + round);
        let body = post(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
                "name": "chatty", "arguments": {}, "_meta": {"progressToken": format!("t{round}")},
            }}),
            Some(session.clone()),
        )
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
        let (methods, progress) = order(&sse_messages(&body), &id);
        assert_eq!(
            methods,
            [
                "notifications/progress",
                "notifications/progress",
                "notifications/progress",
                "result"
            ],
            "round {round}: {body}"
        );
        assert_eq!(progress, [1.0, 2.0, 3.0], "round {round}");
    }
}

#[tokio::test]
async fn every_notification_of_a_call_goes_out_before_its_result_a_hundred_times_over_stdio() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server().serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let (read, mut write) = tokio::io::split(client_io);
    let mut lines = BufReader::new(read).lines();
    let mut send = async |message: Value| {
        let mut line = message.to_string();
        line.push('\n');
        write.write_all(line.as_bytes()).await.unwrap();
    };
    send(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}}),
    )
    .await;
    lines.next_line().await.unwrap().unwrap();
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel", "params": {"level": "debug"}}))
        .await;
    lines.next_line().await.unwrap().unwrap();
    for round in 0..100 {
        let id = json!(10 + round);
        send(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
                "name": "chatty", "arguments": {}, "_meta": {"progressToken": round},
            }}),
        )
        .await;
        let mut messages = Vec::new();
        while messages
            .last()
            .is_none_or(|last: &Value| last.get("id") != Some(&id))
        {
            let line = lines
                .next_line()
                .await
                .unwrap()
                .expect("the server answers");
            messages.push(serde_json::from_str::<Value>(&line).unwrap());
        }
        let (methods, progress) = order(&messages, &id);
        assert_eq!(
            methods,
            [
                "notifications/progress",
                "notifications/message",
                "notifications/progress",
                "notifications/message",
                "notifications/progress",
                "notifications/message",
                "result",
            ],
            "round {round}: {messages:?}"
        );
        assert_eq!(progress, [1.0, 2.0, 3.0], "round {round}");
        assert_eq!(messages[1]["params"]["data"], "step 1");
        assert_eq!(messages[1]["params"]["logger"], "chatty");
    }
}

#[tokio::test]
async fn log_messages_follow_the_level_the_client_set() {
    let address = serve_http(&server(), true).await;
    let seen = Seen::default();
    let running = client(address, seen.clone()).await;
    running
        .peer()
        .set_level(rmcp::model::SetLevelRequestParams::new(
            rmcp::model::LoggingLevel::Warning,
        ))
        .await
        .unwrap();
    running.call_tool(call("chatty", json!({}))).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        seen.logs.lock().unwrap().is_empty(),
        "info is below warning"
    );
}

/// A client that records what the server tells it, and answers elicitation with a name.
#[derive(Clone, Default)]
struct Seen {
    logs: Arc<Mutex<Vec<Value>>>,
    updated: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Seen {
    async fn on_logging_message(
        &self,
        params: rmcp::model::LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.logs.lock().unwrap().push(params.data);
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.updated.lock().unwrap().push(params.uri);
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        let ElicitRequestParams::FormElicitationParams { message, .. } = request else {
            panic!("a form elicitation")
        };
        let mut result = ElicitResult::new(ElicitationAction::Accept);
        result.content = Some(if message.contains("Approve") {
            json!({"approve": true})
        } else {
            json!({"name": "Ada"})
        });
        Ok(result)
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("seen", "1"),
        )
    }
}

#[tokio::test]
async fn one_clients_invalid_calls_never_spend_anothers_retry_budget() {
    let bad = || call("add", json!({"a": "one", "b": 2}));
    let budget_spent =
        |result: &rmcp::model::CallToolResult| text(result).contains("do not call it again");

    // Sessions: each its own conversation.
    let address = serve_http(&server(), true).await;
    let alice = client(address, ()).await;
    let bob = client(address, ()).await;
    for _ in 0..2 {
        assert!(!budget_spent(&alice.call_tool(bad()).await.unwrap()));
    }
    assert!(
        budget_spent(&alice.call_tool(bad()).await.unwrap()),
        "alice's third"
    );
    assert!(
        !budget_spent(&bob.call_tool(bad()).await.unwrap()),
        "bob's first"
    );

    // No session, no caller: no request is told apart from another, so none carries over; on
    // a stateless server, and from a 2026-07-28 client (which has no session) of a stateful one.
    let address = serve_http(&server(), false).await;
    let anonymous = client(address, ()).await;
    for _ in 0..5 {
        assert!(!budget_spent(&anonymous.call_tool(bad()).await.unwrap()));
    }
    let address = serve_http(&server(), true).await;
    let sessionless = client_2026(address, ()).await;
    for _ in 0..5 {
        assert!(!budget_spent(&sessionless.call_tool(bad()).await.unwrap()));
    }

    // In process: the conversation the application names.
    let tools = toolbox();
    let connection = Connection { ask: None };
    let (first, second) = (
        toolwright::exec::Conversation::new(),
        toolwright::exec::Conversation::new(),
    );
    let run = |conversation: &toolwright::exec::Conversation| {
        let calls = [ToolCall::new("1", "add", r#"{"a": "one", "b": 2}"#)];
        let options = toolwright::exec::BatchOptions::new().in_conversation(conversation.clone());
        let tools = &tools;
        let connection = &connection;
        async move {
            tools
                .execute_all_with(&calls, connection, options)
                .await
                .remove(0)
        }
    };
    for _ in 0..2 {
        assert!(run(&first).await.budget_exhausted().is_none());
    }
    assert!(run(&first).await.budget_exhausted().is_some());
    assert!(run(&second).await.budget_exhausted().is_none());
    assert_eq!(first.failures("add"), 3);
    assert_eq!(second.failures("add"), 1);
}

#[tokio::test]
async fn a_stateless_server_asks_a_2026_client_through_mrtr() {
    let address = serve_http(&server(), false).await;
    let current = client_2026(address, Seen::default()).await;
    // Approval: the call is answered input_required, rmcp's client asks its user and calls
    // again with the answer, and the call runs.
    let approved = current
        .call_tool(call("delete_file", json!({"path": "/tmp/x"})))
        .await
        .unwrap();
    assert_eq!(text(&approved), "deleted /tmp/x", "{approved:?}");
    // A tool's own question, the same way.
    let greeted = current.call_tool(call("greet", json!({}))).await.unwrap();
    assert_eq!(text(&greeted), "hello Ada", "{greeted:?}");

    // A client before 2026-07-28 on the same stateless server cannot be asked: it is told so at
    // once, instead of waiting for a request that has no way back.
    let old = client(address, Seen::default()).await;
    let started = std::time::Instant::now();
    let refused = old
        .call_tool(call("delete_file", json!({"path": "/tmp/x"})))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert!(text(&refused).contains("cannot ask"), "{}", text(&refused));
    let unanswered = old.call_tool(call("greet", json!({}))).await.unwrap();
    assert!(
        text(&unanswered).contains("without a session"),
        "{}",
        text(&unanswered)
    );
    assert!(started.elapsed() < Duration::from_secs(10));
}

fn offering() -> McpServer<Connection> {
    server()
        .with_resource(
            Resource::text("notes://readme", "readme", "text/plain", "read me").title("README"),
        )
        .with_resource(
            Resource::text("notes://secret", "secret", "text/plain", "s").scopes(["admin"]),
        )
        .with_resource_template(
            ResourceTemplate::new("notes://{id}/body", "note", |read| async move {
                Ok(vec![ResourceContents::text(
                    read.uri,
                    Some("text/plain"),
                    format!("note {}", read.variables["id"]),
                )])
            })
            .complete("id", |typed, _| {
                ["1", "12", "2"]
                    .iter()
                    .filter(|id| id.starts_with(typed))
                    .map(|id| (*id).to_owned())
                    .collect()
            }),
        )
        .with_prompt(
            Prompt::new("review", |arguments| async move {
                Ok(GetPromptResult::new(vec![PromptMessage::new_text(
                    Role::User,
                    format!("review the {} code", arguments["language"]),
                )]))
            })
            .argument("language", "The language", true)
            .complete("language", |typed, _| {
                ["rust", "ruby", "python"]
                    .iter()
                    .filter(|language| language.starts_with(typed))
                    .map(|language| (*language).to_owned())
                    .collect()
            }),
        )
        .max_subscriptions(1)
}

#[tokio::test]
async fn resources_prompts_completion_and_subscriptions() {
    let server = offering();
    let address = serve_http(&server, true).await;
    let seen = Seen::default();
    let running = client(address, seen.clone()).await;
    let info = running.peer_info().unwrap();
    assert!(info.capabilities.resources.is_some() && info.capabilities.prompts.is_some());
    assert!(info.capabilities.completions.is_some() && info.capabilities.logging.is_some());

    let uris: Vec<String> = running
        .list_all_resources()
        .await
        .unwrap()
        .into_iter()
        .map(|resource| resource.uri.clone())
        .collect();
    // Without an authorization layer every caller is trusted with everything.
    assert_eq!(uris, ["notes://readme", "notes://secret"]);
    let read = running
        .read_resource(ReadResourceRequestParams::new("notes://7/body"))
        .await
        .unwrap();
    let McpContents::TextResourceContents { text, uri, .. } = &read.contents[0] else {
        panic!("text contents: {read:?}")
    };
    assert_eq!((uri.as_str(), text.as_str()), ("notes://7/body", "note 7"));
    let missing = running
        .read_resource(ReadResourceRequestParams::new("notes://nothing"))
        .await
        .unwrap_err();
    assert!(missing.to_string().contains("no resource at"), "{missing}");

    let prompt = running
        .get_prompt(
            GetPromptRequestParams::new("review")
                .with_arguments(json!({"language": "rust"}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&prompt.messages[0]).unwrap()["content"]["text"],
        "review the rust code"
    );
    let without = running
        .get_prompt(GetPromptRequestParams::new("review"))
        .await
        .unwrap_err();
    assert!(without.to_string().contains("`language`"), "{without}");

    let completed = running
        .complete(CompleteRequestParams::new(
            Reference::for_prompt("review"),
            ArgumentInfo::new("language", "r"),
        ))
        .await
        .unwrap();
    assert_eq!(completed.completion.values, ["rust", "ruby"]);
    let ids = running
        .complete(CompleteRequestParams::new(
            Reference::for_resource("notes://{id}/body"),
            ArgumentInfo::new("id", "1"),
        ))
        .await
        .unwrap();
    assert_eq!(ids.completion.values, ["1", "12"]);

    running
        .subscribe(SubscribeRequestParams::new("notes://readme"))
        .await
        .unwrap();
    let over = running
        .subscribe(SubscribeRequestParams::new("notes://3/body"))
        .await
        .unwrap_err();
    assert!(over.to_string().contains("the most allowed"), "{over}");
    assert_eq!(server.resource_updated("notes://readme").await, 1);
    assert_eq!(server.resource_updated("notes://3/body").await, 0);
    for _ in 0..100 {
        if !seen.updated.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(*seen.updated.lock().unwrap(), ["notes://readme"]);
}

#[tokio::test]
async fn every_kind_of_content_crosses_mcp_both_ways() {
    let address = serve_http(&server(), true).await;
    let running = client(address, ()).await;
    let served = running
        .call_tool(call("everything", json!({})))
        .await
        .unwrap();
    let kinds: Vec<Value> = served
        .content
        .iter()
        .map(|block| serde_json::to_value(block).unwrap()["type"].clone())
        .collect();
    assert_eq!(
        kinds,
        [
            "text",
            "image",
            "audio",
            "resource",
            "resource",
            "resource_link"
        ]
    );
    // Read back into a toolbox through McpTools: the same parts, none turned into text.
    let tools = McpTools::list(running.peer()).await.unwrap();
    let remote = Toolbox::new().with_mcp_tools(tools).unwrap();
    let result = remote
        .execute(&ToolCall::new("1", "everything", "{}"), &())
        .await;
    let local = toolbox()
        .execute(
            &ToolCall::new("1", "everything", "{}"),
            &Connection { ask: None },
        )
        .await;
    assert_eq!(result.content.into_vec(), local.content.into_vec());
}

#[test]
fn a_schema_the_application_wrote_reaches_mcp_as_written() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"address": {"type": "object", "properties": {"city": {"type": "string"}}}},
        "properties": {"address": {"$ref": "#/$defs/address"}},
        "additionalProperties": false,
    });
    let icons = json!([{"src": "https://example.com/pin.png", "mimeType": "image/png"}]);
    let definition = toolwright::ToolDefinition::new("locate", "Find an address.", schema.clone())
        .unwrap()
        .with_option("icons", icons.clone());
    let tools = Toolbox::new()
        .with(toolwright::DynamicTool::new(definition, |_, _: &()| {
            "here".to_owned()
        }))
        .unwrap();
    let form = tools
        .tools_for(toolwright::provider::Provider::Mcp)
        .unwrap();
    assert_eq!(form.entries()[0]["inputSchema"], schema);
    assert_eq!(form.entries()[0]["icons"], icons);
    // Derived forms still get the rewrites: OpenAI's has no `$schema`.
    let openai = tools
        .tools_for(toolwright::provider::Provider::OpenAiChat)
        .unwrap();
    assert!(
        openai.entries()[0]["function"]["parameters"]
            .get("$schema")
            .is_none()
    );
}

#[tokio::test]
async fn cache_hints_are_the_applications_on_every_list_and_read() {
    use rmcp::model::CacheScope;
    use toolwright::mcp::CacheHints;

    let hints = CacheHints {
        ttl: Duration::from_secs(60),
        scope: CacheScope::Public,
    };
    let address = serve_http(&offering().cache_hints(hints), false).await;
    let running = client_2026(address, ()).await;
    let tools = running.list_tools(None).await.unwrap();
    assert_eq!(
        (tools.ttl_ms, tools.cache_scope),
        (Some(60_000), Some(CacheScope::Public))
    );
    let resources = running.list_resources(None).await.unwrap();
    assert_eq!(resources.ttl_ms, Some(60_000));
    let templates = running.list_resource_templates(None).await.unwrap();
    assert_eq!(templates.ttl_ms, Some(60_000));
    let prompts = running.list_prompts(None).await.unwrap();
    assert_eq!(prompts.ttl_ms, Some(60_000));
    let read = running
        .read_resource(ReadResourceRequestParams::new("notes://readme"))
        .await
        .unwrap();
    assert_eq!(
        (read.ttl_ms, read.cache_scope),
        (Some(60_000), Some(CacheScope::Public))
    );

    // Without hints of the application's, rmcp sends the most careful ones the revision requires.
    let address = serve_http(&offering(), false).await;
    let running = client_2026(address, ()).await;
    let tools = running.list_tools(None).await.unwrap();
    assert_eq!(
        (tools.ttl_ms, tools.cache_scope),
        (Some(0), Some(CacheScope::Private))
    );
}

#[tokio::test]
async fn a_2026_listen_stream_subscribes_to_known_resources_up_to_the_limit() {
    use rmcp::model::{ServerNotification, SubscriptionFilter};

    // At most one subscription: of three URIs asked for, the unknown one is left out and the
    // second known one is over the limit.
    let server = offering();
    let address = serve_http(&server, false).await;
    let running = client_2026(address, ()).await;
    let mut subscription = running
        .listen(
            SubscriptionFilter::builder()
                .resource_subscription("notes://nothing")
                .resource_subscription("notes://readme")
                .resource_subscription("notes://3/body")
                .build(),
        )
        .await
        .unwrap();
    assert_eq!(
        subscription
            .acknowledged()
            .resource_subscriptions
            .as_deref(),
        Some(&["notes://readme".to_owned()][..])
    );
    // The acknowledgment may reach the client before the server has the stream in hand.
    let mut told = 0;
    for _ in 0..100 {
        told = server.resource_updated("notes://readme").await;
        if told == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(told, 1);
    assert_eq!(server.resource_updated("notes://3/body").await, 0);
    let notification = tokio::time::timeout(Duration::from_secs(5), subscription.next())
        .await
        .expect("a notification in time")
        .unwrap()
        .expect("the stream is open");
    let ServerNotification::ResourceUpdatedNotification(updated) = notification else {
        panic!("resources/updated: {notification:?}")
    };
    assert_eq!(updated.params.uri, "notes://readme");
}
