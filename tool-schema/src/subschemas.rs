//! The keywords whose value holds subschemas: one table for everything that walks a schema (the
//! compiler indexing `$id`s and anchors, toolwright's provider passes), so that no walker misses
//! a keyword another one sees.

use serde_json::Value;

/// How a keyword's value holds subschemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holds {
    /// The value is one subschema: `not`, `additionalProperties`, `items` as 2020-12 writes it...
    One,
    /// The value is a list of subschemas: `allOf`, `prefixItems`, `items` as draft 7 wrote it...
    List,
    /// The value maps names to subschemas: `properties`, `$defs`, `dependentSchemas`... (a member
    /// that is no schema, as in draft 7's `dependencies` lists of names, holds none).
    Map,
}

/// Keywords whose value is one subschema (`items` also, when it is not a list).
const ONE: &[&str] = &[
    "additionalProperties",
    "additionalItems",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
];

/// Keywords whose value is a list of subschemas (`items` also, when it is a list).
const LIST: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];

/// Keywords whose value maps names to subschemas.
const MAP: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "dependencies",
];

/// What `keyword`'s value holds, given the value: `items` is one subschema, or a list of them as
/// draft 7 wrote it. `None` for a keyword that holds no subschema.
///
/// ```
/// use serde_json::json;
/// use toolwright_schema::subschemas::{Holds, holds};
///
/// assert_eq!(holds("items", &json!({"type": "string"})), Some(Holds::One));
/// assert_eq!(holds("items", &json!([{"type": "string"}])), Some(Holds::List));
/// assert_eq!(holds("dependencies", &json!({"a": ["b"]})), Some(Holds::Map));
/// assert_eq!(holds("enum", &json!([1, 2])), None);
/// ```
pub fn holds(keyword: &str, value: &Value) -> Option<Holds> {
    if keyword == "items" {
        return Some(if value.is_array() {
            Holds::List
        } else {
            Holds::One
        });
    }
    if ONE.contains(&keyword) {
        Some(Holds::One)
    } else if LIST.contains(&keyword) {
        Some(Holds::List)
    } else if MAP.contains(&keyword) {
        Some(Holds::Map)
    } else {
        None
    }
}

/// Whether a member of a [`Holds::Map`] value is a subschema: an object or a boolean.
pub fn is_schema(value: &Value) -> bool {
    value.is_object() || value.is_boolean()
}
