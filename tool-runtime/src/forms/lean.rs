//! Economies of the model-facing forms: the same rules in fewer tokens. Every request pays for
//! its tool list, so what tells the model nothing is left out, and what it is told is said
//! once, where it applies:
//! - a definition used once is written where it is used, not behind a `$ref`;
//! - an enum of documented unit variants (`anyOf` of `const` branches, as schemars writes a
//!   Rust enum whose variants have doc comments) is an `enum`, its variants' docs folded into
//!   the description; an optional one is one schema that also takes `null`;
//! - `"required": []` is left out (nothing is required either way);
//! - Rust's number formats (`int64`, `uint32`, `double`, ...), which no model-facing form
//!   enforces, are left out; their ranges stay.
//!
//! The canonical schema the runtime validates against is untouched: every rule is still
//! enforced when a call arrives.

use serde_json::{Map, Value};

use super::walk::{prune_defs, resolve};

/// Number formats only Rust (schemars) writes.
const RUST_FORMATS: &[&str] = &[
    "int8", "int16", "int32", "int64", "int128", "int", "uint8", "uint16", "uint32", "uint64",
    "uint128", "uint", "float", "double",
];

/// Applies every economy to a form's schema.
pub(crate) fn lean(schema: &mut Value) {
    inline_single_use(schema);
    prune_defs(schema);
    fold(schema);
}

/// How many times each definition is named by a `$ref`, anywhere in the schema.
fn count_refs(value: &Value, counts: &mut Map<String, Value>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                if key == "$ref"
                    && let Value::String(reference) = child
                {
                    let n = counts.get(reference).and_then(Value::as_u64).unwrap_or(0);
                    counts.insert(reference.clone(), Value::from(n + 1));
                } else {
                    count_refs(child, counts);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| count_refs(item, counts)),
        _ => {}
    }
}

/// Whether a definition names anything under `$defs` itself (inlining it could then unroll a
/// recursion, or move a reference out of the scope it resolves in).
fn names_a_definition(value: &Value) -> bool {
    match value {
        Value::Object(map) => map
            .iter()
            .any(|(key, child)| key == "$ref" || names_a_definition(child)),
        Value::Array(items) => items.iter().any(names_a_definition),
        _ => false,
    }
}

/// Writes each definition named once (and naming none itself) where it is named. The use
/// site's keys win over the definition's; a use site that is described (itself, or as a branch
/// of a described `anyOf`) keeps its description, and the definition's, which says what the type
/// is in general, is left out.
fn inline_single_use(schema: &mut Value) {
    let Some(Value::Object(defs)) = schema.get("$defs") else {
        return;
    };
    let mut counts = Map::new();
    count_refs(schema, &mut counts);
    let single: Map<String, Value> = defs
        .iter()
        .filter(|(name, def)| {
            let reference = format!("#/$defs/{}", name.replace('~', "~0").replace('/', "~1"));
            counts.get(&reference).and_then(Value::as_u64) == Some(1) && !names_a_definition(def)
        })
        .map(|(name, def)| (name.clone(), def.clone()))
        .collect();
    if single.is_empty() {
        return;
    }
    if let Value::Object(root) = schema {
        for (key, child) in root.iter_mut() {
            if key != "$defs" {
                inline_in(child, &single, false);
            }
        }
    }
}

fn inline_in(value: &mut Value, single: &Map<String, Value>, described_above: bool) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref")
                && let Some((_, Value::Object(def))) = resolve(single, reference)
            {
                let mut merged = def.clone();
                if described_above || map.contains_key("description") {
                    merged.remove("description");
                }
                map.remove("$ref");
                for (key, sibling) in std::mem::take(map) {
                    merged.insert(key, sibling);
                }
                *map = merged;
            }
            let described = map.contains_key("description");
            for (key, child) in map.iter_mut() {
                // Branches of a described union are described by it.
                let above = matches!(key.as_str(), "anyOf" | "oneOf") && described;
                inline_in(child, single, above);
            }
        }
        Value::Array(items) => {
            for item in items {
                inline_in(item, single, described_above);
            }
        }
        _ => {}
    }
}

/// Bottom up: unit-variant unions into enums, optional enums into one schema, empty `required`
/// and Rust's number formats left out.
fn fold(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for child in map.values_mut() {
                fold(child);
            }
            if matches!(map.get("required"), Some(Value::Array(names)) if names.is_empty()) {
                map.remove("required");
            }
            if let Some(Value::String(format)) = map.get("format")
                && RUST_FORMATS.contains(&format.as_str())
            {
                map.remove("format");
            }
            fold_variants(map);
            fold_nullable(map);
        }
        Value::Array(items) => items.iter_mut().for_each(fold),
        _ => {}
    }
}

/// `{"anyOf": [{"type": "string", "const": "a", "description": ".."}, ..]}` (or `oneOf`), every
/// branch one documented value of one type, becomes `{"type": "string", "enum": ["a", ..]}` with
/// each variant's doc in the description.
fn fold_variants(map: &mut Map<String, Value>) {
    let key = if map.contains_key("anyOf") {
        "anyOf"
    } else if map.contains_key("oneOf") {
        "oneOf"
    } else {
        return;
    };
    let Some(Value::Array(branches)) = map.get(key) else {
        return;
    };
    if branches.len() < 2 {
        return;
    }
    let mut kind: Option<&Value> = None;
    let mut values = Vec::with_capacity(branches.len());
    let mut docs = Vec::new();
    for branch in branches {
        let Value::Object(branch) = branch else {
            return;
        };
        if !branch
            .keys()
            .all(|key| matches!(key.as_str(), "const" | "type" | "description" | "title"))
        {
            return;
        }
        let Some(value @ Value::String(name)) = branch.get("const") else {
            return;
        };
        match (kind, branch.get("type")) {
            (_, None) => {}
            (None, Some(ty)) if ty == "string" => kind = Some(ty),
            (Some(seen), Some(ty)) if seen == ty => {}
            _ => return,
        }
        values.push(value.clone());
        if let Some(Value::String(doc)) = branch.get("description") {
            docs.push(format!("{name}: {}", doc.trim()));
        }
    }
    map.remove(key);
    let mut folded = Map::new();
    folded.insert("type".into(), Value::from("string"));
    folded.insert("enum".into(), Value::Array(values));
    for (key, value) in std::mem::take(map) {
        folded.insert(key, value);
    }
    if !docs.is_empty() {
        let said = folded
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .trim()
            .to_owned();
        let mut description = said;
        for doc in docs {
            if !description.is_empty() {
                description.push(if description.ends_with('.') {
                    ' '
                } else {
                    '\n'
                });
            }
            description.push_str(&doc);
        }
        folded.insert("description".into(), Value::String(description));
    }
    *map = folded;
}

/// `{"anyOf": [<enum of strings>, {"type": "null"}]}` becomes one schema whose `type` and
/// `enum` also take `null`, the enum's description after the union's own.
fn fold_nullable(map: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = map.get("anyOf") else {
        return;
    };
    let [first, second] = branches.as_slice() else {
        return;
    };
    let is_null = |branch: &Value| {
        branch
            .as_object()
            .is_some_and(|b| b.len() == 1 && b.get("type").and_then(Value::as_str) == Some("null"))
    };
    let (enumerated, _) = if is_null(second) {
        (first, second)
    } else if is_null(first) {
        (second, first)
    } else {
        return;
    };
    let Some(inner) = enumerated.as_object() else {
        return;
    };
    if inner.get("type").and_then(Value::as_str) != Some("string")
        || !inner.get("enum").is_some_and(Value::is_array)
        || !inner
            .keys()
            .all(|key| matches!(key.as_str(), "type" | "enum" | "description" | "title"))
    {
        return;
    }
    let mut values = inner["enum"].as_array().cloned().unwrap_or_default();
    values.push(Value::Null);
    let inner_doc = inner
        .get("description")
        .and_then(Value::as_str)
        .map(str::to_owned);
    map.remove("anyOf");
    let mut folded = Map::new();
    folded.insert("type".into(), serde_json::json!(["string", "null"]));
    folded.insert("enum".into(), Value::Array(values));
    for (key, value) in std::mem::take(map) {
        folded.insert(key, value);
    }
    if let Some(doc) = inner_doc {
        let description = match folded.get("description").and_then(Value::as_str) {
            Some(own) if !own.trim().is_empty() => {
                let own = own.trim();
                let gap = if own.ends_with('.') { ' ' } else { '\n' };
                format!("{own}{gap}{doc}")
            }
            _ => doc,
        };
        folded.insert("description".into(), Value::String(description));
    }
    *map = folded;
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::lean;

    fn leaned(mut schema: Value) -> Value {
        lean(&mut schema);
        schema
    }

    #[test]
    fn documented_unit_variants_become_an_enum_with_their_docs() {
        let unit = json!({"anyOf": [
            {"type": "string", "const": "celsius", "description": "Degrees Celsius."},
            {"type": "string", "const": "fahrenheit", "description": "Degrees Fahrenheit."},
        ], "description": "A unit."});
        let schema = json!({"type": "object", "properties": {
            "unit": {"anyOf": [{"$ref": "#/$defs/Unit"}, {"type": "null"}], "description": "Which unit."},
            "plain": {"$ref": "#/$defs/Plain"},
        }, "required": [], "$defs": {"Unit": unit, "Plain": {
            "oneOf": [{"const": "a"}, {"const": "b", "description": "The second."}]}}});
        assert_eq!(
            leaned(schema),
            json!({"type": "object", "properties": {
                "unit": {"type": ["string", "null"], "enum": ["celsius", "fahrenheit", null],
                    "description": "Which unit. celsius: Degrees Celsius. fahrenheit: Degrees Fahrenheit."},
                "plain": {"type": "string", "enum": ["a", "b"], "description": "b: The second."},
            }})
        );
    }

    #[test]
    fn what_is_not_a_plain_enum_stays_as_it_is() {
        for branches in [
            // A branch with a rule of its own, a number, two types, one branch only.
            json!([{"const": "a", "minLength": 1}, {"const": "b"}]),
            json!([{"const": 1}, {"const": 2}]),
            json!([{"type": "string", "const": "a"}, {"type": "integer", "const": 1}]),
            json!([{"const": "a"}]),
        ] {
            let schema = json!({"anyOf": branches});
            assert_eq!(leaned(schema.clone()), schema);
        }
        // A union of an enum and null with another rule beside it.
        let schema =
            json!({"anyOf": [{"type": "string", "enum": ["a"], "pattern": "a"}, {"type": "null"}]});
        assert_eq!(leaned(schema.clone()), schema);
    }

    #[test]
    fn only_definitions_used_once_and_naming_none_are_written_in_place() {
        let schema = json!({"type": "object", "properties": {
            "a": {"$ref": "#/$defs/Twice"}, "b": {"$ref": "#/$defs/Twice"},
            "c": {"$ref": "#/$defs/Node"},
            "d": {"$ref": "#/$defs/Once", "description": "Here."},
        }, "required": ["a"], "$defs": {
            "Twice": {"type": "integer", "format": "uint32", "minimum": 0},
            "Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}},
            "Once": {"type": "string", "description": "In general.", "maxLength": 3},
        }});
        assert_eq!(
            leaned(schema),
            json!({"type": "object", "properties": {
                "a": {"$ref": "#/$defs/Twice"}, "b": {"$ref": "#/$defs/Twice"},
                "c": {"$ref": "#/$defs/Node"},
                "d": {"type": "string", "maxLength": 3, "description": "Here."},
            }, "required": ["a"], "$defs": {
                // The range stays; the Rust format goes.
                "Twice": {"type": "integer", "minimum": 0},
                "Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}},
            }})
        );
    }
}
