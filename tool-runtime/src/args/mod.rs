//! Turning a call's arguments into a tool's typed arguments.
//!
//! The default handling, used by every tool that does not supply its own `parse_args`:
//! 1. strict fast path: serde straight from the text (or value) into the typed arguments;
//! 2. only when that fails, the diagnosis: decode to a JSON object, check the argument names
//!    against the schema (missing required ones, unknown ones with close matches), then serde
//!    again with the failing field's path.

mod error;
mod lenient;

use std::borrow::Cow;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

pub use self::error::{ArgumentError, NameProblems, UnknownArgument};
pub use self::lenient::{
    JsonError, JsonLimits, Repair, RepairKind, Repaired, parse_json, parse_lenient,
};
use crate::call::Arguments;
use crate::names::close_matches;
use crate::schema::ParamTable;

/// Decodes a call's arguments to a JSON object: `""`, whitespace and `null` become `{}`.
///
/// # Errors
/// When the text is not JSON, or the JSON is not an object.
pub fn decode_arguments(
    arguments: &Arguments,
) -> Result<Cow<'_, Map<String, Value>>, ArgumentError> {
    let value = match arguments {
        Arguments::Text(text) if text.trim().is_empty() => return Ok(Cow::Owned(Map::new())),
        Arguments::Text(text) => Cow::Owned(serde_json::from_str::<Value>(text).map_err(|e| {
            ArgumentError::InvalidJson {
                message: strip_position(&e),
                line: e.line(),
                column: e.column(),
            }
        })?),
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

fn first_non_space(text: &str) -> Option<u8> {
    text.bytes().find(|b| !b.is_ascii_whitespace())
}

fn strip_position(error: &serde_json::Error) -> String {
    let text = error.to_string();
    match text.rfind(" at line ") {
        Some(at) => format!(
            "{} at line {}, column {}",
            &text[..at],
            error.line(),
            error.column()
        ),
        None => text,
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Checks argument names against a tool's parameters: every missing required argument and every
/// unknown one (when the schema rejects unknown ones), reported together.
pub(crate) fn check_names(
    table: &ParamTable,
    map: &Map<String, Value>,
) -> Result<(), NameProblems> {
    let missing: Vec<String> = table
        .required
        .iter()
        .filter(|name| !map.contains_key(name.as_str()))
        .cloned()
        .collect();
    let unknown: Vec<UnknownArgument> = if table.closed {
        map.keys()
            .filter(|key| !table.accepts(key))
            .map(|key| UnknownArgument {
                name: key.clone(),
                suggestions: close_matches(key, table.accepted.iter().map(String::as_str)),
            })
            .collect()
    } else {
        Vec::new()
    };
    let problems = NameProblems {
        missing,
        unknown,
        required: table.required.clone(),
        accepted: table.accepted.clone(),
    };
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

/// The default argument handling; see the module docs. The strict fast path is right only for
/// argument types that enforce the schema's names themselves, as the generated ones do
/// (`deny_unknown_fields`, required fields).
///
/// # Errors
/// Everything that is wrong, as an [`ArgumentError`] whose `Display` is the message for the model.
pub(crate) fn parse_default<T: DeserializeOwned>(
    table: &ParamTable,
    arguments: &Arguments,
) -> Result<T, ArgumentError> {
    // Only objects take the fast path: serde's derived structs would also accept an array.
    let fast = match arguments {
        Arguments::Text(text) if first_non_space(text) == Some(b'{') => {
            serde_json::from_str::<T>(text).ok()
        }
        Arguments::Json(value @ Value::Object(_)) => T::deserialize(value).ok(),
        _ => None,
    };
    match fast {
        Some(parsed) => Ok(parsed),
        None => parse_checked(table, arguments),
    }
}

/// The diagnosing argument handling, without the fast path: for argument types that do not
/// themselves enforce the schema's required and unknown names (a JSON map, say).
///
/// # Errors
/// Everything that is wrong, as an [`ArgumentError`].
pub(crate) fn parse_checked<T: DeserializeOwned>(
    table: &ParamTable,
    arguments: &Arguments,
) -> Result<T, ArgumentError> {
    let mut map = decode_arguments(arguments)?;
    check_names(table, &map).map_err(|problems| ArgumentError::Names(Box::new(problems)))?;
    if !table.closed && table.known && map.keys().any(|key| !table.accepts(key)) {
        // Unknown arguments are ignored by this tool's policy: drop them before serde sees them.
        map.to_mut().retain(|key, _| table.accepts(key));
    }
    deserialize_map(map.into_owned())
}

fn deserialize_map<T: DeserializeOwned>(map: Map<String, Value>) -> Result<T, ArgumentError> {
    let value = Value::Object(map);
    serde_path_to_error::deserialize(&value).map_err(|error| ArgumentError::InvalidValue {
        path: error.path().to_string(),
        message: error.into_inner().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Search {
        query: String,
        limit: Option<u32>,
    }

    fn table(closed: bool) -> ParamTable {
        ParamTable::from_schema(&json!({
            "type": "object",
            "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
            "required": ["query"],
            "additionalProperties": !closed,
        }))
    }

    #[test]
    fn valid_text_and_values_parse() {
        let want = Search {
            query: "rust".into(),
            limit: Some(3),
        };
        let text = Arguments::from(r#"{"query":"rust","limit":3}"#);
        assert_eq!(parse_default::<Search>(&table(true), &text).unwrap(), want);
        let value = Arguments::from(json!({"query": "rust", "limit": 3}));
        assert_eq!(parse_default::<Search>(&table(true), &value).unwrap(), want);
    }

    #[test]
    fn missing_and_misspelled_names_come_together() {
        let args = Arguments::from(r#"{"querry": "rust", "limt": 3}"#);
        let err = parse_default::<Search>(&table(true), &args).unwrap_err();
        let ArgumentError::Names(problems) = &err else {
            panic!("{err:?}")
        };
        assert_eq!(problems.missing, ["query"]);
        assert_eq!(problems.unknown.len(), 2);
        assert_eq!(problems.unknown[0].suggestions, ["query"]);
        assert_eq!(problems.unknown[1].suggestions, ["limit"]);
    }

    #[test]
    fn unknown_names_are_dropped_when_the_schema_allows_them() {
        let args = Arguments::from(r#"{"query": "rust", "verbose": true}"#);
        let parsed = parse_default::<Search>(&table(false), &args).unwrap();
        assert_eq!(parsed.query, "rust");
    }

    #[test]
    fn arrays_are_not_taken_for_objects() {
        #[derive(Debug, Deserialize)]
        #[allow(dead_code)]
        struct Pair {
            a: i64,
            b: i64,
        }
        let err =
            parse_default::<Pair>(&ParamTable::default(), &Arguments::from("[1, 2]")).unwrap_err();
        assert_eq!(err, ArgumentError::NotAnObject { found: "an array" });
        let err = parse_default::<Pair>(&ParamTable::default(), &Arguments::from(json!([1, 2])))
            .unwrap_err();
        assert_eq!(err, ArgumentError::NotAnObject { found: "an array" });
    }

    #[test]
    fn type_errors_name_the_path() {
        let args = Arguments::from(r#"{"query": "rust", "limit": "many"}"#);
        let err = parse_default::<Search>(&table(true), &args).unwrap_err();
        assert_eq!(
            err,
            ArgumentError::InvalidValue {
                path: "limit".into(),
                message: "invalid type: string \"many\", expected u32".into(),
            }
        );
        assert!(!err.to_string().contains("line"));
    }

    #[test]
    fn empty_and_null_arguments_are_an_empty_object() {
        for args in [
            Arguments::from(""),
            Arguments::from(" "),
            Arguments::from("null"),
            Arguments::from(Value::Null),
        ] {
            assert!(decode_arguments(&args).unwrap().is_empty(), "{args:?}");
        }
    }

    #[test]
    fn broken_json_and_non_objects_are_reported() {
        let err = decode_arguments(&Arguments::from(r#"{"a": 1"#)).unwrap_err();
        assert!(
            matches!(err, ArgumentError::InvalidJson { line: 1, .. }),
            "{err:?}"
        );
        let err = decode_arguments(&Arguments::from("[1, 2]")).unwrap_err();
        assert_eq!(err, ArgumentError::NotAnObject { found: "an array" });
    }
}
