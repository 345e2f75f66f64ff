//! toolwright's MCP client logs in to toolwright's own MCP server, protected by bearer tokens of a
//! real (small) authorization server on a loopback port (`tests/support/authorization_server.rs`):
//! the `401` starts the authorization (discovery, registration, PKCE, the resource indicator),
//! a token without the scope the server needs gets `403 insufficient_scope` and a step-up, and
//! a second connection uses the stored token; a 2025-03-26 server, its own authorization server,
//! is found as that revision says (issue 44).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use toolwright::mcp::rmcp::model::ProtocolVersion;
use toolwright::mcp::{
    JwtSigningAlgorithm, McpClient, McpConnectError, McpOAuth, McpTools, ToolboxExt as _,
};
use toolwright::{ToolCall, Toolbox};

use crate::authorization_server::{
    AuthorizationServer, MACHINE, SIGNER, SIGNER_KEY, UNKNOWN_KEY, approving, legacy_server,
    protected_server,
};
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
    let tools = McpTools::of(&running).await.unwrap();
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

#[tokio::test]
async fn an_agent_acting_for_itself_gets_its_token_with_the_client_credentials_grant() {
    let authorization = AuthorizationServer::start().await;
    let address = protected_server(&authorization, toolbox(), None).await;
    let url = format!("http://{address}/mcp");
    let oauth = McpOAuth::client_credentials(MACHINE.0, MACHINE.1);
    let running = McpClient::new().connect_http(&url, &oauth).await.unwrap();
    let toolbox = Toolbox::new()
        .with_mcp_tools(McpTools::of(&running).await.unwrap())
        .unwrap();
    let sum = toolbox
        .execute(&ToolCall::new("1", "add", r#"{"a": 40, "b": 2}"#), &())
        .await;
    assert_eq!(sum.text(), "42");
    let issued = authorization.issued.lock().unwrap();
    // No user: nothing asked at the authorization endpoint; one token, for this server, with
    // the scope its challenge named.
    assert!(issued.asked.is_empty());
    assert_eq!(issued.resources, [url]);
    assert_eq!(issued.tokens.len(), 1);
    assert_eq!(issued.tokens[0].1, ["mcp"]);
}

#[tokio::test]
async fn an_agent_signs_its_token_request_with_its_private_key() {
    let authorization = AuthorizationServer::start().await;
    let address = protected_server(&authorization, toolbox(), None).await;
    let url = format!("http://{address}/mcp");
    let oauth = McpOAuth::private_key_jwt(SIGNER, SIGNER_KEY, JwtSigningAlgorithm::ES256);
    let running = McpClient::new().connect_http(&url, &oauth).await.unwrap();
    let toolbox = Toolbox::new()
        .with_mcp_tools(McpTools::of(&running).await.unwrap())
        .unwrap();
    let sum = toolbox
        .execute(&ToolCall::new("1", "add", r#"{"a": 40, "b": 2}"#), &())
        .await;
    assert_eq!((sum.text(), sum.is_error), ("42".to_owned(), false));
    let issued = authorization.issued.lock().unwrap();
    // The authorization server checked the assertion (signature, issuer, subject, audience).
    assert!(issued.asked.is_empty());
    assert_eq!(issued.resources, [url]);
    assert_eq!(issued.tokens.len(), 1);
    assert_eq!(issued.tokens[0].1, ["mcp"]);
}

#[tokio::test]
async fn an_assertion_signed_with_another_key_or_no_key_is_a_clear_error() {
    let authorization = AuthorizationServer::start().await;
    let address = protected_server(&authorization, toolbox(), None).await;
    let url = format!("http://{address}/mcp");
    let unknown = McpOAuth::private_key_jwt(SIGNER, UNKNOWN_KEY, JwtSigningAlgorithm::ES256);
    let error = McpClient::new()
        .connect_http(&url, &unknown)
        .await
        .unwrap_err();
    let text = error.to_string();
    assert!(text.contains("invalid_client"), "{text}");
    assert!(!text.contains("PRIVATE KEY"), "{text}");
    // Not a key at all: refused before any request, with no key material in the error.
    let garbled = McpOAuth::private_key_jwt(SIGNER, "not a PEM key", JwtSigningAlgorithm::ES256);
    let error = McpClient::new()
        .connect_http(&url, &garbled)
        .await
        .unwrap_err();
    let text = error.to_string();
    assert!(text.contains("signing key"), "{text}");
    assert!(!text.contains("not a PEM key"), "{text}");
    assert!(authorization.issued.lock().unwrap().tokens.is_empty());
}

#[tokio::test]
async fn a_wrong_client_secret_is_a_clear_error() {
    let authorization = AuthorizationServer::start().await;
    let address = protected_server(&authorization, toolbox(), None).await;
    let oauth = McpOAuth::client_credentials(MACHINE.0, "not-the-secret");
    let error = McpClient::new()
        .connect_http(&format!("http://{address}/mcp"), &oauth)
        .await
        .unwrap_err();
    let text = error.to_string();
    assert!(text.contains("invalid_client"), "{text}");
    assert!(!text.contains("not-the-secret"), "{text}");
    assert!(authorization.issued.lock().unwrap().tokens.is_empty());
}

#[tokio::test]
async fn a_token_is_never_offered_to_another_server() {
    // Two servers trusting one authorization server: the first's token would open the second.
    let authorization = AuthorizationServer::start().await;
    let first = protected_server(&authorization, toolbox(), None).await;
    let second = protected_server(&authorization, toolbox(), None).await;
    let oauth = approving(approve());
    let running = McpClient::new()
        .connect_http(&format!("http://{first}/mcp"), &oauth)
        .await
        .unwrap();
    running.cancel().await.unwrap();
    assert_eq!(authorization.issued.lock().unwrap().asked.len(), 1);
    // The same authorization for the second server: asked anew, for that server.
    let url = format!("http://{second}/mcp");
    let _again = McpClient::new().connect_http(&url, &oauth).await.unwrap();
    let issued = authorization.issued.lock().unwrap();
    assert_eq!(issued.asked.len(), 2);
    assert_eq!(issued.resources.last(), Some(&url));
}

#[tokio::test]
async fn a_2025_03_26_server_is_its_own_authorization_server() {
    // No protected resource metadata; the metadata at the root names the issuer `/oauth`, which
    // later revisions refuse (RFC 8414 3.3: it is not where the metadata was found).
    let (authorization, address) = legacy_server(toolbox(), None).await;
    let url = format!("http://{address}/mcp");
    let client = McpClient::new();
    assert!(
        client
            .protocol_versions()
            .contains(&ProtocolVersion::V_2025_03_26)
    );
    let running = client
        .connect_http(&url, &approving(approve()))
        .await
        .unwrap();
    let toolbox = Toolbox::new()
        .with_mcp_tools(McpTools::of(&running).await.unwrap())
        .unwrap();
    let sum = toolbox
        .execute(&ToolCall::new("1", "add", r#"{"a": 1, "b": 2}"#), &())
        .await;
    assert_eq!((sum.text(), sum.is_error), ("3".to_owned(), false));
    let issued = authorization.issued.lock().unwrap();
    assert_eq!((issued.asked.len(), issued.tokens.len()), (1, 1));
    assert_eq!(issued.resources, [url]);
}

#[tokio::test]
async fn a_client_of_later_revisions_holds_the_server_to_their_discovery() {
    let (authorization, address) = legacy_server(toolbox(), None).await;
    let error = McpClient::new()
        .with_protocol_versions([ProtocolVersion::V_2025_06_18, ProtocolVersion::V_2025_11_25])
        .connect_http(&format!("http://{address}/mcp"), &approving(approve()))
        .await
        .unwrap_err();
    assert!(error.to_string().contains("issuer"), "{error}");
    let issued = authorization.issued.lock().unwrap();
    assert!(issued.asked.is_empty() && issued.tokens.is_empty());
}

#[tokio::test]
async fn a_2025_03_26_server_cannot_send_the_user_to_another_origin() {
    // Under 2025-03-26 the server is its own authorization server: metadata at its root naming
    // an authorization server elsewhere is refused, whatever revision the client speaks.
    let (authorization, address) = legacy_server(toolbox(), Some("http://127.0.0.1:9/oauth")).await;
    let error = McpClient::new()
        .connect_http(&format!("http://{address}/mcp"), &approving(approve()))
        .await
        .unwrap_err();
    assert!(error.to_string().contains("127.0.0.1:9/oauth"), "{error}");
    assert!(authorization.issued.lock().unwrap().asked.is_empty());
}

/// `examples/mcp_server`, served over HTTP with `args`, until the test ends: its URL.
async fn example_server(args: &[&str]) -> (tokio::process::Child, String) {
    use tokio::io::AsyncBufReadExt as _;
    let server = std::env::var_os("TOOLWRIGHT_MCP_SERVER")
        .expect("TOOLWRIGHT_MCP_SERVER names examples/mcp_server, built");
    let mut child = tokio::process::Command::new(server)
        .args(["--http", "127.0.0.1:0"])
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    while let Some(line) = lines.next_line().await.unwrap() {
        if let Some(rest) = line.split("listening on ").nth(1) {
            let url = rest.split(' ').next().unwrap().to_owned();
            // The rest of its log is not this test's output, but is read so it never blocks.
            tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
            return (child, url);
        }
    }
    panic!("examples/mcp_server exited before it listened");
}

#[tokio::test]
#[ignore = "needs examples/mcp_server, named by TOOLWRIGHT_MCP_SERVER: tests/mcp_checks.sh runs it"]
async fn the_client_logs_in_to_the_example_server_and_steps_up_for_the_scope_it_requires() {
    // The example server's static token table holds what this authorization server will issue:
    // first a token the user granted only `profile` (the server requires `mcp`: 403), then the
    // step-up's, with `mcp` and `write`.
    let authorization = AuthorizationServer::start().await;
    authorization.issued.lock().unwrap().first_grant = Some(vec!["profile".to_owned()]);
    let (_server, url) = example_server(&[
        "--token",
        "secret-access-token-1=profile",
        "--token",
        "secret-access-token-2=mcp,write",
        "--require-scope",
        "mcp",
        "--authorization-server",
        &authorization.issuer,
    ])
    .await;
    let oauth = approving(approve()).with_scopes(["profile"]);
    let running = McpClient::new().connect_http(&url, &oauth).await.unwrap();
    let toolbox = Toolbox::new()
        .with_mcp_tools(McpTools::of(&running).await.unwrap())
        .unwrap();
    let sum = toolbox
        .execute(&ToolCall::new("1", "add", r#"{"a": 2, "b": 3}"#), &())
        .await;
    assert_eq!((sum.text(), sum.is_error), ("5".to_owned(), false));
    let issued = authorization.issued.lock().unwrap();
    // Asked for what the application named and what the server's challenge named, both times
    // (the user granted less the first time).
    assert_eq!(issued.asked, [["profile", "mcp"], ["profile", "mcp"]]);
    assert_eq!(issued.tokens.len(), 2);
    assert_eq!(issued.resources, [url.clone(), url]);
}
