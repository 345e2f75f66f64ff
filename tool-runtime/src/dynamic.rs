//! Tools without the attributes: definitions built at run time ([`FunctionParam`],
//! [`ToolAnnotations`], a provider's group of tools: [`Namespace`], what to do with undeclared arguments: [`UnknownArgs`]), the type-erased
//! form a toolbox stores ([`ErasedTool`], made by [`erase`]; not to be confused with
//! [`DynamicTool`](crate::DynamicTool), a tool whose definition and body are given at run
//! time), contexts lent to tools ([`ContextOf`]), and what `#[tool]`'s generated code implements
//! for you.

pub use crate::output::IntoOutcome;
pub use crate::tool::{
    ContextOf, Deprecation, ErasedTool, FunctionParam, Namespace, ParamType, ToolAnnotations,
    UnknownArgs, erase,
};
pub use crate::toolbox::{IntoTools, ParsedArguments};
