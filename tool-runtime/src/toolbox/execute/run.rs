//! The whole pipeline of one call: hooks, approval, retry budget, timeout. Plain calls (no hook,
//! approval or timeout in play) take the shorter path in `toolbox/dispatch.rs`, which keeps the
//! retry budget too.

use std::future::{Future, poll_fn};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::task::Poll;
use std::time::{Duration, Instant};

use serde_json::Value;
use tracing::Instrument;

use crate::args::{self, ArgumentPolicy, Fixes, ParseSession};
use crate::call::{Arguments, ToolCall};
use crate::hook::Before;
use crate::output::{HookFailure, Interrupt, InterruptKind};
use crate::result::{ResultDetail, ToolResult, panic_message};
use crate::task::CallScope;
use crate::task::{Cancellation, CatchUnwind, Conversation, MaybeReady, Signals, sleep};
use crate::telemetry;
use crate::tool::{ErasedTool, ToolDefinition};
use crate::toolbox::Toolbox;
use toolwright_json::value as json;

impl<C: ?Sized + Sync + 'static> Toolbox<C> {
    /// Whether a call of the tool at `index` can take the short path: no hook, approval or
    /// timeout.
    #[inline(always)]
    pub(crate) fn is_plain(&self, index: usize) -> bool {
        !self.gated && self.states.get(index).is_some_and(|state| !state.gated)
    }

    /// Counts an invalid call of the tool at `index`, or starts its count again after a valid
    /// one; turns the call that spends the budget into [`ResultDetail::BudgetExhausted`].
    /// Returns how many invalid calls in a row the tool may still get, for an invalid call under
    /// a retry budget.
    #[inline(always)]
    pub(crate) fn account(
        &self,
        index: usize,
        result: &mut ToolResult,
        conversation: Option<&Conversation>,
    ) -> Option<u32> {
        if let Some(conversation) = conversation {
            if let ResultDetail::Arguments(_) = result.detail {
                let failures = conversation.fail(&result.tool_name);
                return self.spend(failures, result);
            }
            conversation.succeed(&result.tool_name);
            return None;
        }
        let state = self.states.get(index)?;
        if let ResultDetail::Arguments(_) = result.detail {
            return self.count_failure(&state.failures, result);
        } else if state.failures.load(Ordering::Relaxed) != 0 {
            state.failures.store(0, Ordering::Relaxed);
        }
        None
    }

    #[cold]
    #[inline(never)]
    fn count_failure(&self, counter: &AtomicU32, result: &mut ToolResult) -> Option<u32> {
        let failures = counter.fetch_add(1, Ordering::Relaxed).saturating_add(1);
        self.spend(failures, result)
    }

    /// Turns the invalid call that is `failures`th in a row into
    /// [`ResultDetail::BudgetExhausted`] when that spends the budget; returns the invalid calls
    /// left (none without a budget).
    fn spend(&self, failures: u32, result: &mut ToolResult) -> Option<u32> {
        if self.retry_budget == 0 {
            return None;
        }
        if failures < self.retry_budget {
            return Some(self.retry_budget - failures);
        }
        result.detail = match std::mem::replace(&mut result.detail, ResultDetail::Value(None)) {
            ResultDetail::Arguments(error) => ResultDetail::BudgetExhausted { failures, error },
            other => other,
        };
        result.content.push(crate::content::ContentPart::text(format!(
            "This is invalid call {failures} of `{}` in a row, the most allowed: do not call it again. Tell the user what you were trying to do and what went wrong.",
            result.tool_name
        )));
        Some(0)
    }

    /// The whole pipeline of one call of a known tool: hooks, approval, the body under its
    /// timeout, the retry budget; one span; panics anywhere become the call's error result.
    pub(crate) async fn run_gated(
        &self,
        index: usize,
        tool: &Arc<dyn ErasedTool<C>>,
        call: &ToolCall,
        ctx: &C,
        signals: Signals<'_>,
        approved: bool,
    ) -> ToolResult {
        let conversation = signals.conversation;
        let span = telemetry::call_span(call, Some(tool.definition()), self.capture_content);
        let started = telemetry::start(&span);
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
                                definition.shared_name(),
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
                            definition.shared_name(),
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
                    .with_caller_opt(signals.caller)
                    .with_approved(approved);
                let body = self.body(index, tool, info, ctx, conversation, &span);
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
                    .with_caller_opt(signals.caller)
                    .with_approved(approved);
                self.body(index, tool, info, ctx, conversation, &span).await
            };
            self.after(definition, call, ctx, &mut result);
            result
        });
        let unfinished = telemetry::Unfinished::new(&span, started, &call.name);
        let caught = CatchUnwind::new(steps).instrument(span.clone()).await;
        unfinished.done();
        let result =
            caught.unwrap_or_else(|payload| self.panic_result(call, tool.definition(), payload));
        telemetry::record(&span, started, &result, self.capture_content, None);
        result
    }

    /// Approval, then the body; the retry budget counted.
    async fn body(
        &self,
        index: usize,
        tool: &Arc<dyn ErasedTool<C>>,
        info: CallScope<'_>,
        ctx: &C,
        conversation: Option<&Conversation>,
        span: &tracing::Span,
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
                        ToolResult::invalid_arguments(call, definition.shared_name(), error);
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
        if let Some(left) = self.account(index, &mut result, conversation) {
            span.record("toolwright.retries_left", left);
        }
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
    tool: &Arc<dyn ErasedTool<C>>,
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
        definition.shared_name(),
        crate::output::Outcome::Interrupt(Box::new(interrupt)),
    )
}

fn timed_out(call: &ToolCall, definition: &ToolDefinition, limit: Duration) -> ToolResult {
    ToolResult::error(
        &call.call_id,
        definition.shared_name(),
        format!(
            "the call of `{}` did not finish within {} and was stopped; it may or may not have taken effect",
            definition.name(),
            show_duration(limit)
        ),
        ResultDetail::TimedOut { after: limit },
    )
}

/// A duration as people write it: `250ms`, `5s`, `1.5s`.
fn show_duration(duration: Duration) -> String {
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
