//! `#[resource]` and `#[prompt]` in the forms the docs show: sync and async, fixed URIs and
//! templates, every return type `IntoContents` and `IntoPrompt` take, raw and renamed names,
//! and a parameter named like its fn.
use std::sync::Arc;

use toolwright::Toolbox;
use toolwright::exec::ResourceContents;
use toolwright::mcp::rmcp::model::{ErrorData, GetPromptResult, PromptMessage, Role};
use toolwright::mcp::{McpServer, prompt, resource};

#[resource(uri = "a://text")]
fn text() -> String {
    String::new()
}

#[resource(uri = "a://{type}")]
async fn typed(r#type: String) -> Result<ResourceContents, ErrorData> {
    Ok(ResourceContents::text(r#type, None, ""))
}

#[resource(uri = "a://{id}/{name}", name = "pair")]
pub(crate) fn id(id: u64, name: String) -> Option<Vec<ResourceContents>> {
    (id > 0).then(|| vec![ResourceContents::text(name, None, "")])
}

#[prompt]
fn plain() -> &'static str {
    "hello"
}

#[prompt(name = "one")]
async fn message(r#type: String, count: Option<u8>) -> PromptMessage {
    PromptMessage::new_text(Role::User, format!("{type} {count:?}", type = r#type))
}

#[prompt]
fn whole(whole: String) -> Result<GetPromptResult, ErrorData> {
    Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, whole)]))
}

fn main() {
    let _server = McpServer::new(Arc::new(Toolbox::new()), ())
        .unwrap()
        .with_resource(TextResource)
        .with_resource_template(TypedResource)
        .with_resource_template(IdResource)
        .with_prompt(PlainPrompt)
        .with_prompt(MessagePrompt)
        .with_prompt(WholePrompt);
}
