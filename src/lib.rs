#![doc = include_str!("lib.md")]
#![forbid(unsafe_code)]
#![doc(html_root_url = "https://docs.rs/toolwright/0.1.0")]
#![cfg_attr(docsrs, feature(doc_cfg))]

// The root holds what an application writes; the rest is in the runtime's public modules, as
// they are: each item has one path.
pub use toolwright_runtime::{
    Arguments, CallId, CallInfo, CallKind, CallStatus, Content, ContentPart, DynamicTool,
    Interrupt, InterruptKind, Native, Outcome, RegisterError, ResultDetail, Tool, ToolCall,
    ToolDefinition, ToolName, ToolOutput, ToolResult, Toolbox, Toolset,
};
#[doc(inline)]
pub use toolwright_runtime::{args, bounds, dynamic, exec, provider, schema, search};

#[doc(hidden)]
pub use toolwright_runtime::__private;

/// MCP both ways through rmcp: the [toolwright-mcp](https://docs.rs/toolwright-mcp) crate.
#[cfg(feature = "mcp")]
#[doc(inline)]
pub use toolwright_mcp as mcp;

#[cfg(feature = "rig")]
#[doc(inline)]
pub use toolwright_runtime::rig;

#[cfg(feature = "tasks")]
#[doc(inline)]
pub use toolwright_runtime::tasks;

#[cfg(feature = "async-openai")]
#[doc(inline)]
pub use toolwright_runtime::async_openai;

#[doc = include_str!("tool_attr.md")]
pub use toolwright_macros::tool;

#[doc = include_str!("toolset_attr.md")]
pub use toolwright_macros::toolset;
