//! MCP both ways: toolwright's server and client against rmcp's, and against the Python SDK.

pub mod auth;
pub mod client;
pub mod declared;
#[path = "../support/http.rs"]
pub mod http;
pub mod limits;
pub mod protocol;
pub mod python;
pub mod servers;
