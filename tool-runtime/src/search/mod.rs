//! Tool search: toolboxes too large to send whole. Deferred tools
//! ([`ToolDefinition::is_deferred`](crate::ToolDefinition::is_deferred)) go out only once a
//! search has found them; the model finds them with the provider's own search tool or the
//! toolbox's, which searches the toolbox's definitions in process ([`ToolIndex`]).
//!
//! | provider | a deferred tool | the search tool |
//! | --- | --- | --- |
//! | Anthropic | sent with `defer_loading: true` | [`Searcher::Local`]: a `search_tools` tool answered with `tool_reference` blocks; [`Searcher::Hosted`]: `tool_search_tool_bm25_20251119`; [`Searcher::HostedRegex`]: `tool_search_tool_regex_20251119` |
//! | OpenAI Responses | sent with `defer_loading: true` (in its toolset's `namespace`, if any) | `tool_search`, `execution: "client"` answered with a `tool_search_output` of the found definitions; [`Searcher::Hosted`]: hosted |
//! | the others (OpenAI Chat, Gemini, Cohere, Bedrock; MCP's `tools/list`) | left out until found | a `search_tools` function; the tools it finds are sent in full from the next request on |
//!
//! The tools a conversation has found are kept in its
//! [`Conversation`](crate::exec::Conversation) (a value the application owns: the toolbox keeps
//! none), which a request reads ([`ToolRequest::in_conversation`](crate::provider::ToolRequest::in_conversation))
//! and a batch fills ([`BatchOptions::in_conversation`](crate::exec::BatchOptions::in_conversation)).

mod index;
mod terms;
mod text;

pub use self::index::{Hit, MAX_PATTERN, SearchError, ToolIndex};

/// The name of the toolbox's own search tool unless told otherwise.
pub const SEARCH_TOOL: &str = "search_tools";

/// How a toolbox defers tools and answers searches for them
/// ([`Toolbox::with_tool_search`](crate::Toolbox::with_tool_search)).
///
/// ```
/// use toolwright::search::{Searcher, ToolSearch, UnloadedCalls};
///
/// let search = ToolSearch::new()
///     .defer_all_but(["get_weather"])
///     .searcher(Searcher::Hosted)
///     .limit(8)
///     .unloaded_calls(UnloadedCalls::Refuse);
/// assert_eq!(search.max_results(), 8);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSearch {
    pub(crate) searcher: Searcher,
    pub(crate) name: String,
    pub(crate) limit: usize,
    pub(crate) unloaded: UnloadedCalls,
    pub(crate) rule: DeferRule,
}

/// Which tools a toolbox defers, beside those deferred by their definitions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DeferRule {
    /// Only those whose definitions say so.
    Marked,
    /// These, and those whose definitions say so.
    These(Vec<String>),
    /// Every tool but these.
    AllBut(Vec<String>),
}

/// Who runs the search where a provider can run it itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Searcher {
    /// The toolbox, in process, on every provider: its ranked search over names, descriptions
    /// and parameters ([`ToolIndex`]), answered in the provider's own shape. (Not named
    /// `Toolbox`: a second item of that name would make the compiler spell out
    /// `toolwright::Toolbox` in users' error messages.)
    #[default]
    Local,
    /// The provider where it has a search of its own: Anthropic's BM25 tool search tool,
    /// OpenAI Responses' hosted `tool_search`; the toolbox elsewhere.
    Hosted,
    /// Anthropic's regex tool search tool; as [`Hosted`](Self::Hosted) elsewhere.
    HostedRegex,
}

/// What a call of a deferred tool that the conversation has not found gets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum UnloadedCalls {
    /// It runs: a model that calls a deferred tool by its right name just works.
    #[default]
    Run,
    /// It is refused with feedback telling the model to find the tool with the search tool
    /// first. Found means found in the batch's conversation
    /// ([`BatchOptions::in_conversation`](crate::exec::BatchOptions::in_conversation)), by the
    /// toolbox's search or [`Conversation::load`](crate::exec::Conversation::load); a call run
    /// outside a conversation runs.
    Refuse,
}

impl Default for ToolSearch {
    fn default() -> Self {
        ToolSearch {
            searcher: Searcher::Local,
            name: SEARCH_TOOL.to_owned(),
            limit: 5,
            unloaded: UnloadedCalls::Run,
            rule: DeferRule::Marked,
        }
    }
}

impl ToolSearch {
    /// Tool search over the tools whose definitions say they are deferred, by the toolbox's
    /// own search, five tools a search.
    pub fn new() -> Self {
        ToolSearch::default()
    }

    /// Defers every tool but `names` (which go in every request).
    #[must_use]
    pub fn defer_all_but<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.rule = DeferRule::AllBut(names.into_iter().map(Into::into).collect());
        self
    }

    /// Defers `names` too, beside the tools whose definitions say so.
    #[must_use]
    pub fn defer<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.rule = DeferRule::These(names.into_iter().map(Into::into).collect());
        self
    }

    /// Who runs the search ([`Searcher`]).
    #[must_use]
    pub fn searcher(mut self, searcher: Searcher) -> Self {
        self.searcher = searcher;
        self
    }

    /// Names the toolbox's search tool (`search_tools` unless told otherwise).
    #[must_use]
    pub fn tool_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// At most this many tools a search finds (five unless told otherwise; at least one).
    #[must_use]
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = limit.max(1);
        self
    }

    /// What a call of a deferred tool not yet found gets ([`UnloadedCalls`]).
    #[must_use]
    pub fn unloaded_calls(mut self, rule: UnloadedCalls) -> Self {
        self.unloaded = rule;
        self
    }

    /// The most tools a search finds.
    pub fn max_results(&self) -> usize {
        self.limit
    }

    /// The name of the toolbox's search tool.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the rule defers the tool `name` (its definition saying `deferred`).
    pub(crate) fn defers(&self, name: &str, marked: bool) -> bool {
        match &self.rule {
            DeferRule::Marked => marked,
            DeferRule::These(names) => marked || names.iter().any(|n| n == name),
            DeferRule::AllBut(names) => !names.iter().any(|n| n == name),
        }
    }
}
