//! The repository as a user meets it: the documentation's paths and the crates' manifests, the
//! architecture's layers, and the examples run as a user runs them.

#[path = "../support/data.rs"]
mod data;
#[path = "../../examples/demo/mod.rs"]
#[allow(dead_code)]
mod demo;
#[path = "../support/mod.rs"]
mod support;

pub mod architecture;
pub mod docs;
pub mod examples;
pub mod paths;
pub mod scripts;
