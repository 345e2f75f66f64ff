//! `McpClient::connect`: the protocol revision agreed with a server, the newest both speak, and the
//! refusal of a server that answers with one the client did not offer; the application's
//! handlers for what a server asks and tells (issue 44).
#![expect(
    deprecated,
    reason = "logging is deprecated from revision 2026-07-28 on (SEP-2577); servers before it log"
)]

use std::borrow::Cow;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    ElicitRequestParams, ElicitResult, ElicitationAction, LoggingLevel, NumberOrString,
    ProgressToken, ProtocolVersion, RequestParamsMeta as _, ServerCapabilities, ServerConfig,
    SetLevelRequestParams,
};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ServerHandler, ServiceExt as _};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use toolwright::exec::{BatchOptions, Progress, ProgressSink};
use toolwright::mcp::{McpClient, McpConnectError, McpServer, McpTools, ToolboxExt as _};
use toolwright::{ToolCall, Toolbox};

use crate::protocol;
use crate::servers::{call, text, toolbox};

/// A client connected to `server` over an in-memory pipe, or why not.
async fn connect_to<S: ServerHandler>(
    server: S,
    client: McpClient,
) -> Result<RunningService<RoleClient, McpClient>, McpConnectError> {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    client.connect(client_io).await
}

fn toolwright_server() -> McpServer<()> {
    McpServer::new(Arc::new(toolbox()), ()).unwrap()
}

#[tokio::test]
async fn by_default_the_newest_revision_both_speak_is_agreed() {
    let client = McpClient::new();
    let running = connect_to(toolwright_server(), client.clone())
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), Some(ProtocolVersion::LATEST));
    assert_eq!(
        running.peer().peer_info().unwrap().protocol_version,
        ProtocolVersion::LATEST
    );
    // The session works: the tools are listed at the revision agreed.
    let tools = McpTools::list(running.peer()).await.unwrap();
    assert!(tools.names().any(|name| name == "add"));
}

#[tokio::test]
async fn a_client_of_older_revisions_agrees_on_the_newest_of_them() {
    for (offered, agreed) in [
        (
            vec![ProtocolVersion::V_2025_06_18, ProtocolVersion::V_2025_11_25],
            ProtocolVersion::V_2025_11_25,
        ),
        (
            vec![ProtocolVersion::V_2025_06_18],
            ProtocolVersion::V_2025_06_18,
        ),
    ] {
        let client = McpClient::new().with_protocol_versions(offered);
        let running = connect_to(toolwright_server(), client.clone())
            .await
            .unwrap();
        assert_eq!(client.protocol_version(), Some(agreed.clone()));
        let tools = McpTools::list(running.peer()).await.unwrap();
        assert!(tools.names().any(|name| name == "add"), "{agreed}");
    }
}

/// A server of one revision: 2025-11-25.
#[derive(Clone)]
struct OnlyNovember;

impl ServerHandler for OnlyNovember {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Owned(vec![ProtocolVersion::V_2025_11_25])
    }
}

/// A server written before 2026-07-28, as the TypeScript SDK 1.x answers: `server/discover` is
/// a method it does not know, `initialize` agrees on 2025-11-25. It records the methods it was
/// sent.
async fn legacy_server(io: tokio::io::DuplexStream, seen: Arc<Mutex<Vec<String>>>) {
    let (read, mut write) = tokio::io::split(io);
    let mut lines = BufReader::new(read).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let message: Value = serde_json::from_str(&line).unwrap();
        let method = message["method"].as_str().unwrap_or_default().to_owned();
        seen.lock().unwrap().push(method.clone());
        let Some(id) = message.get("id") else {
            continue;
        };
        let answer = match method.as_str() {
            "initialize" => json!({"jsonrpc": "2.0", "id": id, "result": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "legacy", "version": "1.0.0"}}}),
            "tools/list" => json!({"jsonrpc": "2.0", "id": id, "result": {"tools": []}}),
            _ => json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": "Method not found"}}),
        };
        let mut text = answer.to_string();
        text.push('\n');
        write.write_all(text.as_bytes()).await.unwrap();
    }
}

#[tokio::test]
async fn a_newer_client_falls_back_to_initialize_with_an_older_server() {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let seen = Arc::default();
    tokio::spawn(legacy_server(server_io, Arc::clone(&seen)));
    let client = McpClient::new();
    let running = client.clone().connect(client_io).await.unwrap();
    assert_eq!(
        client.protocol_version(),
        Some(ProtocolVersion::V_2025_11_25)
    );
    assert_eq!(McpTools::list(running.peer()).await.unwrap().len(), 0);
    assert_eq!(
        seen.lock().unwrap()[..4],
        [
            "server/discover",
            "initialize",
            "notifications/initialized",
            "tools/list"
        ]
    );
}

#[tokio::test]
async fn a_server_that_answers_with_a_revision_not_offered_is_refused() {
    let client = McpClient::new().with_protocol_versions([ProtocolVersion::V_2025_06_18]);
    let error = connect_to(OnlyNovember, client.clone()).await.unwrap_err();
    let McpConnectError::Version { answered, offered } = &error else {
        panic!("refused for its revision: {error}")
    };
    assert_eq!(answered, &ProtocolVersion::V_2025_11_25);
    assert_eq!(offered, &[ProtocolVersion::V_2025_06_18]);
    assert_eq!(client.protocol_version(), None);
}

#[tokio::test]
async fn a_client_that_offers_nothing_says_so() {
    let client = McpClient::new().with_protocol_versions([]);
    let error = connect_to(toolwright_server(), client).await.unwrap_err();
    assert!(
        matches!(error, McpConnectError::Handshake(_)),
        "no revision offered: {error}"
    );
}

/// What the application's handlers heard: log messages' data and progress values.
#[derive(Clone, Default)]
struct Heard {
    logs: Arc<Mutex<Vec<Value>>>,
    progress: Arc<Mutex<Vec<f64>>>,
}

/// A client whose user answers a form with their name, approves what they are asked to, and
/// whose application records the server's logs and progress.
fn answering_client(heard: &Heard) -> McpClient {
    let (logs, progress) = (Arc::clone(&heard.logs), Arc::clone(&heard.progress));
    McpClient::new()
        .on_elicitation(|request| async move {
            let ElicitRequestParams::FormElicitationParams { message, .. } = request else {
                return ElicitResult::new(ElicitationAction::Decline);
            };
            let mut answer = ElicitResult::new(ElicitationAction::Accept);
            answer.content = Some(if message.contains("Approve") {
                json!({"approve": true})
            } else {
                json!({"name": "Ada"})
            });
            answer
        })
        .on_log(move |message| logs.lock().unwrap().push(message.data.clone()))
        .on_progress(move |report| progress.lock().unwrap().push(report.progress))
}

async fn connect_http(
    client: McpClient,
    address: SocketAddr,
) -> RunningService<RoleClient, McpClient> {
    client
        .connect(StreamableHttpClientTransport::from_uri(format!(
            "http://{address}/mcp"
        )))
        .await
        .unwrap()
}

#[tokio::test]
async fn the_applications_handlers_answer_a_server_with_sessions_and_hear_its_logs_and_progress() {
    let address = protocol::serve_http(&protocol::server(), true).await;
    let heard = Heard::default();
    let client = answering_client(&heard).with_protocol_versions([ProtocolVersion::V_2025_11_25]);
    let running = connect_http(client, address).await;
    // The server asks the user through elicitation: a tool's own question, and an approval.
    let greeted = running.call_tool(call("greet", json!({}))).await.unwrap();
    assert_eq!(text(&greeted), "hello Ada", "{greeted:?}");
    let approved = running
        .call_tool(call("delete_file", json!({"path": "/tmp/x"})))
        .await
        .unwrap();
    assert_eq!(text(&approved), "deleted /tmp/x", "{approved:?}");
    // Logs at the level the client set, and progress for a call that asked for it.
    running
        .peer()
        .set_level(SetLevelRequestParams::new(LoggingLevel::Info))
        .await
        .unwrap();
    let mut chatty = call("chatty", json!({}));
    chatty.set_progress_token(ProgressToken(NumberOrString::String("chatty".into())));
    let done = running.call_tool(chatty).await.unwrap();
    assert_eq!(text(&done), "done");
    assert_eq!(*heard.progress.lock().unwrap(), [1.0, 2.0, 3.0]);
    assert_eq!(
        *heard.logs.lock().unwrap(),
        [json!("step 1"), json!("step 2"), json!("step 3")]
    );
    running.cancel().await.unwrap();
}

#[tokio::test]
async fn a_stateless_server_asks_the_application_through_mrtr() {
    let address = protocol::serve_http(&protocol::server(), false).await;
    let heard = Heard::default();
    let client = answering_client(&heard);
    let running = connect_http(client.clone(), address).await;
    assert_eq!(
        client.protocol_version(),
        Some(ProtocolVersion::V_2026_07_28)
    );
    let greeted = running.call_tool(call("greet", json!({}))).await.unwrap();
    assert_eq!(text(&greeted), "hello Ada", "{greeted:?}");
}

#[tokio::test]
async fn without_a_handler_nothing_is_declared_and_the_server_is_told_no() {
    let address = protocol::serve_http(&protocol::server(), true).await;
    let client = McpClient::new().with_protocol_versions([ProtocolVersion::V_2025_11_25]);
    let running = connect_http(client, address).await;
    let refused = running
        .call_tool(call("delete_file", json!({"path": "/tmp/x"})))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true), "{refused:?}");
    assert!(text(&refused).contains("cannot ask"), "{}", text(&refused));
}

#[tokio::test]
async fn a_remote_tools_progress_reaches_the_toolbox_call_and_its_logs_the_client() {
    let address = protocol::serve_http(&protocol::server(), true).await;
    let heard = Heard::default();
    let logs = Arc::clone(&heard.logs);
    let client = McpClient::new()
        .with_protocol_versions([ProtocolVersion::V_2025_11_25])
        .on_log(move |message| logs.lock().unwrap().push(message.data.clone()));
    let running = connect_http(client, address).await;
    running
        .peer()
        .set_level(SetLevelRequestParams::new(LoggingLevel::Info))
        .await
        .unwrap();
    let toolbox = Toolbox::new()
        .with_mcp_tools(McpTools::of(&running).await.unwrap())
        .unwrap();
    let progress = Arc::clone(&heard.progress);
    let sink = ProgressSink::new(move |report: Progress| {
        progress.lock().unwrap().push(report.progress);
    });
    // Each round: the call's own progress, all of it, by the time its result is in.
    for round in 0..20 {
        heard.progress.lock().unwrap().clear();
        let results = toolbox
            .execute_all_with(
                &[ToolCall::new("c1", "chatty", "{}")],
                &(),
                BatchOptions::new().progress(sink.clone()),
            )
            .await;
        assert_eq!(results[0].text(), "done", "round {round}");
        assert_eq!(
            *heard.progress.lock().unwrap(),
            [1.0, 2.0, 3.0],
            "round {round}"
        );
    }
    // The server's log messages name no call: they reach the client's listener.
    for _ in 0..100 {
        if heard.logs.lock().unwrap().len() == 60 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let logs = heard.logs.lock().unwrap();
    assert_eq!(logs.len(), 60);
    assert_eq!(
        logs[..3],
        [json!("step 1"), json!("step 2"), json!("step 3")]
    );
}
