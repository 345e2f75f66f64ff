#![doc = include_str!("provider.md")]

mod replay;
mod stream;

use std::borrow::Cow;

use serde_json::Value;

pub use crate::forms::{Provider, UnknownProvider};
pub use crate::providers::bedrock::{EventStreamDecoder, EventStreamError};
use crate::providers::spec;
pub use crate::wire::WireError;
pub use crate::wire::request::{
    AllowedMode, RequestError, RequestFields, ToolChoice, ToolRequest, UnknownToolChoice,
};
pub use crate::wire::turn::{Blocks, Turn};

pub use self::stream::{Assembler, PartialCall};

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
        let mut turn = (spec(self).read)(response, choice)?;
        turn.provider = Some(self);
        for warning in &turn.warnings {
            tracing::warn!(provider = %self, %warning, "an odd value in a response, kept");
        }
        Ok(turn)
    }

    /// Whether a response can hold several answers to choose from (OpenAI Chat `choices`,
    /// Gemini `candidates`).
    pub fn has_choices(self) -> bool {
        spec(self).choices
    }

    /// Why a tool name breaks this provider's rules, if it does: OpenAI `[A-Za-z0-9_-]{1,64}`,
    /// Anthropic `[A-Za-z0-9_-]{1,128}`, Gemini `[A-Za-z_][A-Za-z0-9_.:-]{0,127}`, MCP
    /// `[A-Za-z0-9_.-]{1,128}`.
    ///
    /// ```
    /// use toolwright::provider::Provider;
    ///
    /// assert!(Provider::Mcp.check_name("files.read").is_ok());
    /// assert!(Provider::OpenAiChat.check_name("files.read").is_err());
    /// assert!(Provider::Gemini.check_name("2fa").is_err());
    /// ```
    ///
    /// # Errors
    /// What is wrong with the name, in words.
    pub fn check_name(self, name: &str) -> Result<(), String> {
        spec(self).names.check(name)
    }

    /// The name a tool is sent under to this provider: the name itself when it keeps the
    /// provider's rules ([`check_name`](Self::check_name)), otherwise a stand-in that does.
    /// Each character the provider refuses becomes `_`; a name too long keeps its start and ends
    /// in a hash of the whole name; a Gemini name that does not start with a letter or `_` gets a
    /// leading `_`. The same name always maps to the same stand-in, and a toolbox maps calls to
    /// the stand-in back to the tool ([`Toolbox::read_response`](crate::Toolbox::read_response)).
    ///
    /// ```
    /// use toolwright::provider::Provider;
    ///
    /// assert_eq!(Provider::OpenAiChat.wire_name("files.read"), "files_read");
    /// assert_eq!(Provider::Mcp.wire_name("files.read"), "files.read");
    /// assert_eq!(Provider::Gemini.wire_name("2fa"), "_2fa");
    /// assert_eq!(Provider::OpenAiChat.wire_name(&"x".repeat(80)).len(), 64);
    /// ```
    pub fn wire_name(self, name: &str) -> Cow<'_, str> {
        let rule = &spec(self).names;
        match rule.check(name) {
            Ok(()) => Cow::Borrowed(name),
            Err(_) => Cow::Owned(rule.stand_in(name)),
        }
    }
}
