//! A tool call as a model sent it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

mod id;
mod name;
mod text;

pub use id::CallId;
pub use name::ToolName;

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
    pub call_id: CallId,
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
        call_id: impl Into<CallId>,
        name: impl Into<String>,
        arguments: impl Into<Arguments>,
    ) -> Self {
        ToolCall {
            call_id: call_id.into(),
            name: name.into(),
            arguments: arguments.into(),
            index: 0,
            status: CallStatus::Complete,
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
}

// serde's `skip_serializing_if` takes a path to a fn of `&T`.
#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's `skip_serializing_if` takes a path to a fn of `&T`."
)]
fn is_function(kind: &CallKind) -> bool {
    *kind == CallKind::Function
}
