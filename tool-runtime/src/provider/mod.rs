#![doc = include_str!("provider.md")]

pub(crate) mod anthropic;
pub(crate) mod gemini;
pub(crate) mod mcp;
pub(crate) mod openai;
mod read;
mod replay;
pub(crate) mod request;
pub(crate) mod responses;
mod stream;
mod turn;

use std::fmt;

use serde_json::{Map, Value};

use crate::content::ContentPart;
pub use crate::forms::{Provider, UnknownProvider};
use crate::result::ToolResult;
use toolwright_json::value as json;

pub use self::request::{
    AllowedMode, RequestError, RequestFields, ToolChoice, ToolRequest, UnknownToolChoice,
};
pub use self::stream::{Assembler, PartialCall};
pub use self::turn::{Blocks, Turn};

/// The response side of each provider's wire format.
impl Provider {
    /// The tool calls in one response body (for MCP, a `tools/call` request or its `params`),
    /// with their arguments exactly as sent, in the order the model made them. Tool names are
    /// kept as the model wrote them; [`Toolbox::read_response`](crate::Toolbox::read_response) maps stand-in names back.
    ///
    /// Calls the provider runs itself are included, marked
    /// [`CallKind::Server`](crate::CallKind::Server), and the Responses API's built-in tools the
    /// application carries out, marked [`CallKind::Builtin`](crate::CallKind::Builtin) (see
    /// the module's "Everything a model sends"). For OpenAI Chat and Gemini, choice 0 is
    /// read (the others are alternatives to it; [`read_choice`](Self::read_choice) reads
    /// another). An OpenAI Chat message in the legacy form, `function_call` instead of
    /// `tool_calls`, gives its one call, with a made-up id ([`ToolCall::id_generated`](crate::ToolCall::id_generated)) and
    /// `metadata["legacy_function_call"]` set, so that its result goes back as the `function`
    /// message that form takes.
    ///
    /// # Errors
    /// A malformed body: the error names the path of the first thing wrong.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright::provider::Provider;
    ///
    /// let error = Provider::OpenAiChat
    ///     .read_response(&json!({"choices": [{"message": {"tool_calls": [
    ///         {"id": 7, "type": "function", "function": {"name": "add", "arguments": "{}"}},
    ///     ]}}]}))
    ///     .unwrap_err();
    /// assert_eq!(error.path(), "/choices/0/message/tool_calls/0/id");
    /// ```
    pub fn read_response(self, response: &Value) -> Result<Turn, WireError> {
        self.read_choice(response, 0)
    }

    /// The tool calls of one answer of a response that holds several: OpenAI Chat's choice or
    /// Gemini's candidate whose `index` is `choice` (a request with `n` or `candidateCount`
    /// above 1 gets several). An [`Assembler`] reads the same answer of a stream with
    /// [`Assembler::choice`].
    ///
    /// # Errors
    /// A malformed body, as [`read_response`](Self::read_response); a body whose answers are
    /// all numbered otherwise; a choice other than 0 from a provider that sends one answer
    /// (Responses, Anthropic, MCP).
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright::provider::Provider;
    ///
    /// let response = json!({"choices": [
    ///     {"index": 0, "message": {"content": "I'd rather not."}, "finish_reason": "stop"},
    ///     {"index": 1, "message": {"tool_calls": [
    ///         {"id": "call_1", "type": "function", "function": {"name": "add", "arguments": "{}"}},
    ///     ]}, "finish_reason": "tool_calls"},
    /// ]});
    /// assert!(Provider::OpenAiChat.read_response(&response).unwrap().calls.is_empty());
    /// let second = Provider::OpenAiChat.read_choice(&response, 1).unwrap();
    /// assert_eq!(second.calls[0].call_id, "call_1");
    /// assert!(Provider::OpenAiChat.read_choice(&response, 2).is_err());
    /// ```
    pub fn read_choice(self, response: &Value, choice: usize) -> Result<Turn, WireError> {
        if choice != 0 && !self.has_choices() {
            return Err(WireError::new(
                "",
                format!("{self} responses carry one answer; there is no choice {choice}"),
            ));
        }
        let mut turn = match self {
            Provider::OpenAiChat => openai::read_response(response, choice),
            Provider::OpenAiResponses => responses::read_response(response),
            Provider::Anthropic => anthropic::read_response(response),
            Provider::Gemini => gemini::read_response(response, choice),
            Provider::Mcp => mcp::read_request(response),
        }?;
        turn.provider = Some(self);
        for warning in &turn.warnings {
            tracing::warn!(provider = %self, %warning, "an odd value in a response, kept");
        }
        Ok(turn)
    }

    /// Whether a response can hold several answers to choose from (OpenAI Chat `choices`,
    /// Gemini `candidates`).
    pub fn has_choices(self) -> bool {
        matches!(self, Provider::OpenAiChat | Provider::Gemini)
    }
}

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

    /// The 1-based number of the stream chunk at fault, for errors of an [`Assembler`].
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
fn copy_options(result: &ToolResult, allowed: &[&str], target: &mut Map<String, Value>) {
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
fn data_url(mime_type: &str, data: &str) -> String {
    format!("data:{mime_type};base64,{data}")
}

/// What a provider that cannot carry `part` sends in its place
/// ([`ContentPart::fallback_text`]), with a warning (target `toolwright::lint`) that says so:
/// never a silent drop.
fn fallback(provider: &str, call_id: &str, part: &ContentPart) -> String {
    let text = part.fallback_text().unwrap_or_default();
    tracing::warn!(
        target: "toolwright::lint",
        call_id,
        provider,
        "a tool result's part cannot go in this provider's tool result; sent as text: {text}"
    );
    text
}

/// Whether content is one text part (or none): sent as a plain string where a provider takes one.
fn text_only(parts: &[ContentPart]) -> Option<String> {
    match parts {
        [] => Some(String::new()),
        [ContentPart::Text { text }] => Some(text.clone()),
        _ => None,
    }
}

/// Gives a call to a stand-in name ([`Provider::wire_name`]) the tool's own name.
pub(crate) fn map_back(stand_ins: &[(String, String)], call: &mut crate::call::ToolCall) {
    if let Some((_, local)) = stand_ins.iter().find(|(wire, _)| *wire == call.name) {
        call.name.clone_from(local);
    }
}
