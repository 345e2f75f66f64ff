//! Tool search over MCP (issue 47): a server listing only its pinned tools and a search tool,
//! answering a search with the found tools' definitions and `notifications/tools/list_changed`,
//! after which the session's `tools/list` holds them; toolwright's client keeping a server's
//! tools deferred in the application's toolbox.

use std::sync::Arc;

use serde_json::{Value, json};
use toolwright::Toolbox;
use toolwright::mcp::{McpClient, McpServer, McpTools, ToolboxExt as _};
use toolwright::provider::{Provider, ToolRequest};
use toolwright::search::ToolSearch;

use crate::servers::{call, text, toolbox};

fn searching_server() -> McpServer<()> {
    McpServer::new(Arc::new(toolbox()), ())
        .unwrap()
        .tool_search(ToolSearch::new().defer_all_but(["add"]))
        .unwrap()
}

async fn listed(
    running: &rmcp::service::RunningService<rmcp::service::RoleClient, McpClient>,
) -> Vec<String> {
    let tools = running.peer().list_all_tools().await.unwrap();
    tools.iter().map(|t| t.name.to_string()).collect()
}

#[tokio::test]
async fn a_server_lists_its_pinned_tools_and_a_search_tool_and_grows_per_session() {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let server = searching_server();
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client = McpClient::new();
    let running = client.clone().connect(client_io).await.unwrap();
    assert_eq!(listed(&running).await, ["add", "search_tools"]);

    // The search: the found tools' own `tools/list` entries, and the list changed.
    let changed = client.tools_changed();
    let found = running
        .call_tool(call("search_tools", json!({"query": "weather in a city"})))
        .await
        .unwrap();
    assert_eq!(found.is_error, Some(false), "{found:?}");
    let answer: Value = serde_json::from_str(&text(&found)).unwrap();
    assert_eq!(answer["tools"][0]["name"], "get_weather");
    assert_eq!(
        answer["tools"][0]["inputSchema"]["properties"]["city"]["type"],
        "string"
    );
    tokio::time::timeout(std::time::Duration::from_secs(10), changed)
        .await
        .unwrap();
    assert_eq!(client.tool_list_changes(), 1);
    let now = listed(&running).await;
    assert!(now.contains(&"get_weather".to_owned()), "{now:?}");
    assert!(!now.contains(&"delete_file".to_owned()), "{now:?}");

    // A deferred tool not found yet is still called by its name.
    let counted = running
        .call_tool(call("count", json!({"to": 2})))
        .await
        .unwrap();
    assert_eq!(counted.is_error, Some(false), "{counted:?}");

    // Another session has found nothing.
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let server = searching_server();
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let other = McpClient::new().connect(client_io).await.unwrap();
    assert_eq!(listed(&other).await, ["add", "search_tools"]);
}

#[tokio::test]
async fn a_remote_servers_tools_stay_deferred_in_the_applications_toolbox() {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let server = McpServer::new(Arc::new(toolbox()), ()).unwrap();
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let running = McpClient::new().connect(client_io).await.unwrap();
    let remote = McpTools::of(&running).await.unwrap().deferred();
    let tools = Toolbox::new()
        .with_mcp_tools(remote)
        .unwrap()
        .with_tool_search(ToolSearch::new())
        .unwrap();
    assert!(tools.definitions().all(|d| d.is_deferred()));
    let fields = tools
        .request_fields(Provider::OpenAiChat, ToolRequest::default())
        .unwrap();
    let sent: Vec<&str> = fields
        .get("tools")
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(sent, ["search_tools"]);
    // The search finds the remote tool, and its call goes to the server.
    assert_eq!(tools.search("add two numbers", 1)[0].name(), "add");
    let result = tools
        .execute(
            &toolwright::ToolCall::new("1", "add", r#"{"a": 2, "b": 3}"#),
            &(),
        )
        .await;
    assert_eq!(result.text(), "5");
}
