//! Provider wire formats: recorded responses and streams read into calls, results encoded, turns
//! carried back, tool lists and tool choice.

#[path = "../support/data.rs"]
mod data;
#[path = "../../examples/demo/mod.rs"]
#[allow(dead_code)]
mod demo;
#[path = "../support/mod.rs"]
mod support;

pub mod bedrock;
pub mod cohere;
pub mod exchange;
pub mod providers;
pub mod tool_choice;
pub mod tool_search;
pub mod turns;
