//! A JSON Schema draft 2020-12 validator for the arguments language models send, compiled once
//! per schema ([`CompiledSchema`]):
//! - **every problem at once**, each with its path, what was expected and what was found
//!   ([`Problem`]), in messages a model can act on, with close matches for misspelled names;
//! - **coercion toward the schema** where its meaning is unambiguous (`"42"` for a number, JSON in
//!   a string, a single value for an array, ...), each recorded ([`Coercion`]);
//! - **the whole draft**: `$ref`, `$id`, `$anchor`, `$dynamicRef`, `unevaluated*`, `dependentSchemas`,
//!   `prefixItems`, `contains` bounds, `propertyNames`; references to other documents through a
//!   retrieve function, never the network;
//! - **exact numbers** (integers past 2^53, `multipleOf` on the decimal digits), **ECMA-262
//!   patterns** (feature `patterns`) and **format assertions** (feature `formats`, with IDNA 2008
//!   for host names);
//! - **bounded work**: its effort grows with the value, its depth is bounded for the stack.
//!
//! ```
//! use serde_json::json;
//! use toolwright_schema::CompiledSchema;
//!
//! let schema = CompiledSchema::compile(&json!({
//!     "type": "object",
//!     "properties": {"query": {"type": "string"}, "limit": {"type": "integer", "maximum": 50}},
//!     "required": ["query"],
//!     "additionalProperties": false,
//! }));
//! let problems = schema.validate(&json!({"qurey": "rust", "limit": 500}));
//! let shown: Vec<String> = problems.iter().map(ToString::to_string).collect();
//! assert_eq!(shown.len(), 3, "{shown:?}");
//! ```
//!
//! The official JSON-Schema-Test-Suite and the `jsonschema` crate check it in toolwright's
//! repository. The modules hidden from this documentation are toolwright's own (the argument
//! pipeline reads them); their items may change in any release.

#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod coerce;
#[doc(hidden)]
pub mod compiled;
mod format;
#[cfg(feature = "formats")]
mod idna;
#[doc(hidden)]
pub mod inline;
#[doc(hidden)]
pub mod names;
mod number;
mod pattern;
#[doc(hidden)]
pub mod problem;
pub mod subschemas;
mod uri;
mod validate;

pub use self::coerce::{Coercion, CoercionKind};
pub use self::compiled::CompiledSchema;
pub use self::names::close_matches;
pub use self::problem::{Problem, ProblemKind};

/// The README's example, run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
