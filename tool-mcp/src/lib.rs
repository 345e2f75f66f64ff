//! MCP both ways for [toolwright](https://docs.rs/toolwright), through
//! [rmcp](https://docs.rs/rmcp) (the official Rust SDK): a [`Toolbox`]
//! served as an MCP server ([`McpServer`]), and an MCP server's tools used as a toolbox's
//! ([`McpTools`]). rmcp owns JSON-RPC and the transports; this crate is only the mapping between a
//! toolbox and rmcp's handlers.
//!
//! An application reaches it as `toolwright::mcp` (toolwright's `mcp` feature) or as this crate;
//! both name the same items.
//!
//! Protocol: what rmcp 3.11 negotiates, up to revision 2026-07-28 (its newest); clients on
//! 2024-11-05 through 2025-11-25 are served too.

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
pub use self::server::{DEFAULT_PAGE_SIZE, McpServer};
/// The rmcp this crate is built on, so that an application names the same version.
pub use rmcp;
