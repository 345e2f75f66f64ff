//! Progress: what a running tool reports through its call info, and where the reports go.

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

/// Where the progress reports of a batch's calls go: set it with
/// [`BatchOptions::progress`](crate::exec::BatchOptions::progress); a tool reports through
/// [`CallInfo::report_progress`](crate::CallInfo::report_progress). An MCP server forwards each
/// report to the client as `notifications/progress`.
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
#[derive(Clone)]
pub struct ProgressSink(Arc<dyn Fn(Progress) + Send + Sync>);

impl ProgressSink {
    /// A sink that hands every report to `report`.
    pub fn new(report: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        ProgressSink(Arc::new(report))
    }

    /// Hands `progress` on.
    pub fn report(&self, progress: Progress) {
        (self.0)(progress);
    }
}

impl fmt::Debug for ProgressSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ProgressSink")
    }
}
