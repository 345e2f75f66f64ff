//! A conversation: what one caller's calls share across batches (the retry budget's counts,
//! the deferred tools a search has found).

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// One conversation's share of a toolbox: how many invalid calls of each tool came in a row in
/// it. A toolbox serves many conversations at once (an MCP server's sessions, an application's
/// chats); run each batch [`in_conversation`](crate::exec::BatchOptions::in_conversation) so
/// that one caller's mistakes never spend another's retry budget. Batches run without one
/// count in the toolbox itself.
///
/// Clones are the same conversation; [`Conversation::new`] starts another.
///
/// ```
/// use toolwright::{Toolbox, ToolCall, tool, exec::{BatchOptions, Conversation, block_on}};
///
/// /// Add two numbers.
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 { a + b }
///
/// let tools = Toolbox::new().with(AddTool).unwrap().with_retry_budget(2);
/// let (alice, bob) = (Conversation::new(), Conversation::new());
/// let bad = [ToolCall::new("1", "add", r#"{"a": "one"}"#)];
/// let run = |conversation: &Conversation| {
///     let options = BatchOptions::new().in_conversation(conversation.clone());
///     block_on(tools.execute_all_with(&bad, &(), options)).remove(0)
/// };
/// assert!(run(&alice).budget_exhausted().is_none());
/// assert!(run(&alice).budget_exhausted().is_some()); // alice's second invalid call in a row
/// assert!(run(&bob).budget_exhausted().is_none()); // bob's first
/// ```
#[derive(Clone, Default)]
pub struct Conversation(Arc<Counts>);

#[derive(Default)]
struct Counts {
    /// Whether some tool's count is above zero (a valid call then has one to clear).
    any: AtomicBool,
    /// Invalid calls in a row, by tool name.
    failures: Mutex<HashMap<Box<str>, u32>>,
    /// The deferred tools found in it, in the order they were found.
    loaded: Mutex<Vec<Box<str>>>,
}

impl Conversation {
    /// A new conversation, with no invalid calls yet.
    pub fn new() -> Self {
        Conversation::default()
    }

    /// How many invalid calls of `tool` came in a row, the last ones, in this conversation.
    pub fn failures(&self, tool: &str) -> u32 {
        if !self.0.any.load(Ordering::Acquire) {
            return 0;
        }
        self.0
            .failures
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(tool)
            .copied()
            .unwrap_or(0)
    }

    /// Counts an invalid call of `tool`; returns its count, this call included.
    pub(crate) fn fail(&self, tool: &str) -> u32 {
        let mut failures = self
            .0
            .failures
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        self.0.any.store(true, Ordering::Release);
        let count = failures.entry(tool.into()).or_insert(0);
        *count = count.saturating_add(1);
        *count
    }

    /// Starts `tool`'s count again, after a valid call.
    pub(crate) fn succeed(&self, tool: &str) {
        if !self.0.any.load(Ordering::Acquire) {
            return;
        }
        let mut failures = self
            .0
            .failures
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        failures.remove(tool);
        if failures.is_empty() {
            self.0.any.store(false, Ordering::Release);
        }
    }
}

/// The tools a conversation has found ([`search`](crate::search)).
impl Conversation {
    /// Notes that the conversation has found these deferred tools: requests made in it send
    /// them in full from now on. The toolbox's own search calls it for what it finds.
    pub fn load<I, S>(&self, names: I)
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut loaded = self.0.loaded.lock().unwrap_or_else(PoisonError::into_inner);
        for name in names {
            let name = name.as_ref();
            if !loaded.iter().any(|n| &**n == name) {
                loaded.push(name.into());
            }
        }
    }

    /// The deferred tools the conversation has found, in the order found.
    pub fn loaded(&self) -> Vec<String> {
        let loaded = self.0.loaded.lock().unwrap_or_else(PoisonError::into_inner);
        loaded.iter().map(ToString::to_string).collect()
    }

    /// Whether the conversation has found the tool `name`.
    pub fn is_loaded(&self, name: &str) -> bool {
        let loaded = self.0.loaded.lock().unwrap_or_else(PoisonError::into_inner);
        loaded.iter().any(|n| &**n == name)
    }
}

/// Two handles are equal when they are the same conversation.
impl PartialEq for Conversation {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Conversation {}

impl fmt::Debug for Conversation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let failures = self
            .0
            .failures
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        f.debug_struct("Conversation")
            .field("failures", &*failures)
            .field("loaded", &self.loaded())
            .finish()
    }
}
