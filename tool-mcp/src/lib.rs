//! MCP both ways for [toolwright](https://docs.rs/toolwright), through
//! [rmcp](https://docs.rs/rmcp) (the official Rust SDK): a [`Toolbox`] served as an MCP server
//! ([`McpServer`]), and an MCP server's tools used as a toolbox's ([`McpTools`]). rmcp owns
//! JSON-RPC and the transports; this crate is only the mapping between a toolbox and rmcp's
//! handlers.
//!
//! An application reaches it as `toolwright::mcp` (toolwright's `mcp` feature) or as this crate;
//! both name the same items. It speaks what rmcp 3.11 negotiates: protocol revision
//! **2026-07-28** (the newest) and the earlier ones back to 2024-11-05.
//!
//! # Serving
//! `McpServer::new(Arc::new(toolbox), context)` (or [`McpServer::with_context`]`(toolbox,
//! |request| ..)` to make the context from rmcp's request context: the HTTP request's parts, the
//! `_meta`, the session) is an rmcp `ServerHandler`, served on stdio
//! ([`McpServer::serve_stdio`]) or as a Streamable HTTP tower service for hyper or axum
//! ([`McpServer::http_service`]):
//!
//! ```no_run
//! use std::sync::Arc;
//! use toolwright::{Toolbox, tool};
//! use toolwright_mcp::McpServer;
//!
//! /// Add two integers.
//! #[tool(read_only)]
//! fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
//!     let server = McpServer::new(Arc::new(Toolbox::new().with(AddTool)?), ())
//!         .map_err(|lints| format!("{lints:#}"))?
//!         .named("calculator", "1.0.0");
//!     server.serve_stdio().await
//! }
//! ```
//!
//! - `tools/list` is the toolbox's MCP form (`inputSchema`, `outputSchema`, `title`,
//!   `annotations`), in registration order, 100 tools to a page ([`McpServer::page_size`]).
//!   Output schemas of any type are sent (2026-07-28 allows them; rmcp drops non-object ones for
//!   older clients, and the lint notes it); a string output is sent as text alone.
//! - `tools/call` runs through the same batch dispatch as every provider's calls. Bad arguments
//!   and tool errors are results with `isError: true` and the feedback text the model reads; an
//!   unknown tool is a JSON-RPC error (`-32602`) naming the close matches; a tool with an output
//!   schema also gets `structuredContent`; images are image content; panics never crash the
//!   server or reach the client. Request ids are rmcp's: a numeric id is answered as a number.
//! - `notifications/cancelled` raises the call's cancellation (`CallInfo::is_cancelled`,
//!   `cancelled()`); a body still running five seconds later is dropped. A tool's
//!   `CallInfo::report_progress(..)` reaches the client as `notifications/progress` when the
//!   request had a progress token.
//! - `needs_approval` tools: the server asks the client's user through **elicitation** (a form
//!   with one `approve` checkbox) when the client offers form elicitation on a session of a
//!   revision that has server-to-client requests (before 2026-07-28); the call runs only if they
//!   approve. Otherwise the result is an error saying the call needs a person's approval, and it
//!   does not run.
//! - [`McpServer::set_toolbox`] swaps the tools of a running server and sends
//!   `notifications/tools/list_changed` to every client listening (sessions, and 2026-07-28
//!   `subscriptions/listen` streams).
//!
//! The repository's `mcp_server` example serves the demo toolbox: `cargo run --example
//! mcp_server` on stdio, or `-- --http 127.0.0.1:8000` for Streamable HTTP at
//! `http://127.0.0.1:8000/mcp` (`--stateful` for sessions). To point an MCP host at it, give the
//! host the built binary as a stdio server, for example in a desktop host's JSON config:
//! `{"mcpServers": {"toolwright-demo": {"command": "/path/to/target/debug/examples/mcp_server"}}}`,
//! or the URL for hosts that take Streamable HTTP.
//!
//! # Deployment
//! Stateless Streamable HTTP (`http_service(false)`) answers every request on its own: no session
//! lives on the server, so any number of replicas sit behind any HTTP load balancer, round-robin,
//! with no shared state and no sticky sessions. That is the scale-out path. Stateful mode keeps a
//! session per client for clients on revisions before 2026-07-28 (and their `list_changed`
//! stream); it needs sticky routing. The limits of stateless: a client on a revision before
//! 2026-07-28 cancels with a separate POST that a stateless server cannot route to the request it
//! names (clients on 2026-07-28 cancel by closing the request's stream, which works), and
//! server-to-client requests (elicitation) need a session. The endpoint accepts loopback `Host`
//! headers only (rmcp's DNS-rebinding guard): serve other hosts with
//! [`McpServer::http_service_with`]`(config)`. It checks nothing else: anyone who reaches the
//! port can list and call every tool, so bind it to a public address only behind something that
//! authenticates callers.
//!
//! # Using a server's tools
//! [`McpTools::list`]`(peer)` lists an MCP server's tools through an rmcp client (a child
//! process's pipes, Streamable HTTP, any rmcp transport) into tools for a toolbox:
//! `Toolbox::new().with_mcp_tools(tools.prefixed("files_"))` ([`ToolboxExt`]). Each call goes
//! through the argument pipeline first (repair, coercion, validation against the server's
//! `inputSchema`, feedback to the model): wrong arguments never reach the server. The server's
//! text and images become the result's content, `isError` an error result ([`McpCallError`] for
//! the application), `structuredContent` the native value. Connect with [`McpClient`] to hear
//! `notifications/tools/list_changed` (`client.tools_changed().await`), then
//! `toolbox.refresh_mcp_tools(&mut tools).await` swaps the list in place. So a model on any
//! provider can use any MCP server's tools, with toolwright's argument repair in front. The
//! repository's `mcp_client` example is a line driver over them:
//!
//! ```text
//! cargo run --example mcp_client -- --url http://127.0.0.1:8000/mcp < calls.jsonl
//! cargo run --example mcp_client -- --prefix py_ -- python3 tests/python/mcp_tools_server.py < calls.jsonl
//! ```
//!
//! (`{"name": .., "arguments": ..}` per line in, `{"name": .., "is_error": .., "content": ..}`
//! out.) Both sides are checked in the repository against peers no one there wrote: the official
//! Python SDK as client and server, and the MCP Inspector's CLI.

#![warn(clippy::pedantic)]
#![allow(
    // Accessors and builders: the attribute would be noise on most of the API (as in the runtime).
    clippy::must_use_candidate,
    clippy::return_self_not_must_use,
)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod client;
mod server;

// Names the documentation links to.
#[cfg(doc)]
use toolwright_runtime::Toolbox;

pub use self::client::{McpCallError, McpClient, McpTools, McpToolsError, ToolboxExt};
pub use self::server::{
    Authorization, DEFAULT_BODY_TIMEOUT, DEFAULT_MAX_BODY, DEFAULT_MAX_IN_FLIGHT,
    DEFAULT_MAX_IN_FLIGHT_PER_SESSION, DEFAULT_MAX_QUEUED, DEFAULT_MAX_SESSIONS,
    DEFAULT_MAX_STREAMS_PER_SESSION, DEFAULT_PAGE_SIZE, DEFAULT_SESSION_IDLE, Drained, HttpBody,
    HttpLimits, InvalidToken, Limited, McpServer, Protected, ShutdownHandle,
};
/// The rmcp this crate is built on, so that an application names the same version.
pub use rmcp;
