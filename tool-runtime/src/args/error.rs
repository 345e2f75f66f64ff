//! What is wrong with a call's arguments: one value with two audiences.
//!
//! `Display` is the message for the model: self-contained and actionable, with paths and close
//! matches, never a serde line/column. The variants and fields are the typed detail for the
//! application.

use std::fmt;

use crate::names;

/// Why a call's arguments could not become the tool's typed arguments.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ArgumentError {
    /// The arguments text is not JSON.
    #[error(
        "the arguments are not valid JSON ({message}); send one JSON object of named arguments"
    )]
    InvalidJson {
        /// The parser's description of the problem.
        message: String,
        /// 1-based line of the problem in the arguments text.
        line: usize,
        /// 1-based column of the problem in the arguments text.
        column: usize,
    },
    /// The arguments are JSON, but not an object.
    #[error("the arguments must be a JSON object of named arguments, not {found}")]
    NotAnObject {
        /// What was sent instead: `an array`, `a string`, ...
        found: &'static str,
    },
    /// Required arguments are missing or unknown ones were sent.
    #[error("{0}")]
    Names(Box<NameProblems>),
    /// An argument has the wrong type or value.
    #[error("{}", value_message(path, message))]
    InvalidValue {
        /// Path of the offending value, e.g. `data.items_per_page` or `tags[2]`; `.` for the root.
        path: String,
        /// What serde expected there.
        message: String,
    },
    /// A tool's own `parse_args` rejected the arguments with this message.
    #[error("{0}")]
    Rejected(String),
}

fn value_message(path: &str, message: &str) -> String {
    if path == "." || path.is_empty() {
        format!("the arguments are invalid: {message}")
    } else {
        format!("argument `{path}` is invalid: {message}")
    }
}

/// Missing and unknown argument names, with everything the model needs to fix them in one try.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NameProblems {
    /// Required arguments that were not sent.
    pub missing: Vec<String>,
    /// Arguments the tool does not accept.
    pub unknown: Vec<UnknownArgument>,
    /// Every required argument of the tool.
    pub required: Vec<String>,
    /// Every argument the tool accepts.
    pub accepted: Vec<String>,
}

/// An argument name the tool does not accept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownArgument {
    /// The name as sent.
    pub name: String,
    /// Accepted names it plausibly misspells, best first.
    pub suggestions: Vec<String>,
}

impl NameProblems {
    /// Whether nothing is wrong.
    pub fn is_empty(&self) -> bool {
        self.missing.is_empty() && self.unknown.is_empty()
    }
}

impl fmt::Display for NameProblems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut problems = Vec::new();
        if !self.missing.is_empty() {
            let noun = if self.missing.len() == 1 {
                "argument"
            } else {
                "arguments"
            };
            problems.push(format!(
                "missing required {noun} {}",
                names::list(&self.missing, "and")
            ));
        }
        for unknown in &self.unknown {
            let mut line = format!("unknown argument `{}`", unknown.name);
            if !unknown.suggestions.is_empty() {
                line.push_str(&format!(
                    " (did you mean {}?)",
                    names::list(&unknown.suggestions, "or")
                ));
            }
            problems.push(line);
        }
        f.write_str(&problems.join("; "))?;
        if self.required.is_empty() {
            f.write_str(". This tool has no required arguments")?;
        } else {
            write!(
                f,
                ". Required arguments: {}",
                names::list(&self.required, "and")
            )?;
        }
        if self.accepted.is_empty() {
            f.write_str("; it accepts no arguments.")
        } else {
            write!(
                f,
                "; accepted arguments: {}.",
                names::list(&self.accepted, "and")
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_problems_say_everything_at_once() {
        let problems = NameProblems {
            missing: vec!["query".into()],
            unknown: vec![UnknownArgument {
                name: "file_path".into(),
                suggestions: vec!["path".into()],
            }],
            required: vec!["query".into(), "path".into()],
            accepted: vec!["query".into(), "path".into(), "limit".into()],
        };
        assert_eq!(
            ArgumentError::Names(Box::new(problems)).to_string(),
            "missing required argument `query`; unknown argument `file_path` (did you mean \
             `path`?). Required arguments: `query` and `path`; accepted arguments: `query`, \
             `path` and `limit`."
        );
    }

    #[test]
    fn value_errors_name_the_path_not_a_line() {
        let error = ArgumentError::InvalidValue {
            path: "data.items_per_page".into(),
            message: "invalid type: string \"x\", expected u32".into(),
        };
        assert_eq!(
            error.to_string(),
            "argument `data.items_per_page` is invalid: invalid type: string \"x\", expected u32"
        );
    }
}
