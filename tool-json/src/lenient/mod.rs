//! Lenient JSON: what a model meant, from what it sent.
//!
//! [`parse_json`] tries strict `serde_json` first and runs the lenient parser only when that fails,
//! so valid input pays nothing extra. The lenient parser is one forward pass (linear time, memory
//! proportional to the input), bounded in nesting depth and input size, and records every repair
//! it makes with its kind and byte offset.
//!
//! The policy: take what the model meant when one reading is plain, record what was changed, and
//! otherwise say where reading stopped. What it recovers:
//! - around the JSON: markdown code fences (also a closing fence inside the JSON, which ends it),
//!   prose before the first bracket, a list bullet (`- {..}`), a wrapper call (`callback({..})`),
//!   text after the value (one value is read; the rest is recorded as trailing text);
//! - truncated output: objects, arrays and strings left open are closed; a member cut off before
//!   its value is dropped (and recorded), never given an invented value;
//! - punctuation: trailing and stray commas, missing commas between members or items, a missing
//!   colon (or `=`), `//` and `/* */` comments, mismatched closing brackets (they close the
//!   enclosing container), `...` placeholders;
//! - strings: single, typographic and back quotes, unquoted keys, bare words as values inside
//!   brackets, raw control characters, invalid escapes (`\q` is `q`, a broken `\u` stays text,
//!   a lone surrogate becomes U+FFFD), a double quote inside a string that cannot have closed it
//!   (`"the "best" one"`), concatenation with `+`, escaped JSON (`{\"a\": 1}`);
//! - literals: Python's `True`/`False`/`None` and upper-case forms, `undefined`, keywords cut off
//!   (`tru`, `fal`, `nul`, a single letter at the end), `NaN`/`Infinity`/out-of-range numbers
//!   (JSON cannot hold them: `null`), `+1`, `.5`, `2.`, `1e`.
//!
//! What it refuses, with a [`JsonError`] naming the byte offset and the reason: input with no JSON
//! value in it (prose alone), a key followed directly by `,` or `}` (`{"a", "b"}`), anything else
//! it cannot place, and anything past the limits. Where this differs from jsonrepair, `json_repair`
//! and typia's `LlmJson` (which also differ from each other), `tests/data/lenient/differences.json`
//! lists the cases with the reason.

use std::cell::Cell;
use std::fmt;

use serde::Serialize;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// Bounds on the input the lenient parser accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JsonLimits {
    /// Deepest nesting of objects and arrays (default 128, the limit of `serde_json` itself).
    pub max_depth: usize,
    /// Longest input in bytes (default 8 MiB).
    pub max_len: usize,
}

impl Default for JsonLimits {
    fn default() -> Self {
        JsonLimits {
            max_depth: 128,
            max_len: 8 << 20,
        }
    }
}

/// What kind of fix the lenient parser made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RepairKind {
    /// A markdown code fence (```` ```json ````) around the JSON was removed.
    CodeFence,
    /// Text before the JSON was skipped.
    LeadingText,
    /// Text after the JSON was skipped.
    TrailingText,
    /// A comment was removed.
    Comment,
    /// An object was not closed (truncated output); it was closed.
    UnclosedObject,
    /// An array was not closed; it was closed.
    UnclosedArray,
    /// A string was not closed; it was closed.
    UnclosedString,
    /// A comma before a closing bracket was removed.
    TrailingComma,
    /// A comma with nothing before it was removed.
    StrayComma,
    /// A missing comma between two members or elements was inserted.
    MissingComma,
    /// A missing colon between a key and its value was inserted.
    MissingColon,
    /// A member whose key or value was cut off at the end of the input was dropped.
    TruncatedMember,
    /// A key with no value after it (`{"a": , "b": 1}`) was dropped.
    MissingValue,
    /// A key without quotes was quoted.
    UnquotedKey,
    /// A value without quotes (a bare word) was read as a string.
    UnquotedString,
    /// A string in single, typographic or back quotes was read as a JSON string.
    NonStandardQuotes,
    /// A double quote inside a string that cannot have closed it was kept as text.
    UnescapedQuote,
    /// Strings joined with `+` were concatenated.
    StringConcatenation,
    /// A raw newline, tab or other control character inside a string was escaped.
    ControlCharacter,
    /// An escape sequence JSON does not have (`\q`) was read as the character escaped; a broken
    /// `\u` escape is kept as text, and a lone surrogate becomes U+FFFD.
    InvalidEscape,
    /// `True`, `False` or `None` (Python), or a keyword in another case, was read as JSON's.
    PythonLiteral,
    /// A keyword cut off (`tru`, `fal`, `nul`, or `t` at the end of the input) was completed.
    IncompleteKeyword,
    /// `undefined` was read as `null`.
    Undefined,
    /// `NaN` or `Infinity`, which JSON cannot hold, was read as `null`.
    NonFiniteNumber,
    /// A number in a form JSON does not allow (`+1`, `.5`, `2.`, `1e`) was normalised.
    NumberFormat,
    /// An unrecognised invisible or non-breaking space was skipped.
    Whitespace,
    /// A key appeared twice in one object (`{"limit": 500, "limit": 5}`). The later value is
    /// taken, as by `serde_json` and JavaScript's `JSON.parse`; the offset is the later key's.
    DuplicateKey,
}

impl RepairKind {
    /// Whether this repair means the text ended early (an unclosed string, object or array, a
    /// member cut off at the end): what it closes may not be what the model meant
    /// (`CutOff`).
    pub fn is_cut_off(self) -> bool {
        matches!(
            self,
            RepairKind::UnclosedObject
                | RepairKind::UnclosedArray
                | RepairKind::UnclosedString
                | RepairKind::TruncatedMember
        )
    }
}

/// One fix the lenient parser made: its kind and the byte offset in the input where it applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct Repair {
    /// What was fixed.
    pub kind: RepairKind,
    /// Byte offset in the input.
    pub offset: usize,
}

/// JSON read leniently, with the repairs it needed (none for valid JSON).
#[derive(Debug, Clone, PartialEq)]
pub struct Repaired {
    /// The value.
    pub value: Value,
    /// Every repair, in input order.
    pub repairs: Vec<Repair>,
}

/// Input the lenient parser could not understand.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason} at byte {offset} (line {line}, column {column})")]
pub struct JsonError {
    /// Why the input could not be read.
    pub reason: String,
    /// Byte offset in the input where it went wrong.
    pub offset: usize,
    /// 1-based line of `offset`.
    pub line: usize,
    /// 1-based column (in characters) of `offset`.
    pub column: usize,
}

impl JsonError {
    fn at(text: &str, offset: usize, reason: impl Into<String>) -> Self {
        let offset = offset.min(text.len());
        let (line, column) = line_column(text, offset);
        JsonError {
            reason: reason.into(),
            offset,
            line,
            column,
        }
    }
}

/// The 1-based line and column (in characters) of a byte offset in `text`.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text.as_bytes()[..offset.min(text.len())];
    let line = before.split(|&b| b == b'\n').count();
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    (line, column)
}

/// A repair that dropped what was sent, so that the arguments pipeline refuses it rather than
/// pass on a stand-in: `NaN`, `Infinity` and numbers beyond a double's range read as `null`,
/// which for an optional argument would mean "not given". The error shows the token as sent,
/// cut to a bound.
pub fn lost_value(text: &str, repairs: &[Repair]) -> Option<JsonError> {
    let repair = repairs
        .iter()
        .find(|repair| repair.kind == RepairKind::NonFiniteNumber)?;
    let rest = text.get(repair.offset..).unwrap_or_default();
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
        .unwrap_or(rest.len());
    let token = crate::echo::bare(&rest[..end]);
    Some(JsonError::at(
        text,
        repair.offset,
        format!("`{token}` is not a number JSON can hold"),
    ))
}

/// The error for strict reading of text with a key twice in one object, at the later key.
/// (Without the lenient parser, which finds the place, the error points at the start.)
pub fn duplicate_key(text: &str, limits: &JsonLimits) -> JsonError {
    #[cfg(not(feature = "lenient"))]
    let offset = {
        let _ = limits;
        0
    };
    #[cfg(feature = "lenient")]
    let offset = parse_lenient(text, limits)
        .ok()
        .and_then(|read| {
            read.repairs
                .iter()
                .find(|repair| repair.kind == RepairKind::DuplicateKey)
                .map(|repair| repair.offset)
        })
        .unwrap_or(0);
    JsonError::at(
        text,
        offset,
        "a key appears twice in one object, so which value is meant is unclear",
    )
}

/// Parses JSON, strictly when it is valid and leniently when it is not.
///
/// # Errors
/// When the input is longer than `limits.max_len`, nests deeper than `limits.max_depth`, or holds
/// nothing the parser can read as JSON.
///
#[cfg_attr(feature = "lenient", doc = "```")]
#[cfg_attr(not(feature = "lenient"), doc = "```ignore")]
/// use toolwright_json::{JsonLimits, RepairKind, parse_json};
///
/// let repaired = parse_json("```json\n{'city': 'Paris', days: 3,}\n```", &JsonLimits::default()).unwrap();
/// assert_eq!(repaired.value, serde_json::json!({"city": "Paris", "days": 3}));
/// assert!(repaired.repairs.iter().any(|r| r.kind == RepairKind::TrailingComma));
/// ```
pub fn parse_json(text: &str, limits: &JsonLimits) -> Result<Repaired, JsonError> {
    if text.len() > limits.max_len {
        return Err(too_long(text, limits));
    }
    // serde_json stops at depth 128 itself; a lower limit is checked on what it read. A key
    // sent twice is found by the lenient parser, which records where.
    if let Ok((value, false)) = strict(text)
        && (limits.max_depth >= SERDE_DEPTH
            || crate::value::measure(&value, limits.max_depth, usize::MAX).is_ok())
    {
        return Ok(Repaired {
            value,
            repairs: Vec::new(),
        });
    }
    #[cfg(feature = "lenient")]
    return parse_lenient(text, limits);
    // Strict JSON only: where and why it is not.
    #[cfg(not(feature = "lenient"))]
    Err(match strict(text) {
        Err(error) => strict_error(text, &error),
        Ok((_, true)) => duplicate_key(text, limits),
        Ok(_) => JsonError::at(
            text,
            0,
            format!(
                "it nests deeper than the limit of {} levels",
                limits.max_depth
            ),
        ),
    })
}

/// A `serde_json` error as a [`JsonError`] at its place in `text`.
#[cfg(not(feature = "lenient"))]
fn strict_error(text: &str, error: &serde_json::Error) -> JsonError {
    let mut offset = 0;
    for (index, line) in text.split_inclusive('\n').enumerate() {
        if index + 1 == error.line() {
            offset += line
                .char_indices()
                .nth(error.column().saturating_sub(1))
                .map_or(line.len(), |(at, _)| at);
            break;
        }
        offset += line.len();
    }
    let message = error.to_string();
    let message = message
        .split(" at line ")
        .next()
        .unwrap_or(&message)
        .to_owned();
    JsonError::at(text, offset.min(text.len()), message)
}

const SERDE_DEPTH: usize = 128;

/// Strict JSON, as `serde_json` reads it into a `Value`, and whether some object had a key
/// twice (which `serde_json` resolves silently, the later value winning).
pub fn strict(text: &str) -> Result<(Value, bool), serde_json::Error> {
    let duplicate = Cell::new(false);
    let mut reader = serde_json::Deserializer::from_str(text);
    let value = Strict(&duplicate).deserialize(&mut reader)?;
    reader.end()?;
    Ok((value, duplicate.get()))
}

/// Builds a `Value` as `serde_json` does, noting a key sent twice.
#[derive(Clone, Copy)]
struct Strict<'a>(&'a Cell<bool>);

impl<'de> DeserializeSeed<'de> for Strict<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut map = Map::new();
        while let Some(key) = access.next_key::<String>()? {
            let value = access.next_value_seed(self)?;
            if map.insert(key, value).is_some() {
                self.0.set(true);
            }
        }
        Ok(Value::Object(map))
    }
}

/// Parses JSON with the lenient parser only (no strict attempt first).
#[cfg(feature = "lenient")]
///
/// # Errors
/// As [`parse_json`].
pub fn parse_lenient(text: &str, limits: &JsonLimits) -> Result<Repaired, JsonError> {
    if text.len() > limits.max_len {
        return Err(too_long(text, limits));
    }
    parser::parse(text, limits.max_depth)
}

fn too_long(text: &str, limits: &JsonLimits) -> JsonError {
    JsonError::at(
        text,
        limits.max_len,
        format!(
            "the input is {} bytes, more than the limit of {} bytes",
            text.len(),
            limits.max_len
        ),
    )
}

#[cfg(feature = "lenient")]
mod parser;
#[cfg(all(test, feature = "lenient"))]
mod tests;
