//! # toolwright
//!
//! Declare LLM tools on ordinary Rust fns. `#[tool]` gives a fn a JSON Schema (through schemars),
//! a typed argument parser (through serde) and a handle to register it in a [`Toolbox`], which
//! runs the tool calls a model makes and returns exactly one [`ToolResult`] per call.
//!
//! ```
//! use toolwright::{ToolCall, Toolbox, tool};
//!
//! /// Add two integers.
//! #[tool]
//! fn add(
//!     /// The first addend.
//!     a: i64,
//!     /// The second addend.
//!     b: i64,
//! ) -> i64 {
//!     a + b
//! }
//!
//! let tools = Toolbox::new().with(add {}).unwrap();
//! let definition = tools.get("add").unwrap().definition();
//! assert_eq!(definition.description(), "Add two integers.");
//! assert_eq!(definition.required_param_names(), ["a", "b"]);
//!
//! let result = tools.execute_blocking(&ToolCall::new("call_1", "add", r#"{"a": 2, "b": 3}"#), &());
//! assert_eq!(result.text(), "5");
//!
//! // What the model is told when it gets the arguments wrong: everything, in one message.
//! let result = tools.execute_blocking(&ToolCall::new("call_2", "add", r#"{"a": 2, "c": 3}"#), &());
//! assert!(result.is_error);
//! assert_eq!(
//!     result.text(),
//!     r#"invalid arguments for tool `add`: 2 problems: unknown argument `c`; missing required argument `b` (an integer).
//! Your arguments, with each problem marked:
//! {
//!   "a": 2,
//!   "c": 3  // <- unknown argument: this tool does not take it
//!   // "b": missing, required: an integer
//! }
//! Required arguments: `a` and `b`. Accepted arguments: `a` (an integer), `b` (an integer)."#
//! );
//!
//! // What the model meant, when that is unambiguous: broken JSON repaired, "3" read as 3.
//! let call = ToolCall::new("call_3", "add", "```json\n{'a': 2, 'b': \"3\",}\n```");
//! let result = tools.execute_blocking(&call, &());
//! assert_eq!(result.text(), "5");
//! assert!(result.fixes().is_some_and(|fixes| fixes.coercions.len() == 1));
//! ```
//!
//! A model's turn of calls runs as one batch ([`Toolbox::execute_all`]): calls safe to run
//! concurrently share the time, every call gets its result in call order, and timeouts,
//! cancellation, approval ([`Toolbox::approve`]), retry budgets and hooks ([`Hook`]) apply.
//!
//! See [`tool`] for the attribute's options, and the README for the status of each part.
//!
//! # Features
//! - `tokio`: inside a tokio runtime, timeouts and [`sleep`] use tokio's timer (and its clock,
//!   `tokio::time::pause` included). Without it everything works on any executor: a shared
//!   timer thread. `#[tool(blocking)]` bodies run on toolwright's own threads either way (not
//!   tokio's blocking pool, which a runtime waits for when it shuts down).
//! - `inventory`: `Toolbox::collect` gathers every `#[tool]` in the binary.

#![doc(html_root_url = "https://docs.rs/toolwright/0.1.0")]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub use toolwright_runtime::*;

#[doc(hidden)]
pub use toolwright_runtime::__private;

/// MCP both ways through rmcp: the [toolwright-mcp](https://docs.rs/toolwright-mcp) crate.
#[cfg(feature = "mcp")]
#[doc(inline)]
pub use toolwright_mcp as mcp;

#[doc = include_str!("tool_attr.md")]
pub use toolwright_macros::tool;

#[doc = include_str!("toolset_attr.md")]
pub use toolwright_macros::toolset;
