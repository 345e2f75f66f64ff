//! The runtime of [toolwright](https://docs.rs/toolwright): tools, the registry, tool calls,
//! argument handling and dispatch. Users depend on the `toolwright` facade, which re-exports this
//! crate and the `#[tool]` attribute.
//!
//! Everything here is plain Rust, usable without the macro: implement [`Tool`] by hand, or build
//! a [`DynamicTool`] at run time.

#![warn(clippy::pedantic)]
// One exception, with its reason beside it: `call::id`'s inline id.
#![deny(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![allow(
    // Accessors and builders everywhere: the attribute would be noise on most of the API.
    clippy::must_use_candidate,
    clippy::return_self_not_must_use,
    // Messages are built off the hot path; `format!` reads better than `write!` into a String.
    clippy::format_push_string,
    // Two fns on the dispatch hot path are always inlined: measured with callgrind, it spares
    // copies of the result between them (see BENCHMARKS.md).
    clippy::inline_always,
)]

// `Toolbox`'s methods are spread over several modules; rustdoc shows its impl blocks in the
// order of these declarations, so they are in the order a user reads them: building and
// registering (`toolbox`), then running calls and batches (`exec`), then provider wire formats
// (`provider`).
mod definition;
mod tool;
mod toolbox;
mod toolset;

mod dispatch;
mod exec;
mod hook;
pub mod provider;

pub mod args;
mod call;
mod caller;
mod collect;
mod content;
mod docs;
mod error;
mod fixes;
mod forms;
mod native;
mod output;
mod policy;
mod result;

#[cfg(feature = "async-openai")]
pub mod openai_types;
#[cfg(feature = "rig")]
pub mod rig;

#[doc(hidden)]
pub mod __private;
#[doc(hidden)]
pub mod __mcp;

pub use crate::args::ArgumentError;
pub use crate::call::{Arguments, CallId, CallKind, CallStatus, ToolCall, ToolName};
pub use crate::caller::Caller;
pub use crate::definition::{Downgrade, ProviderTools, StrictFallback};
pub use crate::dispatch::{Batch, BatchOptions, Decision};
pub use crate::exec::{
    Blocking, BoxFuture, CallInfo, CallScope, Cancellation, Cancelled, MaybeReady, Progress,
    ProgressSink, Resolve, Sleep, block_on, run_blocking, sleep,
};
pub use crate::forms::{
    Form, Lint, LintReport, Rule, SchemaError, Severity, canonical_parameters, schema_for,
};
pub use crate::hook::{Before, Hook};
pub use crate::native::Native;
pub use crate::output::{
    Content, ContentPart, HookFailure, Interrupt, InterruptKind, IntoOutcome, Outcome, ToolOutput,
};
pub use crate::result::{ResultDetail, ToolResult};
pub use crate::tool::{
    ContextOf, Deprecation, DynTool, DynamicTool, FunctionParam, ParamType, Tool, ToolAnnotations,
    ToolDefinition, UnknownArgs, erase,
};
pub use crate::toolbox::{
    DEFAULT_CONCURRENCY, DEFAULT_RETRY_BUDGET, IntoTools, ParsedArguments, RegisterError, Toolbox,
};
pub use crate::toolset::Toolset;
pub use toolwright_schema::names::close_matches;
