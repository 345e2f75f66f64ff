//! Schemas and validation: the official JSON-Schema-Test-Suite, the `jsonschema` crate as an
//! oracle, the keyword rules, schema/serde agreement per tool, and the universal properties over
//! generated input.

#[path = "../support/data.rs"]
mod data;
#[path = "../../examples/demo/mod.rs"]
#[allow(dead_code)]
mod demo;
#[path = "../support/mutate.rs"]
#[allow(dead_code)]
mod mutate;
#[path = "../support/shapes.rs"]
mod shapes;

pub mod agreement;
pub mod oracle;
pub mod properties;
pub mod rules;
pub mod suite;
