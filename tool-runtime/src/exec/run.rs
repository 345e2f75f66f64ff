//! The whole pipeline of one call (hooks, approval, retry budget, timeout), and the toolbox's
//! settings for it. Plain calls (no hook, approval or timeout in play) take the shorter path in
//! `toolbox.rs`, which keeps the retry budget too.

use std::borrow::Cow;
use std::future::{Future, poll_fn};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::task::Poll;
use std::time::{Duration, Instant};

use serde_json::Value;
use tracing::Instrument;
use tracing::field::Empty;

use super::{Before, Cancellation, CatchUnwind, Hook, MaybeReady, Signals, block_on, sleep};
use crate::args::{self, ArgumentPolicy, Fixes, ParseSession};
use crate::call::{Arguments, CallScope, ToolCall};
use crate::output::{HookFailure, Interrupt, InterruptKind};
use crate::result::{ResultDetail, ToolResult, panic_message};
use crate::tool::{DynTool, Tool, ToolDefinition};
use crate::toolbox::{ApprovalRule, RegisterError, Toolbox, record};
use crate::{echo, json};

/// What a person decided about a held call ([`Toolbox::resolve_interrupts`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Run it.
    Approve,
    /// Do not run it; the model is told so, with this reason (empty: no reason given).
    Reject(String),
}

impl<C: ?Sized + Sync + 'static> Toolbox<C> {
    /// How many calls of a batch may run at the same time (at least 1; default
    /// [`DEFAULT_CONCURRENCY`](crate::DEFAULT_CONCURRENCY)). Only calls of tools that are safe to
    /// run concurrently ([`ToolDefinition::is_concurrent`]) share the time; others run alone.
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
    /// ([`ToolDefinition::with_timeout`], `#[tool(timeout = "5s")]`). A stopped call's result is an
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
    /// [`DEFAULT_RETRY_BUDGET`](crate::DEFAULT_RETRY_BUDGET); 0: no limit). The call that
    /// reaches it gets a result that tells the model to stop, and
    /// [`ResultDetail::BudgetExhausted`] for the application
    /// ([`ToolResult::budget_exhausted`]). A call of the tool with valid arguments starts the
    /// count again.
    ///
    /// The count is kept per toolbox: give each conversation its own (`clone()` starts a fresh
    /// count).
    #[must_use]
    pub fn with_retry_budget(mut self, failures: u32) -> Self {
        self.retry_budget = failures;
        self
    }

    /// Records each call's arguments on its tracing span (field `arguments`). Off by default:
    /// arguments can hold personal data and secrets.
    #[must_use]
    pub fn log_arguments(mut self, on: bool) -> Self {
        self.log_arguments = on;
        self
    }

    /// Makes calls of `tool` wait for approval when `rule` says so, given the call's arguments as
    /// the tool will get them (repaired and coerced) and the context. Such a call's result is an
    /// [`Interrupt`] until [`approve`](Self::approve) or [`reject`](Self::reject) answers it.
    ///
    /// # Errors
    /// When no tool of that name is registered.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright::{DynamicTool, ToolCall, ToolDefinition, Toolbox};
    ///
    /// let def = ToolDefinition::new("pay", "Pay someone.", json!({
    ///     "type": "object", "properties": {"amount": {"type": "number"}}, "required": ["amount"],
    /// }))
    /// .unwrap();
    /// let tools = Toolbox::new()
    ///     .with(DynamicTool::new(def, |_, _: &()| "paid".to_owned()))
    ///     .unwrap()
    ///     .needs_approval_when("pay", |args, _| args["amount"].as_f64() > Some(100.0))
    ///     .unwrap();
    /// let small = tools.execute_blocking(&ToolCall::new("c1", "pay", r#"{"amount": 5}"#), &());
    /// assert_eq!(small.text(), "paid");
    /// // Coerced before the rule sees it: "250" is the number 250.
    /// let large = ToolCall::new("c2", "pay", r#"{"amount": "250"}"#);
    /// let held = tools.execute_blocking(&large, &());
    /// assert_eq!(held.interrupt().unwrap().data, json!({"amount": 250}));
    /// assert_eq!(tools.approve_blocking(&large, &()).text(), "paid");
    /// ```
    pub fn needs_approval_when(
        self,
        tool: &str,
        rule: impl Fn(&Value, &C) -> bool + Send + Sync + 'static,
    ) -> Result<Self, RegisterError> {
        self.approval_rule(tool, Arc::new(move |json, _, ctx| rule(json, ctx)))
    }

    /// Makes calls of the tool `tool` wait for approval when `rule` says so, given the call's
    /// typed arguments (a `#[tool]` fn's are `<name as Tool>::Args`, with a field per argument)
    /// and the context. As [`needs_approval_when`](Self::needs_approval_when) otherwise.
    ///
    /// # Errors
    /// When no tool of that name is registered.
    ///
    /// With `#[tool] fn transfer(amount: u32, ..)`, that reads
    /// `.needs_approval_if(&transfer {}, |args, _| args.amount > 100)`. A dynamic tool's arguments
    /// are a JSON map:
    ///
    /// ```
    /// use serde_json::{Map, Value, json};
    /// use toolwright::{DynamicTool, ToolCall, ToolDefinition, Toolbox};
    ///
    /// fn pay() -> DynamicTool {
    ///     let def = ToolDefinition::new("pay", "Pay someone.", json!({
    ///         "type": "object", "properties": {"amount": {"type": "integer"}},
    ///     }))
    ///     .unwrap();
    ///     DynamicTool::new(def, |_, _: &()| "paid".to_owned())
    /// }
    ///
    /// let tools = Toolbox::new()
    ///     .with(pay())
    ///     .unwrap()
    ///     .needs_approval_if(&pay(), |args: &Map<String, Value>, _| args["amount"].as_i64() > Some(100))
    ///     .unwrap();
    /// assert!(tools.execute_blocking(&ToolCall::new("c1", "pay", r#"{"amount": 500}"#), &()).is_interrupt());
    /// assert_eq!(tools.execute_blocking(&ToolCall::new("c2", "pay", r#"{"amount": 5}"#), &()).text(), "paid");
    /// ```
    pub fn needs_approval_if<T: Tool<C>>(
        self,
        tool: &T,
        rule: impl Fn(&T::Args, &C) -> bool + Send + Sync + 'static,
    ) -> Result<Self, RegisterError> {
        let name = tool.definition().name().to_owned();
        self.approval_rule(
            &name,
            Arc::new(move |_, parsed, ctx| {
                // Arguments of another type: another tool answers to the name; ask, to be safe.
                parsed
                    .downcast_ref::<T::Args>()
                    .is_none_or(|args| rule(args, ctx))
            }),
        )
    }

    fn approval_rule(
        mut self,
        tool: &str,
        rule: Arc<ApprovalRule<C>>,
    ) -> Result<Self, RegisterError> {
        let index = self
            .index_of(tool)
            .ok_or_else(|| RegisterError::UnknownTool(tool.to_owned()))?;
        self.approval_rules.push((index, rule));
        self.states[index].gated = true;
        Ok(self)
    }

    /// Runs a call that was held for approval (or whose tool asked for it with an
    /// [`Interrupt`]): its arguments are parsed again, as at any execution, and the body sees
    /// [`CallInfo::is_approved`](crate::CallInfo::is_approved). Hooks, the timeout and the retry budget apply as usual.
    pub async fn approve(&self, call: &ToolCall, ctx: &C) -> ToolResult {
        let (index, tool) = match self.lookup(call) {
            Ok(found) => found,
            Err(result) => return result,
        };
        self.run_gated(index, tool, call, ctx, Signals::none(), true)
            .await
    }

    /// [`approve`](Self::approve) for sync callers, as [`execute_blocking`](Self::execute_blocking).
    pub fn approve_blocking(&self, call: &ToolCall, ctx: &C) -> ToolResult {
        block_on(self.approve(call, ctx))
    }

    /// Resolves a batch's held calls in place: for each result that is an [`Interrupt`] (a
    /// call held for approval, or a tool that asked for it), `decide` is asked, with the call
    /// and the interrupt, and the result is replaced by the approved call's run
    /// ([`approve`](Self::approve)) or the rejection ([`reject`](Self::reject)); `None` leaves
    /// it held. Every other result stays as it is, so the results keep the calls' order, ready
    /// to be encoded back for the model. A result is paired with its call by the call id.
    ///
    /// ```
    /// use std::collections::HashMap;
    ///
    /// use toolwright::{Decision, ToolCall, Toolbox};
    /// # use toolwright::{DynamicTool, ToolDefinition, erase};
    /// # use serde_json::{Map, Value, json};
    /// # let definition = ToolDefinition::new("delete", "Delete a file.", json!({"type": "object"}))
    /// #     .unwrap()
    /// #     .with_needs_approval(true);
    /// # let delete = DynamicTool::new(definition, |_: Map<String, Value>, _: &()| "deleted".to_owned());
    /// let tools = Toolbox::<()>::new().with(delete).unwrap();
    /// let calls = [ToolCall::new("c1", "delete", "{}"), ToolCall::new("c2", "delete", "{}")];
    /// let mut results = tools.execute_all_blocking(&calls, &());
    /// assert!(results.iter().all(|r| r.is_interrupt()));
    ///
    /// // A person's decisions, by call id.
    /// let decisions = HashMap::from([
    ///     ("c1", Decision::Approve),
    ///     ("c2", Decision::Reject("not today".into())),
    /// ]);
    /// tools.resolve_interrupts_blocking(&calls, &mut results, &(), |call, _| {
    ///     decisions.get(call.call_id.as_str()).cloned()
    /// });
    /// assert_eq!(results[0].text(), "deleted");
    /// assert!(results[1].text().contains("not today"));
    /// ```
    pub async fn resolve_interrupts(
        &self,
        calls: &[ToolCall],
        results: &mut [ToolResult],
        ctx: &C,
        mut decide: impl FnMut(&ToolCall, &Interrupt) -> Option<Decision>,
    ) {
        for result in results.iter_mut() {
            let Some(interrupt) = result.interrupt() else {
                continue;
            };
            let Some(call) = calls.iter().find(|call| call.call_id == result.call_id) else {
                continue;
            };
            match decide(call, interrupt) {
                Some(Decision::Approve) => *result = self.approve(call, ctx).await,
                Some(Decision::Reject(reason)) => *result = self.reject(call, reason),
                None => {}
            }
        }
    }

    /// [`resolve_interrupts`](Self::resolve_interrupts) for sync callers, as
    /// [`execute_blocking`](Self::execute_blocking).
    pub fn resolve_interrupts_blocking(
        &self,
        calls: &[ToolCall],
        results: &mut [ToolResult],
        ctx: &C,
        decide: impl FnMut(&ToolCall, &Interrupt) -> Option<Decision>,
    ) {
        block_on(self.resolve_interrupts(calls, results, ctx, decide));
    }

    /// The final result of a call a person rejected: an error telling the model so, with the
    /// reason (the tool does not run).
    pub fn reject(&self, call: &ToolCall, reason: impl Into<String>) -> ToolResult {
        let reason = reason.into();
        let name = match self.lookup(call) {
            Ok((_, tool)) => tool.definition().name_cow(),
            Err(_) => Cow::Owned(call.name.clone()),
        };
        let mut message = format!("the user rejected this call of {}", echo::Name(&name));
        if reason.is_empty() {
            message.push('.');
        } else {
            message.push_str(&format!(": {reason}"));
        }
        ToolResult::error(
            &call.call_id,
            name,
            message,
            ResultDetail::Rejected {
                reason: reason.into_boxed_str(),
            },
        )
    }

    /// Whether a call of the tool at `index` can take the short path: no hook, approval or
    /// timeout.
    #[inline(always)]
    pub(crate) fn is_plain(&self, index: usize) -> bool {
        !self.gated && self.states.get(index).is_some_and(|state| !state.gated)
    }

    /// The span of one call. Arguments are recorded only when configured.
    #[inline]
    pub(crate) fn call_span(&self, call: &ToolCall) -> tracing::Span {
        let span = tracing::info_span!(
            "tool_call",
            tool = %call.name,
            call_id = %call.call_id,
            outcome = Empty,
            duration_us = Empty,
            repairs = Empty,
            coercions = Empty,
            arguments = Empty,
        );
        if self.log_arguments && !span.is_disabled() {
            match &call.arguments {
                Arguments::Text(text) => span.record("arguments", text.as_str()),
                // Written out only within the depth limit: `to_string` recurses.
                Arguments::Json(value) if json::measure(value, 128, usize::MAX).is_ok() => {
                    span.record("arguments", value.to_string())
                }
                Arguments::Json(_) => {
                    span.record("arguments", "(nested deeper than 128 levels: not logged)")
                }
            };
        }
        span
    }

    /// Counts an invalid call of the tool at `index`, or starts its count again after a valid
    /// one; turns the call that spends the budget into [`ResultDetail::BudgetExhausted`].
    #[inline(always)]
    pub(crate) fn account(&self, index: usize, result: &mut ToolResult) {
        let Some(state) = self.states.get(index) else {
            return;
        };
        if let ResultDetail::Arguments(_) = result.detail {
            self.count_failure(&state.failures, result);
        } else if state.failures.load(Ordering::Relaxed) != 0 {
            state.failures.store(0, Ordering::Relaxed);
        }
    }

    #[cold]
    #[inline(never)]
    fn count_failure(&self, counter: &AtomicU32, result: &mut ToolResult) {
        let failures = counter.fetch_add(1, Ordering::Relaxed).saturating_add(1);
        if self.retry_budget == 0 || failures < self.retry_budget {
            return;
        }
        result.detail = match std::mem::replace(&mut result.detail, ResultDetail::Value(None)) {
            ResultDetail::Arguments(error) => ResultDetail::BudgetExhausted { failures, error },
            other => other,
        };
        result.content.push(crate::ContentPart::text(format!(
            "This is invalid call {failures} of `{}` in a row, the most allowed: do not call it again. Tell the user what you were trying to do and what went wrong.",
            result.tool_name
        )));
    }

    /// The whole pipeline of one call of a known tool: hooks, approval, the body under its
    /// timeout, the retry budget; one span; panics anywhere become the call's error result.
    pub(crate) async fn run_gated(
        &self,
        index: usize,
        tool: &Arc<dyn DynTool<C>>,
        call: &ToolCall,
        ctx: &C,
        signals: Signals<'_>,
        approved: bool,
    ) -> ToolResult {
        let span = self.call_span(call);
        let started = (!span.is_disabled()).then(Instant::now);
        let steps = pin!(async {
            let definition = tool.definition();
            let mut rewritten: Option<ToolCall> = None;
            for hook in &self.hooks {
                let current = rewritten.as_ref().unwrap_or(call);
                match hook.before(definition, current, ctx) {
                    Before::Continue => {}
                    Before::Rewrite(arguments) => {
                        // Checked before anything copies or walks them: a rewrite is an entry
                        // like any other, and a value past the limits is dropped without
                        // recursion.
                        if let Err(error) = args::admit(&arguments, &self.policy.limits) {
                            if let Arguments::Json(value) = arguments {
                                json::dispose(value);
                            }
                            let mut result = ToolResult::invalid_arguments(
                                current,
                                definition.name_cow(),
                                error,
                            );
                            self.after(definition, current, ctx, &mut result);
                            return result;
                        }
                        let mut changed = current.clone();
                        changed.arguments = arguments;
                        rewritten = Some(changed);
                    }
                    Before::Deny(message) => {
                        let mut result = ToolResult::error(
                            &call.call_id,
                            definition.name_cow(),
                            message,
                            ResultDetail::Denied,
                        );
                        self.after(definition, current, ctx, &mut result);
                        return result;
                    }
                }
            }
            let call = rewritten.as_ref().unwrap_or(call);
            let limit = definition.timeout().or(self.timeout);
            let mut result = if let Some(limit) = limit {
                // A signal of the call's own, raised when its time is up or it is dropped (its batch
                // cancelled): a blocking body, which outlives both, is told to stop.
                let own = Cancellation::new();
                let _raise_when_dropped = RaiseOnDrop(&own);
                let info = CallScope::new(call)
                    .with_cancellation(own.clone())
                    .with_progress_opt(signals.progress)
                    .with_approved(approved);
                let body = self.body(index, tool, info, ctx);
                let started = Instant::now();
                match first(body, sleep(limit)).await {
                    // A body that held the thread past its deadline (no timer could stop it):
                    // the deadline still decides.
                    Ok(_) if started.elapsed() > limit => {
                        tracing::warn!(
                            tool = %definition.name(),
                            "the call ran past its timeout on the thread that called it; mark the tool `blocking`, or let it await"
                        );
                        timed_out(call, definition, limit)
                    }
                    Ok(result) => result,
                    Err(()) => timed_out(call, definition, limit),
                }
            } else {
                let info = CallScope::new(call)
                    .with_cancellation(signals.cancellation.clone())
                    .with_progress_opt(signals.progress)
                    .with_approved(approved);
                self.body(index, tool, info, ctx).await
            };
            self.after(definition, call, ctx, &mut result);
            result
        });
        let caught = CatchUnwind::new(steps).instrument(span.clone()).await;
        let result =
            caught.unwrap_or_else(|payload| self.panic_result(call, tool.definition(), payload));
        record(&span, started, &result);
        result
    }

    /// Approval, then the body; the retry budget counted.
    async fn body(
        &self,
        index: usize,
        tool: &Arc<dyn DynTool<C>>,
        info: CallScope<'_>,
        ctx: &C,
    ) -> ToolResult {
        let call = info.call();
        let definition = tool.definition();
        let rules = self.approval_rules.iter().filter(|(i, _)| *i == index);
        let gated = definition.needs_approval() || rules.clone().next().is_some();
        let mut result = if gated && !info.is_approved() {
            let mut session = ParseSession::new(self.policy);
            match tool.parse_dyn(&call.arguments, ctx, &mut session) {
                Err(error) => {
                    let mut result =
                        ToolResult::invalid_arguments(call, definition.name_cow(), error);
                    result.set_fixes(session.fixes);
                    result
                }
                Ok(parsed) => {
                    let arguments = self.arguments_json(definition, call);
                    let held = definition.needs_approval()
                        || rules
                            .into_iter()
                            .any(|(_, rule)| rule(&arguments, &*parsed, ctx));
                    if held {
                        let mut result = held_for_approval(call, definition, arguments);
                        result.set_fixes(session.fixes);
                        result
                    } else {
                        // Parsed again to run, as at any execution: what each tool compiles
                        // for itself is one parse-and-start, shared by both paths.
                        drop(parsed);
                        run(tool, ctx, info, &self.policy).await
                    }
                }
            }
        } else {
            run(tool, ctx, info, &self.policy).await
        };
        self.account(index, &mut result);
        result
    }

    /// A call's arguments as the tool will get them (repaired, coerced), for approval rules and
    /// the person reviewing; as decoded when the tool's own parser took what the schema would
    /// not.
    fn arguments_json(&self, definition: &ToolDefinition, call: &ToolCall) -> Value {
        let mut session = ParseSession::new(self.policy);
        if let Ok(value) = args::checked_value(definition, &call.arguments, &mut session) {
            return value;
        }
        let policy = definition.argument_policy(&self.policy);
        let mut fixes = Fixes::default();
        args::decode_arguments(&call.arguments, &policy, &mut fixes)
            .map_or(Value::Null, |map| Value::Object(map.into_owned()))
    }

    fn after(
        &self,
        definition: &ToolDefinition,
        call: &ToolCall,
        ctx: &C,
        result: &mut ToolResult,
    ) {
        for (at, hook) in self.hooks.iter().enumerate() {
            // A hook that fails after the call ran must not turn what ran into a failure: the
            // outcome is kept, and the hook's panic recorded beside it.
            let ran = catch_unwind(AssertUnwindSafe(|| {
                hook.after(definition, call, ctx, result);
            }));
            if let Err(payload) = ran {
                let message = panic_message(payload.as_ref()).map(str::to_owned);
                tracing::error!(
                    tool = %definition.name(),
                    hook = at,
                    message = message.as_deref().unwrap_or("(not a string)"),
                    "an `after` hook panicked; the call's result is kept"
                );
                result.push_hook_failure(HookFailure { hook: at, message });
            }
        }
    }
}

/// Parses the call's arguments and runs the body.
async fn run<C: ?Sized + Sync>(
    tool: &Arc<dyn DynTool<C>>,
    ctx: &C,
    info: CallScope<'_>,
    policy: &ArgumentPolicy,
) -> ToolResult {
    match tool.run_dyn(&info.call().arguments, ctx, info, policy) {
        MaybeReady::Ready(result) => result,
        MaybeReady::Pending(future) => future.await,
    }
}

fn held_for_approval(call: &ToolCall, definition: &ToolDefinition, arguments: Value) -> ToolResult {
    let message = format!(
        "`{}` needs approval to run with {}",
        definition.name(),
        arguments
    );
    let interrupt = Interrupt {
        message,
        data: arguments,
        kind: InterruptKind::Approval,
    };
    ToolResult::from_outcome(
        &call.call_id,
        definition.name_cow(),
        crate::Outcome::Interrupt(Box::new(interrupt)),
    )
}

fn timed_out(call: &ToolCall, definition: &ToolDefinition, limit: Duration) -> ToolResult {
    ToolResult::error(
        &call.call_id,
        definition.name_cow(),
        format!(
            "the call of `{}` did not finish within {} and was stopped; it may or may not have taken effect",
            definition.name(),
            show_duration(limit)
        ),
        ResultDetail::TimedOut { after: limit },
    )
}

/// A duration as people write it: `250ms`, `5s`, `1.5s`.
pub(crate) fn show_duration(duration: Duration) -> String {
    let ms = duration.as_millis();
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{}s", duration.as_secs_f64())
    }
}

/// Raises a signal when dropped.
struct RaiseOnDrop<'a>(&'a Cancellation);

impl Drop for RaiseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// The first of two futures to finish: `Ok` for the first, `Err` for the second.
async fn first<A: Future, B: Future>(a: A, b: B) -> Result<A::Output, B::Output> {
    let (mut a, mut b) = (pin!(a), pin!(b));
    poll_fn(|cx| {
        if let Poll::Ready(value) = a.as_mut().poll(cx) {
            return Poll::Ready(Ok(value));
        }
        if let Poll::Ready(value) = b.as_mut().poll(cx) {
            return Poll::Ready(Err(value));
        }
        Poll::Pending
    })
    .await
}
