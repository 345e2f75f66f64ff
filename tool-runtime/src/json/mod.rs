//! Reading JSON: everything toolwright does with JSON text and values that knows nothing of tools.
//!
//! - [`lenient`]: what a model meant from what it sent ([`parse_json`], [`parse_lenient`]),
//!   every repair recorded.
//! - `tape`: a document read strictly into a flat list of tokens, from text or from a value.
//! - `de`: the one serde deserializer every arguments type is compiled against, over text or a
//!   tape.
//! - `path`: where a value sits in a document ([`ArgPath`]).
//! - `value`: values of any depth and size, measured, copied and dropped without recursion.

pub(crate) mod de;
pub(crate) mod lenient;
mod path;
mod source;
pub(crate) mod tape;
mod value;

pub use self::lenient::{
    JsonError, JsonLimits, Repair, RepairKind, Repaired, parse_json, parse_lenient,
};
pub use self::path::{ArgPath, PathSegment};
pub(crate) use self::value::{
    Exceeded, QUOTE, clone_map, clone_value, dispose, measure, quote_object, to_text, work_budget,
};
