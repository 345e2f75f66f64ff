//! Schemas and validation: the official JSON-Schema-Test-Suite, the `jsonschema` crate as an
//! oracle, schema/serde agreement per tool, and the universal properties over generated input
//! (their saved failing cases are in `tests/regressions`).

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
pub mod suite;
