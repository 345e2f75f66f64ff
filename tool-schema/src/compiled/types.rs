//! JSON types as a bit set, and what counts as an integer.

use crate::number::is_integral;
use serde_json::Value;

/// JSON types as a bit set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Types(pub(super) u8);

impl Types {
    pub const NULL: Types = Types(1);
    pub const BOOLEAN: Types = Types(2);
    pub const INTEGER: Types = Types(4);
    pub const NUMBER: Types = Types(8);
    pub const STRING: Types = Types(16);
    pub const ARRAY: Types = Types(32);
    pub const OBJECT: Types = Types(64);
    pub const ANY: Types = Types(127);

    pub(super) fn named(name: &str) -> Option<Types> {
        Some(match name {
            "null" => Types::NULL,
            "boolean" => Types::BOOLEAN,
            "integer" => Types::INTEGER,
            "number" => Types::NUMBER,
            "string" => Types::STRING,
            "array" => Types::ARRAY,
            "object" => Types::OBJECT,
            _ => return None,
        })
    }

    pub fn has(self, other: Types) -> bool {
        self.0 & other.0 != 0
    }

    pub fn union(self, other: Types) -> Types {
        Types(self.0 | other.0)
    }

    /// The type of a value; an integral number is an integer (and so also a number).
    pub fn of(value: &Value) -> Types {
        match value {
            Value::Null => Types::NULL,
            Value::Bool(_) => Types::BOOLEAN,
            Value::Number(n) if is_integral(n) => Types(Types::INTEGER.0 | Types::NUMBER.0),
            Value::Number(_) => Types::NUMBER,
            Value::String(_) => Types::STRING,
            Value::Array(_) => Types::ARRAY,
            Value::Object(_) => Types::OBJECT,
        }
    }

    /// Whether a value of type `value` is accepted (`number` accepts integers).
    pub fn accepts(self, value: Types) -> bool {
        self.has(value)
    }

    /// `a string`, `an integer or null`, ...
    pub fn describe(self) -> String {
        if self == Types::ANY {
            return "any JSON value".into();
        }
        let mut names: Vec<&str> = [
            (Types::STRING, "a string"),
            (Types::INTEGER, "an integer"),
            (Types::NUMBER, "a number"),
            (Types::BOOLEAN, "a boolean"),
            (Types::ARRAY, "an array"),
            (Types::OBJECT, "an object"),
            (Types::NULL, "null"),
        ]
        .into_iter()
        .filter(|(t, _)| self.has(*t))
        .map(|(_, name)| name)
        .collect();
        if self.has(Types::NUMBER) {
            names.retain(|n| *n != "an integer");
        }
        match names.as_slice() {
            [] => "nothing".into(),
            [one] => (*one).into(),
            [init @ .., last] => format!("{} or {last}", init.join(", ")),
        }
    }
}
