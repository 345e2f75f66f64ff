//! The runtime of [toolwright](https://docs.rs/toolwright): tools, the registry, tool calls,
//! argument handling and dispatch. Users depend on the `toolwright` facade, which re-exports this
//! crate and the `#[tool]` attribute.
//!
//! Everything here is plain Rust, usable without the macro: implement [`Tool`] by hand, or build
//! a [`DynamicTool`] at run time.

// `unsafe_code` is denied (Cargo.toml's lints): one block, `call::id`'s inline id, expects it.
#![cfg_attr(docsrs, feature(doc_cfg))]

// Every method of `Toolbox` is in `toolbox/`, whose `mod.rs` orders them for rustdoc.
mod definition;
mod tool;
mod toolbox;
mod toolset;

mod hook;
pub mod provider;
mod providers;
mod task;

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
pub mod search;
mod telemetry;
mod wire;

#[cfg(feature = "async-openai")]
pub mod async_openai;
#[cfg(feature = "rig")]
pub mod rig;

pub mod bounds;
pub mod dynamic;
pub mod exec;
pub mod schema;
#[cfg(feature = "tasks")]
pub mod tasks;

#[doc(hidden)]
pub mod __mcp;
#[doc(hidden)]
pub mod __private;

// The root holds what an application writes; the rest is in the public modules above, each
// item at one path.
pub use crate::call::{Arguments, CallId, CallKind, CallStatus, ToolCall, ToolName};
pub use crate::native::Native;
pub use crate::output::{Content, ContentPart, Interrupt, InterruptKind, Outcome, ToolOutput};
pub use crate::result::{ResultDetail, ToolResult};
pub use crate::task::CallInfo;
pub use crate::tool::{DynamicTool, Tool, ToolDefinition};
pub use crate::toolbox::{RegisterError, Toolbox};
pub use crate::toolset::Toolset;
