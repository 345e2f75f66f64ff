//! The server the official MCP conformance suite (npm `@modelcontextprotocol/conformance`) tests:
//! every tool, resource and prompt its server scenarios call for, written with toolwright's public
//! API only (`#[tool]`, a dynamic tool, `McpServer` with resources, templates and prompts).
//!
//! ```text
//! cargo run -p toolwright-mcp --example conformance_server -- 127.0.0.1:3000             # stateful
//! cargo run -p toolwright-mcp --example conformance_server -- 127.0.0.1:3000 --stateless
//! npx @modelcontextprotocol/conformance server --url http://127.0.0.1:3000/mcp
//! ```
//!
//! It prints `listening on http://ADDR/mcp` to stderr once it takes connections (`127.0.0.1:0`
//! picks a free port). `.ci/run` runs every server scenario against it, stateful and stateless.
//!
//! What each tool, resource and prompt does is the suite's specification of its scenarios
//! (`src/scenarios/server/*.ts` of modelcontextprotocol/conformance, v0.1.16, MIT); the
//! base64 image and audio are the suite's own test data.

// Sampling's types are deprecated from revision 2026-07-28 on (SEP-2577); the suite has a
// sampling scenario.
#![expect(
    deprecated,
    reason = "the suite's tools-call-sampling scenario asks for sampling"
)]

use std::collections::HashMap;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use serde_json::{Value, json};
use toolwright::exec::{LogLevel, ResourceContents};
use toolwright::mcp::rmcp::model::ContentBlock;
use toolwright::mcp::rmcp::model::{
    CreateMessageRequestParams, ElicitRequestParams, ErrorData, GetPromptResult, PromptMessage,
    Role,
};
use toolwright::mcp::rmcp::service::{RequestContext, RoleServer};
use toolwright::mcp::rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use toolwright::mcp::{AskClient, McpServer, Prompt, Resource, SseStream, prompt, resource};
use toolwright::{CallInfo, ContentPart, DynamicTool, ToolDefinition, ToolOutput, Toolbox, tool};

/// A 1x1 PNG (the suite's test image).
const IMAGE: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A minimal WAV file (the suite's test audio).
const AUDIO: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// What a call knows of its connection: how to ask the client for sampling and elicitation
/// (on a session, or through MRTR), and the stream its response goes on.
#[derive(Clone)]
struct Connection {
    ask: Option<AskClient>,
    stream: Option<SseStream>,
}

fn connection(context: &RequestContext<RoleServer>) -> Connection {
    Connection {
        ask: AskClient::of(context),
        stream: SseStream::of(context),
    }
}

/// Tests simple text content response
#[tool]
fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Tests image content response
#[tool]
fn test_image_content() -> ToolOutput {
    ToolOutput::parts(ContentPart::image(IMAGE, "image/png"))
}

/// Tests audio content response
#[tool]
fn test_audio_content() -> ToolOutput {
    ToolOutput::parts(ContentPart::audio(AUDIO, "audio/wav"))
}

/// Tests embedded resource content response
#[tool]
fn test_embedded_resource() -> ToolOutput {
    ToolOutput::parts(ContentPart::resource(ResourceContents::text(
        "test://embedded-resource",
        Some("text/plain"),
        "This is an embedded resource content.",
    )))
}

/// Tests response with multiple content types (text, image, resource)
#[tool]
fn test_multiple_content_types() -> ToolOutput {
    ToolOutput::parts(vec![
        ContentPart::text("Multiple content types test:"),
        ContentPart::image(IMAGE, "image/png"),
        ContentPart::resource(ResourceContents::text(
            "test://mixed-content-resource",
            Some("application/json"),
            json!({"test": "data", "value": 123}).to_string(),
        )),
    ])
}

/// Tests tool that emits log messages during execution
#[tool]
async fn test_tool_with_logging(#[tool(call_info)] info: &CallInfo) -> &'static str {
    info.log(LogLevel::Info, "Tool execution started");
    tokio::time::sleep(Duration::from_millis(50)).await;
    info.log(LogLevel::Info, "Tool processing data");
    tokio::time::sleep(Duration::from_millis(50)).await;
    info.log(LogLevel::Info, "Tool execution completed");
    "Tool with logging executed successfully"
}

/// Tests tool that reports progress notifications
#[tool]
async fn test_tool_with_progress(#[tool(call_info)] info: &CallInfo) -> &'static str {
    for step in [0.0, 50.0, 100.0] {
        info.report_progress(
            step,
            Some(100.0),
            Some(&format!("Completed step {step} of 100")),
        );
        if step < 100.0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    "Progress test completed"
}

/// Tests error response handling
#[tool]
fn test_error_handling() -> Result<String, String> {
    Err("This tool intentionally returns an error for testing".to_owned())
}

/// Tests SSE stream disconnection and client reconnection (SEP-1699). Server will close the
/// stream mid-call and send the result after client reconnects.
#[tool]
async fn test_reconnection(#[tool(context)] connection: &Connection) -> &'static str {
    if let Some(stream) = &connection.stream {
        let _ = stream.close(Some(Duration::from_millis(500))).await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    "Reconnection test completed successfully. If you received this, the client properly \
     reconnected after stream closure."
}

/// Tests server-initiated sampling (LLM completion request)
#[tool]
async fn test_sampling(
    #[tool(context)] connection: &Connection,
    /// The prompt to send to the LLM
    prompt: String,
) -> String {
    let params = serde_json::from_value::<CreateMessageRequestParams>(json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
        "maxTokens": 100,
    }));
    let answer = match (params, &connection.ask) {
        (Ok(params), Some(ask)) => ask.sample("sampling", params).await,
        (Err(error), _) => return format!("Sampling not supported or error: {error}"),
        (_, None) => return "Sampling not supported or error: not a tools/call".to_owned(),
    };
    match answer {
        Ok(result) => {
            let text = serde_json::to_value(&result.message)
                .ok()
                .and_then(|message| {
                    message
                        .pointer("/content/text")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                })
                .unwrap_or_else(|| "No response".to_owned());
            format!("LLM response: {text}")
        }
        Err(error) => format!("Sampling not supported or error: {error}"),
    }
}

/// Asks the client's user to fill in `schema`; the answer as the suite's tools word it.
async fn elicit(connection: &Connection, message: &str, schema: Value, done: &str) -> String {
    let params = serde_json::from_value::<ElicitRequestParams>(json!({
        "message": message,
        "requestedSchema": schema,
    }));
    let answer = match (params, &connection.ask) {
        (Ok(params), Some(ask)) => ask.elicit("elicitation", params).await,
        (Err(error), _) => return format!("Elicitation not supported or error: {error}"),
        (_, None) => return "Elicitation not supported or error: not a tools/call".to_owned(),
    };
    match answer {
        Ok(result) => {
            let action = serde_json::to_value(result.action).unwrap_or(Value::Null);
            let content = result.content.unwrap_or_else(|| json!({}));
            format!(
                "{done}: action={}, content={content}",
                action.as_str().unwrap_or_default()
            )
        }
        Err(error) => format!("Elicitation not supported or error: {error}"),
    }
}

/// Tests server-initiated elicitation (user input request)
#[tool]
async fn test_elicitation(
    #[tool(context)] connection: &Connection,
    /// The message to show the user
    message: String,
) -> String {
    let schema = json!({
        "type": "object",
        "properties": {"response": {"type": "string", "description": "User's response"}},
        "required": ["response"],
    });
    elicit(connection, &message, schema, "User response").await
}

/// Tests elicitation with default values per SEP-1034
#[tool]
async fn test_elicitation_sep1034_defaults(#[tool(context)] connection: &Connection) -> String {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {
                "type": "string",
                "description": "User status",
                "enum": ["active", "inactive", "pending"],
                "default": "active",
            },
            "verified": {"type": "boolean", "description": "Verification status", "default": true},
        },
        "required": [],
    });
    let message = "Please review and update the form fields with defaults";
    elicit(connection, message, schema, "Elicitation completed").await
}

/// Tests elicitation with enum schema improvements per SEP-1330
#[tool]
async fn test_elicitation_sep1330_enums(#[tool(context)] connection: &Connection) -> String {
    let titled = |values: [(&str, &str); 3]| {
        values
            .iter()
            .map(|(value, title)| json!({"const": value, "title": title}))
            .collect::<Vec<_>>()
    };
    let schema = json!({
        "type": "object",
        "properties": {
            "untitledSingle": {
                "type": "string",
                "description": "Select one option",
                "enum": ["option1", "option2", "option3"],
            },
            "titledSingle": {
                "type": "string",
                "description": "Select one option with titles",
                "oneOf": titled([("value1", "First Option"), ("value2", "Second Option"), ("value3", "Third Option")]),
            },
            "legacyEnum": {
                "type": "string",
                "description": "Select one option (legacy)",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"],
            },
            "untitledMulti": {
                "type": "array",
                "description": "Select multiple options",
                "minItems": 1,
                "maxItems": 3,
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
            },
            "titledMulti": {
                "type": "array",
                "description": "Select multiple options with titles",
                "minItems": 1,
                "maxItems": 3,
                "items": {"anyOf": titled([("value1", "First Choice"), ("value2", "Second Choice"), ("value3", "Third Choice")])},
            },
        },
        "required": [],
    });
    let message = "Please select options from the enum fields";
    elicit(connection, message, schema, "Elicitation completed").await
}

/// The JSON Schema 2020-12 tool (SEP-1613): its schema, written here, is what `tools/list`
/// must send, `$schema`, `$defs` and `additionalProperties` included.
fn json_schema_tool() -> DynamicTool<Connection> {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
            },
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
        },
        "additionalProperties": false,
    });
    let definition = ToolDefinition::new(
        "json_schema_2020_12_tool",
        "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
        schema,
    )
    .expect("the schema describes an object");
    DynamicTool::new(definition, |arguments, _: &Connection| {
        format!(
            "JSON Schema 2020-12 tool called with: {}",
            Value::Object(arguments)
        )
    })
}

fn toolbox() -> Toolbox<Connection> {
    Toolbox::for_context()
        .with_all((
            TestSimpleTextTool,
            TestImageContentTool,
            TestAudioContentTool,
            TestEmbeddedResourceTool,
            TestMultipleContentTypesTool,
            TestToolWithLoggingTool,
            TestToolWithProgressTool,
            TestErrorHandlingTool,
            TestReconnectionTool,
            TestSamplingTool,
            TestElicitationTool,
            TestElicitationSep1034DefaultsTool,
            TestElicitationSep1330EnumsTool,
        ))
        .and_then(|toolbox| toolbox.with(json_schema_tool()))
        .expect("the tools' names are distinct")
}

/// A resource template with parameter substitution
#[resource(
    uri = "test://template/{id}/data",
    name = "template",
    title = "Resource Template",
    mime_type = "application/json",
    complete(id = template_ids)
)]
fn template_data(id: String) -> String {
    json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string()
}

fn template_ids(typed: &str, _: &HashMap<String, String>) -> Vec<String> {
    ["1", "2", "3", "42"]
        .iter()
        .filter(|id| id.starts_with(typed))
        .map(|id| (*id).to_owned())
        .collect()
}

/// A static text resource for testing
#[resource(
    uri = "test://static-text",
    name = "static-text",
    title = "Static Text Resource",
    mime_type = "text/plain"
)]
fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// A prompt with required arguments
#[prompt(
    name = "test_prompt_with_arguments",
    title = "Prompt With Arguments",
    complete(arg1 = places)
)]
fn with_arguments(
    /// First test argument
    arg1: String,
    /// Second test argument
    arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

fn places(typed: &str, _: &HashMap<String, String>) -> Vec<String> {
    ["paris", "park", "parade"]
        .iter()
        .filter(|value| value.starts_with(typed))
        .map(|value| (*value).to_owned())
        .collect()
}

fn server() -> Result<McpServer<Connection>, String> {
    let server = McpServer::with_context(Arc::new(toolbox()), connection)
        .map_err(|report| format!("{report:#}"))?
        .named("mcp-conformance-test-server", "1.0.0")
        .with_resource(StaticTextResource)
        .with_resource(
            Resource::blob("test://static-binary", "static-binary", "image/png", IMAGE)
                .title("Static Binary Resource")
                .description("A static binary resource (image) for testing"),
        )
        .with_resource(
            Resource::text(
                "test://watched-resource",
                "watched-resource",
                "text/plain",
                "Watched resource content",
            )
            .title("Watched Resource")
            .description("A resource that auto-updates every 3 seconds"),
        )
        .with_resource_template(TemplateDataResource);
    Ok(prompts().into_iter().fold(server, McpServer::with_prompt))
}

/// The suite's prompts: plain, with arguments (the first completed), with an embedded resource,
/// with an image.
fn prompts() -> Vec<Prompt> {
    let simple = Prompt::fixed(
        "test_simple_prompt",
        vec![PromptMessage::new_text(
            Role::User,
            "This is a simple prompt for testing.",
        )],
    )
    .title("Simple Test Prompt")
    .description("A simple prompt without arguments");
    let with_arguments = Prompt::from(WithArgumentsPrompt);
    let embedded = Prompt::new(
        "test_prompt_with_embedded_resource",
        |arguments| async move {
            let uri = arguments.get("resourceUri").cloned().unwrap_or_default();
            let resource = rmcp::model::ResourceContents::TextResourceContents {
                uri,
                mime_type: Some("text/plain".to_owned()),
                text: "Embedded resource content for testing.".to_owned(),
                meta: None,
            };
            Ok::<_, ErrorData>(GetPromptResult::new(vec![
                PromptMessage::new(Role::User, ContentBlock::resource(resource)),
                PromptMessage::new_text(Role::User, "Please process the embedded resource above."),
            ]))
        },
    )
    .title("Prompt With Embedded Resource")
    .description("A prompt that includes an embedded resource")
    .argument("resourceUri", "URI of the resource to embed", true);
    let image = Prompt::fixed(
        "test_prompt_with_image",
        vec![
            PromptMessage::new(Role::User, ContentBlock::image(IMAGE, "image/png")),
            PromptMessage::new_text(Role::User, "Please analyze the image above."),
        ],
    )
    .title("Prompt With Image")
    .description("A prompt that includes image content");
    vec![simple, with_arguments, embedded, image]
}

#[tokio::main]
async fn main() -> ExitCode {
    let mut arguments = std::env::args().skip(1);
    let address = arguments
        .next()
        .unwrap_or_else(|| "127.0.0.1:3000".to_owned());
    let stateless = arguments.any(|argument| argument == "--stateless");
    match serve(&address, stateless).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("conformance_server: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(address: &str, stateless: bool) -> Result<(), Box<dyn std::error::Error>> {
    let address: SocketAddr = address.parse()?;
    let server = server()?;
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(!stateless)
        .with_sse_retry(Some(Duration::from_millis(500)));
    let service = server.http_service_with(config);
    let listener = tokio::net::TcpListener::bind(address).await?;
    eprintln!(
        "listening on http://{}/mcp ({})",
        listener.local_addr()?,
        if stateless { "stateless" } else { "stateful" }
    );
    loop {
        let (stream, _) = listener.accept().await?;
        let service = TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let ended = auto::Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(stream), service)
                .await;
            if let Err(error) = ended {
                eprintln!("connection ended: {error}");
            }
        });
    }
}
