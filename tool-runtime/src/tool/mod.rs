//! Tools: the typed [`Tool`] trait, its object-safe form [`DynTool`], definitions and dynamic
//! tools built at run time.

mod definition;
mod dynamic;

use std::any::Any;
use std::future::Future;

use serde::de::DeserializeOwned;

pub(crate) use self::definition::Kept;
pub use self::definition::{Deprecation, ToolAnnotations, ToolDefinition, UnknownArgs};
pub use self::dynamic::{DynamicTool, FunctionParam, ParamType};
use crate::args::{self, ArgumentError, ArgumentPolicy, ParseSession};
use crate::call::{Arguments, CallScope};
use crate::exec::MaybeReady;
use crate::output::Outcome;
use crate::result::ToolResult;

/// A tool a model can call, usable in a [`Toolbox<C>`](crate::Toolbox) of context type `C`.
///
/// `#[tool]` implements it for the handle struct it generates; a tool that takes no context
/// implements it for every `C`. Implement it by hand for tools the attribute cannot express.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool for a toolbox of context `{C}`",
    label = "not a tool for `Toolbox<{C}>`",
    note = "a #[tool] fn with a `#[tool(context)] ctx: &T` parameter works only in a `Toolbox<T>`; tools without a context work in every toolbox",
    note = "a type becomes a tool through #[tool] on a fn, or by implementing `toolwright::Tool`"
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
    /// execution), so it must not have side effects. [`parse_arguments`] is the default
    /// handling.
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

    /// Runs a body that never waits right away, sparing the boxed future [`call`](Self::call)
    /// needs: `Ok(outcome)`, or the arguments back (`Err(args)`) when the body must be awaited.
    /// `#[tool]` implements it for sync fns; the default hands the arguments back.
    ///
    /// # Errors
    /// The arguments, untouched, when the body is asynchronous.
    #[allow(clippy::result_large_err)]
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

/// The default argument handling, against a definition's parameters schema: JSON repair,
/// coercion, validation with every problem reported together, then serde (see [`crate::args`]).
///
/// # Errors
/// Everything that is wrong, as one [`ArgumentError`].
pub fn parse_arguments<T: DeserializeOwned>(
    definition: &ToolDefinition,
    arguments: &Arguments,
    session: &mut ParseSession,
) -> Result<T, ArgumentError> {
    args::parse_checked(definition, arguments, session)
}

/// The object-safe form of [`Tool`], as a [`Toolbox`](crate::Toolbox) stores tools. Every `Tool<C>`
/// is a `DynTool<C>`.
pub trait DynTool<C: ?Sized>: Send + Sync {
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

    /// Runs the body with arguments from [`parse_dyn`](Self::parse_dyn) of this same tool; other
    /// arguments give an error outcome.
    fn call_dyn<'a>(
        &'a self,
        args: Box<dyn Any + Send>,
        ctx: &'a C,
        call: CallScope<'a>,
    ) -> MaybeReady<'a, Outcome>;

    /// Parses the arguments under `policy` and, when they are good, runs the body: at once for
    /// sync bodies, through a boxed future for async ones. The result is built here, where the
    /// values are, so that it is not moved through the layers above; it carries the repairs and
    /// coercions the arguments needed.
    fn run_dyn<'a>(
        &'a self,
        arguments: &'a Arguments,
        ctx: &'a C,
        call: CallScope<'a>,
        policy: &ArgumentPolicy,
    ) -> MaybeReady<'a, ToolResult>;
}

impl<C: ?Sized + Sync, T: Tool<C>> DynTool<C> for T {
    fn definition(&self) -> &ToolDefinition {
        Tool::definition(self)
    }

    fn parse_dyn(
        &self,
        arguments: &Arguments,
        ctx: &C,
        session: &mut ParseSession,
    ) -> Result<Box<dyn Any + Send>, ArgumentError> {
        args::admit(arguments, &session.policy.limits)?;
        Ok(Box::new(self.parse_args(arguments, ctx, session)?))
    }

    fn call_dyn<'a>(
        &'a self,
        args: Box<dyn Any + Send>,
        ctx: &'a C,
        call: CallScope<'a>,
    ) -> MaybeReady<'a, Outcome> {
        let Ok(args) = args.downcast::<T::Args>() else {
            let name = Tool::definition(self).name();
            let message = format!("tool `{name}` was given arguments parsed for another tool");
            return MaybeReady::Ready(Outcome::from_error(message));
        };
        match self.call_now(*args, ctx, &call) {
            Ok(outcome) => MaybeReady::Ready(outcome),
            Err(args) => MaybeReady::Pending(Box::pin(self.call(args, ctx, call))),
        }
    }

    fn run_dyn<'a>(
        &'a self,
        arguments: &'a Arguments,
        ctx: &'a C,
        info: CallScope<'a>,
        policy: &ArgumentPolicy,
    ) -> MaybeReady<'a, ToolResult> {
        let call = info.call();
        let definition = Tool::definition(self);
        let mut session = ParseSession::new(*policy);
        if let Err(error) = args::admit(arguments, &policy.limits) {
            return MaybeReady::Ready(ToolResult::invalid_arguments(call, definition, error));
        }
        let args = match self.parse_args(arguments, ctx, &mut session) {
            Ok(args) => args,
            Err(error) => {
                let mut result = ToolResult::invalid_arguments(call, definition, error);
                result.set_fixes(session.fixes);
                return MaybeReady::Ready(result);
            }
        };
        let fixes = session.fixes;
        match self.call_now(args, ctx, &info) {
            Ok(outcome) => {
                let mut result =
                    ToolResult::from_outcome(&call.call_id, definition.name_cow(), outcome);
                result.set_fixes(fixes);
                MaybeReady::Ready(result)
            }
            Err(args) => MaybeReady::Pending(Box::pin(async move {
                let outcome = self.call(args, ctx, info).await;
                let mut result = ToolResult::from_outcome(
                    &call.call_id,
                    Tool::definition(self).name_cow(),
                    outcome,
                );
                result.set_fixes(fixes);
                result
            })),
        }
    }
}
