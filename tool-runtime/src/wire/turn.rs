//! What a model's response held ([`Turn`]): its calls of each kind, its text, its blocks to send
//! back, what was odd in it.

use serde_json::Value;

use super::WireError;
use crate::call::ToolCall;
use crate::forms::Provider;
use toolwright_json::value as json;

/// What a model's response held: its tool calls, in order, and its text.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Turn {
    /// The tool calls, in the order the model made them (including calls the provider runs
    /// itself; see [`ToolCall::is_local`]).
    pub calls: Vec<ToolCall>,
    /// The text the model wrote beside the calls (thinking excluded), joined; empty when none.
    pub text: String,
    /// Why the model stopped, as the provider says it (`tool_calls`, `tool_use`, `STOP`...;
    /// a value that is not a string, as Vertex AI's integer enums, as its JSON text: `1`).
    pub stop_reason: Option<String>,
    /// What was read but looked odd, where toolwright does not need it to find the calls (a
    /// stop reason that is a number, text in a shape it does not know, an item of a kind it
    /// does not know): kept as it came, and reported here rather than costing the calls beside
    /// it. Each names its place (and, for a stream, its chunk).
    pub warnings: Vec<WireError>,
    /// Every item, block or part of the answer, in order, as the provider sent it (a stream's
    /// as assembled): what [`assistant_message`](Self::assistant_message) sends back.
    pub content: Blocks,
    /// Whose answer this is (`None` for a turn made by hand).
    pub(crate) provider: Option<Provider>,
}

impl Turn {
    /// The calls the toolbox runs by name, and owes a result for ([`CallKind::Function`]).
    ///
    /// [`CallKind::Function`]: crate::CallKind::Function
    pub fn local_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.calls.iter().filter(|call| call.is_local())
    }

    /// The provider's built-in tools the application carries out itself, and answers with the
    /// item the API expects ([`CallKind::Builtin`]: a Responses `shell_call`, `apply_patch_call`,
    /// `computer_call`, ...).
    ///
    /// [`CallKind::Builtin`]: crate::CallKind::Builtin
    pub fn builtin_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.calls
            .iter()
            .filter(|call| call.kind == crate::call::CallKind::Builtin)
    }

    /// The calls the provider ran itself, with their results ([`CallKind::Server`]): for
    /// logging and showing; nothing is owed for them.
    ///
    /// [`CallKind::Server`]: crate::CallKind::Server
    pub fn server_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.calls
            .iter()
            .filter(|call| call.kind == crate::call::CallKind::Server)
    }

    /// The provider whose answer this is.
    pub fn provider(&self) -> Option<Provider> {
        self.provider
    }

    pub(crate) fn of(provider: Provider) -> Self {
        Turn {
            provider: Some(provider),
            ..Turn::default()
        }
    }
}

/// The items, blocks or parts of a model's answer ([`Turn::content`]): a list of JSON values,
/// which it derefs to. Dropped without recursion: a hostile body's values may nest deeper than
/// a stack holds, and `serde_json`'s own drop recurses once per level.
#[derive(Debug, Default, PartialEq)]
pub struct Blocks(Vec<Value>);

impl Blocks {
    /// The blocks, as a plain list (whose drop is `serde_json`'s own).
    pub fn into_vec(mut self) -> Vec<Value> {
        std::mem::take(&mut self.0)
    }
}

impl std::ops::Deref for Blocks {
    type Target = Vec<Value>;

    fn deref(&self) -> &Vec<Value> {
        &self.0
    }
}

impl std::ops::DerefMut for Blocks {
    fn deref_mut(&mut self) -> &mut Vec<Value> {
        &mut self.0
    }
}

impl Clone for Blocks {
    fn clone(&self) -> Self {
        Blocks(self.0.iter().map(json::clone_value).collect())
    }
}

impl From<Vec<Value>> for Blocks {
    fn from(blocks: Vec<Value>) -> Self {
        Blocks(blocks)
    }
}

impl IntoIterator for Blocks {
    type Item = Value;
    type IntoIter = std::vec::IntoIter<Value>;

    fn into_iter(self) -> Self::IntoIter {
        self.into_vec().into_iter()
    }
}

impl<'a> IntoIterator for &'a Blocks {
    type Item = &'a Value;
    type IntoIter = std::slice::Iter<'a, Value>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl Drop for Blocks {
    fn drop(&mut self) {
        for block in self.0.drain(..) {
            json::dispose(block);
        }
    }
}

/// Why a turn that is not a model's answer has no assistant turn to send back.
pub(crate) fn not_an_answer() -> WireError {
    WireError::new(
        "",
        "this turn is not a model's answer (an MCP request, or made by hand): there is no assistant turn to send back",
    )
}
