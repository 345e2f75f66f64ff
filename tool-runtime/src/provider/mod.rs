//! Providers: the tool list each one is sent, the request's tool choice, the tool calls in a
//! model's response, the results sent back, and tool calls assembled from a stream as it
//! arrives: OpenAI Chat Completions and Responses, Anthropic Messages, Gemini and MCP.
//!
//! Everything works on `serde_json` values and text; no HTTP client is involved.
//!
//! # One declaration, every provider's form
//! A tool has one canonical schema (JSON Schema draft 2020-12); each provider's form is derived
//! from it by a transform pass, built once per tool and form and cached. One enum,
//! [`Provider`], names the provider wherever one is chosen (tool lists, requests, responses,
//! streams, results); a [`Form`](crate::schema::Form) is a provider with its list's options
//! (strict mode, Gemini's JSON Schema field), which a toolbox sets with `with_strict` and
//! `with_gemini_json_schema` and lints take.
//! [`Toolbox::tools_for`](crate::Toolbox::tools_for) gives the list a request's `tools` field holds:
//!
//! ```
//! use serde_json::json;
//! use toolwright::{Toolbox, provider::Provider, schema::Form, tool};
//!
//! /// Search the catalogue.
//! #[tool]
//! fn search(query: String, limit: Option<u32>) -> String {
//!     format!("{query} {limit:?}")
//! }
//!
//! let tools = Toolbox::new().with(SearchTool).unwrap().with_strict(true);
//! let list = tools.tools_for(Provider::OpenAiChat).unwrap(); // serializes to the request's `tools`
//! let parameters = &list.to_value()[0]["function"]["parameters"];
//! assert_eq!(parameters["required"], json!(["query", "limit"]));
//! assert_eq!(parameters["properties"]["limit"]["type"], json!(["integer", "null"]));
//! tools.lint([Form::new(Provider::OpenAiChat).with_strict(true), Form::new(Provider::Gemini)]).assert_clean();
//! ```
//!
//! | form | what the pass does |
//! | --- | --- |
//! | `OpenAiChat` / `OpenAiResponses` | `strict` written for Responses always, for Chat when true (Chat reads a missing one as false). Strict: every property required, optional ones nullable (the runtime takes their `null` as "absent", so `Option` and defaulted parameters keep their meaning); `additionalProperties: false` everywhere; `$ref` siblings inlined; `default` into the description; only the documented keywords and formats; size limits checked |
//! | `Anthropic` | the canonical schema; strict: closed objects, numeric and length bounds into the description, `minItems` 0 or 1, no recursion, its format list |
//! | `Gemini` | `parameters` in the OpenAPI subset: `$ref`s inlined, `nullable` for null types and branches, `const` as a one-value `enum`, string enums only, exclusive integer bounds made inclusive, only the fields google-genai's `Schema` has |
//! | `Gemini` with `Toolbox::with_gemini_json_schema(true)` (`Form::gemini_json_schema()`) | `parametersJsonSchema`: the canonical schema |
//! | `Mcp` | `tools/list` entries with `title`, `outputSchema` and `annotations`; definitions at the root, small enums inlined |
//!
//! Everywhere: `oneOf` is sent as `anyOf`, Rust-specific formats (`uint32`, `double`, ...) are
//! dropped where a provider does not take them, and whatever a form cannot say is still enforced
//! when the call arrives. The plain JSON Schema forms (OpenAI and Anthropic without strict mode,
//! MCP) say the same rules in fewer tokens: a definition used once is written where it is used,
//! a Rust enum of documented unit variants is an `enum` with the variants' docs in its
//! description (an optional one a single schema that also takes `null`), and an empty
//! `required` is left out (figures: the repository's BENCHMARKS.md). What a form cannot say is a lint, with tool, path, rule and fix, all at
//! once: `tools.lint([Form::strict(Provider::OpenAiChat), Form::new(Provider::Gemini)]).assert_clean()` is a one-line
//! test. A report prints one line per lint, errors first, then warnings; notes (a rule said in
//! other words, nothing to do) are only counted, and `{:#}` lists them.
//! `Toolbox::require_valid_for(..)` refuses to register tools that fail a chosen provider's
//! lint, and a tool whose strict form is impossible (a `HashMap` argument, say) makes
//! `tools_for` fail, or, with `StrictFallback::NonStrict`, is sent non-strict with the reason in
//! `ProviderTools::downgraded()`. `#[tool(strict)]` / `#[tool(strict = false)]` override the
//! toolbox. `cargo run --example providers -- <form>` prints the demo toolbox's list.
//!
//! **Names.** `#[tool]` takes only names every provider accepts, 1 to 64 of `A-Z a-z 0-9 _ -`.
//! Tools built at run time (`ToolDefinition::new`, `DynamicTool`, an MCP server's tools) and a
//! toolset's `.prefixed(..)` take any name. A name a provider refuses (`files.read` for OpenAI,
//! over 64 characters) is sent under a stand-in (`files_read`, [`Provider::wire_name`]), and calls
//! to the stand-in are mapped back by the toolbox; two tools sent under one name are a lint
//! error, and `Toolbox::require_valid_for` refuses them at registration.
//!
//! # The request side: which tools the model may or must call
//! [`Toolbox::request_fields`](crate::Toolbox::request_fields) writes every tool field of a request: the tool list, the
//! [`ToolChoice`] (auto, none, required, one tool, or an allowed subset the model may or must
//! pick from) and, when set, parallel calls, in each provider's own words and under the names
//! the provider knows the tools by. A named tool the toolbox does not have is an error here
//! (with close matches), not a 400 later.
//!
//! ```
//! use serde_json::json;
//! use toolwright::provider::{AllowedMode, ToolChoice, ToolRequest};
//! use toolwright::{Toolbox, tool, exec::BatchOptions, provider::Provider};
//!
//! /// The weather in a city.
//! #[tool]
//! fn get_weather(city: String) -> String {
//!     format!("Sunny in {city}")
//! }
//!
//! /// The time in a timezone.
//! #[tool]
//! fn get_time(timezone: String) -> String {
//!     format!("12:00 in {timezone}")
//! }
//!
//! let tools = Toolbox::new().with_all((GetWeatherTool, GetTimeTool)).unwrap();
//! let request = ToolRequest::new(ToolChoice::Required).parallel_calls(false);
//! let fields = tools.request_fields(Provider::Anthropic, request).unwrap();
//! assert_eq!(
//!     fields.get("tool_choice"),
//!     Some(&json!({"type": "any", "disable_parallel_tool_use": true}))
//! );
//! let mut body = json!({"model": "claude-sonnet-4-5", "max_tokens": 1024});
//! fields.merge_into(body.as_object_mut().unwrap());
//! // The request and the batch that runs its calls agree: one call at a time.
//! assert_eq!(BatchOptions::for_request(&body).is_parallel(), Some(false));
//!
//! let subset = ToolChoice::allowed(["get_time"], AllowedMode::Auto);
//! let fields = tools.request_fields(Provider::Gemini, subset).unwrap();
//! assert_eq!(fields.get("toolConfig"), Some(&json!({"functionCallingConfig": {
//!     "mode": "VALIDATED", "allowedFunctionNames": ["get_time"],
//! }})));
//! ```
//!
//! | `ToolChoice` | OpenAI Chat `tool_choice` | Responses `tool_choice` | Anthropic `tool_choice` | Gemini `toolConfig.functionCallingConfig` |
//! | --- | --- | --- | --- | --- |
//! | `Auto` | `"auto"` | `"auto"` | `{"type": "auto"}` | `{"mode": "AUTO"}` |
//! | `None` | `"none"` | `"none"` | `{"type": "none"}` | `{"mode": "NONE"}` |
//! | `Required` | `"required"` | `"required"` | `{"type": "any"}` | `{"mode": "ANY"}` |
//! | `Tool(t)` | `{"type": "function", "function": {"name": t}}` | `{"type": "function", "name": t}` | `{"type": "tool", "name": t}` | `ANY` + `allowedFunctionNames: [t]` |
//! | `Allowed`, auto | `{"type": "allowed_tools", "allowed_tools": {"mode": "auto", "tools": [..]}}` | `{"type": "allowed_tools", "mode": "auto", "tools": [..]}` | `tools` narrowed, `{"type": "auto"}` | `VALIDATED` + `allowedFunctionNames` |
//! | `Allowed`, required | the same, mode `required` | the same, mode `required` | `tools` narrowed, `{"type": "any"}` | `ANY` + `allowedFunctionNames` |
//! | parallel calls off | `parallel_tool_calls: false` | `parallel_tool_calls: false` | `disable_parallel_tool_use: true` | refused (no such switch) |
//!
//! Where a provider cannot say a choice, toolwright narrows or refuses, and never sends a shape
//! the provider rejects: Anthropic has no allowed subset, so its `tools` list is cut down to the
//! subset (`RequestFields::narrowed()` says so); Gemini has no switch for parallel calls, so
//! `parallel_calls(false)` is refused for it (run the calls one at a time with
//! `BatchOptions::parallel(false)` instead); MCP has no request side (its clients pick). An
//! allowed subset of one tool, required, is that tool; a subset of every tool is
//! `auto`/`required`. `ToolRequest::narrow_tools(true)` narrows the list on every provider, for
//! OpenAI-compatible servers (Groq, vLLM, ...) that lack `allowed_tools`. With `None` the tools
//! are still sent (a conversation that called them stays valid); a toolbox with no tools writes
//! no fields for `auto` and `none` (OpenAI refuses a `tool_choice` without `tools`).
//! `cargo run --example providers -- <form> --tool-choice <mode>` prints a request's tool fields
//! for the demo toolbox.
//!
//! # Tool calls in, results out
//! Reading is [`Provider::read_response`] (names as the model wrote them) or
//! [`Toolbox::read_response`](crate::Toolbox::read_response) (names sent under a stand-in mapped back to the tool); results go
//! back with [`Toolbox::encode_results`](crate::Toolbox::encode_results), one per call, in call order.
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
//!
//! - Intake gives the calls in order with their arguments exactly as sent (text or object), the
//!   text beside them and the stop reason; a malformed body is a [`WireError`] naming the JSON
//!   pointer at fault. Gemini calls without an id get a stable made-up one (`id_generated`),
//!   which is not sent back. A response with several answers (OpenAI
//!   Chat `n`, Gemini `candidateCount`) is read one answer at a time, choice 0 unless
//!   `read_choice(.., n)` or [`Assembler::choice`] picks another, the same whole and streamed.
//!   OpenAI Chat's legacy `function_call` gives its one call, answered by a `function` message.
//! - Encoding pairs results with calls by id and writes them in call order, one per call, or
//!   refuses (a call without a result, a stray result, an interrupt still waiting): OpenAI
//!   `tool` messages, Responses `function_call_output` items (by `call_id`), one Anthropic
//!   `user` message of `tool_result` blocks (`is_error`, images as blocks), Gemini
//!   `functionResponse` parts (`response` always an object, `{"output": ..}` or
//!   `{"error": ..}`), MCP `CallToolResult`s (`structuredContent` when the tool has an output
//!   schema). Result options a provider takes (Anthropic `cache_control`, ...) pass through;
//!   others are left out.
//!
//! # Everything a model sends
//! Nothing received is lost, and nothing toolwright does not know is skipped in silence:
//! - **Odd values never cost the calls.** A field the calls do not depend on (a stop reason, a
//!   status, text, a thought flag) that comes in an unexpected shape (Vertex AI's
//!   `finishReason: 1` when asked for enums as integers, Mistral's `delta.content` as an array of
//!   parts) is kept as it came and reported in [`Turn::warnings`] (and
//!   [`Assembler::warnings`], with its chunk); the calls beside it are read as ever.
//! - **Three kinds of call** ([`CallKind`](crate::CallKind)): the application's functions, which
//!   the toolbox runs by name; a provider's **built-in tools the application carries out**
//!   (`CallKind::Builtin`: the Responses API's `shell_call`, `local_shell_call`,
//!   `apply_patch_call`, `computer_call`, a `tool_search_call` run by the client, an
//!   `mcp_approval_request`), each with its item whole in `metadata["item"]` and answered with a
//!   [`ToolResult::for_call`](crate::ToolResult::for_call) that
//!   [`Toolbox::encode_results`](crate::Toolbox::encode_results) writes as the item the API expects (`shell_call_output`, ...);
//!   and **tools the provider ran** (`CallKind::Server`: Anthropic's `server_tool_use` and
//!   `mcp_tool_use`; the Responses API's web and file search, code interpreter, image
//!   generation, MCP calls, programs, a shell in a hosted container; Gemini's `executableCode`
//!   and built-in `toolCall`s), each with its result (`metadata["result"]`, or the item itself),
//!   for logging and showing, never run and owed nothing. A function call's Responses
//!   `namespace` and `caller` are kept and sent back with its result. An item, block or part of
//!   a kind toolwright does not know is a warning, and kept.
//! - **The next turn.** [`Turn::assistant_message`] gives the model's turn as the next request
//!   sends it back, whole or streamed alike: Anthropic `thinking` blocks with their
//!   `signature`, Responses `reasoning` items with `encrypted_content`, Gemini parts with their
//!   `thoughtSignature`, every block in order and every id intact.
//!
//! # Streams
//! An [`Assembler`] per response reads the chunks or events as they arrive: OpenAI Chat
//! `delta.tool_calls` by id, then index, then the latest call; Responses events by
//! `item_id`/`output_index`; Anthropic blocks by `index`, several messages in one stream
//! included; Gemini whole calls and `partialArgs` by JSON path. Appending a delta never re-reads
//! what came before, so the work is linear in the bytes received; [`PartialCall::preview`] reads
//! the arguments so far leniently, for a UI. A call is complete at its block's end; a stream cut
//! short yields its calls as `Incomplete` with what arrived. A chunk out of order or malformed is
//! an error naming the chunk, and nothing received is dropped.
//!
//! ```
//! use serde_json::json;
//! use toolwright::provider::Provider;
//! use toolwright::{CallStatus, Toolbox, tool};
//!
//! /// Add two integers.
//! #[tool]
//! fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//!
//! let tools = Toolbox::new().with(AddTool).unwrap();
//!
//! // A streamed Anthropic response, one event per line (SSE framing is fine).
//! let mut stream = tools.assembler(Provider::Anthropic);
//! for line in [
//!     r#"data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"add","input":{}}}"#,
//!     r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\": 2, "}}"#,
//!     r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"\"b\": 3}"}}"#,
//!     r#"data: {"type":"content_block_stop","index":0}"#,
//! ] {
//!     stream.push_line(line).unwrap();
//! }
//! let calls = stream.finish();
//! assert_eq!(calls[0].status, CallStatus::Complete);
//!
//! let results: Vec<_> = calls.iter().map(|call| tools.execute_blocking(call, &())).collect();
//! let message = tools.encode_results(Provider::Anthropic, &calls, &results).unwrap();
//! assert_eq!(message, json!({"role": "user", "content": [
//!     {"type": "tool_result", "tool_use_id": "toolu_1", "content": "5"},
//! ]}));
//! ```
//!
//! `cargo run --example assemble -- <provider>` reads a stream as JSON lines on stdin and prints
//! one `{"id","name","arguments","status"}` line per call.

mod anthropic;
mod gemini;
pub(crate) mod mcp;
mod openai;
mod read;
mod replay;
mod request;
mod responses;
mod stream;
mod toolbox;
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
use self::toolbox::map_back;
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
