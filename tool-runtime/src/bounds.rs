//! The bounds `#[tool]` puts on a fn's parameters and return type, checked where the fn is
//! written: a compiler error about a tool names one of these, and its message says what to
//! change. Nothing here is called by hand.
//!
//! - A parameter's type is a [`ToolArg`]: `serde::Deserialize + schemars::JsonSchema` (checked
//!   at the parameter by [`assert_arg`]).
//! - A `#[tool(call_info)]` parameter is `&CallInfo` ([`IsCallInfo`], converted by
//!   [`call_info`]).
//! - What the fn returns becomes the call's result by the first of three ways that fits:
//!   [`IntoOutcome`] ([`OutcomeKind`]), `Result<T, E>` with a
//!   [`ToolReturn`] `T` and a [`ToolError`] `E` ([`ResultKind`]), or any [`ToolReturn`]
//!   ([`SerializeKind`]).
//! - A `#[tool(blocking)]` tool that takes a context runs in a toolbox whose context is a
//!   [`BlockingContext`] (a share of it goes to another thread).

use std::fmt::Display;
use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::output::{IntoOutcome, Outcome};
use crate::task::CallInfo;
use crate::tool::ContextOf;

// ---------------------------------------------------------------------------------------------
// Return types. What a return type becomes is decided by traits, most specific first (autoref
// specialization at the generated call site, where the type is concrete):
// 1. `IntoOutcome` (ToolOutput, Interrupt, String, Value, Result<those, E>, user impls);
// 2. `Result<T: Serialize, E: Display>`;
// 3. any `T: Serialize` (`ToolReturn`, whose diagnostic explains the choices when nothing fits).

/// A type-level probe of a return type `R`.
#[doc(hidden)]
pub struct Probe<R: ?Sized>(PhantomData<fn() -> PhantomData<R>>);

impl<R: ?Sized> Probe<R> {
    /// The probe.
    pub const NEW: Self = Probe(PhantomData);
}

/// Converts through `IntoOutcome`.
pub struct OutcomeKind;
/// Converts `Result<T: Serialize, E: Display>`.
pub struct ResultKind;
/// Converts any `T: Serialize`.
pub struct SerializeKind;

/// Level 1 of the return-type probe.
#[doc(hidden)]
pub trait ViaOutcome {
    /// The conversion for this return type.
    fn __tool_kind(&self) -> OutcomeKind {
        OutcomeKind
    }
}
impl<R: IntoOutcome> ViaOutcome for &&Probe<R> {}

/// Level 2 of the return-type probe.
#[doc(hidden)]
pub trait ViaResult {
    /// The conversion for this return type.
    fn __tool_kind(&self) -> ResultKind {
        ResultKind
    }
}
impl<T, E> ViaResult for &Probe<Result<T, E>> {}

/// Level 3 of the return-type probe.
#[doc(hidden)]
pub trait ViaSerialize {
    /// The conversion for this return type.
    fn __tool_kind(&self) -> SerializeKind {
        SerializeKind
    }
}
impl<R> ViaSerialize for Probe<R> {}

impl OutcomeKind {
    /// Converts the value.
    pub fn convert<R: IntoOutcome>(self, value: R) -> Outcome {
        value.into_outcome()
    }
}

/// The error type of a tool's `Result`.
#[diagnostic::on_unimplemented(
    message = "the error type `{Self}` of a #[tool] fn must implement `Display`",
    label = "not a tool error",
    note = "the error's `Display` text is what the model is told; the typed error is kept for the application",
    note = "errors must also be `Send + Sync + 'static` (results are shared between threads)"
)]
pub trait ToolError: Display + Send + Sync + 'static {}
impl<E: Display + Send + Sync + 'static> ToolError for E {}

impl ResultKind {
    /// Converts the value.
    pub fn convert<T: ToolReturn, E: ToolError>(self, value: Result<T, E>) -> Outcome {
        match value {
            Ok(value) => Outcome::from_serialize(value),
            Err(error) => Outcome::from_error(error),
        }
    }
}

/// Any serializable value can be returned from a tool.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a #[tool] fn",
    label = "not a tool result",
    note = "a #[tool] fn returns a type that implements `serde::Serialize` (derive it), `Result<T, E>` with `T: Serialize` and `E: Display`, `toolwright::ToolOutput` or `toolwright::Interrupt`",
    note = "values must also be `Send + Sync + 'static` (results are shared between threads)"
)]
pub trait ToolReturn: Serialize + Send + Sync + 'static {}
impl<T: Serialize + Send + Sync + 'static> ToolReturn for T {}

impl SerializeKind {
    /// Converts the value.
    pub fn convert<R: ToolReturn>(self, value: R) -> Outcome {
        Outcome::from_serialize(value)
    }
}

// ---------------------------------------------------------------------------------------------
// Spanned checks of parameter types.

/// A type that can be a tool argument.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the type of tool argument `{P}`",
    label = "not a tool argument type",
    note = "a tool argument's type implements `serde::Deserialize` and `schemars::JsonSchema`: add `#[derive(serde::Deserialize, schemars::JsonSchema)]` to it",
    note = "to inject the application context instead, mark the parameter `#[tool(context)]` and take it as `&T`"
)]
pub trait ToolArg<P> {}
impl<P, T: DeserializeOwned + JsonSchema + Send + 'static> ToolArg<P> for T {}

/// Checks a parameter type at the parameter's span.
pub const fn assert_arg<T: ToolArg<P>, P>() {}

/// The call-info parameter type.
#[diagnostic::on_unimplemented(
    message = "a #[tool(call_info)] parameter must be `&CallInfo`, not `{Self}`",
    label = "expected `&toolwright::CallInfo`",
    note = "write the parameter as `info: &toolwright::CallInfo`"
)]
pub trait IsCallInfo<'a> {
    /// The parameter's value.
    fn from_info(info: &'a CallInfo) -> Self;
}

impl<'a> IsCallInfo<'a> for &'a CallInfo {
    fn from_info(info: &'a CallInfo) -> Self {
        info
    }
}

/// The call-info argument, converted at the parameter type's span so a wrong type is reported
/// there, once.
pub fn call_info<'a, T: IsCallInfo<'a>>(info: &'a CallInfo) -> T {
    T::from_info(info)
}

/// A toolbox context a `#[tool(blocking)]` tool taking `&T` can run in: its body gets a share
/// of its own on another thread.
#[diagnostic::on_unimplemented(
    message = "a #[tool(blocking)] tool taking `&{T}` cannot run in a `Toolbox<{Self}>`: its body gets its own share of the context on another thread, and `{Self}` is not `Clone + Send + Sync`",
    label = "the blocking tool is registered here",
    note = "use a `Toolbox<Arc<{T}>>`: tools taking `&{T}` work in it, and a share is a reference count; or make the context `Clone`",
    note = "or keep the state in a #[toolset] service, which every tool of the set shares through an `Arc`"
)]
pub trait BlockingContext<T: ?Sized>: ContextOf<T> + Clone + Send + Sync + 'static {}
impl<T: ?Sized, C: ContextOf<T> + Clone + Send + Sync + 'static> BlockingContext<T> for C {}
