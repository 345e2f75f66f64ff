//! Typed reads from a payload, with errors that name the JSON pointer of what is wrong.

use serde_json::{Map, Value};

use super::WireError;

pub(super) type Object = Map<String, Value>;

/// `path` followed by `key`, as a JSON pointer.
pub(super) fn join(path: &str, key: impl std::fmt::Display) -> String {
    let key = key.to_string();
    format!("{path}/{}", key.replace('~', "~0").replace('/', "~1"))
}

/// What kind of JSON value this is, for messages.
pub(super) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn expected(path: &str, what: &str, found: &Value) -> WireError {
    WireError::new(path, format!("expected {what}, found {}", kind(found)))
}

/// The value as an object.
pub(super) fn object<'a>(value: &'a Value, path: &str) -> Result<&'a Object, WireError> {
    value
        .as_object()
        .ok_or_else(|| expected(path, "an object", value))
}

/// A member that may be absent or `null`.
fn member<'a>(map: &'a Object, key: &str) -> Option<&'a Value> {
    map.get(key).filter(|value| !value.is_null())
}

/// A string member, `None` when absent or `null`.
pub(super) fn opt_str<'a>(
    map: &'a Object,
    key: &str,
    path: &str,
) -> Result<Option<&'a str>, WireError> {
    match member(map, key) {
        None => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(other) => Err(expected(&join(path, key), "a string", other)),
    }
}

/// A string member that must be there.
pub(super) fn req_str<'a>(map: &'a Object, key: &str, path: &str) -> Result<&'a str, WireError> {
    opt_str(map, key, path)?
        .ok_or_else(|| WireError::new(join(path, key), format!("`{key}` is missing")))
}

/// An array member, empty when absent or `null`.
pub(super) fn opt_array<'a>(
    map: &'a Object,
    key: &str,
    path: &str,
) -> Result<&'a [Value], WireError> {
    match member(map, key) {
        None => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(other) => Err(expected(&join(path, key), "an array", other)),
    }
}

/// An object member, `None` when absent or `null`.
pub(super) fn opt_object<'a>(
    map: &'a Object,
    key: &str,
    path: &str,
) -> Result<Option<&'a Object>, WireError> {
    match member(map, key) {
        None => Ok(None),
        Some(Value::Object(inner)) => Ok(Some(inner)),
        Some(other) => Err(expected(&join(path, key), "an object", other)),
    }
}

/// A non-negative integer member, `None` when absent or `null`.
pub(super) fn opt_index(map: &Object, key: &str, path: &str) -> Result<Option<usize>, WireError> {
    match member(map, key) {
        None => Ok(None),
        Some(value) => value
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| expected(&join(path, key), "a non-negative integer", value)),
    }
}

/// A boolean member, `false` when absent or `null`.
pub(super) fn flag(map: &Object, key: &str, path: &str) -> Result<bool, WireError> {
    match member(map, key) {
        None => Ok(false),
        Some(Value::Bool(on)) => Ok(*on),
        Some(other) => Err(expected(&join(path, key), "a boolean", other)),
    }
}
