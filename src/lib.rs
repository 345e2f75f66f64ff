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
//! let tools = Toolbox::new().with(AddTool).unwrap();
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
//! See [`tool`] for the attribute's options and [`toolset`] for services. The root holds what an
//! application writes; the rest is in modules by concern: the argument pipeline and the
//! validator in [`args`], execution's parts (batch options, cancellation, hooks, `block_on`) in
//! [`exec`], schemas and provider forms in [`schema`], tools without the attributes in
//! [`dynamic`], everything per provider (tool lists, tool choice, reading calls, encoding
//! results, streams) in [`provider`], and MCP in `mcp` (feature `mcp`).
//!
//! # Running a turn's calls
//! [`Toolbox::execute_all`] runs every call of a model's turn and returns one result per call,
//! in call order, whatever happens to the others (unknown tool, bad arguments, panic, timeout,
//! cancellation): the conversation stays valid. It is a plain future that drives the calls
//! itself, so it runs under tokio, a `futures` executor or `execute_all_blocking`.
//!
//! ```
//! use serde_json::json;
//! use toolwright::{CallInfo, ResultDetail, ToolCall, Toolbox, tool, exec::{BatchOptions, Decision}};
//!
//! /// Look a page up (safe beside other calls; stopped after 2 s).
//! #[tool(read_only, timeout = "2s")]
//! async fn lookup(url: String) -> String {
//!     toolwright::exec::sleep(std::time::Duration::from_millis(10)).await;
//!     format!("<html>{url}</html>")
//! }
//!
//! /// Compress a file: blocks its thread, so it runs off the executor.
//! #[tool(blocking)]
//! fn compress(path: String, #[tool(call_info)] info: &CallInfo) -> String {
//!     if info.is_cancelled() { return "stopped".into() }
//!     format!("{path}.gz")
//! }
//!
//! /// Delete a file, once a person agrees.
//! #[tool(needs_approval, destructive)]
//! fn delete(path: String) -> String {
//!     format!("deleted {path}")
//! }
//!
//! // Several at once: all or none, and every name clash told together.
//! let tools = Toolbox::new()
//!     .with_all((LookupTool, CompressTool, DeleteTool))
//!     .unwrap();
//! let calls = [
//!     ToolCall::new("c1", "lookup", r#"{"url": "a.example"}"#),
//!     ToolCall::new("c2", "lookup", r#"{"url": "b.example"}"#),
//!     ToolCall::new("c3", "delete", r#"{"path": "/tmp/x"}"#),
//!     ToolCall::new("c4", "compress", r#"{"path": "log.txt"}"#),
//! ];
//! // `parallel_tool_calls: false` in the request would run them one at a time.
//! let options = BatchOptions::for_request(&json!({"model": "gpt-4.1"}));
//! let mut results = toolwright::exec::block_on(tools.execute_all_with(&calls, &(), options));
//! assert_eq!(results[1].text(), "<html>b.example</html>");
//! assert_eq!(results[3].text(), "log.txt.gz");
//!
//! // The delete waits for a person: an interrupt with the arguments, in its place.
//! let held = results[2].interrupt().unwrap();
//! assert_eq!(held.data, json!({"path": "/tmp/x"}));
//! assert_eq!(tools.approve_blocking(&calls[2], &()).text(), "deleted /tmp/x");
//! let no = tools.reject(&calls[2], "not that one");
//! assert!(matches!(no.detail, ResultDetail::Rejected { .. }));
//!
//! // Or every held call of the batch at once, in place, by call id (a closure, or a map's lookup).
//! tools.resolve_interrupts_blocking(&calls, &mut results, &(), |call, _interrupt| {
//!     (call.call_id == "c3").then_some(Decision::Approve)
//! });
//! assert_eq!(results[2].text(), "deleted /tmp/x");
//! ```
//!
//! - **Concurrency**: calls of tools marked `#[tool(concurrent)]` (implied by `read_only`,
//!   unless `concurrent = false`) run at the same time, up to `Toolbox::with_concurrency`
//!   (default 16); any other call runs alone, after every earlier call and before any later one.
//!   `with_parallel_calls(false)`, `BatchOptions::parallel(false)` or a request with OpenAI's
//!   `parallel_tool_calls: false` or Anthropic's `disable_parallel_tool_use`
//!   ([`BatchOptions::for_request`](crate::exec::BatchOptions::for_request)) run every call alone.
//! - **Timeouts**: `#[tool(timeout = "5s")]` or `Toolbox::with_timeout`; a call past its time
//!   gets an error result saying so ([`ResultDetail::TimedOut`]), and whatever it does later is
//!   discarded. `#[tool(blocking)]` runs a sync body that blocks on a thread of toolwright's own
//!   pool, so the deadline holds and the batch goes on; no runtime waits for those threads at
//!   shutdown. With the `tokio` feature, timeouts and [`sleep`](crate::exec::sleep) use tokio's timer inside a
//!   runtime; without it, one shared timer thread. What a timeout cannot stop is told under
//!   Limits below.
//! - **Cancellation**: `BatchOptions::cancellation(token)` or [`Batch::cancel`](crate::exec::Batch::cancel) end a batch at
//!   once with a `Cancelled` result for every call not finished; dropping a batch raises its
//!   calls' signal. Tools see it through [`CallInfo::is_cancelled`] / `cancelled()`.
//! - **Approval**: `#[tool(needs_approval)]`, or a rule over the arguments and the context:
//!   `Toolbox::needs_approval_if(&TransferTool, |args, ctx| args.amount > 100)` on the typed
//!   arguments, `needs_approval_when("transfer", |json, ctx| ..)` on the JSON as the tool will
//!   get it. A held call's result is an [`Interrupt`] (arguments checked first: bad ones are an
//!   argument error, not a question); `approve` runs it (arguments parsed again), `reject` gives
//!   the model the reason, and `resolve_interrupts` does either for every held call of a batch,
//!   in place. A tool body can return an `Interrupt` itself and see `CallInfo::is_approved` when
//!   approved.
//! - **Retry budget**: after 3 invalid calls of one tool in a row (`with_retry_budget`), the
//!   result tells the model to stop and carries `ResultDetail::BudgetExhausted`
//!   (`ToolResult::budget_exhausted`), so the agent loop can stop too.
//! - **Hooks** (`Toolbox::with_hook`, trait [`Hook`](crate::exec::Hook)): `before` sees the definition, call and
//!   context and may rewrite the arguments or deny the call; `after` may rewrite the result.
//! - **Tracing**: a `tool_batch` span (calls, concurrency, duration, cancelled) around
//!   `tool_call` spans (tool, call id, outcome, duration, repairs, coercions); arguments only
//!   with `log_arguments(true)`.
//!
//! # Limits
//! Every limit holds on every way data comes in: arguments as text and as JSON values, provider
//! bodies (`read_response`), streams (`Assembler`), MCP requests and hook rewrites. Values are
//! measured without recursion before anything copies or walks them, so no input can overflow a
//! stack, whatever thread the call runs on. A call past a limit still gets exactly one result.
//!
//! | limit | default | how to set it | what the model sees / what the application gets |
//! | --- | --- | --- | --- |
//! | nesting of the arguments (arrays and objects) | 128 levels | `ArgumentPolicy::limits(JsonLimits { max_depth, .. })`, on the toolbox with `with_argument_policy` | "the arguments nest deeper than the limit of 128 levels of objects and arrays; send a flatter JSON object of named arguments" / `ResultDetail::Arguments(ArgumentError::TooDeep { limit })` |
//! | size of the arguments (text: its bytes; a value: its compact JSON) | 8 MiB | `JsonLimits { max_len, .. }`, as above | "the arguments are too large: N bytes, more than the limit of 8388608 bytes; ..." / `ArgumentError::TooLarge { size, limit }` |
//! | names, keys and ids echoed to the model | 64 characters each | fixed | cut with `…` and the whole length (`` `xxxx…` (5000000 characters) ``); control characters written as escapes (`\u001b`, `\r\n`) |
//! | values shown in argument feedback | strings cut at 80 characters (40 in a problem's summary), 120 lines, 8 unremarkable siblings, 12 levels | fixed | what was sent, cut, with its length |
//! | problems listed in a message's first line | 8 (all are marked below it) | fixed | "...; and N more (marked below)" |
//! | work to validate and to coerce | 16 schema visits per value sent (at least 200,000 / 100,000) | fixed | valid input within the size limit is always checked to its end; a schema whose unions multiply past it gives one problem, "expected arguments small enough to check, found arguments too large or too deeply nested for the schema" |
//! | nesting of the validator's checks | 1,024 in all, 48 on one value (`$ref`s and `allOf`s followed without moving into the value) | fixed | far beyond the depth limit's needs (a few checks per level); a schema whose references loop on one value gives the same one problem |
//! | schemas: nesting of subschemas while compiling | 192 levels (references are followed from a queue, at any length) | fixed | deeper parts are listed by `CompiledSchema::unsupported()`, not compiled |
//! | schemas: documents retrieved for references (`compile_with`) | 64 per schema | fixed | further references are listed as unresolved by `unsupported()` |
//! | numbers JSON cannot hold (`NaN`, `Infinity`, `1e400`) | refused | fixed | "the arguments are not valid JSON (`1e400` is not a number JSON can hold at line 1, column 11)", never read as `null` |
//! | a key sent twice | the later value is taken | `repair(false)` refuses it | recorded as a repair (`RepairKind::DuplicateKey`, at the later key's byte offset) |
//! | Gemini `partialArgs` paths | 128 steps | fixed | the chunk is reported (`WireError`), the call kept |
//! | a chunk quoted in a stream error | 512 bytes | fixed | cut, with its whole length |
//! | time per call | none | `#[tool(timeout = "5s")]`, `ToolDefinition::with_timeout`, `Toolbox::with_timeout` | "the call of `x` did not finish within 5s and was stopped; it may or may not have taken effect" / `ResultDetail::TimedOut { after }` |
//! | invalid calls of one tool in a row | 3 | `Toolbox::with_retry_budget` (0: none) | the last result tells the model to stop / `ResultDetail::BudgetExhausted` |
//! | calls of a batch running at once | 16 | `Toolbox::with_concurrency` | - |
//!
//! What a timeout can stop: an async body at its next `.await`, and a `#[tool(blocking)]` body,
//! which runs on a thread of toolwright's own pool (the call's result is the timeout error at
//! the deadline, the batch goes on, and the body is told through its `CallInfo::cancelled`
//! signal). What nothing can stop is a body that holds the thread it was called on: a sync fn
//! not marked `blocking` (so `#[tool(timeout)]` on one is a compile error), or an async body
//! that blocks without awaiting. Under a toolbox-wide timeout such a body's result, when it
//! returns late, is still the timeout error (its value discarded, a warning logged), and the
//! batch waits for it. No runtime waits for toolwright's blocking threads when it shuts down: a
//! body that never returns cannot keep a `#[tokio::main]` program from exiting.
//!
//! # Features
//! - `tokio`: inside a tokio runtime, timeouts and [`sleep`](crate::exec::sleep) use tokio's
//!   timer (and its clock, `tokio::time::pause` included). Without it everything works on any executor: a shared
//!   timer thread. A tool that itself awaits tokio's timer or I/O needs its calls run inside a
//!   tokio runtime (under `#[tokio::main]`, not `execute_blocking`): run elsewhere, its result
//!   says that it needs a tokio runtime. `#[tool(blocking)]` bodies run on toolwright's own
//!   threads either way (not tokio's blocking pool, which a runtime waits for when it shuts
//!   down).
//! - `mcp`: `toolwright::mcp`, MCP both ways through rmcp (the `toolwright-mcp` crate). Brings
//!   tokio; without it no rmcp is built.
//! - `inventory`: `Toolbox::collect` gathers every `#[tool]` in the binary.
//! - On by default: `lenient` (broken JSON repaired, each repair recorded), `formats` (string
//!   formats asserted) and `patterns` (ECMA-262 patterns enforced). With
//!   `default-features = false` arguments must be JSON as sent, formats annotate and patterns are
//!   listed as unsupported; schemas, validation and dispatch are unchanged.
//!
//! # Crates
//! This crate is the one to depend on. It re-exports `toolwright-runtime` (tools, the toolbox,
//! arguments, providers, execution: all plain Rust, usable without the attributes),
//! `toolwright-macros` (the attributes) and, with `mcp`, `toolwright-mcp`. Under the runtime,
//! [toolwright-json](https://docs.rs/toolwright-json) (JSON as models send it) and
//! [toolwright-schema](https://docs.rs/toolwright-schema) (the JSON Schema validator) are
//! usable alone.

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
pub use toolwright_runtime::{args, bounds, dynamic, exec, provider, schema};

#[doc(hidden)]
pub use toolwright_runtime::__private;

/// MCP both ways through rmcp: the [toolwright-mcp](https://docs.rs/toolwright-mcp) crate.
#[cfg(feature = "mcp")]
#[doc(inline)]
pub use toolwright_mcp as mcp;

#[cfg(feature = "rig")]
#[doc(inline)]
pub use toolwright_runtime::rig;

#[cfg(feature = "async-openai")]
#[doc(inline)]
pub use toolwright_runtime::async_openai;

#[doc = include_str!("tool_attr.md")]
pub use toolwright_macros::tool;

#[doc = include_str!("toolset_attr.md")]
pub use toolwright_macros::toolset;
