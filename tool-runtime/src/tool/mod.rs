//! Tools: the typed [`Tool`] trait, its object-safe form [`ErasedTool`], definitions and dynamic
//! tools built at run time.

mod dynamic;

use std::any::Any;
use std::future::Future;
use std::sync::Arc;

pub use self::dynamic::{DynamicTool, FunctionParam, ParamType};
use crate::args::{self, ArgumentError, ArgumentPolicy, Fixes, ParseSession};
use crate::call::{Arguments, ToolCall};
pub use crate::definition::{Deprecation, Namespace, ToolAnnotations, ToolDefinition, UnknownArgs};
use crate::output::Outcome;
use crate::result::ToolResult;
use crate::task::CallScope;
use crate::task::{BoxFuture, MaybeReady};

/// A tool a model can call, usable in a [`Toolbox<C>`](crate::Toolbox) of context type `C`.
///
/// `#[tool]` implements it for the handle struct it generates; a tool that takes no context
/// implements it for every `C`. Implement it by hand for tools the attribute cannot express.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool for a toolbox of context `{C}`",
    label = "not a tool for `Toolbox<{C}>`",
    note = "a #[tool] fn with a `#[tool(context)] ctx: &T` parameter works only in a `Toolbox<T>`; tools without a context work in every toolbox",
    note = "a type becomes a tool through #[tool] on a fn, or by implementing `toolwright::Tool`",
    note = "for a `#[tool] fn name`, register the handle `#[tool]` declares beside it, named for the fn in UpperCamelCase with `Tool` after it (for `fn add`, `AddTool`), not the fn itself",
    note = "several tools at once (a tuple of handles, a `#[toolset]`'s `service.toolset()`) register with `with_all` / `register_all`"
)]
pub trait Tool<C: ?Sized = ()>: Send + Sync + 'static {
    /// The typed arguments the body receives.
    type Args: Send + 'static;

    /// The tool's definition, built once and cached.
    fn definition(&self) -> &ToolDefinition;

    /// Turns a call's arguments into typed arguments, or says what is wrong with them.
    ///
    /// `session` carries the toolbox's [`ArgumentPolicy`] in, and the repairs and coercions
    /// made out. May run more than once for one call (a check before human approval, then
    /// execution), so it must not have side effects. [`args::parse`](crate::args::parse) is the
    /// default handling.
    ///
    /// # Errors
    /// An [`ArgumentError`] whose `Display` is the message for the model.
    fn parse_args(
        &self,
        arguments: &Arguments,
        ctx: &C,
        session: &mut ParseSession,
    ) -> Result<Self::Args, ArgumentError>;

    /// Runs the body for `call`, whose arguments `args` were parsed from. `call` also carries
    /// the call's cancellation signal and whether a person approved it.
    fn call<'a>(
        &'a self,
        args: Self::Args,
        ctx: &'a C,
        call: CallScope<'a>,
    ) -> impl Future<Output = Outcome> + Send + 'a;

    /// Whether [`call_now`](Self::call_now) always runs the body, never handing the arguments
    /// back. `#[tool]` says so for sync fns; a toolbox then compiles no [`call`](Self::call) path
    /// for the tool (and, should `call_now` hand the arguments back anyway, answers with an
    /// error result rather than awaiting `call`).
    const RUNS_NOW: bool = false;

    /// Runs a body that never waits right away, sparing the boxed future [`call`](Self::call)
    /// needs: `Ok(outcome)`, or the arguments back (`Err(args)`) when the body must be awaited.
    /// `#[tool]` implements it for sync fns; the default hands the arguments back.
    ///
    /// # Errors
    /// The arguments, untouched, when the body is asynchronous.
    fn call_now(
        &self,
        args: Self::Args,
        ctx: &C,
        call: &CallScope<'_>,
    ) -> Result<Outcome, Self::Args> {
        let _ = (ctx, call);
        Err(args)
    }
}

/// A toolbox context that lends a tool's `#[tool(context)] ctx: &T` parameter its `&T`.
///
/// Every type lends itself, and an `Arc<T>` lends `T`: a tool taking `&App` works in a
/// `Toolbox<App>` and in a `Toolbox<Arc<App>>` alike. The `Arc` form is the one for an
/// application whose state is not `Clone` but has `#[tool(blocking)]` tools: a blocking body
/// runs on a thread of its own with its own share of the context, which for an `Arc` is a
/// reference count.
///
/// Implement it for a context that holds several things tools take (an application and a
/// session, say), so that each tool names only the one it needs:
///
/// ```
/// use std::sync::Arc;
/// use toolwright::{ToolCall, Toolbox, tool, dynamic::ContextOf};
///
/// struct App { name: String }
/// struct Session { user: String }
///
/// /// Per call: the application, shared, and the caller's session.
/// struct Request { app: Arc<App>, session: Session }
///
/// impl ContextOf<App> for Request {
///     fn context(&self) -> &App { &self.app }
/// }
/// impl ContextOf<Session> for Request {
///     fn context(&self) -> &Session { &self.session }
/// }
///
/// /// Which application this is.
/// #[tool]
/// fn app_name(#[tool(context)] app: &App) -> String { app.name.clone() }
///
/// /// Who is asking.
/// #[tool]
/// fn whoami(#[tool(context)] session: &Session) -> String { session.user.clone() }
///
/// let tools = Toolbox::<Request>::for_context().with_all((AppNameTool, WhoamiTool)).unwrap();
/// let request = Request {
///     app: Arc::new(App { name: "notes".into() }),
///     session: Session { user: "ada".into() },
/// };
/// assert_eq!(tools.execute_blocking(&ToolCall::new("1", "whoami", "{}"), &request).text(), "ada");
/// assert_eq!(tools.execute_blocking(&ToolCall::new("2", "app_name", "{}"), &request).text(), "notes");
/// ```
#[diagnostic::on_unimplemented(
    message = "a tool taking `&{T}` cannot run in a `Toolbox<{Self}>`",
    label = "the toolbox's context `{Self}` does not lend a `&{T}`",
    note = "a tool with a `#[tool(context)] ctx: &T` parameter works in a `Toolbox<T>` (`Toolbox::<T>::for_context()`; `Toolbox::new()` is a `Toolbox<()>`), a `Toolbox<Arc<T>>`, or a toolbox whose context implements `toolwright::dynamic::ContextOf<T>`; tools without a context work in every toolbox"
)]
pub trait ContextOf<T: ?Sized> {
    /// The part of the context the tool takes.
    fn context(&self) -> &T;
}

impl<T: ?Sized> ContextOf<T> for T {
    #[inline]
    fn context(&self) -> &T {
        self
    }
}

impl<T: ?Sized> ContextOf<T> for Arc<T> {
    #[inline]
    fn context(&self) -> &T {
        self
    }
}

/// The object-safe form of [`Tool`], as a [`Toolbox`](crate::Toolbox) stores tools. A `Tool<C>`
/// becomes a `ErasedTool<C>` when registered, or through [`erase`].
///
/// Its methods are what each tool compiles for itself, and are kept to what depends on the tool's
/// own types (its arguments' parse, its body's call); the result around them is built by code
/// all tools share.
pub trait ErasedTool<C: ?Sized>: Send + Sync {
    /// The tool's definition.
    fn definition(&self) -> &ToolDefinition;

    /// Parses arguments into the tool's boxed `Args`.
    ///
    /// # Errors
    /// As [`Tool::parse_args`].
    fn parse_dyn(
        &self,
        arguments: &Arguments,
        ctx: &C,
        session: &mut ParseSession,
    ) -> Result<Box<dyn Any + Send>, ArgumentError>;

    /// Parses the arguments under `policy` and, when they are good, runs the body: at once for
    /// sync bodies, through a boxed future for async ones. The result carries the repairs and
    /// coercions the arguments needed.
    fn run_dyn<'a>(
        &'a self,
        arguments: &'a Arguments,
        ctx: &'a C,
        call: CallScope<'a>,
        policy: &ArgumentPolicy,
    ) -> MaybeReady<'a, ToolResult>;
}

/// The result of a call whose body gave `outcome`: shared by all tools (out of line, so not
/// compiled into each tool's `run_dyn`), and returned already wrapped in the `MaybeReady` that
/// `run_dyn` returns, so that `run_dyn` hands it on without moving it once more.
#[inline(never)]
fn finished<'a>(
    call: &ToolCall,
    definition: &ToolDefinition,
    outcome: Outcome,
    fixes: Fixes,
) -> MaybeReady<'a, ToolResult> {
    MaybeReady::Ready(result_of(call, definition, outcome, fixes))
}

/// [`finished`]'s result itself.
#[inline(always)]
fn result_of(
    call: &ToolCall,
    definition: &ToolDefinition,
    outcome: Outcome,
    fixes: Fixes,
) -> ToolResult {
    let mut result = ToolResult::from_outcome(&call.call_id, definition.shared_name(), outcome);
    result.set_fixes(fixes);
    result
}

/// The outcome of a body that was to run at once and did not: an error rather than a panic.
#[cold]
#[inline(never)]
pub(crate) fn did_not_run() -> Outcome {
    Outcome::from_error("the tool's sync body did not run")
}

/// The result of a call whose arguments were refused.
#[cold]
#[inline(never)]
fn refused(
    call: &ToolCall,
    definition: &ToolDefinition,
    error: ArgumentError,
    fixes: Fixes,
) -> ToolResult {
    let mut result = ToolResult::invalid_arguments(call, definition.shared_name(), error);
    result.set_fixes(fixes);
    result
}

/// The result of an async body, once it is done: one future type for all tools, around the
/// body's own.
fn finish_later<'a>(
    call: &'a ToolCall,
    definition: &'a ToolDefinition,
    running: BoxFuture<'a, Outcome>,
    fixes: Fixes,
) -> BoxFuture<'a, ToolResult> {
    Box::pin(async move { result_of(call, definition, running.await, fixes) })
}

/// A [`Tool`] as a [`ErasedTool`]: what [`Toolbox::register`](crate::Toolbox::register) stores.
pub(crate) struct Erased<T>(pub(crate) T);

/// A [`Tool`] as a [`ErasedTool`], for [`Toolbox::register_dyn`](crate::Toolbox::register_dyn).
pub fn erase<C: ?Sized + Sync, T: Tool<C>>(tool: T) -> Arc<dyn ErasedTool<C>> {
    Arc::new(Erased(tool))
}

impl<C: ?Sized + Sync, T: Tool<C>> ErasedTool<C> for Erased<T> {
    fn definition(&self) -> &ToolDefinition {
        self.0.definition()
    }

    fn parse_dyn(
        &self,
        arguments: &Arguments,
        ctx: &C,
        session: &mut ParseSession,
    ) -> Result<Box<dyn Any + Send>, ArgumentError> {
        // `match` rather than `?`: in generic code each `?` is more functions compiled per tool.
        match args::admit(arguments, &session.policy.limits) {
            Ok(()) => match self.0.parse_args(arguments, ctx, session) {
                Ok(args) => Ok(Box::new(args)),
                Err(error) => Err(error),
            },
            Err(error) => Err(error),
        }
    }

    fn run_dyn<'a>(
        &'a self,
        arguments: &'a Arguments,
        ctx: &'a C,
        info: CallScope<'a>,
        policy: &ArgumentPolicy,
    ) -> MaybeReady<'a, ToolResult> {
        let tool = &self.0;
        let call = info.call();
        let definition = tool.definition();
        let mut session = ParseSession::new(*policy);
        if let Err(error) = args::admit(arguments, &policy.limits) {
            return MaybeReady::Ready(refused(call, definition, error, session.fixes));
        }
        let args = match tool.parse_args(arguments, ctx, &mut session) {
            Ok(args) => args,
            Err(error) => {
                return MaybeReady::Ready(refused(call, definition, error, session.fixes));
            }
        };
        let outcome = match tool.call_now(args, ctx, &info) {
            Ok(outcome) => outcome,
            // Known when the tool is compiled: a tool that runs now has no `call` path here (the
            // outcome's own tag says `Ok`, which the optimizer cannot see through).
            Err(_) if T::RUNS_NOW => did_not_run(),
            Err(args) => {
                let running = Box::pin(tool.call(args, ctx, info));
                return MaybeReady::Pending(finish_later(call, definition, running, session.fixes));
            }
        };
        // One place the result is built, so that it is built inline.
        finished(call, definition, outcome, session.fixes)
    }
}
