//! What is wrong with one value in a call's arguments, and where.

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::echo;

/// One step of a path into the arguments: a member name or an array index.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PathSegment {
    /// An object member.
    Key(String),
    /// An array element.
    Index(usize),
}

/// Where a value sits in the arguments: `data.items[2]`; empty for the arguments object itself.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ArgPath(pub Vec<PathSegment>);

impl ArgPath {
    /// The path of the arguments object itself.
    pub fn root() -> Self {
        ArgPath(Vec::new())
    }

    /// Whether this is the arguments object itself.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// This path extended by a member name.
    pub fn key(&self, name: &str) -> Self {
        let mut path = self.clone();
        path.0.push(PathSegment::Key(name.to_owned()));
        path
    }

    /// This path extended by an array index.
    pub fn index(&self, index: usize) -> Self {
        let mut path = self.clone();
        path.0.push(PathSegment::Index(index));
        path
    }

    /// The segments.
    pub fn segments(&self) -> &[PathSegment] {
        &self.0
    }
}

impl fmt::Display for ArgPath {
    /// `data.items[2]`, `tags[0]`, `["odd key"]`; `.` for the root.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str(".");
        }
        for (i, segment) in self.0.iter().enumerate() {
            match segment {
                PathSegment::Key(key) if is_plain(key) && key.len() <= echo::MAX_NAME => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    f.write_str(key)?;
                }
                // A key sent by the model, of any length: cut, with its length.
                PathSegment::Key(key) if key.len() > echo::MAX_NAME => {
                    write!(f, "[{}]", echo::quoted(key))?;
                }
                PathSegment::Key(key) => write!(f, "[{}]", Value::from(key.as_str()))?,
                PathSegment::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

impl Serialize for ArgPath {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

fn is_plain(key: &str) -> bool {
    !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

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
    pub(crate) fn too_complex() -> Self {
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
pub(crate) fn show(value: &Value) -> String {
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
    fn paths_read_like_code() {
        let path = ArgPath::root().key("data").key("items").index(2);
        assert_eq!(path.to_string(), "data.items[2]");
        assert_eq!(ArgPath::root().to_string(), ".");
        assert_eq!(ArgPath::root().key("a b").to_string(), "[\"a b\"]");
    }

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
