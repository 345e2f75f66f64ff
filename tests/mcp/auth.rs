//! A protected MCP server through the real HTTP stack: the server on a loopback port behind
//! `Authorization`, clients sending real requests (reqwest, and rmcp's Streamable HTTP client
//! with a bearer token).

use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::ServiceExt;
use rmcp::model::ErrorCode;
use rmcp::service::ServiceError;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use toolwright::exec::Caller;
use toolwright::mcp::{Authorization, InvalidToken, McpServer};
use toolwright::{CallInfo, Toolbox, tool};

use crate::servers::{call, text};

/// Read a note.
#[tool(read_only)]
fn read_note(id: u32) -> String {
    format!("note {id}")
}

/// Write a note.
#[tool]
fn write_note(id: u32, text: String) -> String {
    format!("wrote {id}: {text}")
}

/// Who the call is for.
#[tool(read_only)]
fn whoami(#[tool(call_info)] info: &CallInfo) -> String {
    info.caller()
        .map_or("nobody", |caller| caller.subject())
        .to_owned()
}

/// Move notes to a region; the region travels in a header too (SEP-2243's `x-mcp-header`).
#[tool]
fn relocate(
    /// Where to.
    #[schemars(extend("x-mcp-header" = "Region"))]
    region: String,
) -> String {
    format!("moved to {region}")
}

/// Every tool not marked read-only needs `write`, as the demo server's rule says.
fn toolbox() -> Toolbox {
    Toolbox::new()
        .with_all((ReadNoteTool, WriteNoteTool, WhoamiTool, RelocateTool))
        .unwrap()
        .require_scopes(["write"], |tool| tool.annotations().read_only != Some(true))
}

const READER: &str = "reader-token-1f6e";
const WRITER: &str = "writer-token-93ab";
const OUTSIDER: &str = "outsider-token-77c0";

fn authorization(resource: &str) -> Authorization {
    Authorization::new(resource, |token: String| async move {
        match token.as_str() {
            READER => Ok(Caller::new("reader").with_scopes(["mcp"])),
            WRITER => Ok(Caller::new("writer").with_scopes(["mcp", "write"])),
            // A valid token without the scope every access needs.
            OUTSIDER => Ok(Caller::new("outsider")),
            _ => Err(InvalidToken::new("the token is not known here")),
        }
    })
    .authorization_server("https://auth.example.com")
    .scopes_supported(["mcp", "write"])
    .require_scopes(["mcp"])
    .resource_name("notes")
}

/// The protected server on a loopback port, stateless: its address.
async fn serve() -> SocketAddr {
    serve_with_sessions(false).await
}

/// The protected server on a loopback port, with sessions or not: its address.
async fn serve_with_sessions(stateful: bool) -> SocketAddr {
    // The resource names the address: the port is taken first.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let server = McpServer::new(Arc::new(toolbox()), ()).unwrap();
    let service =
        authorization(&format!("http://{address}/mcp")).protect(server.http_service(stateful));
    crate::http::serve_on(listener, service);
    address
}

fn initialize() -> Value {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"},
        },
    })
}

async fn post(address: SocketAddr, token: Option<&str>) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(format!("http://{address}/mcp"))
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(initialize().to_string());
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.unwrap()
}

fn challenge(response: &reqwest::Response) -> String {
    response
        .headers()
        .get("www-authenticate")
        .expect("a WWW-Authenticate header")
        .to_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn the_protected_resource_metadata_is_served_at_the_well_known_paths() {
    let address = serve().await;
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let response = reqwest::get(format!("http://{address}{path}"))
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(
            response.headers()["content-type"],
            "application/json",
            "{path}"
        );
        let metadata: Value = response.json().await.unwrap();
        // RFC 9728, section 2: `resource` is required; the rest as configured.
        assert_eq!(
            metadata,
            json!({
                "resource": format!("http://{address}/mcp"),
                "authorization_servers": ["https://auth.example.com"],
                "scopes_supported": ["mcp", "write"],
                "bearer_methods_supported": ["header"],
                "resource_name": "notes",
            })
        );
    }
}

#[tokio::test]
async fn requests_without_a_valid_token_are_refused_as_rfc_6750_says() {
    let address = serve().await;
    let metadata = format!("http://{address}/.well-known/oauth-protected-resource/mcp");

    // No token: 401, where to find the metadata, and the scope needed; no error code.
    let response = post(address, None).await;
    assert_eq!(response.status(), 401);
    assert_eq!(
        challenge(&response),
        format!(r#"Bearer resource_metadata="{metadata}", scope="mcp""#)
    );
    // Another scheme is no bearer token either.
    let response = reqwest::Client::new()
        .post(format!("http://{address}/mcp"))
        .header("authorization", "Basic dXNlcjpwYXNz")
        .body(initialize().to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    assert!(!challenge(&response).contains("error="));

    // A token the validator refuses: 401 with `invalid_token`, and the token nowhere.
    let response = post(address, Some("forged-token-0000")).await;
    assert_eq!(response.status(), 401);
    let header = challenge(&response);
    assert_eq!(
        header,
        format!(
            r#"Bearer resource_metadata="{metadata}", error="invalid_token", error_description="the token is not known here""#
        )
    );
    let body = response.text().await.unwrap();
    assert!(!body.contains("forged-token-0000"), "{body}");

    // A valid token without the scope every access needs: 403, naming it.
    let response = post(address, Some(OUTSIDER)).await;
    assert_eq!(response.status(), 403);
    assert_eq!(
        challenge(&response),
        format!(
            r#"Bearer resource_metadata="{metadata}", error="insufficient_scope", scope="mcp""#
        )
    );

    // A valid token with it: the MCP server answers.
    let response = post(address, Some(READER)).await;
    assert_eq!(response.status(), 200);
    let body = response.text().await.unwrap();
    assert!(body.contains("\"serverInfo\""), "{body}");
}

async fn client(
    address: SocketAddr,
    token: &str,
) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    let config = StreamableHttpClientTransportConfig::with_uri(format!("http://{address}/mcp"))
        .auth_header(token);
    ().serve(StreamableHttpClientTransport::from_config(config))
        .await
        .unwrap()
}

#[tokio::test]
async fn a_caller_lists_and_calls_only_the_tools_its_scopes_allow() {
    let address = serve().await;

    let reader = client(address, READER).await;
    let names: Vec<String> = reader
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|tool| tool.name.to_string())
        .collect();
    assert_eq!(names, ["read_note", "whoami"]);
    let result = reader.call_tool(call("whoami", json!({}))).await.unwrap();
    assert_eq!(text(&result), "reader");
    // A tool the reader may not call is refused exactly as a tool that does not exist.
    let refusal = |error: ServiceError| match error {
        ServiceError::McpError(error) => error,
        other => panic!("a JSON-RPC error, not {other:?}"),
    };
    let hidden = refusal(
        reader
            .call_tool(call("write_note", json!({"id": 1, "text": "x"})))
            .await
            .unwrap_err(),
    );
    let missing = refusal(
        reader
            .call_tool(call("erase_note", json!({"id": 1})))
            .await
            .unwrap_err(),
    );
    assert_eq!(hidden.code, ErrorCode::INVALID_PARAMS);
    assert_eq!(
        hidden.message,
        "unknown tool `write_note`. Available tools: `read_note` and `whoami`."
    );
    assert_eq!(
        missing.message,
        "unknown tool `erase_note`. Available tools: `read_note` and `whoami`."
    );
    assert_eq!(hidden.data, missing.data);
    reader.cancel().await.unwrap();

    let writer = client(address, WRITER).await;
    let tools = writer.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 4);
    let result = writer
        .call_tool(call("write_note", json!({"id": 1, "text": "x"})))
        .await
        .unwrap();
    assert_eq!(text(&result), "wrote 1: x");
    writer.cancel().await.unwrap();
}

/// A `tools/call` of protocol 2026-07-28 with its SEP-2243 headers, none for the arguments.
async fn call_with_standard_headers(address: SocketAddr, token: &str, name: &str) -> (u16, String) {
    let body = json!({
        "jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {
            "name": name,
            "arguments": {"region": "eu"},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"},
            },
        },
    });
    let response = reqwest::Client::new()
        .post(format!("http://{address}/mcp"))
        .bearer_auth(token)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", name)
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.text().await.unwrap())
}

#[tokio::test]
async fn a_hidden_tool_is_absent_from_header_validation_too() {
    let address = serve().await;
    // The writer may call `relocate`: its schema's header annotation is checked (no
    // `Mcp-Param-Region` was sent for `region`).
    let (status, body) = call_with_standard_headers(address, WRITER, "relocate").await;
    assert!(body.contains("Mcp-Param-Region"), "{status} {body}");
    // To the reader it is not there: answered as a tool that does not exist is.
    let (hidden_status, hidden) = call_with_standard_headers(address, READER, "relocate").await;
    let (absent_status, absent) = call_with_standard_headers(address, READER, "relocator").await;
    assert_eq!((hidden_status, absent_status), (200, 200));
    for (body, name) in [(&hidden, "relocate"), (&absent, "relocator")] {
        let body: Value = serde_json::from_str(body).unwrap();
        assert_eq!(body["error"]["code"], -32602, "{body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with(&format!("unknown tool `{name}`"))
                && message.ends_with("Available tools: `read_note` and `whoami`."),
            "{message}"
        );
    }
}

#[tokio::test]
async fn a_session_belongs_to_the_caller_that_opened_it() {
    let address = serve_with_sessions(true).await;
    let opened = post(address, Some(READER)).await;
    assert_eq!(opened.status(), 200);
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let _ = opened.bytes().await;
    let client = reqwest::Client::new();
    let send = |token: &'static str, method: reqwest::Method, body: Option<Value>| {
        let mut request = client
            .request(method, format!("http://{address}/mcp"))
            .bearer_auth(token)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .header("mcp-protocol-version", "2025-06-18")
            .header("mcp-session-id", &session);
        if let Some(body) = body {
            request = request.body(body.to_string());
        }
        request.send()
    };
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    // Another caller, with a valid token of its own, finds no such session: not its list,
    // not its stream, not its end.
    for (method, body) in [
        (reqwest::Method::POST, Some(list.clone())),
        (reqwest::Method::GET, None),
        (reqwest::Method::DELETE, None),
    ] {
        let response = send(WRITER, method.clone(), body).await.unwrap();
        assert_eq!(response.status(), 404, "{method}");
        assert_eq!(
            response.text().await.unwrap(),
            "Not Found: Session not found"
        );
    }
    // Its own caller goes on using it.
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let _ = send(READER, reqwest::Method::POST, Some(initialized))
        .await
        .unwrap();
    let response = send(READER, reqwest::Method::POST, Some(list))
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.text().await.unwrap().contains("read_note"));
}

#[tokio::test]
async fn resources_and_prompts_a_caller_lacks_the_scope_for_are_hidden_and_budgets_are_per_caller()
{
    use rmcp::model::{GetPromptRequestParams, ReadResourceRequestParams};
    use toolwright::mcp::{Prompt, Resource, prompt, resource};

    // The scopes of the declared ones are the attribute's.
    #[resource(uri = "notes://drafts", scopes = ["write"])]
    fn drafts() -> &'static str {
        "draft"
    }

    #[prompt(scopes = ["write"])]
    fn rewrite() -> Vec<rmcp::model::PromptMessage> {
        Vec::new()
    }

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let server = McpServer::new(Arc::new(toolbox().with_retry_budget(2)), ())
        .unwrap()
        .with_resource(Resource::text(
            "notes://public",
            "public",
            "text/plain",
            "hello",
        ))
        .with_resource(DraftsResource)
        .with_prompt(Prompt::fixed("summarize", Vec::new()))
        .with_prompt(RewritePrompt);
    let service =
        authorization(&format!("http://{address}/mcp")).protect(server.http_service(false));
    crate::http::serve_on(listener, service);

    let reader = client(address, READER).await;
    let writer = client(address, WRITER).await;
    let uris = |resources: Vec<rmcp::model::Resource>| -> Vec<String> {
        resources.into_iter().map(|resource| resource.uri).collect()
    };
    assert_eq!(
        uris(reader.list_all_resources().await.unwrap()),
        ["notes://public"]
    );
    assert_eq!(
        uris(writer.list_all_resources().await.unwrap()),
        ["notes://public", "notes://drafts"]
    );
    let hidden = reader
        .read_resource(ReadResourceRequestParams::new("notes://drafts"))
        .await
        .unwrap_err();
    assert!(hidden.to_string().contains("no resource at"), "{hidden}");
    assert!(
        writer
            .read_resource(ReadResourceRequestParams::new("notes://drafts"))
            .await
            .is_ok()
    );
    let names = |prompts: Vec<rmcp::model::Prompt>| -> Vec<String> {
        prompts.into_iter().map(|prompt| prompt.name).collect()
    };
    assert_eq!(
        names(reader.list_all_prompts().await.unwrap()),
        ["summarize"]
    );
    assert_eq!(
        names(writer.list_all_prompts().await.unwrap()),
        ["summarize", "rewrite"]
    );
    let refused = reader
        .get_prompt(GetPromptRequestParams::new("rewrite"))
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("unknown prompt"), "{refused}");

    // Stateless, but each caller authenticated: a caller's invalid calls count across its
    // requests, and never against another caller.
    let bad = || call("read_note", json!({"id": "seven"}));
    let spent =
        |result: &rmcp::model::CallToolResult| text(result).contains("do not call it again");
    assert!(!spent(&reader.call_tool(bad()).await.unwrap()));
    assert!(!spent(&writer.call_tool(bad()).await.unwrap()));
    assert!(
        spent(&reader.call_tool(bad()).await.unwrap()),
        "the reader's second"
    );
    assert!(
        spent(&writer.call_tool(bad()).await.unwrap()),
        "the writer's second"
    );
}
