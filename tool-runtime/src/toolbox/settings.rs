//! The toolbox's settings for running calls: concurrency, timeouts, hooks, the retry budget and
//! what is logged.

use std::sync::Arc;
use std::time::Duration;

use crate::hook::Hook;
use crate::toolbox::Toolbox;

impl<C: ?Sized + Sync + 'static> Toolbox<C> {
    /// How many calls of a batch may run at the same time (at least 1; default
    /// [`DEFAULT_CONCURRENCY`](crate::exec::DEFAULT_CONCURRENCY)). Only calls of tools that are safe to
    /// run concurrently ([`ToolDefinition::is_concurrent`](crate::ToolDefinition::is_concurrent)) share the time; others run alone.
    #[must_use]
    pub fn with_concurrency(mut self, limit: usize) -> Self {
        self.concurrency = limit.max(1);
        self
    }

    /// Lets calls of a batch run at the same time (the default), or runs every call alone, in
    /// call order, as a provider's `parallel_tool_calls: false` asks.
    #[must_use]
    pub fn with_parallel_calls(mut self, on: bool) -> Self {
        self.parallel = on;
        self
    }

    /// Stops calls that run longer than `timeout`, unless their tool sets its own
    /// ([`ToolDefinition::with_timeout`](crate::ToolDefinition::with_timeout), `#[tool(timeout = "5s")]`). A stopped call's result is an
    /// error saying so; anything it does later is discarded.
    ///
    /// A call is stopped at the deadline while it awaits (an async body) or runs off the
    /// caller's thread (`#[tool(blocking)]`). A body that holds its thread (a sync tool not
    /// marked `blocking`, an async body that blocks without awaiting) cannot be preempted: when
    /// it returns past the deadline its result is still the timeout error, its value discarded,
    /// and a warning is logged.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self.gated = true;
        self
    }

    /// Adds a hook around every call ([`Hook`]); hooks run in the order they were added.
    #[must_use]
    pub fn with_hook(mut self, hook: impl Hook<C>) -> Self {
        self.hooks.push(Arc::new(hook));
        self.gated = true;
        self
    }

    /// How many invalid calls of one tool in a row the model may make (default
    /// [`DEFAULT_RETRY_BUDGET`](crate::exec::DEFAULT_RETRY_BUDGET); 0: no limit). The call that
    /// reaches it gets a result that tells the model to stop, and
    /// [`ResultDetail::BudgetExhausted`](crate::ResultDetail::BudgetExhausted) for the application
    /// ([`ToolResult::budget_exhausted`](crate::ToolResult::budget_exhausted)). A call of the tool with valid arguments starts the
    /// count again.
    ///
    /// The count is kept per toolbox: give each conversation its own (`clone()` starts a fresh
    /// count).
    #[must_use]
    pub fn with_retry_budget(mut self, failures: u32) -> Self {
        self.retry_budget = failures;
        self
    }

    /// Records each call's arguments and result on its span, as the OpenTelemetry GenAI
    /// conventions' opt-in attributes `gen_ai.tool.call.arguments` and `gen_ai.tool.call.result`
    /// (and a failed call's message as the span's status description, since it may quote the
    /// arguments). Off by default: arguments and results can hold personal data and secrets.
    #[must_use]
    pub fn capture_content(mut self, on: bool) -> Self {
        self.capture_content = on;
        self
    }
}
