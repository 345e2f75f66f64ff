//! Progress and log messages: what a running tool reports through its call info, and where the
//! reports go.

use std::fmt;
use std::sync::Arc;

/// One progress report of a running call: how far it is, out of how much when known, and what it
/// is doing.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// The provider's id for the call that reports.
    pub call_id: crate::call::CallId,
    /// The progress so far; it should grow with every report.
    pub progress: f64,
    /// The total, when known.
    pub total: Option<f64>,
    /// What the call is doing now.
    pub message: Option<String>,
}

/// How much a log message matters, as syslog (RFC 5424) and MCP's `logging/setLevel` rank it,
/// least first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum LogLevel {
    /// Detail for debugging.
    Debug,
    /// What happened.
    Info,
    /// Normal but significant.
    Notice,
    /// Something may be wrong.
    Warning,
    /// Something failed.
    Error,
    /// A part of the system failed.
    Critical,
    /// Action must be taken at once.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    /// Every level, least first.
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    /// Its name, as MCP writes it (`warning`).
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }
}

/// One log message of a running call, for whoever runs it (an MCP server sends it to the client
/// as `notifications/message`).
#[derive(Debug, Clone, PartialEq)]
pub struct LogMessage {
    /// The provider's id for the call that logs.
    pub call_id: crate::call::CallId,
    /// How much it matters.
    pub level: LogLevel,
    /// What it is about: a string, or any JSON.
    pub data: serde_json::Value,
}

/// Where the progress reports and log messages of a batch's calls go: set it with
/// [`BatchOptions::progress`](crate::exec::BatchOptions::progress); a tool reports through
/// [`CallInfo::report_progress`](crate::CallInfo::report_progress) and logs through
/// [`CallInfo::log`](crate::CallInfo::log). An MCP server forwards each report to the client as
/// `notifications/progress` and each message as `notifications/message`, all before the call's
/// result.
///
/// The sink is called on the thread of the tool that reports, so it should be quick (send on a
/// channel, say) and must not block.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use toolwright::{CallInfo, ToolCall, exec::{Progress, ProgressSink}};
///
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let sink = {
///     let seen = Arc::clone(&seen);
///     ProgressSink::new(move |report: Progress| seen.lock().unwrap().push(report.progress))
/// };
/// let call = ToolCall::new("c1", "index", "{}");
/// let info = toolwright::exec::CallScope::new(&call).with_progress(sink).info();
/// assert!(info.report_progress(1.0, Some(4.0), None));
/// assert_eq!(*seen.lock().unwrap(), [1.0]);
/// assert!(!CallInfo::new(&call).report_progress(2.0, None, None)); // nobody listens
/// ```
#[derive(Clone, Default)]
pub struct ProgressSink {
    progress: Option<Arc<dyn Fn(Progress) + Send + Sync>>,
    log: Option<Arc<dyn Fn(LogMessage) + Send + Sync>>,
    /// One listener for both, when the sink was made with [`ProgressSink::to`].
    listener: Option<Arc<dyn Listen>>,
}

/// What takes a [`ProgressSink`]'s reports and messages when one object takes both: made into a
/// sink with [`ProgressSink::to`], it is shared, not wrapped (an MCP server makes one for each
/// call, and it is the call's one allocation for its notifications, not one per kind).
///
/// It is called on the thread of the tool that reports, so it should be quick and must not block.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use toolwright::{CallInfo, ToolCall, exec::{CallScope, Listen, LogMessage, Progress, ProgressSink}};
///
/// #[derive(Default)]
/// struct Seen(Mutex<Vec<String>>);
///
/// impl Listen for Seen {
///     fn progress(&self, report: Progress) -> bool {
///         self.0.lock().unwrap().push(format!("{}", report.progress));
///         true
///     }
///     fn log(&self, _: LogMessage) -> bool {
///         false // not listening
///     }
/// }
///
/// let seen = Arc::new(Seen::default());
/// let call = ToolCall::new("c1", "index", "{}");
/// let info = CallScope::new(&call).with_progress(ProgressSink::to(seen.clone())).info();
/// assert!(info.report_progress(1.0, Some(4.0), None));
/// assert_eq!(*seen.0.lock().unwrap(), ["1"]);
/// ```
pub trait Listen: Send + Sync {
    /// Takes a progress report; returns whether anyone listens.
    fn progress(&self, report: Progress) -> bool;

    /// Takes a log message; returns whether anyone listens (a message below the level wanted is
    /// still listened to, and dropped).
    fn log(&self, message: LogMessage) -> bool;
}

impl ProgressSink {
    /// A sink that hands every progress report to `report` (and drops log messages until
    /// [`with_log`](Self::with_log) says where they go).
    pub fn new(report: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        ProgressSink {
            progress: Some(Arc::new(report)),
            log: None,
            listener: None,
        }
    }

    /// A sink that hands every report and message to `listener`, shared.
    pub fn to(listener: Arc<dyn Listen>) -> Self {
        ProgressSink {
            progress: None,
            log: None,
            listener: Some(listener),
        }
    }

    /// The same sink, handing every log message to `log` (a sink made with
    /// [`to`](Self::to) then hands its messages to `log` instead of its listener).
    #[must_use]
    pub fn with_log(mut self, log: impl Fn(LogMessage) + Send + Sync + 'static) -> Self {
        self.log = Some(Arc::new(log));
        self
    }

    /// Hands `progress` on; returns whether anyone listens.
    pub fn report(&self, progress: Progress) -> bool {
        if let Some(report) = &self.progress {
            report(progress);
            return true;
        }
        self.listener
            .as_ref()
            .is_some_and(|listener| listener.progress(progress))
    }

    /// Hands `message` on; returns whether anyone listens.
    pub fn log(&self, message: LogMessage) -> bool {
        if let Some(log) = &self.log {
            log(message);
            return true;
        }
        self.listener
            .as_ref()
            .is_some_and(|listener| listener.log(message))
    }
}

impl fmt::Debug for ProgressSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ProgressSink")
    }
}
