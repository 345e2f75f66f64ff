//! Where a value sits in a JSON document: member names and array indexes, written the way code
//! reads them (`data.items[2]`).

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_read_like_code() {
        let path = ArgPath::root().key("data").key("items").index(2);
        assert_eq!(path.to_string(), "data.items[2]");
        assert_eq!(ArgPath::root().to_string(), ".");
        assert_eq!(ArgPath::root().key("a b").to_string(), "[\"a b\"]");
    }
}
