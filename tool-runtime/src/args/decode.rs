//! The first steps of the pipeline: arguments admitted within the limits, then decoded to a JSON
//! object: strict first, the lenient parser only when that fails, cut-off text refused unless the
//! tool runs on it.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::call::Arguments;
pub use crate::error::ArgumentError;
use crate::error::kind_of;
pub use crate::fixes::Fixes;
pub use crate::policy::{ArgumentPolicy, CutOff};
pub use toolwright_json::ArgPath;
use toolwright_json::lenient;
use toolwright_json::value as json;
pub use toolwright_json::{JsonError, JsonLimits, Repaired, parse_json};
pub use toolwright_schema::{Coercion, CoercionKind};

/// Checks a call's arguments against the size and depth limits before anything else looks at
/// them: arguments as text by length (their depth is bounded as they are read), arguments as a
/// value by walking it without recursion. Every way arguments reach a tool passes here first
/// (text or value, from a provider reader, a stream, MCP, or a hook's rewrite), so no recursive
/// copy, walk or deserialization ever sees a value past the limit.
///
/// # Errors
/// [`ArgumentError::TooLarge`] or [`ArgumentError::TooDeep`].
#[inline]
pub fn admit(arguments: &Arguments, limits: &JsonLimits) -> Result<(), ArgumentError> {
    match arguments {
        // On every call's path: a length compared, the error built out of line.
        Arguments::Text(text) if text.len() > limits.max_len => Err(too_large(text.len(), limits)),
        Arguments::Text(_) => Ok(()),
        Arguments::Json(value) => admit_value(value, limits),
    }
}

#[cold]
#[inline(never)]
fn too_large(size: usize, limits: &JsonLimits) -> ArgumentError {
    ArgumentError::TooLarge {
        size,
        limit: limits.max_len,
    }
}

#[inline(never)]
fn admit_value(value: &Value, limits: &JsonLimits) -> Result<(), ArgumentError> {
    json::measure(value, limits.max_depth, limits.max_len).map_err(|exceeded| match exceeded {
        json::Exceeded::Depth(limit) => ArgumentError::TooDeep { limit },
        json::Exceeded::Size { size, limit } => ArgumentError::TooLarge { size, limit },
    })
}

/// Decodes a call's arguments to a JSON object: `""`, whitespace and `null` become `{}`; broken
/// JSON is repaired when the policy allows (repairs are recorded in `fixes`); a JSON string
/// holding the arguments object is read as that object.
///
/// # Errors
/// When the arguments are past the policy's limits ([`admit`]), the text cannot be read as
/// JSON, or the JSON is not an object.
pub fn decode_arguments<'a>(
    arguments: &'a Arguments,
    policy: &ArgumentPolicy,
    fixes: &mut Fixes,
) -> Result<Cow<'a, Map<String, Value>>, ArgumentError> {
    admit(arguments, &policy.limits)?;
    let value = match arguments {
        Arguments::Text(text) => match decode_text(text, policy, fixes)? {
            Value::String(inner) if policy.repair => {
                Cow::Owned(unwrap_string(&inner, policy, fixes)?)
            }
            value => Cow::Owned(value),
        },
        Arguments::Json(Value::String(text)) if policy.repair => {
            Cow::Owned(unwrap_string(text, policy, fixes)?)
        }
        Arguments::Json(value) => Cow::Borrowed(value),
    };
    match value {
        Cow::Owned(Value::Object(map)) => Ok(Cow::Owned(map)),
        Cow::Borrowed(Value::Object(map)) => Ok(Cow::Borrowed(map)),
        Cow::Owned(Value::Null) | Cow::Borrowed(Value::Null) => Ok(Cow::Owned(Map::new())),
        other => Err(ArgumentError::NotAnObject {
            found: kind_of(&other),
        }),
    }
}

/// The arguments object stringified once more than it should be (`"{\"a\": 2}"`, as some
/// OpenAI-compatible servers send it): decoded, and recorded as a coercion of the whole.
fn unwrap_string(
    text: &str,
    policy: &ArgumentPolicy,
    fixes: &mut Fixes,
) -> Result<Value, ArgumentError> {
    let value = decode_text(text, policy, fixes)?;
    if value.is_object() {
        fixes.coercions.push(Coercion {
            path: ArgPath::root(),
            kind: CoercionKind::StringToJson,
        });
    }
    Ok(value)
}

fn decode_text(
    text: &str,
    policy: &ArgumentPolicy,
    fixes: &mut Fixes,
) -> Result<Value, ArgumentError> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    // Its size was checked on the way in (`admit`).
    let limits = &policy.limits;
    let parsed = if policy.repair {
        parse_json(text, limits)
    } else {
        match lenient::strict(text) {
            Ok((value, false)) => Ok(Repaired {
                value,
                repairs: Vec::new(),
            }),
            // Which value was meant is a guess strict reading does not make.
            Ok((_, true)) => Err(lenient::duplicate_key(text, limits)),
            Err(e) => Err(JsonError {
                reason: strip_position(&e),
                offset: 0,
                line: e.line(),
                column: e.column(),
            }),
        }
    };
    match parsed {
        Ok(repaired) => {
            if let Some(error) = lenient::lost_value(text, &repaired.repairs) {
                return Err(ArgumentError::InvalidJson {
                    message: error.reason,
                    line: error.line,
                    column: error.column,
                });
            }
            // A tool's resolved policy says `Run` or `Refuse`; `ReadOnly` left unresolved (no
            // tool in view) refuses.
            if policy.cut_off != CutOff::Run && repaired.repairs.iter().any(|r| r.kind.is_cut_off())
            {
                // Where the text stops: the cut.
                let offset = text.trim_end().len();
                let (line, column) = lenient::line_column(text, offset);
                return Err(ArgumentError::CutOff {
                    offset,
                    line,
                    column,
                });
            }
            fixes.repairs.extend(repaired.repairs);
            Ok(repaired.value)
        }
        // Both parsers stop at the depth limit; say so rather than "not valid".
        Err(_) if nests_deeper(text, limits.max_depth) => Err(ArgumentError::TooDeep {
            limit: limits.max_depth,
        }),
        Err(error) => Err(ArgumentError::InvalidJson {
            message: error.reason,
            line: error.line,
            column: error.column,
        }),
    }
}

/// Whether JSON text opens more than `limit` arrays and objects at once (brackets inside
/// double-quoted strings not counted). Only asked of text that did not parse.
fn nests_deeper(text: &str, limit: usize) -> bool {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for byte in text.bytes() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

pub(super) fn strip_position(error: &serde_json::Error) -> String {
    let text = error.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}

pub(super) fn first_non_space(text: &str) -> Option<u8> {
    text.bytes().find(|b| !b.is_ascii_whitespace())
}
