//! JSON the way language models send it.
//!
//! - **Lenient parsing** (feature `lenient`, on by default): [`parse_json`] reads strict JSON at
//!   `serde_json`'s speed and, only when that fails, what the model meant: code fences, prose
//!   around the JSON, truncated output, trailing and missing commas, comments, single and
//!   typographic quotes, unquoted keys, Python literals, `NaN`, cut-off keywords and more. Every
//!   change is recorded as a [`Repair`] with its kind and byte offset, and anything that cannot
//!   be read plainly is refused with a [`JsonError`] naming where. One linear pass, bounded in
//!   depth and size ([`JsonLimits`]).
//! - **Paths** ([`ArgPath`]): where a value sits in a document, written as code reads it.
//! - **Bounded echoes** ([`echo`]): text a model sent, shown back to it cut to a bound and with
//!   control characters escaped.
//!
#![cfg_attr(feature = "lenient", doc = "```")]
#![cfg_attr(not(feature = "lenient"), doc = "```ignore")]
//! use toolwright_json::{JsonLimits, RepairKind, parse_json};
//!
//! let text = "Sure! ```json\n{'city': 'Paris', days: 3,}\n```";
//! let repaired = parse_json(text, &JsonLimits::default()).unwrap();
//! assert_eq!(repaired.value, serde_json::json!({"city": "Paris", "days": 3}));
//! assert!(repaired.repairs.iter().any(|r| r.kind == RepairKind::NonStandardQuotes));
//! ```
//!
//! The modules hidden from this documentation (`tape`, `de`, `value`, `lenient`) are
//! toolwright's own: a strict reader of a document into a flat token list, the one serde
//! deserializer toolwright compiles every tool's arguments against, and values handled without
//! recursion. Their items may change in any release.

#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[doc(hidden)]
pub mod de;
pub mod echo;
#[doc(hidden)]
pub mod lenient;
mod path;
mod source;
mod strict;
#[doc(hidden)]
pub mod tape;
#[doc(hidden)]
pub mod value;

#[cfg(feature = "lenient")]
pub use self::lenient::parse_lenient;
pub use self::lenient::{JsonError, JsonLimits, Repair, RepairKind, Repaired, parse_json};
pub use self::path::{ArgPath, PathSegment};

/// The README's example, run as a doctest (it repairs: the lenient parser is needed).
#[cfg(all(doctest, feature = "lenient"))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
