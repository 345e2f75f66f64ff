//! A tool call as a model sent it.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::args::{self, ArgumentError};
use crate::exec::{Cancellation, Cancelled, Progress, ProgressSink};

/// The arguments of a [`ToolCall`], kept exactly as the model sent them.
///
/// Chat-style providers send the arguments as JSON text (often broken); others send a JSON object.
/// Deserializes from either: a JSON string becomes [`Arguments::Text`], anything else
/// [`Arguments::Json`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Arguments {
    /// Raw text, as in `OpenAI`'s `function.arguments`.
    Text(String),
    /// A decoded JSON value, as in Anthropic's `input`.
    Json(Value),
}

impl Default for Arguments {
    fn default() -> Self {
        Arguments::Json(Value::Object(Map::new()))
    }
}

impl From<String> for Arguments {
    fn from(text: String) -> Self {
        Arguments::Text(text)
    }
}

impl From<&str> for Arguments {
    fn from(text: &str) -> Self {
        Arguments::Text(text.to_owned())
    }
}

impl From<Value> for Arguments {
    fn from(value: Value) -> Self {
        Arguments::Json(value)
    }
}

impl From<Map<String, Value>> for Arguments {
    fn from(map: Map<String, Value>) -> Self {
        Arguments::Json(Value::Object(map))
    }
}

impl Arguments {
    /// The arguments as a JSON object, forgivingly: an object is returned unchanged, text that holds
    /// a JSON object is decoded (and repaired if broken), and everything else (`null`, `""`, arrays, scalars, text that is not
    /// JSON) becomes an empty object.
    ///
    /// Use [`ToolCall::complete`] to learn *why* arguments are not an object.
    pub fn as_map(&self) -> Map<String, Value> {
        let mut fixes = args::Fixes::default();
        // A view of what was sent, not a run: text that ended early is closed.
        let policy = args::ArgumentPolicy::default().cut_off(args::CutOff::Run);
        args::decode_arguments(self, &policy, &mut fixes)
            .map(Cow::into_owned)
            .unwrap_or_default()
    }
}

/// Whether a call has been received in full.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallStatus {
    /// Still streaming, or the stream ended before the call did.
    Incomplete,
    /// Received in full.
    #[default]
    Complete,
}

/// Who runs a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CallKind {
    /// A function the application runs and answers with a result.
    #[default]
    Function,
    /// A tool the provider runs itself (Anthropic's `server_tool_use` and `mcp_tool_use` blocks,
    /// the Responses API's `web_search_call`, `code_interpreter_call`, `mcp_call`, ..., Gemini's
    /// `executableCode`): the response already holds its result (`metadata["result"]` where it
    /// comes apart from the call), so the application neither runs it nor sends a result for
    /// it. Kept so that an application can log and show it.
    Server,
    /// A provider's built-in tool that the application carries out itself (the Responses API's
    /// `shell_call`, `local_shell_call`, `apply_patch_call`, `computer_call`, a
    /// `tool_search_call` run by the client, an `mcp_approval_request`): not one of the
    /// toolbox's functions, so the toolbox does not run it by name. The item is kept whole in
    /// `metadata["item"]`; the application acts on it and answers with a
    /// [`ToolResult::for_call`](crate::ToolResult::for_call), which is sent back as the item the API expects
    /// (`shell_call_output`, `apply_patch_call_output`, `computer_call_output`,
    /// `mcp_approval_response`, ...).
    Builtin,
}

/// Where a call is in its execution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExecutionStatus {
    /// Known, not yet run.
    #[default]
    Identified,
    /// Running.
    Executing,
    /// Ran and produced a result.
    Completed,
    /// Could not produce a successful result.
    Failed,
}

/// One tool call made by a model.
///
/// ```
/// use toolwright::ToolCall;
///
/// let call = ToolCall::new("call_1", "add", r#"{"a": 2, "b": 3}"#);
/// assert_eq!(call.arguments_as_map()["a"], 2);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's id for the call; the result must carry it back.
    pub call_id: String,
    /// The tool's name as the model wrote it.
    pub name: String,
    /// The arguments, exactly as sent.
    #[serde(default)]
    pub arguments: Arguments,
    /// Position of the call within the model's turn.
    #[serde(default)]
    pub index: usize,
    /// Whether the call was received in full.
    #[serde(default)]
    pub status: CallStatus,
    /// Where the call is in its execution.
    #[serde(default)]
    pub execution: ExecutionStatus,
    /// Who runs the call: the application, or the provider itself.
    #[serde(default, skip_serializing_if = "is_function")]
    pub kind: CallKind,
    /// Whether `call_id` was made up on intake because the provider sent none (Gemini may omit
    /// ids): the result then goes back without an id, as the provider expects.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub id_generated: bool,
    /// Text for a user interface ("Looking up the weather in Paris…").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_text: Option<String>,
    /// Anything the application wants to keep beside the call.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
}

impl ToolCall {
    /// A complete call with the given id, tool name and arguments.
    pub fn new(
        call_id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<Arguments>,
    ) -> Self {
        ToolCall {
            call_id: call_id.into(),
            name: name.into(),
            arguments: arguments.into(),
            index: 0,
            status: CallStatus::Complete,
            execution: ExecutionStatus::Identified,
            kind: CallKind::Function,
            id_generated: false,
            display_text: None,
            metadata: Map::new(),
        }
    }

    /// Sets the call's position within the model's turn.
    #[must_use]
    pub fn with_index(mut self, index: usize) -> Self {
        self.index = index;
        self
    }

    /// Whether the toolbox runs this call by its name (a [`CallKind::Function`]).
    pub fn is_local(&self) -> bool {
        self.kind == CallKind::Function
    }

    /// Whether the application owes the provider a result for this call: a function it runs,
    /// or a built-in tool it carries out ([`CallKind::Builtin`]); not a call the provider ran.
    pub fn owes_result(&self) -> bool {
        self.kind != CallKind::Server
    }

    /// The arguments as a JSON object; see [`Arguments::as_map`].
    pub fn arguments_as_map(&self) -> Map<String, Value> {
        self.arguments.as_map()
    }

    /// Marks the call as received in full and decodes its arguments.
    ///
    /// Text arguments are parsed and replaced by the JSON value they hold; `""` and `null` become
    /// `{}`. A problem (text that is not JSON, arguments that are not an object) is returned as an
    /// error and the arguments are left as they were, so nothing is lost.
    ///
    /// # Errors
    /// When the text is not JSON, or the JSON is not an object (nor `null`).
    ///
    /// ```
    /// use toolwright::ToolCall;
    ///
    /// let mut call = ToolCall::new("c1", "add", r#"{"a": 1"#);
    /// assert!(call.complete().is_err());
    /// ```
    pub fn complete(&mut self) -> Result<(), ArgumentError> {
        self.status = CallStatus::Complete;
        // Strict: a complete call's arguments are JSON as sent.
        let strict = args::ArgumentPolicy::default().repair(false);
        let mut fixes = args::Fixes::default();
        let decoded = args::decode_arguments(&self.arguments, &strict, &mut fixes)?.into_owned();
        self.arguments = Arguments::Json(Value::Object(decoded));
        Ok(())
    }
}

// serde's `skip_serializing_if` takes a path to a fn of `&T`.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_function(kind: &CallKind) -> bool {
    *kind == CallKind::Function
}

/// The call a tool body serves, as the runtime hands it to [`Tool::call`](crate::Tool::call):
/// the model's call, its cancellation signal, and whether a person approved it. Borrowed and
/// cheap to clone; [`info`](Self::info) makes the owned [`CallInfo`] a `#[tool]` fn can take.
#[derive(Debug, Clone)]
pub struct CallScope<'a> {
    call: &'a ToolCall,
    cancellation: Cancellation,
    approved: bool,
    progress: Option<ProgressSink>,
}

impl<'a> CallScope<'a> {
    /// The scope of `call`, which nothing cancels and nobody approved.
    pub fn new(call: &'a ToolCall) -> Self {
        CallScope {
            call,
            cancellation: Cancellation::never().clone(),
            approved: false,
            progress: None,
        }
    }

    /// The same scope, its progress reports going to `sink`.
    #[must_use]
    pub fn with_progress(mut self, sink: ProgressSink) -> Self {
        self.progress = Some(sink);
        self
    }

    /// The same scope, with `sink` when there is one.
    #[must_use]
    pub(crate) fn with_progress_opt(mut self, sink: Option<&ProgressSink>) -> Self {
        self.progress = sink.cloned();
        self
    }

    /// The same scope, cancelled through `cancellation`.
    #[must_use]
    pub fn with_cancellation(mut self, cancellation: Cancellation) -> Self {
        self.cancellation = cancellation;
        self
    }

    /// The same scope, marked approved (or not) by a person.
    #[must_use]
    pub fn with_approved(mut self, approved: bool) -> Self {
        self.approved = approved;
        self
    }

    /// The call, as the model made it.
    pub fn call(&self) -> &'a ToolCall {
        self.call
    }

    /// The provider's id for the call.
    pub fn call_id(&self) -> &'a str {
        &self.call.call_id
    }

    /// The call's cancellation signal.
    pub fn cancellation(&self) -> &Cancellation {
        &self.cancellation
    }

    /// Whether a person approved the call.
    pub fn is_approved(&self) -> bool {
        self.approved
    }

    /// What a tool body may learn about the call, owned.
    pub fn info(&self) -> CallInfo {
        CallInfo {
            call_id: self.call.call_id.clone(),
            tool_name: self.call.name.clone(),
            index: self.call.index,
            cancellation: self.cancellation.clone(),
            approved: self.approved,
            progress: self.progress.clone(),
        }
    }
}

/// What a tool body may learn about the call it is serving: inject it by marking a parameter
/// `#[tool(call_info)] info: &CallInfo`.
///
/// Besides the call's id, tool name and position it carries the call's [`Cancellation`]:
/// raised when the batch the call runs in is cancelled or dropped, or the call times out. A
/// long-running tool checks [`is_cancelled`](Self::is_cancelled) between steps, or races its work
/// against [`cancelled`](Self::cancelled).
#[derive(Debug, Clone)]
pub struct CallInfo {
    call_id: String,
    tool_name: String,
    index: usize,
    cancellation: Cancellation,
    approved: bool,
    progress: Option<ProgressSink>,
}

impl CallInfo {
    /// Info for `call`, which nothing cancels and nobody approved.
    pub fn new(call: &ToolCall) -> Self {
        CallScope::new(call).info()
    }

    /// The provider's id for the call.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The tool's name as the model called it.
    pub fn tool_name(&self) -> &str {
        &self.tool_name
    }

    /// Position of the call within the model's turn.
    pub fn index(&self) -> usize {
        self.index
    }

    /// Whether a person approved this call ([`Toolbox::approve`](crate::Toolbox::approve)): a
    /// tool that asks for approval itself (by returning an [`Interrupt`](crate::Interrupt))
    /// goes ahead when this is set.
    pub fn is_approved(&self) -> bool {
        self.approved
    }

    /// The call's cancellation signal.
    pub fn cancellation(&self) -> &Cancellation {
        &self.cancellation
    }

    /// Whether the call was cancelled (its batch cancelled or dropped, or its time up).
    pub fn is_cancelled(&self) -> bool {
        self.cancellation.is_cancelled()
    }

    /// Completes when the call is cancelled.
    pub fn cancelled(&self) -> Cancelled<'_> {
        self.cancellation.cancelled()
    }

    /// Reports how far the call is: `progress` so far (it should grow with every report), out of
    /// `total` when known, with what it is doing. Whoever runs the batch decides where reports
    /// go ([`BatchOptions::progress`](crate::BatchOptions::progress)); an MCP server sends them to
    /// the client as `notifications/progress` when the client asked for progress. Returns
    /// whether anyone listens.
    pub fn report_progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> bool {
        let Some(sink) = &self.progress else {
            return false;
        };
        sink.report(Progress {
            call_id: self.call_id.clone(),
            progress,
            total,
            message: message.map(str::to_owned),
        });
        true
    }
}
