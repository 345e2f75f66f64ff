//! Provider wire formats: the tool calls in a model's response, the results sent back, and tool
//! calls assembled from a stream as it arrives.
//!
//! Everything works on `serde_json` values and text; no HTTP client is involved. Reading is
//! [`Provider::read_response`] (names as the model wrote them) or [`Toolbox::read_response`]
//! (names sent under a stand-in mapped back to the tool); streams go through an [`Assembler`];
//! results go back with [`Toolbox::encode_results`], one per call, in call order.
//!
//! ```
//! use serde_json::json;
//! use toolwright::provider::Provider;
//!
//! let response = json!({"content": [
//!     {"type": "text", "text": "Let me add those."},
//!     {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 2, "b": 3}},
//! ], "stop_reason": "tool_use"});
//! let turn = Provider::Anthropic.read_response(&response).unwrap();
//! assert_eq!(turn.text, "Let me add those.");
//! assert_eq!(turn.calls[0].call_id, "toolu_1");
//! assert_eq!(turn.calls[0].arguments_as_map()["b"], 3);
//! ```

mod anthropic;
mod gemini;
pub(crate) mod mcp;
mod openai;
mod read;
mod request;
mod responses;
mod stream;

use std::fmt;
use std::str::FromStr;

use serde_json::{Map, Value};

use crate::call::ToolCall;
use crate::content::ContentPart;
use crate::output::Interrupt;
use crate::result::ToolResult;
use crate::schema::Dialect;
use crate::toolbox::Toolbox;
use crate::{echo, json};

pub use self::request::{
    AllowedMode, RequestError, RequestFields, ToolChoice, ToolRequest, UnknownToolChoice,
};
pub use self::stream::{Assembler, PartialCall};

/// A provider's wire format for tool calls and their results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Provider {
    /// OpenAI Chat Completions: `choices[].message.tool_calls[]`, results as `tool` messages.
    OpenAiChat,
    /// OpenAI Responses API: `function_call` output items, results as `function_call_output`
    /// items that reference the call's `call_id`.
    OpenAiResponses,
    /// Anthropic Messages: `tool_use` content blocks, results as one `user` message of
    /// `tool_result` blocks.
    Anthropic,
    /// Gemini: `functionCall` parts, results as `functionResponse` parts.
    Gemini,
    /// MCP: a `tools/call` request, answered with a `CallToolResult`.
    Mcp,
}

impl Provider {
    /// Every provider.
    pub const ALL: [Provider; 5] = [
        Provider::OpenAiChat,
        Provider::OpenAiResponses,
        Provider::Anthropic,
        Provider::Gemini,
        Provider::Mcp,
    ];

    /// The dialect whose name rules the provider applies to tool names.
    pub fn dialect(self) -> Dialect {
        match self {
            Provider::OpenAiChat | Provider::OpenAiResponses => Dialect::OpenAi,
            Provider::Anthropic => Dialect::Anthropic,
            Provider::Gemini => Dialect::Gemini,
            Provider::Mcp => Dialect::Mcp,
        }
    }

    /// The tool calls in one response body (for MCP, a `tools/call` request or its `params`),
    /// with their arguments exactly as sent, in the order the model made them. Tool names are
    /// kept as the model wrote them; [`Toolbox::read_response`] maps stand-in names back.
    ///
    /// Calls the provider runs itself (Anthropic's `server_tool_use`) are included, marked
    /// [`CallKind::Server`](crate::CallKind::Server). For OpenAI Chat and Gemini, choice 0 is
    /// read (the others are alternatives to it; [`read_choice`](Self::read_choice) reads
    /// another). An OpenAI Chat message in the legacy form, `function_call` instead of
    /// `tool_calls`, gives its one call, with a made-up id ([`ToolCall::id_generated`]) and
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
        match self {
            Provider::OpenAiChat => openai::read_response(response, choice),
            Provider::OpenAiResponses => responses::read_response(response),
            Provider::Anthropic => anthropic::read_response(response),
            Provider::Gemini => gemini::read_response(response, choice),
            Provider::Mcp => mcp::read_request(response),
        }
    }

    /// Whether a response can hold several answers to choose from (OpenAI Chat `choices`,
    /// Gemini `candidates`).
    pub fn has_choices(self) -> bool {
        matches!(self, Provider::OpenAiChat | Provider::Gemini)
    }

    /// The name used on the command line and in messages: `openai`, `openai-responses`,
    /// `anthropic`, `gemini`, `mcp`.
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::OpenAiChat => "openai",
            Provider::OpenAiResponses => "openai-responses",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
            Provider::Mcp => "mcp",
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A provider name that is not one of [`Provider::as_str`]'s.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown provider `{0}`; expected one of openai, openai-responses, anthropic, gemini, mcp")]
pub struct UnknownProvider(pub String);

impl FromStr for Provider {
    type Err = UnknownProvider;

    fn from_str(name: &str) -> Result<Self, UnknownProvider> {
        Provider::ALL
            .into_iter()
            .find(|provider| provider.as_str() == name)
            .ok_or_else(|| UnknownProvider(name.to_owned()))
    }
}

/// What a model's response held: its tool calls, in order, and its text.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Turn {
    /// The tool calls, in the order the model made them (including calls the provider runs
    /// itself; see [`ToolCall::is_local`]).
    pub calls: Vec<ToolCall>,
    /// The text the model wrote beside the calls (thinking excluded), joined; empty when none.
    pub text: String,
    /// Why the model stopped, as the provider says it (`tool_calls`, `tool_use`, `STOP`...).
    pub stop_reason: Option<String>,
}

impl Turn {
    /// The calls the application runs and owes a result for.
    pub fn local_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.calls.iter().filter(|call| call.is_local())
    }
}

/// A payload that does not have the provider's shape, or results that do not pair with their
/// calls. Names where: the chunk of a stream (1-based, counting every chunk pushed) and the JSON
/// pointer of the offending value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireError {
    chunk: Option<usize>,
    path: String,
    message: String,
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

/// Reading and writing a provider's wire format for the tools of this toolbox.
impl<C: ?Sized + Sync + 'static> Toolbox<C> {
    /// The tool calls in one response body, as [`Provider::read_response`], with the names of
    /// tools sent under a stand-in ([`Dialect::wire_name`]) mapped back to the tools' own.
    ///
    /// # Errors
    /// A malformed body, as [`Provider::read_response`].
    pub fn read_response(&self, provider: Provider, response: &Value) -> Result<Turn, WireError> {
        self.read_choice(provider, response, 0)
    }

    /// One answer of a response, as [`Provider::read_choice`], with stand-in names mapped back
    /// like [`read_response`](Self::read_response).
    ///
    /// # Errors
    /// As [`Provider::read_choice`].
    pub fn read_choice(
        &self,
        provider: Provider,
        response: &Value,
        choice: usize,
    ) -> Result<Turn, WireError> {
        let mut turn = provider.read_choice(response, choice)?;
        let stand_ins = self.stand_ins(provider.dialect());
        for call in &mut turn.calls {
            map_back(&stand_ins, call);
        }
        Ok(turn)
    }

    /// An assembler for one streamed response from `provider`, mapping stand-in names back like
    /// [`read_response`](Self::read_response).
    pub fn assembler(&self, provider: Provider) -> Assembler {
        Assembler::new(provider).with_stand_ins(self.stand_ins(provider.dialect()))
    }

    /// One call's result in the provider's shape: an OpenAI `tool` message (a `function`
    /// message for a call read from a legacy `function_call`), a Responses
    /// `function_call_output` item, an Anthropic `tool_result` block, a Gemini `functionResponse`
    /// part, or an MCP `CallToolResult`.
    ///
    /// Content goes as the provider takes it: text, and images where the provider takes them
    /// in a result (OpenAI Chat does not: there an image becomes a note saying it was left out).
    /// Result options ([`ToolOutput::with_option`](crate::ToolOutput::with_option)) the provider
    /// takes on a result pass through (Anthropic `cache_control`; Gemini `willContinue` and
    /// `scheduling`; MCP `_meta`); others are left out. For MCP, `structuredContent` is sent when
    /// the tool has an output schema and its result is a JSON object.
    ///
    /// # Errors
    /// When the result is not this call's (another id), the call is one the provider runs
    /// itself, or the result is an interrupt still waiting for review.
    pub fn encode_result(
        &self,
        provider: Provider,
        call: &ToolCall,
        result: &ToolResult,
    ) -> Result<Value, WireError> {
        if result.call_id != call.call_id {
            return Err(WireError::new(
                "",
                format!(
                    "the result is for call {}, not {}",
                    echo::Name(&result.call_id),
                    echo::Name(&call.call_id)
                ),
            ));
        }
        if !call.is_local() {
            return Err(WireError::new(
                "",
                format!(
                    "call {} ({}) is run by the provider, which sends its result itself",
                    echo::Name(&call.call_id),
                    echo::bare(&call.name)
                ),
            ));
        }
        // Gemini and MCP take a result without an id, and so does a legacy OpenAI Chat
        // `function_call` (its result names the function); the others pair results by the id
        // they sent, and one made up on intake would pass for theirs.
        let legacy = provider == Provider::OpenAiChat && openai::is_legacy(call);
        if call.id_generated
            && !legacy
            && matches!(
                provider,
                Provider::OpenAiChat | Provider::OpenAiResponses | Provider::Anthropic
            )
        {
            return Err(WireError::new(
                "",
                format!(
                    "call {} ({}) came without an id, and {} was made up for it on intake; the provider pairs results by the id it sent, so this result cannot be sent",
                    call.index,
                    echo::bare(&call.name),
                    echo::Name(&call.call_id)
                ),
            ));
        }
        if let Some(Interrupt { message, .. }) = result.interrupt() {
            return Err(WireError::new(
                "",
                format!(
                    "call {} ({}) is paused for review ({message}); resolve it before sending results",
                    echo::Name(&call.call_id),
                    echo::bare(&call.name)
                ),
            ));
        }
        let wire_name = provider.dialect().wire_name(&call.name);
        Ok(match provider {
            Provider::OpenAiChat => openai::encode(call, &wire_name, result),
            Provider::OpenAiResponses => responses::encode(call, result),
            Provider::Anthropic => anthropic::encode(call, result),
            Provider::Gemini => gemini::encode(call, &wire_name, result),
            Provider::Mcp => mcp::encode(
                result,
                self.get(&call.name)
                    .and_then(|tool| tool.definition().output_schema()),
            ),
        })
    }

    /// The results of a turn's calls, ready to append to the conversation: for OpenAI Chat an
    /// array of `tool` messages, for Responses an array of `function_call_output` items, for
    /// Anthropic one `user` message of `tool_result` blocks, for Gemini one `user` content of
    /// `functionResponse` parts, for MCP an array of `CallToolResult`s.
    ///
    /// Results are paired with calls by id and written in call order, one per call the
    /// application runs (calls the provider runs itself are skipped), whatever order `results`
    /// come in.
    ///
    /// # Errors
    /// When a call has no result, a result belongs to no call (or a call has two), or a
    /// result cannot be encoded ([`encode_result`](Self::encode_result)). Nothing is sent
    /// half-paired: a provider refuses a conversation with a call left unanswered.
    ///
    /// ```
    /// use serde_json::{Value, json};
    /// use toolwright::provider::Provider;
    /// use toolwright::{DynamicTool, ToolDefinition, Toolbox};
    ///
    /// let def = ToolDefinition::new("echo", "Echo.", json!({})).unwrap();
    /// let tools = Toolbox::new()
    ///     .with(DynamicTool::new(def, |args, _: &()| Value::Object(args)))
    ///     .unwrap();
    /// let response = json!({"choices": [{"message": {"role": "assistant", "tool_calls": [
    ///     {"id": "call_1", "type": "function", "function": {"name": "echo", "arguments": "{}"}},
    /// ]}}]});
    /// let turn = tools.read_response(Provider::OpenAiChat, &response).unwrap();
    /// let results: Vec<_> = turn.calls.iter().map(|c| tools.execute_blocking(c, &())).collect();
    /// let messages = tools.encode_results(Provider::OpenAiChat, &turn.calls, &results).unwrap();
    /// assert_eq!(messages, json!([{"role": "tool", "tool_call_id": "call_1", "content": "{}"}]));
    /// ```
    pub fn encode_results(
        &self,
        provider: Provider,
        calls: &[ToolCall],
        results: &[ToolResult],
    ) -> Result<Value, WireError> {
        // Results are paired by id: two calls under one id could get each other's.
        let mut ids: Vec<(&str, usize)> = calls
            .iter()
            .enumerate()
            .filter(|(_, call)| call.is_local())
            .map(|(at, call)| (call.call_id.as_str(), at))
            .collect();
        ids.sort_unstable();
        if let Some(pair) = ids.windows(2).find(|pair| pair[0].0 == pair[1].0) {
            let (first, second) = (pair[0].1, pair[1].1);
            return Err(WireError::new(
                format!("/{second}"),
                format!(
                    "calls {first} and {second} share the id {}, so their results cannot be told apart; give each call its own id",
                    echo::Name(&calls[first].call_id)
                ),
            ));
        }
        let mut used = vec![false; results.len()];
        let mut items = Vec::with_capacity(calls.len());
        for (at, call) in calls.iter().enumerate() {
            if !call.is_local() {
                continue;
            }
            let found = results
                .iter()
                .enumerate()
                .position(|(i, result)| !used[i] && result.call_id == call.call_id);
            let Some(found) = found else {
                return Err(WireError::new(
                    format!("/{at}"),
                    format!(
                        "call {} ({}) has no result",
                        echo::Name(&call.call_id),
                        echo::bare(&call.name)
                    ),
                ));
            };
            used[found] = true;
            items.push(
                self.encode_result(provider, call, &results[found])
                    .map_err(|e| WireError::new(format!("/{at}"), e.message))?,
            );
        }
        if let Some(extra) = used.iter().position(|used| !used) {
            return Err(WireError::new(
                "",
                format!(
                    "result {extra} (for {}) belongs to no call of the turn",
                    echo::Name(&results[extra].call_id)
                ),
            ));
        }
        Ok(match provider {
            Provider::Anthropic => serde_json::json!({"role": "user", "content": items}),
            Provider::Gemini => serde_json::json!({"role": "user", "parts": items}),
            Provider::OpenAiChat | Provider::OpenAiResponses | Provider::Mcp => Value::Array(items),
        })
    }
}

/// Gives a call to a stand-in name ([`Dialect::wire_name`]) the tool's own name.
fn map_back(stand_ins: &[(String, String)], call: &mut ToolCall) {
    if let Some((_, local)) = stand_ins.iter().find(|(wire, _)| *wire == call.name) {
        call.name.clone_from(local);
    }
}

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

/// Whether content is one text part (or none): sent as a plain string where a provider takes one.
fn text_only(parts: &[ContentPart]) -> Option<String> {
    match parts {
        [] => Some(String::new()),
        [ContentPart::Text { text }] => Some(text.clone()),
        _ => None,
    }
}
