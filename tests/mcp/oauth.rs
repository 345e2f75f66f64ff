//! toolwright's MCP client logs in to toolwright's own MCP server, protected by bearer tokens of a
//! real (small) authorization server on a loopback port (`tests/support/authorization_server.rs`):
//! the `401` starts the authorization (discovery, registration, PKCE, the resource indicator),
//! a token without the scope the server needs gets `403 insufficient_scope` and a step-up, and
//! a second connection uses the stored token (issue 44).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use toolwright::mcp::{McpClient, McpConnectError, McpTools, ToolboxExt as _};
use toolwright::{ToolCall, Toolbox};

use crate::authorization_server::{AuthorizationServer, approving, protected_server};
use crate::servers::toolbox;

fn approve() -> Arc<AtomicBool> {
    Arc::new(AtomicBool::new(true))
}

#[tokio::test]
async fn the_client_logs_in_steps_up_for_the_scope_the_server_needs_and_keeps_the_token() {
    let authorization = AuthorizationServer::start().await;
    // The user grants less than asked the first time.
    authorization.issued.lock().unwrap().first_grant = Some(vec!["profile".to_owned()]);
    let address = protected_server(&authorization, toolbox(), None).await;
    let url = format!("http://{address}/mcp");
    let oauth = approving(approve());

    let running = McpClient::new().connect_http(&url, &oauth).await.unwrap();
    let tools = McpTools::list(running.peer()).await.unwrap();
    let toolbox = Toolbox::new().with_mcp_tools(tools).unwrap();
    let sum = toolbox
        .execute(&ToolCall::new("1", "add", r#"{"a": 2, "b": 3}"#), &())
        .await;
    assert_eq!((sum.text(), sum.is_error), ("5".to_owned(), false));
    {
        let issued = authorization.issued.lock().unwrap();
        // A token without `mcp` first (refused with 403), then the step-up's with it.
        let scopes: Vec<&Vec<String>> = issued.tokens.iter().map(|(_, scopes)| scopes).collect();
        assert_eq!(
            scopes,
            [&vec!["profile".to_owned()], &vec!["mcp".to_owned()]]
        );
        assert!(
            issued.asked[1].contains(&"mcp".to_owned()),
            "{:?}",
            issued.asked
        );
        // Each token was asked for this server (RFC 8707).
        assert_eq!(issued.resources, [url.clone(), url.clone()]);
    }
    running.cancel().await.unwrap();

    // A second connection with the same authorization uses the token it keeps.
    let again = McpClient::new().connect_http(&url, &oauth).await.unwrap();
    assert!(!McpTools::list(again.peer()).await.unwrap().is_empty());
    assert_eq!(authorization.issued.lock().unwrap().asked.len(), 2);
}

#[tokio::test]
async fn a_server_that_names_another_resource_is_refused_before_any_token() {
    let authorization = AuthorizationServer::start().await;
    let address = protected_server(
        &authorization,
        toolbox(),
        Some("https://elsewhere.example/mcp"),
    )
    .await;
    let error = McpClient::new()
        .connect_http(&format!("http://{address}/mcp"), &approving(approve()))
        .await
        .unwrap_err();
    assert!(matches!(error, McpConnectError::Handshake(_)), "{error}");
    let issued = authorization.issued.lock().unwrap();
    assert!(
        issued.asked.is_empty() && issued.tokens.is_empty(),
        "{error}"
    );
}
