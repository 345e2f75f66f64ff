//! A client written with toolwright's public API, for the client scenarios of the official MCP
//! conformance suite (npm `@modelcontextprotocol/conformance`; `tests/mcp_conformance.sh` runs
//! them):
//!
//! ```text
//! conformance client --command target/debug/examples/conformance_client --scenario tools_call
//! ```
//!
//! The suite starts a server of the scenario and runs this with the server's URL as the last
//! argument (the scenario's name in `MCP_CONFORMANCE_SCENARIO`, and for some a JSON context in
//! `MCP_CONFORMANCE_CONTEXT`: a pre-registered client's ID and secret). It does what an
//! application does: connects over Streamable HTTP with [`McpClient::connect`], or for an
//! authorization scenario (`auth/..`) with [`McpClient::connect_http`] and an [`McpOAuth`] whose
//! browser step is headless (it follows the authorization URL to its redirect, as a user who
//! approves would); it offers the revisions the suite's scenarios are written for (2025-11-25
//! and older: no scenario of the suite speaks 2026-07-28, and a client that negotiates properly
//! offers what its peer speaks), accepts every elicitation with the form's defaults (SEP-1034),
//! lists the server's tools into a toolbox and calls each once through it, with the least
//! arguments its schema takes (a request refused for its authorization, `401` or `403
//! insufficient_scope`, is authorized and sent again by the client itself), then closes the
//! session. It exits non-zero when any of that fails.

use std::process::ExitCode;

use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction, ProtocolVersion};
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Map, Value, json};
use toolwright::{Arguments, ToolCall, Toolbox};
use toolwright_mcp::{
    EnterpriseLogin, JwtSigningAlgorithm, McpClient, McpOAuth, McpTools, ToolboxExt as _,
};

/// Where the suite's authorization server sends the user back (any URI it is given).
const REDIRECT_URI: &str = "http://localhost:3000/callback";
/// The client ID metadata document the suite's authorization server knows (SEP-991).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

#[tokio::main]
async fn main() -> ExitCode {
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: conformance_client URL");
        return ExitCode::from(2);
    };
    match run(url).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

async fn run(url: String) -> Result<(), String> {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    let client = McpClient::new()
        .named("toolwright-conformance-client", env!("CARGO_PKG_VERSION"))
        .with_protocol_versions(
            ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25)
                .iter()
                .cloned(),
        )
        // The user accepts every form as the server fills it in: its defaults.
        .on_elicitation(|request| async move {
            match request {
                ElicitRequestParams::FormElicitationParams { .. } => {
                    ElicitResult::new(ElicitationAction::Accept)
                }
                _ => ElicitResult::new(ElicitationAction::Decline),
            }
        });
    let oauth = scenario
        .starts_with("auth/")
        .then(|| oauth(&scenario, &context));
    let running = match &oauth {
        Some(oauth) => client.clone().connect_http(&url, oauth).await,
        None => {
            client
                .clone()
                .connect(StreamableHttpClientTransport::from_uri(url.clone()))
                .await
        }
    }
    .map_err(|error| error.to_string())?;
    eprintln!(
        "protocol revision {}",
        client
            .protocol_version()
            .map_or_else(|| "?".to_owned(), |version| version.to_string())
    );
    let tools = McpTools::of(&running)
        .await
        .map_err(|error| error.to_string())?;
    let toolbox = Toolbox::new()
        .with_mcp_tools(tools)
        .map_err(|error| error.to_string())?;
    let calls: Vec<ToolCall> = toolbox
        .definitions()
        .enumerate()
        .map(|(index, definition)| {
            ToolCall::new(
                format!("call_{index}"),
                definition.name(),
                Arguments::Json(least_arguments(definition.parameters())),
            )
        })
        .collect();
    let mut failed = Vec::new();
    for call in &calls {
        let result = toolbox.execute(call, &()).await;
        eprintln!("{}: {}", call.name, result.text());
        if result.is_error {
            failed.push(call.name.clone());
        }
    }
    running.cancel().await.map_err(|error| error.to_string())?;
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("these calls failed: {}", failed.join(", ")))
    }
}

/// The authorization of a scenario: a client named by the suite's metadata document, or the
/// pre-registered one its context names; the user approves whatever is asked. A client
/// credentials scenario's client asks with its ID and secret, no user in the loop; a
/// cross-app access scenario's exchanges the user's enterprise ID token (its context's).
fn oauth(scenario: &str, context: &Value) -> McpOAuth {
    if scenario.starts_with("auth/client-credentials")
        && let (Some(id), Some(key), Some("ES256")) = (
            context["client_id"].as_str(),
            context["private_key_pem"].as_str(),
            context["signing_algorithm"].as_str(),
        )
    {
        return McpOAuth::private_key_jwt(id, key, JwtSigningAlgorithm::ES256);
    }
    if scenario.starts_with("auth/client-credentials")
        && let (Some(id), Some(secret)) = (
            context["client_id"].as_str(),
            context["client_secret"].as_str(),
        )
    {
        return McpOAuth::client_credentials(id, secret);
    }
    // Cross-app access: the user's enterprise ID token, exchanged.
    let text = |key: &str| context[key].as_str().map(str::to_owned);
    if let (
        Some(issuer),
        Some(endpoint),
        Some(idp_client),
        Some(id_token),
        Some(id),
        Some(secret),
    ) = (
        text("idp_issuer"),
        text("idp_token_endpoint"),
        text("idp_client_id"),
        text("idp_id_token"),
        text("client_id"),
        text("client_secret"),
    ) {
        return McpOAuth::enterprise(EnterpriseLogin::new(
            issuer, endpoint, idp_client, id_token, id, secret,
        ));
    }
    let oauth = McpOAuth::new(REDIRECT_URI, approve)
        .with_client_name("toolwright-conformance-client")
        .with_client_metadata_url(CLIENT_METADATA_URL);
    match context["client_id"].as_str() {
        Some(id) => oauth.with_client(id, context["client_secret"].as_str().map(str::to_owned)),
        None => oauth,
    }
}

/// The headless browser step: the authorization URL followed to its redirect, which a user who
/// approves would be sent to.
async fn approve(url: String) -> Result<String, String> {
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|error| error.to_string())?;
    let response = http
        .get(&url)
        .send()
        .await
        .map_err(|error| error.to_string())?;
    response
        .headers()
        .get(reqwest::header::LOCATION)
        .and_then(|location| location.to_str().ok())
        .map(str::to_owned)
        .ok_or_else(|| {
            format!(
                "the authorization server did not redirect ({})",
                response.status()
            )
        })
}

/// The least arguments an object schema takes: each required property with the first value of
/// its type (its default or first enum value when it names one).
fn least_arguments(schema: &Value) -> Value {
    let mut arguments = Map::new();
    let required = schema["required"].as_array().cloned().unwrap_or_default();
    for name in required.iter().filter_map(Value::as_str) {
        let property = &schema["properties"][name];
        let value = if let Some(default) = property.get("default") {
            default.clone()
        } else if let Some(first) = property["enum"].get(0) {
            first.clone()
        } else {
            match property["type"].as_str() {
                Some("number" | "integer") => json!(1),
                Some("boolean") => json!(false),
                Some("array") => json!([]),
                Some("object") => json!({}),
                _ => json!(""),
            }
        };
        arguments.insert(name.to_owned(), value);
    }
    Value::Object(arguments)
}
