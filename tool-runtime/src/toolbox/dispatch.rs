//! Running one call of a known tool the short way, and what every way of running calls shares:
//! looking the tool up, the unknown-tool and panic results, the span a call records.

use std::any::Any;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Instant;

use tracing::Instrument;

use super::Toolbox;
use crate::args::{ArgumentError, Fixes, ParseSession};
use crate::call::{CallKind, CallStatus, ToolCall, ToolName};
use crate::caller::Caller;
use crate::result::{ResultDetail, ToolResult, panic_message};
use crate::task::CallScope;
use crate::task::{BoxFuture, CatchUnwind, Conversation, MaybeReady, Signals, block_on};
use crate::telemetry;
use crate::tool::{ErasedTool, ToolDefinition};
use toolwright_json::echo;
use toolwright_schema::names::{self, close_matches};

/// Typed arguments parsed ahead of execution, by [`Toolbox::parse_arguments`].
pub struct ParsedArguments {
    args: Box<dyn Any + Send>,
    fixes: Fixes,
}

impl fmt::Debug for ParsedArguments {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParsedArguments").finish_non_exhaustive()
    }
}

impl ParsedArguments {
    /// The repairs and coercions the arguments needed.
    pub fn fixes(&self) -> &Fixes {
        &self.fixes
    }

    /// The arguments, if they are the tool's `Args` type `T`.
    pub fn downcast_ref<T: Any>(&self) -> Option<&T> {
        self.args.downcast_ref()
    }

    /// The arguments by value, if they are a `T`; otherwise `self` back.
    ///
    /// # Errors
    /// `self`, when the arguments are not a `T`.
    pub fn downcast<T: Any>(self) -> Result<T, Self> {
        match self.args.downcast::<T>() {
            Ok(args) => Ok(*args),
            Err(args) => Err(ParsedArguments {
                args,
                fixes: self.fixes,
            }),
        }
    }
}

/// A plain call of a known tool (no hook, approval or timeout in play): the body of
/// [`Toolbox::execute`], [`Toolbox::execute_blocking`] and a batch's plain calls, which differ in
/// the call's cancellation signal (`$scope`), what they return (`$done`, given the result) and how
/// they wait for an async tool (`$pending`, given the `Running` call). Everything up to the first
/// wait runs in plain code: argument handling, and the whole body of a sync tool. A macro rather
/// than a shared fn: the result is then written straight into the caller's return value, which
/// measurably matters on this path (see BENCHMARKS.md).
macro_rules! plain_call {
    ($toolbox:ident, $index:ident, $tool:ident, $call:ident, $ctx:ident, $scope:expr, $conversation:expr,
     |$result:ident| $done:expr, |$running:ident| $pending:expr) => {{
        let span = telemetry::call_span($call, Some($tool.definition()), $toolbox.capture_content);
        // Timing and instrumenting cost more than a whole call; pay for them only when observed.
        let started = telemetry::start(&span);
        let entered = (!span.is_disabled()).then(|| span.enter());
        // What `catch_unwind` returns is matched where it lies (counted and recorded there, then
        // returned): each move of the 128-byte result costs (BENCHMARKS.md). Written through an
        // `Option` by the closure instead, it was moved once more (13 instructions a call).
        let mut run = catch_unwind(AssertUnwindSafe(|| {
            $tool.run_dyn(&$call.arguments, $ctx, $scope, &$toolbox.policy)
        }));
        drop(entered);
        if let Ok(MaybeReady::Ready(result)) = &mut run {
            let left = $toolbox.account($index, result, $conversation);
            telemetry::record(&span, started, result, $toolbox.capture_content, left);
        }
        match run {
            Err(payload) => {
                let $result = $toolbox.panic_result($call, $tool.definition(), payload);
                telemetry::record(&span, started, &$result, $toolbox.capture_content, None);
                return $done;
            }
            Ok(MaybeReady::Ready($result)) => return $done,
            Ok(MaybeReady::Pending(future)) => {
                let $running = Running {
                    index: $index,
                    tool: $tool,
                    call: $call,
                    future: CatchUnwind::new(future),
                    span: span.clone(),
                    started,
                    conversation: $conversation.cloned(),
                };
                return $pending;
            }
        }
    }};
}

/// [`Toolbox::execute`] and [`Toolbox::execute_blocking`]: the lookup, then the plain path, or
/// the whole pipeline (`$gated`, given the tool and its index) when a hook, approval or timeout is
/// in play.
macro_rules! run_call {
    ($toolbox:ident, $call:ident, $ctx:ident, |$running:ident| $pending:expr, |$index:ident, $tool:ident| $gated:expr) => {{
        let (index, tool) = match $toolbox.lookup_in($call, None, None) {
            Ok(found) => found,
            Err(result) => return $toolbox.refused($call, result),
        };
        if !$toolbox.is_plain(index) {
            let ($index, $tool) = (index, tool);
            return $gated;
        }
        plain_call!(
            $toolbox,
            index,
            tool,
            $call,
            $ctx,
            CallScope::new($call),
            None::<&Conversation>,
            |result| result,
            |$running| $pending
        )
    }};
}

/// A call whose async body is still to be awaited.
struct Running<'a, C: ?Sized> {
    index: usize,
    tool: &'a Arc<dyn ErasedTool<C>>,
    call: &'a ToolCall,
    future: CatchUnwind<BoxFuture<'a, ToolResult>>,
    span: tracing::Span,
    started: Option<Instant>,
    conversation: Option<Conversation>,
}

impl<C: ?Sized + Sync + 'static> Running<'_, C> {
    async fn finish(self, toolbox: &Toolbox<C>) -> ToolResult {
        let unfinished = telemetry::Unfinished::new(&self.span, self.started, &self.call.name);
        let caught = if self.span.is_disabled() {
            self.future.await
        } else {
            self.future.instrument(self.span.clone()).await
        };
        unfinished.done();
        let mut result = caught.unwrap_or_else(|payload| {
            toolbox.panic_result(self.call, self.tool.definition(), payload)
        });
        let left = toolbox.account(self.index, &mut result, self.conversation.as_ref());
        telemetry::record(
            &self.span,
            self.started,
            &result,
            toolbox.capture_content,
            left,
        );
        result
    }
}

/// The result of running a call that is not the toolbox's to run.
#[cold]
fn not_local(call: &ToolCall) -> ToolResult {
    let message = match call.kind {
        CallKind::Server => format!(
            "call {} ({}) is run by the provider itself, which sends its result; it is not run here",
            echo::Name(&call.call_id),
            echo::bare(&call.name)
        ),
        _ => format!(
            "call {} ({}) is a provider's built-in tool that the application carries out itself and answers with the provider's own result item; no tool of the toolbox runs it",
            echo::Name(&call.call_id),
            echo::bare(&call.name)
        ),
    };
    ToolResult::error(
        &call.call_id,
        ToolName::from(call.name.as_str()),
        message,
        ResultDetail::NotLocal { kind: call.kind },
    )
}

impl<C: ?Sized + Sync + 'static> Toolbox<C> {
    /// Runs exactly the argument handling that [`execute`](Self::execute) would, without running
    /// the tool: for approval flows. Parsers have no side effects, so this may run any number of
    /// times.
    ///
    /// # Errors
    /// The error result that execution would have produced (unknown tool, bad arguments, a panic in
    /// the parser).
    // The error is the very result execution would return; boxing it would only cost the caller.
    #[expect(
        clippy::result_large_err,
        reason = "The error is the very result execution would return; boxing it would only cost the caller."
    )]
    pub fn parse_arguments(&self, call: &ToolCall, ctx: &C) -> Result<ParsedArguments, ToolResult> {
        let (_, tool) = self.lookup(call)?;
        let mut session = ParseSession::new(self.policy);
        match catch_unwind(AssertUnwindSafe(|| {
            tool.parse_dyn(&call.arguments, ctx, &mut session)
        })) {
            Ok(Ok(args)) => Ok(ParsedArguments {
                args,
                fixes: session.fixes,
            }),
            Ok(Err(error)) => {
                let mut result =
                    ToolResult::invalid_arguments(call, tool.definition().shared_name(), error);
                result.set_fixes(session.fixes);
                Err(result)
            }
            Err(payload) => Err(self.panic_result(call, tool.definition(), payload)),
        }
    }

    /// Runs one call and returns its result. Never fails and never panics: an unknown tool, bad
    /// arguments, a tool error and a panic all become error results, and the toolbox keeps working.
    ///
    /// Hooks, approval, the retry budget and timeouts apply as in a batch
    /// ([`execute_all`](Self::execute_all)); a call that needs approval returns an interrupt.
    pub async fn execute(&self, call: &ToolCall, ctx: &C) -> ToolResult {
        run_call!(
            self,
            call,
            ctx,
            |running| running.finish(self).await,
            |index, tool| {
                self.run_gated(index, tool, call, ctx, Signals::none(), false)
                    .await
            }
        )
    }

    /// [`execute`](Self::execute) for sync callers: runs the call on this thread. Sync tools run
    /// at once; an async tool is driven by a minimal executor, so a tool that needs a particular
    /// runtime (tokio's timers or I/O, say) must be run with `execute` inside that runtime: here
    /// it would fail, and the failure becomes an error result.
    pub fn execute_blocking(&self, call: &ToolCall, ctx: &C) -> ToolResult {
        run_call!(
            self,
            call,
            ctx,
            |running| block_on(running.finish(self)),
            |index, tool| block_on(self.run_gated(index, tool, call, ctx, Signals::none(), false))
        )
    }

    /// Starts a plain call of a batch ([`is_plain`](Self::is_plain)): a sync body runs to its end
    /// here, an async one comes back as the future to poll.
    pub(crate) fn start_plain<'a>(
        &'a self,
        index: usize,
        tool: &'a Arc<dyn ErasedTool<C>>,
        call: &'a ToolCall,
        ctx: &'a C,
        signals: Signals<'_>,
    ) -> MaybeReady<'a, ToolResult> {
        plain_call!(
            self,
            index,
            tool,
            call,
            ctx,
            CallScope::new(call)
                .with_cancellation(signals.cancellation.clone())
                .with_progress_opt(signals.progress)
                .with_caller_opt(signals.caller),
            signals.conversation,
            |result| MaybeReady::Ready(result),
            |running| MaybeReady::Pending(Box::pin(running.finish(self)))
        )
    }

    /// A call that ends before any tool runs: its span, and its result back.
    #[cold]
    #[inline(never)]
    pub(crate) fn refused(&self, call: &ToolCall, result: ToolResult) -> ToolResult {
        self.refused_span(call, &result);
        result
    }

    /// The span of a call that ends before any tool runs.
    #[cold]
    pub(crate) fn refused_span(&self, call: &ToolCall, result: &ToolResult) {
        telemetry::refused(call, result, self.capture_content);
    }

    /// The tool a call names, with its index; or the unknown-tool result.
    #[expect(
        clippy::result_large_err,
        reason = "the error is the very result execution returns; boxing it would only cost the caller"
    )]
    #[inline]
    pub(crate) fn lookup(
        &self,
        call: &ToolCall,
    ) -> Result<(usize, &Arc<dyn ErasedTool<C>>), ToolResult> {
        self.lookup_for(call, None)
    }

    /// [`lookup_for`](Self::lookup_for) in a conversation: with tool search on, the search
    /// tool's calls are answered here, and a deferred tool not yet found may be refused.
    #[expect(
        clippy::result_large_err,
        reason = "the error is the very result execution returns; boxing it would only cost the caller"
    )]
    #[inline(always)]
    pub(crate) fn lookup_in(
        &self,
        call: &ToolCall,
        caller: Option<&Caller>,
        conversation: Option<&Conversation>,
    ) -> Result<(usize, &Arc<dyn ErasedTool<C>>), ToolResult> {
        match &self.search {
            Some(setup) => self.lookup_searching(setup, call, caller, conversation),
            None => self.lookup_for(call, caller),
        }
    }

    /// [`lookup`](Self::lookup) for a call made for `caller`: a tool the caller may not call is
    /// unknown to it, and the unknown-tool result names only the tools it may call.
    #[expect(
        clippy::result_large_err,
        reason = "the error is the very result execution returns; boxing it would only cost the caller"
    )]
    // Always: every call comes through here, and a call costs instructions the hot path counts.
    #[inline(always)]
    pub(crate) fn lookup_for(
        &self,
        call: &ToolCall,
        caller: Option<&Caller>,
    ) -> Result<(usize, &Arc<dyn ErasedTool<C>>), ToolResult> {
        if call.kind != CallKind::Function {
            return Err(not_local(call));
        }
        match self.index_of(&call.name) {
            Some(index)
                if caller.is_some_and(|caller| {
                    !self.permits(caller, self.tools[index].definition())
                }) =>
            {
                Err(self.unknown_tool(call, caller))
            }
            Some(index) => {
                let tool = &self.tools[index];
                if call.status == CallStatus::Incomplete
                    && !tool.definition().runs_cut_off(&self.policy)
                {
                    return Err(ToolResult::invalid_arguments(
                        call,
                        tool.definition().shared_name(),
                        ArgumentError::IncompleteCall,
                    ));
                }
                Ok((index, tool))
            }
            None => Err(self.unknown_tool(call, caller)),
        }
    }

    /// The result of a call of a tool that is not there, or not there for `caller`: the close
    /// matches and the tools available are those it may call.
    #[cold]
    fn unknown_tool(&self, call: &ToolCall, caller: Option<&Caller>) -> ToolResult {
        let names: Vec<&str> = self
            .definitions()
            .filter(|definition| caller.is_none_or(|caller| self.permits(caller, definition)))
            .map(ToolDefinition::name)
            .collect();
        let suggestions = close_matches(&call.name, names.iter().copied());
        let mut message = format!("unknown tool {}", echo::Name(&call.name));
        if !suggestions.is_empty() {
            message.push_str(&format!(
                " (did you mean {}?)",
                names::list(&suggestions, "or")
            ));
        }
        let all: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
        if let Some(setup) = &self.search {
            message.push_str(&format!(
                ". Find tools with {}.",
                echo::Name(setup.config.name())
            ));
        } else if all.is_empty() {
            message.push_str(". No tools are available.");
        } else {
            message.push_str(&format!(". Available tools: {}.", names::list(&all, "and")));
        }
        ToolResult::error(
            &call.call_id,
            ToolName::from(call.name.as_str()),
            message,
            ResultDetail::UnknownTool {
                suggestions: suggestions.into_boxed_slice(),
            },
        )
    }

    pub(crate) fn panic_result(
        &self,
        call: &ToolCall,
        tool: &ToolDefinition,
        payload: Box<dyn Any + Send>,
    ) -> ToolResult {
        let mut message = format!("tool `{}` failed unexpectedly", tool.name());
        // A tool that awaited tokio's timer or I/O where no tokio runtime runs: the cause is the
        // application's setup, and the panic says so in tokio's words only.
        let payload = match panic_message(payload.as_ref()) {
            Some(text) if text.contains("Tokio 1.x") => {
                message.push_str(" (it needs a tokio runtime, which is not running)");
                Box::new(format!(
                    "{text}\n(toolwright: the tool awaited tokio's timer or I/O outside a tokio runtime: run the toolbox's calls inside one, e.g. under #[tokio::main], rather than through `execute_blocking` or another executor; for timeouts and `toolwright::exec::sleep` alone no runtime is needed, and the `tokio` feature puts them on tokio's timer when one runs: see the README's Features section)"
                ))
            }
            _ => payload,
        };
        match panic_message(payload.as_ref()) {
            Some(text) if self.expose_panic_messages => message.push_str(&format!(": {text}")),
            _ => message.push_str("; this is not a problem with the arguments"),
        }
        ToolResult::error(
            &call.call_id,
            tool.shared_name(),
            message,
            ResultDetail::Panic(payload),
        )
    }
}
