//! MCP both ways, through [rmcp](https://docs.rs/rmcp) (the official Rust SDK; feature `mcp`):
//! a [`Toolbox`](crate::Toolbox) served as an MCP server ([`McpServer`]), and an MCP server's
//! tools used as a toolbox's ([`McpTools`]). rmcp owns JSON-RPC and the transports; this module is
//! only the mapping between a toolbox and rmcp's handlers.
//!
//! Protocol: what rmcp 3.11 negotiates, up to revision 2026-07-28 (its newest); clients on
//! 2024-11-05 through 2025-11-25 are served too.

mod client;
mod server;

pub use self::client::{McpCallError, McpClient, McpTools, McpToolsError};
pub use self::server::{DEFAULT_PAGE_SIZE, McpServer};
/// The rmcp this module is built on, so that an application names the same version.
pub use rmcp;
