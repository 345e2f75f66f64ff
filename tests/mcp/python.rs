//! toolwright's MCP client against a server written with the official Python SDK
//! (`tests/python/mcp_tools_server.py`): its tools listed into a toolbox, called from an OpenAI
//! Chat response (broken arguments repaired on the way), and the results encoded back.
//!
//! Needs a Python with `mcp` installed, so it is ignored by a plain `cargo test`:
//! `TOOLWRIGHT_MCP_PYTHON=/path/to/venv/bin/python cargo test --test mcp python:: -- --ignored`,
//! as `tests/mcp_checks.sh` (run by `.ci/run`) runs it.

use rmcp::model::ProtocolVersion;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use toolwright::Toolbox;
use toolwright::mcp::{McpCallError, McpClient, McpTools, ToolboxExt as _};
use toolwright::provider::Provider;

/// The Python server, started as a child speaking over its stdin and stdout.
fn python_server() -> TokioChildProcess {
    let python = std::env::var_os("TOOLWRIGHT_MCP_PYTHON")
        .expect("TOOLWRIGHT_MCP_PYTHON names a Python with the MCP SDK (mcp on PyPI)");
    let mut command = tokio::process::Command::new(python);
    command.arg(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/python/mcp_tools_server.py"
    ));
    // The server logs its tool's failure (a traceback) on stderr: not this test's output.
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    transport
}

#[tokio::test]
#[ignore = "needs a Python with the MCP SDK, named by TOOLWRIGHT_MCP_PYTHON: tests/mcp_checks.sh runs it"]
async fn a_python_mcp_servers_tools_serve_an_openai_turn() {
    // The SDK (2.3.0) speaks 2026-07-28, the newest revision: `connect` agrees on it.
    let mcp = McpClient::new();
    let client = mcp.clone().connect(python_server()).await.unwrap();
    assert_eq!(mcp.protocol_version(), Some(ProtocolVersion::V_2026_07_28));
    let tools = McpTools::list(client.peer()).await.unwrap().prefixed("py_");
    assert!(tools.skipped().is_empty(), "{:?}", tools.skipped());
    let toolbox = Toolbox::new().with_mcp_tools(tools).unwrap();
    assert_eq!(
        toolbox.definitions().map(|d| d.name()).collect::<Vec<_>>(),
        ["py_multiply", "py_forecast", "py_fail"]
    );
    // The server's schema, with its `Field(ge=1, le=7)` bounds, is what the toolbox enforces.
    let days = &toolbox
        .get("py_forecast")
        .unwrap()
        .definition()
        .parameters()["properties"]["days"];
    assert_eq!(
        (days["minimum"].as_i64(), days["maximum"].as_i64()),
        (Some(1), Some(7))
    );

    let response = json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4.1",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": null, "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "py_multiply", "arguments": "{\"a\": \"6\", \"b\": 7"}},
                {"id": "call_2", "type": "function",
                 "function": {"name": "py_forecast", "arguments": "{\"city\": \"Oslo\", \"days\": 3}"}},
                {"id": "call_3", "type": "function",
                 "function": {"name": "py_forecast", "arguments": "{\"city\": \"Oslo\", \"days\": 30}"}},
                {"id": "call_4", "type": "function",
                 "function": {"name": "py_fail", "arguments": "{\"reason\": \"no luck\"}"}},
                {"id": "call_5", "type": "function",
                 "function": {"name": "py_fail", "arguments": "{\"reason\": \"no lu"}},
            ]}}],
    });
    let turn = toolbox
        .read_response(Provider::OpenAiChat, &response)
        .unwrap();
    let results = toolbox.execute_all(&turn.calls, &()).await;
    let messages = toolbox
        .encode_results(Provider::OpenAiChat, &turn.calls, &results)
        .unwrap();
    let contents: Vec<&str> = messages
        .as_array()
        .unwrap()
        .iter()
        .map(|message| message["content"].as_str().unwrap())
        .collect();

    // Repaired (the closing brace) and coerced ("6") before it was sent: the server says
    // `multiply` is read-only (`readOnlyHint`), so arguments that ended early may run it.
    assert_eq!(contents[0], "42");
    assert!(results[0].fixes().is_some_and(|fixes| !fixes.is_empty()));
    // Structured content is the native value; the text is the server's.
    assert_eq!(
        results[1].native::<Value>(),
        Some(&json!({"city": "Oslo", "days": 3, "summary": "sunny in Oslo for 3 day(s)"}))
    );
    assert!(contents[1].contains("sunny in Oslo"), "{}", contents[1]);
    // Out of the server's bounds: answered here, with the feedback, never sent.
    assert!(results[2].argument_error().is_some(), "{}", contents[2]);
    assert!(contents[2].contains("from 1 to 7"), "{}", contents[2]);
    // The server's own error result.
    assert!(results[3].is_error);
    assert!(matches!(
        results[3].tool_error::<McpCallError>(),
        Some(McpCallError::Tool { .. })
    ));
    assert!(contents[3].contains("fail"), "{}", contents[3]);
    // A tool the server does not call read-only is never sent arguments that ended early
    // (issue 28): the model is told where they stopped.
    assert!(
        matches!(
            results[4].argument_error(),
            Some(toolwright::args::ArgumentError::CutOff { .. })
        ),
        "{}",
        contents[4]
    );

    client.cancel().await.unwrap();
}

#[tokio::test]
#[ignore = "needs a Python with the MCP SDK, named by TOOLWRIGHT_MCP_PYTHON: tests/mcp_checks.sh runs it"]
async fn a_client_of_an_older_revision_is_served_that_revision_by_the_python_sdk() {
    let mcp = McpClient::new().with_protocol_versions([ProtocolVersion::V_2025_11_25]);
    let client = mcp.clone().connect(python_server()).await.unwrap();
    assert_eq!(mcp.protocol_version(), Some(ProtocolVersion::V_2025_11_25));
    let tools = McpTools::list(client.peer()).await.unwrap();
    assert_eq!(tools.len(), 3);
    client.cancel().await.unwrap();
}
