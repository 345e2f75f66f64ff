//! The limits on what the HTTP service spends on its clients, with their defaults (the service
//! that keeps them is `limited`).

use std::time::Duration;

/// The largest request body taken by default: 4 MiB (`413` beyond it).
pub const DEFAULT_MAX_BODY: usize = 4 * 1024 * 1024;
/// Requests handled at once by default, over all clients: 256.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 256;
/// Requests waiting for one of those places by default: 1,024 (`429` beyond them).
pub const DEFAULT_MAX_QUEUED: usize = 1024;
/// Requests one session has handled at once by default: 16 (`429` beyond them).
pub const DEFAULT_MAX_IN_FLIGHT_PER_SESSION: usize = 16;
/// Live sessions (stateful serving) by default: 1,024 (`429` for a new one beyond them).
pub const DEFAULT_MAX_SESSIONS: usize = 1024;
/// How long a session may stay idle before it is closed, by default: 5 minutes.
pub const DEFAULT_SESSION_IDLE: Duration = Duration::from_secs(300);
/// Server-sent event streams one session may hold open by default: 4 (`429` beyond them).
pub const DEFAULT_MAX_STREAMS_PER_SESSION: usize = 4;
/// How long a request's body may take to arrive by default: 30 seconds (`408` after).
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// What the HTTP service spends on its clients at most. Every limit has a default (the
/// `DEFAULT_*` constants) and a setter; a request past one is answered at once with its HTTP
/// status and a JSON-RPC error (`-32000`) saying which limit, and changes nothing.
///
/// | limit | default | answer |
/// | --- | --- | --- |
/// | [`max_body`](Self::max_body) | 4 MiB | `413` |
/// | [`body_timeout`](Self::body_timeout): time for a body to arrive | 30 s | `408` |
/// | [`max_in_flight`](Self::max_in_flight): requests handled at once | 256 | wait in the queue |
/// | [`max_queued`](Self::max_queued): requests waiting for a place | 1,024 | `429` |
/// | [`max_in_flight_per_session`](Self::max_in_flight_per_session) | 16 | `429` |
/// | [`max_sessions`](Self::max_sessions): live sessions (stateful) | 1,024 | `429` |
/// | [`session_idle`](Self::session_idle): a session's idle time before it closes | 5 min | `404` after |
/// | [`max_streams_per_session`](Self::max_streams_per_session): open SSE streams | 4 | `429` |
///
/// JSON nesting and argument size are the toolbox's limits (its `ArgumentPolicy`, in
/// `toolwright::args`). The time a request's headers
/// may take is the HTTP server's to bound (hyper's `header_read_timeout`, as
/// `examples/mcp_server` sets it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpLimits {
    pub(crate) max_body: usize,
    pub(crate) body_timeout: Duration,
    pub(crate) max_in_flight: usize,
    pub(crate) max_queued: usize,
    pub(crate) max_in_flight_per_session: usize,
    pub(crate) max_sessions: usize,
    pub(crate) session_idle: Duration,
    pub(crate) max_streams_per_session: usize,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            max_body: DEFAULT_MAX_BODY,
            body_timeout: DEFAULT_BODY_TIMEOUT,
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
            max_queued: DEFAULT_MAX_QUEUED,
            max_in_flight_per_session: DEFAULT_MAX_IN_FLIGHT_PER_SESSION,
            max_sessions: DEFAULT_MAX_SESSIONS,
            session_idle: DEFAULT_SESSION_IDLE,
            max_streams_per_session: DEFAULT_MAX_STREAMS_PER_SESSION,
        }
    }
}

impl HttpLimits {
    /// The defaults.
    pub fn new() -> Self {
        HttpLimits::default()
    }

    /// The largest request body taken, in bytes.
    #[must_use]
    pub fn max_body(mut self, bytes: usize) -> Self {
        self.max_body = bytes;
        self
    }

    /// How long a request's body may take to arrive, from when its headers did: a client that
    /// sends one byte a second is cut off.
    #[must_use]
    pub fn body_timeout(mut self, timeout: Duration) -> Self {
        self.body_timeout = timeout;
        self
    }

    /// How many requests are handled at once, over all clients (at least 1); more wait.
    #[must_use]
    pub fn max_in_flight(mut self, requests: usize) -> Self {
        self.max_in_flight = requests.max(1);
        self
    }

    /// How many requests may wait for a place; more are refused.
    #[must_use]
    pub fn max_queued(mut self, requests: usize) -> Self {
        self.max_queued = requests;
        self
    }

    /// How many requests one session may have handled at once (at least 1).
    #[must_use]
    pub fn max_in_flight_per_session(mut self, requests: usize) -> Self {
        self.max_in_flight_per_session = requests.max(1);
        self
    }

    /// How many sessions may live at once, in stateful serving.
    #[must_use]
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions;
        self
    }

    /// How long a session may stay idle before it is closed, in stateful serving.
    #[must_use]
    pub fn session_idle(mut self, idle: Duration) -> Self {
        self.session_idle = idle;
        self
    }

    /// How many server-sent event streams one session may hold open.
    #[must_use]
    pub fn max_streams_per_session(mut self, streams: usize) -> Self {
        self.max_streams_per_session = streams;
        self
    }
}
