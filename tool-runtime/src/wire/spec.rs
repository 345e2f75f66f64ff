//! [`Spec`]: everything toolwright knows about one provider, as the record its folder fills in
//! (`providers/<provider>/mod.rs`) and every part of the runtime reads through
//! `providers::spec`. A new provider is a new [`Provider`] variant and a folder with its `Spec`.

use serde_json::{Map, Value};

use super::WireError;
use super::assembly::State;
use super::request::Resolved;
use super::turn::Turn;
use crate::call::ToolCall;
use crate::forms::Form;
use crate::forms::keywords::Keywords;
use crate::forms::lint::LintReport;
use crate::forms::walk::Pass;
use crate::result::ToolResult;
use crate::search::Searcher;

/// One provider's wire format and rules.
#[derive(Debug)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "each is one fact of a provider's format, read on its own"
)]
pub(crate) struct Spec {
    // The tool list.
    /// The rule its tool names keep.
    pub(crate) names: NameRule,
    /// Its form of a parameters schema (the pass's form says strict or not): each keyword kept,
    /// dropped or rewritten, with a lint for what the form cannot say.
    pub(crate) schema: fn(&mut Pass<'_>, &mut Value),
    /// What each of its forms does with JSON Schema's keywords and formats (what `schema`
    /// reads).
    pub(crate) keywords: fn(Form) -> &'static Keywords,
    /// Whether a schema the application wrote is sent as written, not in `schema`'s form (where
    /// the provider takes any JSON Schema).
    pub(crate) takes_written: bool,
    /// One tool's entry in its list.
    pub(crate) entry: fn(Entry<'_>, &mut LintReport) -> Value,
    /// How the entries make the request's list.
    pub(crate) list: ListShape,
    /// The most tools a request may list, where the provider says.
    pub(crate) max_tools: Option<usize>,
    /// How it defers tools, where it can (else deferred tools are left out until found).
    pub(crate) defer: Option<NativeDefer>,
    /// The `name` and the parameters schema of an entry of its list.
    pub(crate) entry_fields: fn(&Value) -> (&str, Option<&Value>),

    // The request's other fields.
    /// Writes the tool choice (and the parallel-calls switch, where asked) into a request's
    /// fields; for a provider whose requests have no such fields (MCP), why not.
    pub(crate) choice: Result<WriteChoice, &'static str>,
    /// What it cannot say of a choice that `choice` would otherwise write, if anything: the
    /// request is refused with it.
    pub(crate) cannot_say: fn(&Resolved) -> Option<&'static str>,
    /// Whether it has a switch for parallel calls.
    pub(crate) parallel_switch: bool,
    /// Whether it can restrict the model to some of the tools sent (else the list is narrowed).
    pub(crate) allowed_subset: bool,
    /// Whether it can make the model call one named tool (else the list is narrowed to it, and
    /// a call is required).
    pub(crate) names_a_tool: bool,

    // Responses and streams.
    /// Whether a response holds several answers to choose from.
    pub(crate) choices: bool,
    /// The calls of one answer of a whole response.
    pub(crate) read: fn(&Value, usize) -> Result<Turn, WireError>,
    /// Takes one chunk of a stream; `true` when it ends the stream.
    pub(crate) push: fn(&mut State, &Value) -> Result<bool, WireError>,
    /// The items a stream's turn is carried back with.
    pub(crate) content: fn(&State) -> Vec<Value>,
    /// Pairs the results the provider sent for its own calls with them, at a stream's end.
    pub(crate) pair: fn(&mut [ToolCall], Vec<Value>),
    /// The model's turn as the next request carries it back.
    pub(crate) replay: fn(&Turn) -> Result<Value, WireError>,

    // Results.
    /// Whether its responses hold built-in tools the application carries out (the Responses
    /// API's), whose results go back to it.
    pub(crate) builtins: bool,
    /// Whether it pairs this call's result by the id it sent (a call without one, given an id
    /// on intake, then has no result it could send).
    pub(crate) pairs_by_id: fn(&ToolCall) -> bool,
    /// One call's result as its message, block, item or part.
    pub(crate) encode: fn(&Encode<'_>) -> Result<Value, WireError>,
    /// A turn's encoded results as what is appended to the conversation.
    pub(crate) results: fn(Vec<Value>) -> Value,
}

/// A provider's own deferral: deferred entries marked `defer_loading`, and a search tool.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NativeDefer {
    /// The search tool's entry for who searches, given the toolbox's search function's entry.
    pub(crate) search_entry: fn(Searcher, &Value) -> Value,
    /// Whether deferred tools of a namespace go grouped in it.
    pub(crate) namespaces: bool,
}

/// An entry's `name`.
pub(crate) fn name_of(entry: &Value) -> &str {
    entry
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// Writes a request's tool choice into its fields.
pub(crate) type WriteChoice = fn(&Choice<'_>, &mut Map<String, Value>);

/// A provider's rule for tool names: the longest, the characters allowed beside ASCII letters
/// and digits, whether the first must be a letter or `_`, and the rule as a pattern (for
/// messages).
#[derive(Debug, Clone, Copy)]
pub(crate) struct NameRule {
    pub(crate) max: usize,
    pub(crate) extra: &'static str,
    pub(crate) letter_first: bool,
    pub(crate) pattern: &'static str,
}

impl NameRule {
    /// Why `name` breaks the rule, if it does.
    pub(crate) fn check(&self, name: &str) -> Result<(), String> {
        let rule = self.pattern;
        let length = name.chars().count();
        if length == 0 {
            return Err(format!("the name is empty; names are {rule}"));
        }
        if length > self.max {
            return Err(format!(
                "the name is {length} characters long, over {}; names are {rule}",
                self.max
            ));
        }
        if let Some(bad) = name
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || self.extra.contains(*c)))
        {
            return Err(format!("the name has {bad:?}; names are {rule}"));
        }
        if self.letter_first && name.starts_with(|c: char| !(c.is_ascii_alphabetic() || c == '_')) {
            return Err(format!(
                "the name starts with {:?}, not a letter or `_`; names are {rule}",
                name.chars().next().unwrap_or_default()
            ));
        }
        Ok(())
    }

    /// A name that keeps the rule for one that does not (`Provider::wire_name` says how).
    pub(crate) fn stand_in(&self, name: &str) -> String {
        let mut wire: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || self.extra.contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if wire.is_empty()
            || (self.letter_first
                && !wire.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
        {
            wire.insert(0, '_');
        }
        if wire.len() > self.max {
            // All ASCII by now, so byte and character counts agree.
            wire.truncate(self.max - 9);
            wire.push_str(&format!("_{:08x}", fnv1a(name)));
        }
        wire
    }
}

/// FNV-1a, 32 bits: a stable hash for stand-in names (the same on every build and platform).
fn fnv1a(text: &str) -> u32 {
    text.bytes().fold(0x811c_9dc5, |hash, byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    })
}

/// How a provider's request holds its list of tool entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListShape {
    /// The entries as an array.
    Array,
    /// The entries under one key of an object: `{"tools": [..]}` (MCP's `tools/list` result).
    Keyed(&'static str),
    /// One object with the entries under a key, in an array: `[{"functionDeclarations": [..]}]`
    /// (Gemini).
    Grouped(&'static str),
}

/// What one tool's entry is made of.
#[derive(Debug)]
pub(crate) struct Entry<'a> {
    pub(crate) form: Form,
    /// The tool's own name, for lints.
    pub(crate) tool: &'a str,
    /// The name it is sent under.
    pub(crate) name: &'a str,
    /// The description the model is shown.
    pub(crate) description: &'a str,
    /// The form of its parameters schema.
    pub(crate) parameters: Value,
    /// What MCP's entries carry beside: a title, an output schema, annotations (as sent), the
    /// definition's options (MCP's `icons` and `_meta` among them).
    pub(crate) title: Option<&'a str>,
    pub(crate) output_schema: Option<&'a Value>,
    pub(crate) annotations: Option<Value>,
    pub(crate) options: &'a Map<String, Value>,
}

/// A request's tool choice, checked against the toolbox, with the tools' names as sent.
#[derive(Debug)]
pub(crate) struct Choice<'a> {
    pub(crate) resolved: &'a Resolved,
    /// Each tool's name as sent, by the index `resolved` uses.
    pub(crate) wire: &'a [&'a str],
    pub(crate) parallel: Option<bool>,
}

impl Choice<'_> {
    /// The names of the tools at `indexes`, as sent.
    pub(crate) fn names(&self, indexes: &[usize]) -> Vec<&str> {
        indexes.iter().map(|&at| self.wire[at]).collect()
    }
}

/// One call's result to encode.
#[derive(Debug)]
pub(crate) struct Encode<'a> {
    pub(crate) call: &'a ToolCall,
    /// The tool's name as the provider knows it.
    pub(crate) wire_name: &'a str,
    pub(crate) result: &'a ToolResult,
    /// The tool's output schema, if it has one (MCP's `structuredContent`).
    pub(crate) output_schema: Option<&'a Value>,
    /// For the toolbox's search tool's answer, the tools found, as the provider's entries.
    pub(crate) found: Option<&'a [Value]>,
}
