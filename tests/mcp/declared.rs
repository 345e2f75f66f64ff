//! Resources and prompts declared with `#[resource]` and `#[prompt]`, as a client sees them over
//! real HTTP: what is listed (descriptions from doc comments, titles, MIME types, arguments and
//! whether they are required), what a read or a get gives, the errors a client gets for a URI or
//! an argument that does not parse, and completion.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::ServiceError;
use rmcp::model::{
    ArgumentInfo, CompleteRequestParams, ErrorCode, ErrorData, GetPromptRequestParams,
    PromptMessage, ReadResourceRequestParams, Reference, ResourceContents as McpContents, Role,
};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ServiceExt, service::RunningService};
use serde_json::{Value, json};
use toolwright::Toolbox;
use toolwright::exec::ResourceContents;
use toolwright::mcp::{McpServer, Prompt, Resource, ResourceTemplate, prompt, resource};

/// The project's README,
/// in two lines.
#[resource(uri = "docs://readme", mime_type = "text/markdown", title = "README")]
fn readme() -> &'static str {
    "# Notes"
}

/// A note, by its number.
#[resource(uri = "notes://{id}", mime_type = "text/plain", complete(id = note_ids))]
async fn note(id: u32) -> Option<String> {
    (id < 3).then(|| format!("note {id}"))
}

fn note_ids(typed: &str, _: &HashMap<String, String>) -> Vec<String> {
    ["1", "2", "12"]
        .iter()
        .filter(|id| id.starts_with(typed))
        .map(|id| (*id).to_owned())
        .collect()
}

/// A file of a folder, both in the URI; its contents are the application's own value.
#[resource(uri = "files://{folder}/{name}", name = "file")]
fn folder_file(folder: String, r#name: String) -> Result<Vec<ResourceContents>, ErrorData> {
    if folder == "locked" {
        return Err(ErrorData::invalid_request("the folder is locked", None));
    }
    Ok(vec![
        ResourceContents::text(format!("files://{folder}/{name}"), None, "one"),
        ResourceContents::blob(
            format!("files://{folder}/{name}.bin"),
            Some("application/octet-stream"),
            "AAE=",
        ),
    ])
}

/// Asks for a review of some code.
///
/// # Arguments
/// * `strict` - Whether to be strict.
#[prompt(title = "Code review", complete(language = languages))]
async fn review(
    /// The code's language.
    language: String,
    /// What to look at first.
    focus: Option<String>,
    strict: Option<bool>,
) -> Vec<PromptMessage> {
    vec![
        PromptMessage::new_text(Role::User, format!("Review this {language} code.")),
        PromptMessage::new_text(
            Role::User,
            format!(
                "Focus: {}; strict: {}",
                focus.as_deref().unwrap_or("anything"),
                strict.unwrap_or(false)
            ),
        ),
    ]
}

fn languages(typed: &str, _: &HashMap<String, String>) -> Vec<String> {
    ["rust", "ruby", "python"]
        .iter()
        .filter(|language| language.starts_with(typed))
        .map(|language| (*language).to_owned())
        .collect()
}

/// Counts to `n`, a number.
#[prompt(name = "count")]
fn count_to(n: u8) -> String {
    (1..=n).map(|i| i.to_string()).collect::<Vec<_>>().join(" ")
}

async fn serve() -> SocketAddr {
    let server = McpServer::new(Arc::new(Toolbox::new()), ())
        .unwrap()
        .with_resource(ReadmeResource)
        .with_resource_template(NoteResource)
        .with_resource_template(FolderFileResource)
        .with_prompt(ReviewPrompt)
        .with_prompt(CountToPrompt);
    crate::http::serve(server.http_service(true)).await
}

async fn client(address: SocketAddr) -> RunningService<rmcp::RoleClient, ()> {
    ().serve(StreamableHttpClientTransport::from_uri(format!(
        "http://{address}/mcp"
    )))
    .await
    .unwrap()
}

fn code(error: &ServiceError) -> ErrorCode {
    match error {
        ServiceError::McpError(data) => data.code,
        other => panic!("an MCP error: {other}"),
    }
}

fn texts(contents: &[McpContents]) -> Vec<(String, Option<String>, String)> {
    contents
        .iter()
        .map(|contents| match contents {
            McpContents::TextResourceContents {
                uri,
                mime_type,
                text,
                ..
            } => (uri.clone(), mime_type.clone(), text.clone()),
            McpContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => (uri.clone(), mime_type.clone(), format!("blob {blob}")),
            other => panic!("text or blob contents: {other:?}"),
        })
        .collect()
}

#[test]
fn a_handle_makes_the_value_the_attribute_declares() {
    let value = Resource::from(ReadmeResource);
    assert_eq!(value.uri(), "docs://readme");
    let review = Prompt::from(ReviewPrompt);
    assert_eq!(review.name(), "review");
    let template = ResourceTemplate::from(NoteResource);
    assert!(template.matches("notes://7").is_some());
    assert!(template.matches("docs://readme").is_none());
    // The fns themselves are as written.
    assert_eq!(readme(), "# Notes");
    assert_eq!(count_to(3), "1 2 3");
}

#[tokio::test]
async fn declared_resources_are_listed_and_read_as_written() {
    let running = client(serve().await).await;

    let resources = running.list_all_resources().await.unwrap();
    let listed: Vec<Value> = resources
        .iter()
        .map(|resource| serde_json::to_value(resource).unwrap())
        .collect();
    assert_eq!(
        listed,
        [json!({
            "uri": "docs://readme",
            "name": "readme",
            "title": "README",
            "description": "The project's README,\nin two lines.",
            "mimeType": "text/markdown",
        })]
    );
    let templates = running.list_all_resource_templates().await.unwrap();
    let listed: Vec<Value> = templates
        .iter()
        .map(|template| serde_json::to_value(template).unwrap())
        .collect();
    assert_eq!(
        listed,
        [
            json!({
                "uriTemplate": "notes://{id}",
                "name": "note",
                "description": "A note, by its number.",
                "mimeType": "text/plain",
            }),
            json!({
                "uriTemplate": "files://{folder}/{name}",
                "name": "file",
                "description": "A file of a folder, both in the URI; its contents are the application's own value.",
            }),
        ]
    );

    let read = |uri: &str| running.read_resource(ReadResourceRequestParams::new(uri));
    assert_eq!(
        texts(&read("docs://readme").await.unwrap().contents),
        [(
            "docs://readme".to_owned(),
            Some("text/markdown".to_owned()),
            "# Notes".to_owned()
        )]
    );
    assert_eq!(
        texts(&read("notes://2").await.unwrap().contents),
        [(
            "notes://2".to_owned(),
            Some("text/plain".to_owned()),
            "note 2".to_owned()
        )]
    );
    // `None`: no such note; a variable that is not a `u32`: no such URI. Both as MCP says.
    let absent = read("notes://7").await.unwrap_err();
    assert_eq!(code(&absent), ErrorCode::RESOURCE_NOT_FOUND, "{absent}");
    let unparsed = read("notes://seven").await.unwrap_err();
    assert_eq!(code(&unparsed), ErrorCode::RESOURCE_NOT_FOUND);
    assert!(
        unparsed.to_string().contains("`id` is not valid"),
        "{unparsed}"
    );
    assert_eq!(
        texts(&read("files://docs/a.txt").await.unwrap().contents),
        [
            ("files://docs/a.txt".to_owned(), None, "one".to_owned()),
            (
                "files://docs/a.txt.bin".to_owned(),
                Some("application/octet-stream".to_owned()),
                "blob AAE=".to_owned()
            ),
        ]
    );
    // The application's error reaches the client with its own code.
    let locked = read("files://locked/a").await.unwrap_err();
    assert_eq!(code(&locked), ErrorCode::INVALID_REQUEST, "{locked}");

    let ids = running
        .complete(CompleteRequestParams::new(
            Reference::for_resource("notes://{id}"),
            ArgumentInfo::new("id", "1"),
        ))
        .await
        .unwrap();
    assert_eq!(ids.completion.values, ["1", "12"]);
}

#[tokio::test]
async fn declared_prompts_are_listed_and_got_with_their_arguments() {
    let running = client(serve().await).await;

    let prompts = running.list_all_prompts().await.unwrap();
    let listed: Vec<Value> = prompts
        .iter()
        .map(|prompt| serde_json::to_value(prompt).unwrap())
        .collect();
    assert_eq!(
        listed,
        [
            json!({
                "name": "review",
                "title": "Code review",
                "description": "Asks for a review of some code.",
                "arguments": [
                    {"name": "language", "description": "The code's language.", "required": true},
                    {"name": "focus", "description": "What to look at first.", "required": false},
                    {"name": "strict", "description": "Whether to be strict.", "required": false},
                ],
            }),
            json!({
                "name": "count",
                "description": "Counts to `n`, a number.",
                "arguments": [{"name": "n", "required": true}],
            }),
        ]
    );

    let get = |name: &str, arguments: Value| {
        running.get_prompt(
            GetPromptRequestParams::new(name)
                .with_arguments(arguments.as_object().unwrap().clone()),
        )
    };
    let messages = |result: rmcp::model::GetPromptResult| -> Vec<String> {
        result
            .messages
            .iter()
            .map(|message| {
                serde_json::to_value(message).unwrap()["content"]["text"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect()
    };
    assert_eq!(
        messages(get("review", json!({"language": "rust"})).await.unwrap()),
        ["Review this rust code.", "Focus: anything; strict: false"]
    );
    assert_eq!(
        messages(
            get(
                "review",
                json!({"language": "rust", "focus": "errors", "strict": "true"})
            )
            .await
            .unwrap()
        ),
        ["Review this rust code.", "Focus: errors; strict: true"]
    );
    assert_eq!(
        messages(get("count", json!({"n": "3"})).await.unwrap()),
        ["1 2 3"]
    );

    // A missing required argument and one that does not parse: invalid params, naming it.
    let missing = get("review", json!({})).await.unwrap_err();
    assert_eq!(code(&missing), ErrorCode::INVALID_PARAMS);
    assert!(missing.to_string().contains("`language`"), "{missing}");
    let unparsed = get("count", json!({"n": "many"})).await.unwrap_err();
    assert_eq!(code(&unparsed), ErrorCode::INVALID_PARAMS);
    assert!(
        unparsed
            .to_string()
            .contains("the argument `n` of prompt `count` is not valid"),
        "{unparsed}"
    );
    let optional = get("review", json!({"language": "rust", "strict": "very"}))
        .await
        .unwrap_err();
    assert_eq!(code(&optional), ErrorCode::INVALID_PARAMS);
    assert!(optional.to_string().contains("`strict`"), "{optional}");

    let completed = running
        .complete(CompleteRequestParams::new(
            Reference::for_prompt("review"),
            ArgumentInfo::new("language", "r"),
        ))
        .await
        .unwrap();
    assert_eq!(completed.completion.values, ["rust", "ruby"]);
}
