//! What belongs to one connection rather than to the server: its log level, its resource
//! subscriptions, and the conversation whose retry budget its calls spend.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Mutex, PoisonError};

use toolwright_runtime::exec::{Caller, Conversation, LogLevel};

/// How many resources one session may subscribe to at once.
pub const DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION: usize = 256;

/// How many authenticated callers' conversations a stateless server remembers (the least
/// recently seen is forgotten first).
const REMEMBERED_CALLERS: usize = 4096;

/// One connection's state: made afresh for each stdio client, each Streamable HTTP session,
/// and each stateless HTTP request.
pub(crate) struct Session {
    /// The least level of the messages the client wants (`logging/setLevel`); 0: not set.
    log_level: AtomicU8,
    /// The resources it subscribed to.
    pub(crate) subscriptions: Mutex<HashSet<String>>,
    /// Its retry budget's counts.
    conversation: Conversation,
    /// Its number in this process, which owns the tasks it starts without a caller.
    pub(crate) number: u64,
}

/// The number of the next session made in this process.
static SESSIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Session {
    pub(crate) fn new() -> Self {
        Session {
            log_level: AtomicU8::new(0),
            subscriptions: Mutex::new(HashSet::new()),
            conversation: Conversation::new(),
            number: SESSIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        }
    }

    pub(crate) fn set_log_level(&self, level: LogLevel) {
        let rank = LogLevel::ALL
            .iter()
            .position(|known| *known == level)
            .unwrap_or(0);
        self.log_level
            .store(u8::try_from(rank + 1).unwrap_or(1), Ordering::Relaxed);
    }

    /// The least level the client wants, when it said.
    pub(crate) fn log_level(&self) -> Option<LogLevel> {
        let rank = usize::from(self.log_level.load(Ordering::Relaxed));
        rank.checked_sub(1)
            .and_then(|rank| LogLevel::ALL.get(rank).copied())
    }

    pub(crate) fn subscribed(&self, uri: &str) -> bool {
        self.subscriptions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(uri)
    }
}

/// The conversations of authenticated callers of a server without sessions, by subject: a
/// caller's invalid calls count across its requests, and never against another caller.
#[derive(Default)]
pub(crate) struct Callers {
    conversations: Mutex<(HashMap<String, Conversation>, VecDeque<String>)>,
}

impl Callers {
    fn conversation(&self, caller: &Caller) -> Conversation {
        let mut guard = self
            .conversations
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let (known, order) = &mut *guard;
        if let Some(conversation) = known.get(caller.subject()) {
            return conversation.clone();
        }
        if known.len() >= REMEMBERED_CALLERS
            && let Some(oldest) = order.pop_front()
        {
            known.remove(&oldest);
        }
        let conversation = Conversation::new();
        known.insert(caller.subject().to_owned(), conversation.clone());
        order.push_back(caller.subject().to_owned());
        conversation
    }
}

/// The conversation a request's calls spend the retry budget of: its MCP session's where there
/// is one (`has_session`: stdio, a Streamable HTTP session), else its authenticated caller's,
/// else one of its own (an anonymous request without a session cannot be told apart from
/// another's).
pub(crate) fn conversation_of(
    session: &Session,
    callers: &Callers,
    has_session: bool,
    caller: Option<&Caller>,
) -> Conversation {
    if has_session {
        return session.conversation.clone();
    }
    match caller {
        Some(caller) => callers.conversation(caller),
        // The request's own: without a session, the server serves each request with state of
        // its own (`for_connection`), so this conversation is the request's.
        None => session.conversation.clone(),
    }
}
