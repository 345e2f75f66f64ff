//! The request side: a request's `tools`, which of them the model may or must call, and whether
//! it may call several at once, in each provider's words.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::forms::{LintReport, Provider};
use crate::task::Conversation;
use toolwright_json::echo;
use toolwright_schema::names;

/// Which tools the model may or must call in one request.
///
/// Names are the tools' own; [`Toolbox::request_fields`](crate::Toolbox::request_fields) writes them under the names the
/// provider knows them by (stand-ins, [`Provider::wire_name`]).
/// Parsed from and written as `auto`, `none`, `required`, `tool:<name>`, `allowed:<a>,<b>`
/// (only these, if any) and `required:<a>,<b>` (one or more of these).
///
/// ```
/// use toolwright::provider::{AllowedMode, ToolChoice};
///
/// let choice: ToolChoice = "required:get_weather,final_result".parse().unwrap();
/// assert_eq!(
///     choice,
///     ToolChoice::allowed(["get_weather", "final_result"], AllowedMode::Required)
/// );
/// assert_eq!(choice.to_string(), "required:get_weather,final_result");
/// assert_eq!("tool:add".parse::<ToolChoice>().unwrap(), ToolChoice::tool("add"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolChoice {
    /// The model decides whether to call tools, and which (every provider's default).
    #[default]
    Auto,
    /// The model calls no tool. The tools are still sent: a conversation that called them
    /// earlier stays valid.
    None,
    /// The model calls at least one tool.
    Required,
    /// The model calls this tool.
    Tool(String),
    /// The model may call only these tools: when it likes ([`AllowedMode::Auto`]), or at least
    /// one of them ([`AllowedMode::Required`]).
    Allowed {
        /// The tools, by their own names.
        tools: Vec<String>,
        /// Whether a call is up to the model or required.
        mode: AllowedMode,
    },
}

/// Whether a model restricted to some tools may answer without calling one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum AllowedMode {
    /// It may answer in text instead.
    #[default]
    Auto,
    /// It calls at least one of the tools.
    Required,
}

impl ToolChoice {
    /// The model calls the tool `name`.
    pub fn tool(name: impl Into<String>) -> Self {
        ToolChoice::Tool(name.into())
    }

    /// The model may call only `tools`, as `mode` says.
    pub fn allowed<I, S>(tools: I, mode: AllowedMode) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        ToolChoice::Allowed {
            tools: tools.into_iter().map(Into::into).collect(),
            mode,
        }
    }
}

impl fmt::Display for ToolChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolChoice::Auto => f.write_str("auto"),
            ToolChoice::None => f.write_str("none"),
            ToolChoice::Required => f.write_str("required"),
            ToolChoice::Tool(name) => write!(f, "tool:{name}"),
            ToolChoice::Allowed { tools, mode } => {
                let prefix = match mode {
                    AllowedMode::Auto => "allowed",
                    AllowedMode::Required => "required",
                };
                write!(f, "{prefix}:{}", tools.join(","))
            }
        }
    }
}

/// A tool choice that is not one of [`ToolChoice`]'s written forms.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown tool choice `{0}`; expected auto, none, required, tool:<name>, allowed:<a>,<b> or required:<a>,<b>"
)]
pub struct UnknownToolChoice(pub String);

impl FromStr for ToolChoice {
    type Err = UnknownToolChoice;

    fn from_str(text: &str) -> Result<Self, UnknownToolChoice> {
        let unknown = || UnknownToolChoice(text.to_owned());
        let list = |names: &str| -> Result<Vec<String>, UnknownToolChoice> {
            let names: Vec<String> = names.split(',').map(|n| n.trim().to_owned()).collect();
            if names.iter().any(String::is_empty) {
                return Err(unknown());
            }
            Ok(names)
        };
        Ok(match text.trim().split_once(':') {
            None => match text.trim() {
                "auto" => ToolChoice::Auto,
                "none" => ToolChoice::None,
                "required" => ToolChoice::Required,
                _ => return Err(unknown()),
            },
            Some(("tool", name)) if !name.trim().is_empty() => ToolChoice::tool(name.trim()),
            Some(("allowed", names)) => ToolChoice::allowed(list(names)?, AllowedMode::Auto),
            Some(("required", names)) => ToolChoice::allowed(list(names)?, AllowedMode::Required),
            Some(_) => return Err(unknown()),
        })
    }
}

/// What a request says about tools: the [`ToolChoice`], whether the model may make several
/// calls at once, and how an allowed subset is said. Built from a `ToolChoice` alone too.
///
/// ```
/// use toolwright::provider::{ToolChoice, ToolRequest};
///
/// let request = ToolRequest::new(ToolChoice::Required).parallel_calls(false);
/// assert_eq!(request.choice(), &ToolChoice::Required);
/// assert_eq!(request.is_parallel(), Some(false));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolRequest {
    pub(crate) choice: ToolChoice,
    pub(crate) parallel: Option<bool>,
    pub(crate) narrow: bool,
    /// The conversation whose found tools go in full (tool search).
    pub(crate) conversation: Option<Conversation>,
    /// Tools deferred in this request, and tools sent in full in it, by name.
    pub(crate) defer: Vec<String>,
    pub(crate) pin: Vec<String>,
}

impl ToolRequest {
    /// A request with this choice, the provider's default for parallel calls, and allowed
    /// subsets in the provider's own form where it has one.
    pub fn new(choice: ToolChoice) -> Self {
        ToolRequest {
            choice,
            parallel: None,
            narrow: false,
            conversation: None,
            defer: Vec::new(),
            pin: Vec::new(),
        }
    }

    /// Lets the model make several calls in one turn, or at most one: OpenAI's
    /// `parallel_tool_calls`, Anthropic's `disable_parallel_tool_use`. Gemini has no such
    /// switch, so a Gemini request refuses `false`.
    #[must_use]
    pub fn parallel_calls(mut self, on: bool) -> Self {
        self.parallel = Some(on);
        self
    }

    /// Says an allowed subset by sending only those tools, on every provider (for
    /// OpenAI-compatible servers that lack OpenAI's `allowed_tools`). Anthropic has no subset
    /// form, so its requests always narrow.
    #[must_use]
    pub fn narrow_tools(mut self, on: bool) -> Self {
        self.narrow = on;
        self
    }

    /// With tool search on ([`search`](crate::search)), the conversation this request belongs
    /// to: on providers without deferral, the deferred tools it has found go in full.
    #[must_use]
    pub fn in_conversation(mut self, conversation: Conversation) -> Self {
        self.conversation = Some(conversation);
        self
    }

    /// With tool search on, defers these tools in this request too.
    #[must_use]
    pub fn defer<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.defer.extend(names.into_iter().map(Into::into));
        self
    }

    /// With tool search on, sends these tools in full in this request, deferred or not (a tool
    /// the tool choice names always is).
    #[must_use]
    pub fn pin<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.pin.extend(names.into_iter().map(Into::into));
        self
    }

    /// The choice.
    pub fn choice(&self) -> &ToolChoice {
        &self.choice
    }

    /// Whether the model may make several calls at once (`None`: the provider's default, which
    /// is yes everywhere).
    pub fn is_parallel(&self) -> Option<bool> {
        self.parallel
    }
}

impl From<ToolChoice> for ToolRequest {
    fn from(choice: ToolChoice) -> Self {
        ToolRequest::new(choice)
    }
}

/// The tool fields of one request, from [`Toolbox::request_fields`](crate::Toolbox::request_fields): merge them into the body
/// sent to the provider.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct RequestFields {
    pub(crate) fields: Map<String, Value>,
    #[serde(skip)]
    pub(crate) narrowed: bool,
}

impl RequestFields {
    /// One field (`tools`, `tool_choice`, `parallel_tool_calls`, `toolConfig`).
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.fields.get(key)
    }

    /// The fields.
    pub fn as_map(&self) -> &Map<String, Value> {
        &self.fields
    }

    /// The fields, owned.
    pub fn into_map(self) -> Map<String, Value> {
        self.fields
    }

    /// The fields as one JSON object.
    pub fn to_value(&self) -> Value {
        Value::Object(self.fields.clone())
    }

    /// Writes the fields into a request body, replacing fields of the same names.
    pub fn merge_into(self, body: &mut Map<String, Value>) {
        body.extend(self.fields);
    }

    /// Whether `tools` was cut down to an allowed subset (the provider has no form for one,
    /// or [`ToolRequest::narrow_tools`] asked for it).
    pub fn narrowed(&self) -> bool {
        self.narrowed
    }
}

/// Why a request's tool fields could not be written. Nothing is written that the provider
/// would refuse.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RequestError {
    /// The choice names a tool the toolbox does not have.
    #[error("the tool choice names {}, which is not in the toolbox{}", echo::Name(.name), did_you_mean(.suggestions))]
    UnknownTool {
        /// The name.
        name: String,
        /// The toolbox's tools it may misspell, best first.
        suggestions: Vec<String>,
    },
    /// The choice asks for a call, and the toolbox has no tools.
    #[error("the tool choice `{0}` asks for a tool call, and the toolbox has no tools")]
    NoTools(ToolChoice),
    /// An allowed subset of no tools.
    #[error("the tool choice allows no tools; to forbid calls, use `ToolChoice::None`")]
    EmptySubset,
    /// The provider has no words for what was asked.
    #[error("{} requests cannot say {what}", .provider.title())]
    Unsupported {
        /// The provider.
        provider: Provider,
        /// What it cannot say, and what to do instead.
        what: &'static str,
    },
    /// More tools would be sent than the provider takes in one request: defer some
    /// ([`search`](crate::search)).
    #[error("{} requests take at most {max} tools, and {count} would be sent; defer the rest and let the model search for them (`Toolbox::with_tool_search`)", .provider.title())]
    TooManyTools {
        /// The provider.
        provider: Provider,
        /// The tools that would be sent.
        count: usize,
        /// The most it takes.
        max: usize,
    },
    /// The tool list has lint errors ([`Toolbox::tools_for`](crate::Toolbox::tools_for)).
    #[error(transparent)]
    Lint(LintReport),
}

fn did_you_mean(suggestions: &[String]) -> String {
    if suggestions.is_empty() {
        String::new()
    } else {
        format!(" (did you mean {}?)", names::list(suggestions, "or"))
    }
}

/// A choice checked against the toolbox, allowed names as indexes into the definitions.
#[derive(Debug)]
pub(crate) enum Resolved {
    Auto,
    None,
    Required,
    Tool(usize),
    Allowed(Vec<usize>, AllowedMode),
}

pub(crate) fn mode_word(mode: AllowedMode) -> &'static str {
    match mode {
        AllowedMode::Auto => "auto",
        AllowedMode::Required => "required",
    }
}
