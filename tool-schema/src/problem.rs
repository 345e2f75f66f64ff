//! What is wrong with one value in a call's arguments, and where.

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use toolwright_json::ArgPath;

/// What kind of rule a value broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ProblemKind {
    /// A required member is missing.
    Missing,
    /// A member the schema does not accept.
    Unknown,
    /// The value has the wrong type.
    Type,
    /// The value is not one of the allowed values (`enum`, `const`).
    NotAllowed,
    /// A number is out of range or not a multiple of the required step.
    Range,
    /// A string is too short or too long.
    Length,
    /// A string does not match the required pattern.
    Pattern,
    /// A string (or integer) does not have the required format.
    Format,
    /// An array has too few or too many items, duplicates, or lacks a required item.
    Items,
    /// An object has too few or too many members, or a member name or dependency is wrong.
    Members,
    /// The value matches none of the alternatives (`anyOf`, `oneOf`), more than one where only
    /// one may match (`oneOf`), or one it must not (`not`).
    Alternatives,
    /// The schema accepts nothing here.
    Never,
    /// The value passed the schema but the tool's argument type refused it (the schema and
    /// the type disagree; the message is the deserializer's).
    Deserialize,
}

/// One thing wrong with a call's arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// Where.
    pub path: ArgPath,
    /// Which rule.
    pub kind: ProblemKind,
    /// What the schema wants there, in words: `an integer from 1 to 50`.
    pub expected: String,
    /// What was sent, shortened: `"five"`, `0`, `an object`; `nothing` for a missing member.
    pub found: String,
    /// For an unknown member: accepted names it plausibly misspells, best first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suggestions: Vec<String>,
}

impl Problem {
    /// The one problem for arguments whose check ran out of work or depth before its end
    /// (a schema whose unions multiply the work, or references nested past the limit).
    pub fn too_complex() -> Self {
        Problem {
            path: ArgPath::root(),
            kind: ProblemKind::Never,
            expected: "arguments small enough to check".into(),
            found: "arguments too large or too deeply nested for the schema".into(),
            suggestions: Vec::new(),
        }
    }
}

impl fmt::Display for Problem {
    /// One line: `` `limit`: expected an integer from 1 to 50, found 0 ``.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.path.is_root() {
            "the arguments".to_owned()
        } else {
            format!("`{}`", self.path)
        };
        match self.kind {
            ProblemKind::Missing => write!(f, "missing required argument {at} ({})", self.expected),
            ProblemKind::Unknown => {
                write!(f, "unknown argument {at}")?;
                if !self.suggestions.is_empty() {
                    let names: Vec<String> =
                        self.suggestions.iter().map(|s| format!("`{s}`")).collect();
                    write!(f, " (did you mean {}?)", names.join(" or "))?;
                }
                Ok(())
            }
            _ => write!(f, "{at}: expected {}, found {}", self.expected, self.found),
        }
    }
}

/// A short rendering of a value for messages: scalars as JSON (long strings cut), containers
/// by kind and size.
pub fn show(value: &Value) -> String {
    match value {
        Value::String(s) if s.chars().count() > 40 => {
            let cut: String = s.chars().take(37).collect();
            let quoted = Value::from(cut).to_string();
            let inner = &quoted[1..quoted.len() - 1];
            format!("\"{inner}...\" ({} characters)", s.chars().count())
        }
        Value::Array(items) => match items.len() {
            0 => "an empty array".into(),
            1 => "an array of 1 item".into(),
            n => format!("an array of {n} items"),
        },
        Value::Object(map) if map.is_empty() => "an empty object".into(),
        Value::Object(_) => "an object".into(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_are_shown_short() {
        assert_eq!(show(&json!("five")), "\"five\"");
        assert_eq!(show(&json!([1, 2])), "an array of 2 items");
        let long = "x".repeat(100);
        assert_eq!(
            show(&json!(long)),
            format!("\"{}...\" (100 characters)", "x".repeat(37))
        );
    }
}
