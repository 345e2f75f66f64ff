//! What every provider's wire format shares, below the providers' folders: the errors, a
//! response's [`Turn`](turn::Turn), the readers of JSON paths, the assembler's bookkeeping, the
//! request's tool choice, and [`Spec`](spec::Spec), the one record each provider fills in.

pub(crate) mod assembly;
pub(crate) mod read;
pub(crate) mod request;
pub(crate) mod spec;
pub(crate) mod turn;

use std::fmt;

use serde_json::{Map, Value};

use crate::call::ToolCall;
use crate::content::ContentPart;
use crate::result::ToolResult;
use toolwright_json::value as json;

/// A payload that does not have the provider's shape, or results that do not pair with their
/// calls. Names where: the chunk of a stream (1-based, counting every chunk pushed) and the JSON
/// pointer of the offending value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireError {
    chunk: Option<usize>,
    path: String,
    pub(crate) message: String,
}

impl WireError {
    pub(crate) fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        WireError {
            chunk: None,
            path: path.into(),
            message: message.into(),
        }
    }

    pub(crate) fn in_chunk(mut self, chunk: usize) -> Self {
        self.chunk = Some(chunk);
        self
    }

    /// The 1-based number of the stream chunk at fault, for errors of an
    /// [`Assembler`](crate::provider::Assembler).
    pub fn chunk(&self) -> Option<usize> {
        self.chunk
    }

    /// The JSON pointer of the offending value within the payload or chunk (`""` for the whole).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What is wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(chunk) = self.chunk {
            write!(f, "chunk {chunk}: ")?;
        }
        if !self.path.is_empty() {
            write!(f, "at {}: ", self.path)?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for WireError {}

/// The result options `allowed` names, copied onto `target`.
pub(crate) fn copy_options(result: &ToolResult, allowed: &[&str], target: &mut Map<String, Value>) {
    for (key, value) in result.options() {
        if allowed.contains(&key) {
            target.insert(key.to_owned(), json::clone_value(value));
        } else {
            tracing::debug!(
                option = key,
                "result option not taken by this provider; left out"
            );
        }
    }
}

/// A `data:` URL of a base64 image.
pub(crate) fn data_url(mime_type: &str, data: &str) -> String {
    format!("data:{mime_type};base64,{data}")
}

/// What a provider that cannot carry `part` sends in its place
/// ([`ContentPart::fallback_text`]), with a warning (target `toolwright::lint`) that says so:
/// never a silent drop.
pub(crate) fn fallback(provider: &str, call_id: &str, part: &ContentPart) -> String {
    let text = part.fallback_text().unwrap_or_default();
    tracing::warn!(
        target: "toolwright::lint",
        call_id,
        provider,
        "a tool result's part cannot go in this provider's tool result; sent as text: {text}"
    );
    text
}

/// Copies of `items` (the blocks, items or parts a turn is carried back with).
pub(crate) fn values(items: &[Value]) -> Vec<Value> {
    items.iter().map(json::clone_value).collect()
}

/// Whether content is one text part (or none): sent as a plain string where a provider takes one.
pub(crate) fn text_only(parts: &[ContentPart]) -> Option<String> {
    match parts {
        [] => Some(String::new()),
        [ContentPart::Text { text }] => Some(text.clone()),
        _ => None,
    }
}

/// Gives a call to a stand-in name ([`Provider::wire_name`]) the tool's own name.
pub(crate) fn map_back(stand_ins: &[(String, String)], call: &mut ToolCall) {
    if let Some((_, local)) = stand_ins.iter().find(|(wire, _)| *wire == call.name) {
        call.name.clone_from(local);
    }
}
