//! Typed reads from a payload, with errors that name the JSON pointer of what is wrong.

use serde_json::{Map, Value};

use super::WireError;

pub(crate) type Object = Map<String, Value>;

/// Where a value is in a payload: a chain of steps on the stack, written out as a JSON pointer
/// only when an error needs it (building a path per chunk would cost more than the chunk).
#[derive(Debug, Clone, Copy)]
pub(crate) struct At<'a> {
    parent: Option<&'a At<'a>>,
    step: Step<'a>,
}

#[derive(Debug, Clone, Copy)]
enum Step<'a> {
    Root,
    Key(&'a str),
    Index(usize),
}

/// The whole payload or chunk.
pub(crate) const ROOT: At<'static> = At {
    parent: None,
    step: Step::Root,
};

impl<'a> At<'a> {
    /// The member `key` of the value here.
    pub(crate) fn key(&'a self, key: &'a str) -> At<'a> {
        At {
            parent: Some(self),
            step: Step::Key(key),
        }
    }

    /// The element `index` of the array here.
    pub(crate) fn index(&'a self, index: usize) -> At<'a> {
        At {
            parent: Some(self),
            step: Step::Index(index),
        }
    }

    /// The JSON pointer of this place.
    pub(crate) fn pointer(&self) -> String {
        let mut steps = Vec::new();
        let mut at = Some(self);
        while let Some(here) = at {
            steps.push(here.step);
            at = here.parent;
        }
        let mut pointer = String::new();
        for step in steps.iter().rev() {
            match step {
                Step::Root => {}
                Step::Key(key) => {
                    pointer.push('/');
                    pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
                }
                Step::Index(index) => pointer.push_str(&format!("/{index}")),
            }
        }
        pointer
    }
}

impl From<At<'_>> for String {
    fn from(at: At<'_>) -> String {
        at.pointer()
    }
}

impl From<&At<'_>> for String {
    fn from(at: &At<'_>) -> String {
        at.pointer()
    }
}

pub(crate) use crate::error::kind_of as kind;

fn expected(at: &At, what: &str, found: &Value) -> WireError {
    WireError::new(
        at.pointer(),
        format!("expected {what}, found {}", kind(found)),
    )
}

/// The value as an object.
pub(crate) fn object<'a>(value: &'a Value, path: &At) -> Result<&'a Object, WireError> {
    value
        .as_object()
        .ok_or_else(|| expected(path, "an object", value))
}

/// A member read as `what` by `read`: `None` when absent or `null`, an error naming its place
/// when it is something else.
fn typed<'a, T>(
    map: &'a Object,
    key: &str,
    path: &At,
    what: &str,
    read: impl FnOnce(&'a Value) -> Option<T>,
) -> Result<Option<T>, WireError> {
    match map.get(key).filter(|value| !value.is_null()) {
        None => Ok(None),
        Some(value) => read(value)
            .map(Some)
            .ok_or_else(|| expected(&path.key(key), what, value)),
    }
}

/// A string member, `None` when absent or `null`.
pub(crate) fn opt_str<'a>(
    map: &'a Object,
    key: &str,
    path: &At,
) -> Result<Option<&'a str>, WireError> {
    typed(map, key, path, "a string", Value::as_str)
}

/// A string member that must be there.
pub(crate) fn req_str<'a>(map: &'a Object, key: &str, path: &At) -> Result<&'a str, WireError> {
    opt_str(map, key, path)?
        .ok_or_else(|| WireError::new(path.key(key).pointer(), format!("`{key}` is missing")))
}

/// An array member, empty when absent or `null`.
pub(crate) fn opt_array<'a>(
    map: &'a Object,
    key: &str,
    path: &At,
) -> Result<&'a [Value], WireError> {
    Ok(typed(map, key, path, "an array", |v| {
        v.as_array().map(Vec::as_slice)
    })?
    .unwrap_or(&[]))
}

/// An object member, `None` when absent or `null`.
pub(crate) fn opt_object<'a>(
    map: &'a Object,
    key: &str,
    path: &At,
) -> Result<Option<&'a Object>, WireError> {
    typed(map, key, path, "an object", Value::as_object)
}

/// A non-negative integer member, `None` when absent or `null`.
pub(crate) fn opt_index(map: &Object, key: &str, path: &At) -> Result<Option<usize>, WireError> {
    typed(map, key, path, "a non-negative integer", |v| {
        v.as_u64().and_then(|n| usize::try_from(n).ok())
    })
}

/// A boolean member, `false` when absent or `null`.
pub(crate) fn flag(map: &Object, key: &str, path: &At) -> Result<bool, WireError> {
    Ok(typed(map, key, path, "a boolean", Value::as_bool)?.unwrap_or(false))
}

/// A member toolwright does not need to find the calls (a stop reason, a status): its text when
/// it is a string. Anything else never costs the calls beside it: it is kept as it came (its
/// JSON text) and reported in `warnings` (Vertex AI sends `finishReason` as a number when a client
/// asks for enums as integers).
pub(crate) fn loose_str(
    map: &Object,
    key: &str,
    path: &At,
    warnings: &mut Vec<WireError>,
) -> Option<String> {
    match map.get(key) {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(text.clone()),
        Some(other) => {
            let text = toolwright_json::value::to_text(other);
            warnings.push(WireError::new(
                path.key(key),
                format!(
                    "expected a string, found {}; kept as it came: {}",
                    kind(other),
                    toolwright_json::echo::bare(&text)
                ),
            ));
            Some(text)
        }
    }
}

/// A boolean member toolwright does not need to find the calls (Gemini's `thought`): `false`
/// when absent; a value of another type is reported in `warnings` and read as `false`.
pub(crate) fn loose_flag(
    map: &Object,
    key: &str,
    path: &At,
    warnings: &mut Vec<WireError>,
) -> bool {
    match map.get(key) {
        None | Some(Value::Null) => false,
        Some(Value::Bool(on)) => *on,
        Some(other) => {
            warnings.push(WireError::new(
                path.key(key),
                format!("expected a boolean, found {}; read as false", kind(other)),
            ));
            false
        }
    }
}

/// Text the model wrote, appended to `out`: a string, or an array of parts whose `text` members
/// are taken (Mistral streams `delta.content` as parts; parts of other kinds, thinking or
/// images, are not text). Anything else is reported in `warnings`, never an error.
pub(crate) fn loose_text(
    value: Option<&Value>,
    path: &At,
    out: &mut String,
    warnings: &mut Vec<WireError>,
) {
    match value {
        None | Some(Value::Null) => {}
        Some(Value::String(text)) => out.push_str(text),
        Some(Value::Array(parts)) => {
            for (at, part) in parts.iter().enumerate() {
                match part {
                    Value::String(text) => out.push_str(text),
                    Value::Object(part) => {
                        let is_text = matches!(
                            part.get("type").and_then(Value::as_str),
                            None | Some("text" | "output_text")
                        );
                        match part.get("text") {
                            Some(Value::String(text)) if is_text => out.push_str(text),
                            Some(Value::Null) | None => {}
                            Some(_) if !is_text => {}
                            Some(other) => warnings.push(WireError::new(
                                path.index(at).key("text"),
                                format!(
                                    "expected a string, found {}; left out of the text",
                                    kind(other)
                                ),
                            )),
                        }
                    }
                    other => warnings.push(WireError::new(
                        path.index(at),
                        format!(
                            "expected a text part, found {}; left out of the text",
                            kind(other)
                        ),
                    )),
                }
            }
        }
        Some(other) => warnings.push(WireError::new(
            path,
            format!(
                "expected text or an array of parts, found {}; left out of the text",
                kind(other)
            ),
        )),
    }
}

/// A body or chunk that is an error report (`{"error": {"message": ..}}`, or Anthropic's
/// `{"type": "error", ..}`), as an error.
pub(crate) fn refuse_error(root: &Object) -> Result<(), WireError> {
    let error = match root.get("error") {
        Some(Value::Null) | None if root.get("type").and_then(Value::as_str) != Some("error") => {
            return Ok(());
        }
        error => error.unwrap_or(&Value::Null),
    };
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .map_or_else(|| error.to_string(), str::to_owned);
    Err(WireError::new(
        "/error",
        format!("the provider reported an error: {message}"),
    ))
}

/// Refuses a body or chunk without the member every one of its kind has.
pub(crate) fn require(root: &Object, key: &str, what: &str) -> Result<(), WireError> {
    if root.contains_key(key) {
        Ok(())
    } else {
        Err(WireError::new(
            ROOT.key(key),
            format!("`{key}` is missing: not {what}"),
        ))
    }
}

/// The entry of `root[key]` (OpenAI Chat `choices`, Gemini `candidates`) that is answer
/// `choice`: the one whose `index` says so, or, without an `index`, the one at that position.
/// `None` when the array is empty; an error when it holds other answers only.
pub(crate) fn pick_choice<'a>(
    root: &'a Object,
    key: &str,
    choice: usize,
) -> Result<Option<(&'a Object, usize)>, WireError> {
    let entries = opt_array(root, key, &ROOT)?;
    let entries_at = ROOT.key(key);
    let mut numbers = Vec::with_capacity(entries.len());
    for (position, entry) in entries.iter().enumerate() {
        let path = entries_at.index(position);
        let entry = object(entry, &path)?;
        let number = opt_index(entry, "index", &path)?.unwrap_or(position);
        if number == choice {
            return Ok(Some((entry, position)));
        }
        numbers.push(number.to_string());
    }
    if numbers.is_empty() {
        return Ok(None);
    }
    Err(WireError::new(
        entries_at,
        format!(
            "the response has no {key} entry {choice}: its `{key}` are numbered {}",
            numbers.join(", ")
        ),
    ))
}
