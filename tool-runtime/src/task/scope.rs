//! The call a tool body serves: the model's call with its cancellation and progress.

use std::sync::Arc;

use super::{Cancellation, Cancelled, LogLevel, LogMessage, Progress, ProgressSink};
use crate::call::{CallId, ToolCall};
use crate::caller::Caller;

/// The call a tool body serves, as the runtime hands it to [`Tool::call`](crate::Tool::call):
/// the model's call, its cancellation signal, and whether a person approved it. Borrowed and
/// cheap to clone; [`info`](Self::info) makes the owned [`CallInfo`] a `#[tool]` fn can take.
#[derive(Debug, Clone)]
pub struct CallScope<'a> {
    call: &'a ToolCall,
    cancellation: Cancellation,
    approved: bool,
    progress: Option<ProgressSink>,
    caller: Option<Arc<Caller>>,
}

impl<'a> CallScope<'a> {
    /// The scope of `call`, which nothing cancels and nobody approved.
    pub fn new(call: &'a ToolCall) -> Self {
        CallScope {
            call,
            cancellation: Cancellation::never().clone(),
            approved: false,
            progress: None,
            caller: None,
        }
    }

    /// The same scope, its progress reports going to `sink`.
    #[must_use]
    pub fn with_progress(mut self, sink: ProgressSink) -> Self {
        self.progress = Some(sink);
        self
    }

    /// The same scope, with `sink` when there is one.
    #[must_use]
    pub(crate) fn with_progress_opt(mut self, sink: Option<&ProgressSink>) -> Self {
        self.progress = sink.cloned();
        self
    }

    /// The same scope, cancelled through `cancellation`.
    #[must_use]
    pub fn with_cancellation(mut self, cancellation: Cancellation) -> Self {
        self.cancellation = cancellation;
        self
    }

    /// The same scope, the call made for `caller`.
    #[must_use]
    pub fn with_caller(mut self, caller: Arc<Caller>) -> Self {
        self.caller = Some(caller);
        self
    }

    /// The same scope, made for `caller` when there is one.
    #[must_use]
    pub(crate) fn with_caller_opt(mut self, caller: Option<&Arc<Caller>>) -> Self {
        self.caller = caller.cloned();
        self
    }

    /// The same scope, marked approved (or not) by a person.
    #[must_use]
    pub fn with_approved(mut self, approved: bool) -> Self {
        self.approved = approved;
        self
    }

    /// The call, as the model made it.
    pub fn call(&self) -> &'a ToolCall {
        self.call
    }

    /// The provider's id for the call.
    pub fn call_id(&self) -> &'a str {
        &self.call.call_id
    }

    /// The call's cancellation signal.
    pub fn cancellation(&self) -> &Cancellation {
        &self.cancellation
    }

    /// Whether a person approved the call.
    pub fn is_approved(&self) -> bool {
        self.approved
    }

    /// Who the call is made for, when someone in particular.
    pub fn caller(&self) -> Option<&Caller> {
        self.caller.as_deref()
    }

    /// What a tool body may learn about the call, owned.
    pub fn info(&self) -> CallInfo {
        CallInfo {
            call_id: self.call.call_id.clone(),
            tool_name: self.call.name.clone(),
            index: self.call.index,
            cancellation: self.cancellation.clone(),
            approved: self.approved,
            progress: self.progress.clone(),
            caller: self.caller.clone(),
        }
    }
}

/// What a tool body may learn about the call it is serving: inject it by marking a parameter
/// `#[tool(call_info)] info: &CallInfo`.
///
/// Besides the call's id, tool name and position it carries the call's [`Cancellation`]:
/// raised when the batch the call runs in is cancelled or dropped, or the call times out. A
/// long-running tool checks [`is_cancelled`](Self::is_cancelled) between steps, or races its work
/// against [`cancelled`](Self::cancelled).
#[derive(Debug, Clone)]
pub struct CallInfo {
    call_id: CallId,
    tool_name: String,
    index: usize,
    cancellation: Cancellation,
    approved: bool,
    progress: Option<ProgressSink>,
    caller: Option<Arc<Caller>>,
}

impl CallInfo {
    /// Info for `call`, which nothing cancels and nobody approved.
    pub fn new(call: &ToolCall) -> Self {
        CallScope::new(call).info()
    }

    /// The provider's id for the call.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The tool's name as the model called it.
    pub fn tool_name(&self) -> &str {
        &self.tool_name
    }

    /// Position of the call within the model's turn.
    pub fn index(&self) -> usize {
        self.index
    }

    /// Whether a person approved this call ([`Toolbox::approve`](crate::Toolbox::approve)): a
    /// tool that asks for approval itself (by returning an [`Interrupt`](crate::Interrupt))
    /// goes ahead when this is set.
    pub fn is_approved(&self) -> bool {
        self.approved
    }

    /// Who the call is made for (the identity and scopes an authenticated request carried:
    /// an MCP server behind a bearer token, a batch run
    /// [`on_behalf_of`](crate::exec::BatchOptions::on_behalf_of) someone); `None` for a call made for
    /// no one in particular.
    pub fn caller(&self) -> Option<&Caller> {
        self.caller.as_deref()
    }

    /// The call's cancellation signal.
    pub fn cancellation(&self) -> &Cancellation {
        &self.cancellation
    }

    /// Whether the call was cancelled (its batch cancelled or dropped, or its time up).
    pub fn is_cancelled(&self) -> bool {
        self.cancellation.is_cancelled()
    }

    /// Completes when the call is cancelled.
    pub fn cancelled(&self) -> Cancelled<'_> {
        self.cancellation.cancelled()
    }

    /// Reports how far the call is: `progress` so far (it should grow with every report), out of
    /// `total` when known, with what it is doing. Whoever runs the batch decides where reports
    /// go ([`BatchOptions::progress`](crate::exec::BatchOptions::progress)); an MCP server sends them to
    /// the client as `notifications/progress` when the client asked for progress. Returns
    /// whether anyone listens.
    pub fn report_progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> bool {
        let Some(sink) = &self.progress else {
            return false;
        };
        sink.report(Progress {
            call_id: self.call_id.clone(),
            progress,
            total,
            message: message.map(str::to_owned),
        })
    }

    /// Logs `data` (a message, or any JSON) at `level` for whoever runs the call: an MCP server
    /// sends it to the client as `notifications/message`, when the client's `logging/setLevel`
    /// lets that level through, before the call's result. Returns whether anyone listens.
    ///
    /// ```
    /// use toolwright::{ToolCall, exec::{CallScope, LogLevel, ProgressSink}};
    ///
    /// let (sender, receiver) = std::sync::mpsc::channel();
    /// let sink = ProgressSink::default().with_log(move |message| sender.send(message).unwrap());
    /// let call = ToolCall::new("c1", "index", "{}");
    /// let info = CallScope::new(&call).with_progress(sink).info();
    /// assert!(info.log(LogLevel::Info, "indexing 3 files"));
    /// assert!(!info.report_progress(1.0, None, None)); // logs are heard, progress is not
    /// assert_eq!(receiver.recv().unwrap().data, "indexing 3 files");
    /// ```
    pub fn log(&self, level: LogLevel, data: impl Into<serde_json::Value>) -> bool {
        let Some(sink) = &self.progress else {
            return false;
        };
        sink.log(LogMessage {
            call_id: self.call_id.clone(),
            level,
            data: data.into(),
        })
    }
}
