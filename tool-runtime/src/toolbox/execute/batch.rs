//! Running a model's turn of calls as one batch: one result per call, in call order, whatever
//! happens to the others; calls safe to run concurrently share the time, others run alone.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use serde_json::Value;
use tracing::field::Empty;

use crate::call::ToolCall;
use crate::caller::Caller;
use crate::result::ToolResult;
use crate::task::{
    BoxFuture, Cancellation, Conversation, MaybeReady, ProgressSink, Signals, block_on,
};
use crate::toolbox::Toolbox;

/// Settings for one batch, over the toolbox's own.
///
/// ```
/// use serde_json::json;
/// use toolwright::exec::BatchOptions;
///
/// // The request asked the model for one call at a time: run them one at a time too.
/// let request = json!({"model": "gpt-4.1", "parallel_tool_calls": false});
/// assert_eq!(BatchOptions::for_request(&request).is_parallel(), Some(false));
/// ```
#[derive(Debug, Clone, Default)]
pub struct BatchOptions {
    parallel: Option<bool>,
    concurrency: Option<usize>,
    cancellation: Option<Cancellation>,
    stop_signal: Option<Cancellation>,
    progress: Option<ProgressSink>,
    caller: Option<Arc<Caller>>,
    conversation: Option<Conversation>,
}

impl BatchOptions {
    /// The toolbox's settings.
    pub fn new() -> Self {
        BatchOptions::default()
    }

    /// The settings a provider request implies: OpenAI's `parallel_tool_calls: false` (Chat
    /// Completions and Responses) and Anthropic's `tool_choice.disable_parallel_tool_use: true`
    /// run every call alone.
    pub fn for_request(request: &Value) -> Self {
        let openai = request.get("parallel_tool_calls") == Some(&Value::Bool(false));
        let anthropic = request
            .get("tool_choice")
            .and_then(|choice| choice.get("disable_parallel_tool_use"))
            == Some(&Value::Bool(true));
        let mut options = BatchOptions::new();
        if openai || anthropic {
            options.parallel = Some(false);
        }
        options
    }

    /// Lets calls run at the same time, or runs each alone, whatever the toolbox says.
    #[must_use]
    pub fn parallel(mut self, on: bool) -> Self {
        self.parallel = Some(on);
        self
    }

    /// Whether this batch says calls may run at the same time (`None`: the toolbox decides).
    pub fn is_parallel(&self) -> Option<bool> {
        self.parallel
    }

    /// How many calls may run at the same time in this batch (at least 1).
    #[must_use]
    pub fn concurrency(mut self, limit: usize) -> Self {
        self.concurrency = Some(limit.max(1));
        self
    }

    /// Cancels the batch when `token` is raised: it then ends at once, with a "cancelled"
    /// result for every call not finished.
    #[must_use]
    pub fn cancellation(mut self, token: Cancellation) -> Self {
        self.cancellation = Some(token);
        self
    }

    /// Makes `token` the signal the batch's calls observe
    /// ([`CallInfo::is_cancelled`](crate::CallInfo::is_cancelled)): raising it asks them to stop
    /// without ending the batch, so a call that winds down and returns still gives its result.
    /// (The batch raises it too, when it is cancelled or dropped with calls unfinished.)
    ///
    /// ```
    /// use toolwright::{CallInfo, ToolCall, Toolbox, tool, exec::{BatchOptions, Cancellation}};
    ///
    /// /// Work until asked to stop; returns how it ended.
    /// #[tool]
    /// async fn work(#[tool(call_info)] info: &CallInfo) -> &'static str {
    ///     info.cancelled().await;
    ///     "stopped cleanly"
    /// }
    ///
    /// let tools = Toolbox::new().with(WorkTool).unwrap();
    /// let stop = Cancellation::new();
    /// stop.cancel(); // asked before it even starts: it still runs, and ends at once
    /// let calls = [ToolCall::new("c1", "work", "{}")];
    /// let options = BatchOptions::new().stop_signal(stop);
    /// let results = toolwright::exec::block_on(tools.execute_all_with(&calls, &(), options));
    /// assert_eq!(results[0].text(), "stopped cleanly");
    /// ```
    #[must_use]
    pub fn stop_signal(mut self, token: Cancellation) -> Self {
        self.stop_signal = Some(token);
        self
    }

    /// Runs the batch for `caller`: a call of a tool whose scopes it lacks
    /// ([`Toolbox::require_scopes`], [`ToolDefinition::scopes`](crate::ToolDefinition::scopes))
    /// gets the result a call of an unknown tool gets, naming only the tools it may call, and
    /// each tool body learns who it serves from [`CallInfo::caller`](crate::CallInfo::caller).
    ///
    /// ```
    /// use toolwright::{Toolbox, ToolCall, tool, exec::{BatchOptions, Caller, block_on}};
    ///
    /// /// Who is asking.
    /// #[tool]
    /// fn whoami(#[tool(call_info)] info: &toolwright::CallInfo) -> String {
    ///     info.caller().map_or("nobody", |caller| caller.subject()).to_owned()
    /// }
    ///
    /// /// Drop every table.
    /// #[tool(scopes = ["admin"])]
    /// fn drop_all() -> &'static str { "dropped" }
    ///
    /// let tools = Toolbox::new().with_all((WhoamiTool, DropAllTool)).unwrap();
    /// let calls = [ToolCall::new("1", "whoami", "{}"), ToolCall::new("2", "drop_all", "{}")];
    /// let options = BatchOptions::new().on_behalf_of(Caller::new("ada"));
    /// let results = block_on(tools.execute_all_with(&calls, &(), options));
    /// assert_eq!(results[0].text(), "ada");
    /// assert_eq!(results[1].text(), "unknown tool `drop_all`. Available tools: `whoami`.");
    /// ```
    #[must_use]
    pub fn on_behalf_of(mut self, caller: Caller) -> Self {
        self.caller = Some(Arc::new(caller));
        self
    }

    /// Counts the batch's invalid calls in `conversation`, whose retry budget they spend,
    /// rather than in the toolbox: one caller's mistakes then never change what another gets.
    #[must_use]
    pub fn in_conversation(mut self, conversation: Conversation) -> Self {
        self.conversation = Some(conversation);
        self
    }

    /// Sends the progress the batch's calls report
    /// ([`CallInfo::report_progress`](crate::CallInfo::report_progress)) and the messages they
    /// log ([`CallInfo::log`](crate::CallInfo::log)) to `sink`.
    #[must_use]
    pub fn progress(mut self, sink: ProgressSink) -> Self {
        self.progress = Some(sink);
        self
    }
}

/// The future of [`Toolbox::execute_all`]: resolves to one result per call, in call order.
///
/// It runs the calls itself as it is polled (no task is spawned), so it works under any
/// executor. [`cancel`](Self::cancel) ends it early, keeping the results of finished calls and
/// giving the others a "cancelled" result; dropping it raises every running call's cancellation
/// signal, which tools observe through their call info.
#[must_use = "futures do nothing unless awaited"]
pub struct Batch<'a, C: ?Sized> {
    toolbox: &'a Toolbox<C>,
    ctx: &'a C,
    calls: &'a [ToolCall],
    limit: usize,
    slots: Slots<'a>,
    /// Raised for the application ([`BatchOptions::cancellation`]) to end the batch.
    cancellation: Cancellation,
    /// Raised by the batch when it ends with calls unfinished, or is dropped: the calls' signal.
    stop: Cancellation,
    /// Where the calls' progress reports go.
    progress: Option<ProgressSink>,
    /// Who the calls are made for, when someone in particular.
    caller: Option<Arc<Caller>>,
    /// Whose retry budget the calls spend, when not the toolbox's.
    conversation: Option<Conversation>,
    /// The next call to start, and every call before `settled` has its result.
    next: usize,
    settled: usize,
    running: usize,
    /// The call running alone, if one is.
    alone: Option<usize>,
    done: bool,
    span: tracing::Span,
    started: Option<Instant>,
}

enum Slot<'a> {
    Waiting,
    Running(BoxFuture<'a, ToolResult>),
    Done(ToolResult),
    Taken,
}

/// A batch's slots, one per call: the slot of a batch of one call (an MCP `tools/call`, a turn
/// with one call) is kept inline, not in a vector of its own.
enum Slots<'a> {
    One([Slot<'a>; 1]),
    Many(Vec<Slot<'a>>),
}

impl Slots<'_> {
    fn new(calls: usize) -> Self {
        if calls == 1 {
            Slots::One([Slot::Waiting])
        } else {
            Slots::Many((0..calls).map(|_| Slot::Waiting).collect())
        }
    }
}

impl<'a> std::ops::Deref for Slots<'a> {
    type Target = [Slot<'a>];

    fn deref(&self) -> &[Slot<'a>] {
        match self {
            Slots::One(slot) => slot,
            Slots::Many(slots) => slots,
        }
    }
}

impl std::ops::DerefMut for Slots<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        match self {
            Slots::One(slot) => slot,
            Slots::Many(slots) => slots,
        }
    }
}

impl<C: ?Sized> fmt::Debug for Batch<'_, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Batch")
            .field("calls", &self.calls.len())
            .field("running", &self.running)
            .field("started", &self.next)
            .finish_non_exhaustive()
    }
}

impl<C: ?Sized + Sync + 'static> Toolbox<C> {
    /// Runs every call of a model's turn and returns one result per call, in call order,
    /// whatever happens to the others (unknown tools, bad arguments, panics, timeouts).
    ///
    /// Calls of tools that are safe to run concurrently ([`ToolDefinition::is_concurrent`](crate::ToolDefinition::is_concurrent))
    /// run at the same time, up to the toolbox's limit ([`with_concurrency`](Self::with_concurrency));
    /// any other call runs alone: after every earlier call has finished, and before any later
    /// one starts. Calls that need approval come back as interrupts in their place
    /// ([`ToolResult::is_interrupt`]).
    ///
    /// The batch polls its calls itself, on the task that awaits it: a sync body runs to its end
    /// when its call starts, and holds the others up meanwhile. Mark sync tools that take long
    /// `#[tool(blocking)]`, which runs them on other threads.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright::{DynamicTool, ToolCall, ToolDefinition, Toolbox};
    ///
    /// let def = ToolDefinition::new("echo", "Echo.", json!({
    ///     "type": "object", "properties": {"text": {"type": "string"}},
    /// }))
    /// .unwrap()
    /// .with_concurrent(true);
    /// let tools = Toolbox::new()
    ///     .with(DynamicTool::new(def, |args, _: &()| args["text"].as_str().unwrap_or("").to_owned()))
    ///     .unwrap();
    /// let calls = [
    ///     ToolCall::new("c1", "echo", r#"{"text": "one"}"#),
    ///     ToolCall::new("c2", "nope", "{}"),
    ///     ToolCall::new("c3", "echo", r#"{"text": "three"}"#),
    /// ];
    /// let results = toolwright::exec::block_on(tools.execute_all(&calls, &()));
    /// let ids: Vec<&str> = results.iter().map(|r| r.call_id.as_str()).collect();
    /// assert_eq!(ids, ["c1", "c2", "c3"]);
    /// assert_eq!(results[2].text(), "three");
    /// assert!(results[1].is_error);
    /// ```
    pub fn execute_all<'a>(&'a self, calls: &'a [ToolCall], ctx: &'a C) -> Batch<'a, C> {
        self.execute_all_with(calls, ctx, BatchOptions::new())
    }

    /// [`execute_all`](Self::execute_all) with settings for this batch: concurrency, and a
    /// cancellation signal.
    pub fn execute_all_with<'a>(
        &'a self,
        calls: &'a [ToolCall],
        ctx: &'a C,
        options: BatchOptions,
    ) -> Batch<'a, C> {
        let parallel = options.parallel.unwrap_or(self.parallel);
        let limit = if parallel {
            options.concurrency.unwrap_or(self.concurrency)
        } else {
            1
        };
        // A batch of one call is that call: its span is the call's own.
        let span = if calls.len() > 1 {
            tracing::info_span!(
                "tool_batch",
                otel.name = "execute_tools",
                otel.kind = "internal",
                toolwright.calls = calls.len(),
                toolwright.concurrency = limit,
                toolwright.duration_us = Empty,
                toolwright.cancelled = Empty,
            )
        } else {
            tracing::Span::none()
        };
        let started = (!span.is_disabled()).then(Instant::now);
        Batch {
            toolbox: self,
            ctx,
            calls,
            limit,
            slots: Slots::new(calls.len()),
            cancellation: options
                .cancellation
                .unwrap_or_else(|| Cancellation::never().clone()),
            stop: options.stop_signal.unwrap_or_default(),
            progress: options.progress,
            caller: options.caller,
            conversation: options.conversation,
            next: 0,
            settled: 0,
            running: 0,
            alone: None,
            done: false,
            span,
            started,
        }
    }

    /// [`execute_all`](Self::execute_all) for sync callers: runs the batch on this thread, as
    /// [`execute_blocking`](Self::execute_blocking) runs one call.
    pub fn execute_all_blocking(&self, calls: &[ToolCall], ctx: &C) -> Vec<ToolResult> {
        block_on(self.execute_all(calls, ctx))
    }
}

impl<C: ?Sized + Sync + 'static> Batch<'_, C> {
    /// Ends the batch now: the results of finished calls, and a "cancelled" result for every
    /// other call (running ones are dropped, and their cancellation signal raised). Polling the
    /// batch afterwards is a mistake. A batch that has already returned its results has none
    /// left: the list is then empty.
    pub fn cancel(&mut self) -> Vec<ToolResult> {
        if self.done {
            return Vec::new();
        }
        self.finish()
    }

    /// Starts every call that may start now.
    fn start(&mut self) {
        while self.next < self.calls.len() && self.running < self.limit && self.alone.is_none() {
            let at = self.next;
            let call = &self.calls[at];
            let found =
                self.toolbox
                    .lookup_in(call, self.caller.as_deref(), self.conversation.as_ref());
            let (index, tool) = match found {
                Ok(found) => found,
                Err(result) => {
                    // An unknown tool's call is answered at once; it holds nothing up.
                    self.slots[at] = Slot::Done(self.toolbox.refused(call, result));
                    self.next += 1;
                    continue;
                }
            };
            let concurrent = tool.definition().is_concurrent();
            if !concurrent && self.running > 0 {
                return;
            }
            self.next += 1;
            let (toolbox, ctx) = (self.toolbox, self.ctx);
            let future = if toolbox.is_plain(index) {
                // As a single call runs: a sync body finishes here, with no future at all.
                match toolbox.start_plain(
                    index,
                    tool,
                    call,
                    ctx,
                    Signals {
                        cancellation: &self.stop,
                        progress: self.progress.as_ref(),
                        caller: self.caller.as_ref(),
                        conversation: self.conversation.as_ref(),
                    },
                ) {
                    MaybeReady::Ready(result) => {
                        self.slots[at] = Slot::Done(result);
                        continue;
                    }
                    MaybeReady::Pending(future) => future,
                }
            } else {
                let stop = self.stop.clone();
                let progress = self.progress.clone();
                let caller = self.caller.clone();
                let conversation = self.conversation.clone();
                Box::pin(async move {
                    toolbox
                        .run_gated(
                            index,
                            tool,
                            call,
                            ctx,
                            Signals {
                                cancellation: &stop,
                                progress: progress.as_ref(),
                                caller: caller.as_ref(),
                                conversation: conversation.as_ref(),
                            },
                            false,
                        )
                        .await
                })
            };
            self.slots[at] = Slot::Running(future);
            self.running += 1;
            if !concurrent {
                self.alone = Some(at);
            }
        }
    }

    /// Every result, in call order; "cancelled" for calls without one.
    fn finish(&mut self) -> Vec<ToolResult> {
        let mut cancelled = 0;
        let results = self
            .slots
            .iter_mut()
            .zip(self.calls)
            .map(|(slot, call)| {
                // A running call's body is dropped here, and its span records why.
                let started = match std::mem::replace(slot, Slot::Taken) {
                    Slot::Done(result) => return result,
                    Slot::Running(_) => true,
                    Slot::Waiting | Slot::Taken => false,
                };
                cancelled += 1;
                let result = ToolResult::cancelled(call);
                if !started {
                    self.toolbox.refused_span(call, &result);
                }
                result
            })
            .collect();
        if cancelled > 0 {
            // Running bodies were dropped above; those that outlive it (blocking ones) stop.
            self.stop.cancel();
        }
        self.running = 0;
        self.done = true;
        if let Some(started) = self.started {
            self.span.record(
                "toolwright.duration_us",
                u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
            );
            self.span.record("toolwright.cancelled", cancelled);
        }
        results
    }
}

impl<C: ?Sized + Sync + 'static> Future for Batch<'_, C> {
    type Output = Vec<ToolResult>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Vec<ToolResult>> {
        let this = &mut *self;
        assert!(!this.done, "a `Batch` was polled after it completed");
        let span = this.span.clone();
        let _entered = span.enter();
        loop {
            if this.cancellation.is_cancelled() {
                return Poll::Ready(this.finish());
            }
            this.start();
            let mut progress = false;
            for at in this.settled..this.next {
                let Slot::Running(future) = &mut this.slots[at] else {
                    continue;
                };
                if let Poll::Ready(result) = future.as_mut().poll(cx) {
                    this.slots[at] = Slot::Done(result);
                    this.running -= 1;
                    if this.alone == Some(at) {
                        this.alone = None;
                    }
                    progress = true;
                }
            }
            while this.settled < this.next && matches!(this.slots[this.settled], Slot::Done(_)) {
                this.settled += 1;
            }
            if this.settled == this.calls.len() {
                return Poll::Ready(this.finish());
            }
            if !progress {
                break;
            }
        }
        this.cancellation.wake_on_cancel(cx.waker());
        // Raised since the check above: its wake-ups were already sent.
        if this.cancellation.is_cancelled() {
            return Poll::Ready(this.finish());
        }
        Poll::Pending
    }
}

impl<C: ?Sized> Drop for Batch<'_, C> {
    fn drop(&mut self) {
        if self.running > 0 {
            self.stop.cancel();
        }
    }
}
