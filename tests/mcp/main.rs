//! MCP both ways: toolwright's server and client against rmcp's, and against the Python SDK.

pub mod auth;
#[path = "../support/authorization_server.rs"]
pub mod authorization_server;
pub mod client;
pub mod cost;
pub mod declared;
#[path = "../support/http.rs"]
pub mod http;
pub mod limits;
pub mod oauth;
pub mod protocol;
pub mod python;
pub mod search;
pub mod servers;
pub mod tasks;
