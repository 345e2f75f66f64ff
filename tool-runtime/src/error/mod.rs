//! What is wrong with a call's arguments: one value with two audiences.
//!
//! `Display` is the message for the model: self-contained and actionable, with paths and close
//! matches, never a serde line/column. The variants and fields are the typed detail for the
//! application.

mod feedback;

pub use self::feedback::{AcceptedArgument, InvalidArguments};

/// Why a call's arguments could not become the tool's typed arguments.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ArgumentError {
    /// The arguments text is not JSON, and could not be repaired (or repair is off).
    #[error(
        "the arguments are not valid JSON ({message} at line {line}, column {column}); send one \
         JSON object of named arguments"
    )]
    InvalidJson {
        /// Why the text could not be read.
        message: String,
        /// 1-based line of the problem in the arguments text.
        line: usize,
        /// 1-based column of the problem in the arguments text.
        column: usize,
    },
    /// The arguments text ended early (an unclosed string, object or array: a stream cut, the
    /// model's output limit reached), and the tool does not run on a guess at the rest
    /// ([`CutOff`](crate::args::CutOff)).
    #[error(
        "the arguments stopped early, at line {line}, column {column} (byte {offset}), before \
         their JSON was closed, so the tool was not run: what was cut off may have changed their \
         meaning. Send the whole call again, complete"
    )]
    CutOff {
        /// Byte offset in the arguments text where they stop (its length, trailing whitespace
        /// aside).
        offset: usize,
        /// 1-based line of that place.
        line: usize,
        /// 1-based column of that place.
        column: usize,
    },
    /// The call did not arrive in full (its stream ended before the call's block did), and the
    /// tool does not run on what arrived ([`CutOff`](crate::args::CutOff)).
    #[error(
        "the call did not arrive in full (the response ended before it did), so the tool was \
         not run. Send the whole call again, complete"
    )]
    IncompleteCall,
    /// The arguments nest more arrays and objects than the toolbox's limit
    /// ([`JsonLimits::max_depth`](crate::args::JsonLimits::max_depth)), as text or as a value.
    #[error(
        "the arguments nest deeper than the limit of {limit} levels of objects and arrays; send \
         a flatter JSON object of named arguments"
    )]
    TooDeep {
        /// The limit.
        limit: usize,
    },
    /// The arguments are larger than the toolbox's limit
    /// ([`JsonLimits::max_len`](crate::args::JsonLimits::max_len)): as text, its length in
    /// bytes; as a value, the length of its compact JSON text.
    #[error(
        "the arguments are too large: {size} bytes, more than the limit of {limit} bytes; send \
         a smaller JSON object of named arguments"
    )]
    TooLarge {
        /// How large they are, in bytes.
        size: usize,
        /// The limit, in bytes.
        limit: usize,
    },
    /// The arguments are JSON, but not an object.
    #[error("the arguments must be a JSON object of named arguments, not {found}")]
    NotAnObject {
        /// What was sent instead: `an array`, `a string`, ...
        found: &'static str,
    },
    /// The arguments break the tool's schema: every problem, with paths, what was expected
    /// and found, and what the tool accepts.
    #[error("{0}")]
    Invalid(Box<InvalidArguments>),
    /// A tool's own `parse_args` rejected the arguments with this message.
    #[error("{0}")]
    Rejected(String),
}

impl ArgumentError {
    /// The schema problems, when the arguments were JSON but invalid.
    pub fn invalid(&self) -> Option<&InvalidArguments> {
        match self {
            ArgumentError::Invalid(invalid) => Some(invalid),
            _ => None,
        }
    }
}

/// What kind of JSON value this is, for messages ("a string", "null").
pub(crate) fn kind_of(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
