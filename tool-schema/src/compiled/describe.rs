//! What a schema node accepts, in words, for messages to the model.

use std::fmt::Write as _;

use serde_json::Value;

use super::{CompiledSchema, NodeId, Types};
use crate::format::Format;

impl CompiledSchema {
    /// A short description of what a node accepts, for messages: `an integer from 1 to 50`,
    /// `one of "celsius" or "fahrenheit"`, `an array of strings`.
    pub fn describe(&self, id: NodeId) -> String {
        self.describe_within(id, 0)
    }

    /// When every branch is a `const`, an `enum` or `null` (as schemars writes unit enums and
    /// `Option`s of them), the values they allow, in order.
    fn listed_values(&self, branches: &[NodeId]) -> Option<Vec<Value>> {
        self.listed_values_within(branches, 0)
    }

    fn listed_values_within(&self, branches: &[NodeId], depth: usize) -> Option<Vec<Value>> {
        if depth > 8 {
            return None;
        }
        let mut values = Vec::new();
        for branch in branches {
            let node = &self.nodes[self.resolve(*branch)];
            if let Some(constant) = &node.constant {
                values.push(constant.clone());
            } else if let Some(listed) = &node.enumeration {
                values.extend(listed.iter().cloned());
            } else if node.types == Some(Types::NULL) {
                values.push(Value::Null);
            } else if !node.one_of.is_empty() || !node.any_of.is_empty() {
                let inner = if node.any_of.is_empty() {
                    &node.one_of
                } else {
                    &node.any_of
                };
                if inner.contains(branch) {
                    return None;
                }
                values.extend(self.listed_values_within(inner, depth + 1)?);
            } else {
                return None;
            }
        }
        Some(values)
    }

    fn describe_within(&self, id: NodeId, depth: usize) -> String {
        let id = self.resolve(id);
        let node = &self.nodes[id];
        if depth > 3 {
            return self.types_of(id).describe();
        }
        if let Some(value) = &node.constant {
            return format!("exactly {value}");
        }
        if let Some(values) = &node.enumeration {
            return one_of_values(values);
        }
        let branches = if node.any_of.is_empty() {
            &node.one_of
        } else {
            &node.any_of
        };
        if !branches.is_empty() && node.types.is_none() {
            if let Some(values) = self.listed_values(branches) {
                return one_of_values(&values);
            }
            let mut parts: Vec<String> = Vec::new();
            for branch in branches {
                let text = self.describe_within(*branch, depth + 1);
                if !parts.contains(&text) {
                    parts.push(text);
                }
            }
            return join_or(&parts);
        }
        let mut types = self.types_of(id);
        if types == Types::ANY {
            // Rules of one type only, with no `type` beside them (a schema written by hand): the
            // model is told that type, which the rules are about.
            types = node.implied_type().unwrap_or(types);
        }
        // `an integer at least 0, or null`: bounds belong to the non-null part.
        let nullable = types.has(Types::NULL) && types != Types::NULL && types != Types::ANY;
        let base = if nullable {
            Types(types.0 & !Types::NULL.0)
        } else {
            types
        };
        let mut text = base.describe();
        // The items of an array, also through a `$ref` with rules beside it.
        let items = node.items.or_else(|| {
            node.reference
                .and_then(|target| self.nodes[self.resolve(target)].items)
        });
        if base == Types::ARRAY
            && let Some(items) = items
        {
            let inner = self.describe_within(items, depth + 1);
            text = format!("an array of {}", plural(&inner));
        }
        for bound in bounds(node) {
            let _ = write!(text, " {bound}");
        }
        if nullable {
            text.push_str(", or null");
        }
        text
    }
}

impl super::Node {
    /// The one type the node's rules are about, when they are all of one type's.
    fn implied_type(&self) -> Option<Types> {
        let string = self.pattern.is_some()
            || self.min_length.is_some()
            || self.max_length.is_some()
            || self
                .format
                .as_ref()
                .is_some_and(|f| f.is_checked() && f.integer_range().is_none());
        let number = self.minimum.is_some()
            || self.maximum.is_some()
            || self.exclusive_minimum.is_some()
            || self.exclusive_maximum.is_some()
            || self.multiple_of.is_some();
        let array = self.items.is_some()
            || self.min_items.is_some()
            || self.max_items.is_some()
            || self.unique_items;
        match (string, number, array) {
            (true, false, false) => Some(Types::STRING),
            (false, true, false) => Some(Types::NUMBER),
            (false, false, true) => Some(Types::ARRAY),
            _ => None,
        }
    }
}

/// A node's bounds in words: `from 1 to 50`, `of at most 3 characters`, `without duplicates`.
fn bounds(node: &super::Node) -> Vec<String> {
    let mut bounds = Vec::new();
    // A narrow integer format (`int32`, ...) with no `minimum` or `maximum` beside it bounds
    // the value by itself: its range is said. (64-bit formats are left as "an integer":
    // their range is the machine's, not the tool's, and reads as noise.)
    let (mut low, mut high) = (
        node.minimum.as_ref().map(number),
        node.maximum.as_ref().map(number),
    );
    if let Some(Format::Integer { min, max }) = &node.format
        && low.is_none()
        && high.is_none()
        && *max <= i128::from(u32::MAX)
    {
        (low, high) = (Some(min.to_string()), Some(max.to_string()));
    }
    match (low, high) {
        (Some(min), Some(max)) => bounds.push(format!("from {min} to {max}")),
        (Some(min), None) => bounds.push(format!("at least {min}")),
        (None, Some(max)) => bounds.push(format!("at most {max}")),
        (None, None) => {}
    }
    if let Some(min) = &node.exclusive_minimum {
        bounds.push(format!("greater than {}", number(min)));
    }
    if let Some(max) = &node.exclusive_maximum {
        bounds.push(format!("less than {}", number(max)));
    }
    if let Some(step) = &node.multiple_of {
        bounds.push(format!("a multiple of {}", number(step)));
    }
    if let Some(format) = &node.format
        && let Some(name) = format.describe()
    {
        bounds.push(name);
    }
    let characters = |n: usize| if n == 1 { "character" } else { "characters" };
    match (node.min_length, node.max_length) {
        (Some(min), Some(max)) if min == max => {
            bounds.push(format!("of exactly {min} {}", characters(min)));
        }
        (Some(min), Some(max)) => bounds.push(format!("of {min} to {max} characters")),
        (Some(min), None) => bounds.push(format!("of at least {min} {}", characters(min))),
        (None, Some(max)) => bounds.push(format!("of at most {max} {}", characters(max))),
        (None, None) => {}
    }
    if let Some((pattern, _)) = &node.pattern {
        bounds.push(format!("matching /{pattern}/"));
    }
    let items = |n: usize| if n == 1 { "item" } else { "items" };
    match (node.min_items, node.max_items) {
        (Some(min), Some(max)) if min == max => {
            bounds.push(format!("with exactly {min} {}", items(min)));
        }
        (Some(min), Some(max)) => bounds.push(format!("with {min} to {max} items")),
        (Some(min), None) => bounds.push(format!("with at least {min} {}", items(min))),
        (None, Some(max)) => bounds.push(format!("with at most {max} {}", items(max))),
        (None, None) => {}
    }
    if node.unique_items {
        bounds.push("without duplicates".into());
    }
    bounds
}

pub fn one_of_values(values: &[Value]) -> String {
    let shown: Vec<String> = values.iter().take(12).map(Value::to_string).collect();
    let mut text = match shown.as_slice() {
        [one] => format!("exactly {one}"),
        [init @ .., last] => format!("one of {} or {last}", init.join(", ")),
        [] => "nothing".to_owned(),
    };
    if values.len() > shown.len() {
        let _ = write!(text, " (and {} more)", values.len() - shown.len());
    }
    text
}

pub fn join_or(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn plural(description: &str) -> String {
    const NAMES: [(&str, &str); 8] = [
        ("a string", "strings"),
        ("an integer", "integers"),
        ("a number", "numbers"),
        ("a boolean", "booleans"),
        ("an object", "objects"),
        ("an array", "arrays"),
        ("any JSON value", "any JSON values"),
        ("null", "null"),
    ];
    // A list of bare types (`a string, a number or null`): every one in the plural.
    let list = description.replace(", or ", ", ");
    let parts: Vec<&str> = list
        .split(", ")
        .flat_map(|part| part.split(" or "))
        .collect();
    let many: Option<Vec<String>> = parts
        .iter()
        .map(|part| {
            NAMES
                .iter()
                .find(|(one, _)| one == part)
                .map(|(_, many)| (*many).to_owned())
        })
        .collect();
    if let Some(many) = many
        && many.len() > 1
    {
        return join_or(&many);
    }
    for (one, many) in NAMES {
        if let Some(rest) = description.strip_prefix(one) {
            return format!("{many}{rest}");
        }
    }
    description.to_owned()
}

/// A bound as the model reads it: integers (also those written `5.0`) without a fraction.
fn number(n: &serde_json::Number) -> String {
    if n.is_i64() || n.is_u64() {
        n.to_string()
    } else {
        num(n.as_f64().unwrap_or(0.0))
    }
}

pub fn num(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{value:.0}")
    } else {
        value.to_string()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::ROOT;
    use super::*;

    fn described(schema: &Value) -> String {
        CompiledSchema::compile(schema).describe(ROOT)
    }

    #[test]
    fn reads_as_english_in_the_singular_and_the_plural() {
        let cases = [
            (
                json!({"type": "string", "minLength": 1}),
                "a string of at least 1 character",
            ),
            (
                json!({"type": "string", "maxLength": 3}),
                "a string of at most 3 characters",
            ),
            (
                json!({"type": "array", "items": {"type": "string"}, "minItems": 1}),
                "an array of strings with at least 1 item",
            ),
            (
                json!({"type": "array", "items": {}}),
                "an array of any JSON values",
            ),
            (json!({}), "any JSON value"),
            (
                json!({"type": "array", "items": {"type": ["string", "number", "null"]}}),
                "an array of strings, numbers or null",
            ),
            (
                json!({"type": "array", "items": {"type": ["integer", "boolean"]}}),
                "an array of integers or booleans",
            ),
            (
                json!({"type": "array", "items": {"type": "string", "minLength": 2}}),
                "an array of strings of at least 2 characters",
            ),
            (
                json!({"type": "array", "items": {"enum": ["a", "b"]}}),
                "an array of one of \"a\" or \"b\"",
            ),
        ];
        for (schema, words) in cases {
            assert_eq!(described(&schema), words, "{schema}");
        }
    }
}
