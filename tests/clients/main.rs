//! Where Rust users already are: toolwright tools in rig agents, async-openai's types, and the
//! agent loop of `examples/openai_agent.rs` against an OpenAI-compatible server.

#[path = "../support/data.rs"]
mod data;
#[path = "../../examples/demo/mod.rs"]
#[allow(dead_code)]
mod demo;

#[path = "../support/http.rs"]
mod http;
#[path = "../support/mod.rs"]
mod support;

mod async_openai;
mod openai_agent;
mod rig;
mod server;
