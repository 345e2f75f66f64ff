//! MCP's form: JSON Schema draft 2020-12 with every definition under the root's `$defs`, and
//! small enums inlined where they are used, so clients that do not follow `$ref` still show the
//! values.

use serde_json::{Map, Value};

use crate::forms::walk::{Pass, one_of_to_any_of, prune_defs, resolve};

/// Enums of at most this many values are inlined.
const SMALL_ENUM: usize = 32;

/// The `inputSchema` (or `outputSchema`) form.
pub(crate) fn input(pass: &mut Pass<'_>, schema: &mut Value) {
    hoist_definitions(schema);
    let defs = match schema.get("$defs") {
        Some(Value::Object(defs)) => defs.clone(),
        _ => Map::new(),
    };
    visit(pass, schema, &defs);
    prune_defs(schema);
}

fn visit(pass: &mut Pass<'_>, schema: &mut Value, defs: &Map<String, Value>) {
    let Value::Object(map) = schema else { return };
    if let Some(Value::String(reference)) = map.get("$ref")
        && let Some((_, Value::Object(target))) = resolve(defs, reference)
        && is_small_enum(target)
    {
        let mut merged = target.clone();
        map.remove("$ref");
        for (key, value) in std::mem::take(map) {
            merged.insert(key, value);
        }
        *map = merged;
    }
    one_of_to_any_of(map);
    pass.children(map, &mut |pass, child| visit(pass, child, defs));
}

fn is_small_enum(schema: &Map<String, Value>) -> bool {
    if let Some(Value::Array(values)) = schema.get("enum") {
        return values.len() <= SMALL_ENUM;
    }
    ["oneOf", "anyOf"].iter().any(|key| {
        schema
            .get(*key)
            .and_then(Value::as_array)
            .is_some_and(|branches| {
                branches.len() <= SMALL_ENUM
                    && branches.iter().all(|b| {
                        b.get("const").is_some()
                            || b.get("enum")
                                .and_then(Value::as_array)
                                .is_some_and(|e| e.len() == 1)
                    })
            })
    })
}

/// Moves definitions found below the root (and draft-07 `definitions`) to the root's `$defs`,
/// renaming on a clash, and rewrites the references to them.
fn hoist_definitions(schema: &mut Value) {
    fn collect(
        value: &mut Value,
        pointer: &str,
        root: bool,
        moved: &mut Vec<(String, Map<String, Value>)>,
    ) {
        let Value::Object(map) = value else { return };
        for key in ["$defs", "definitions"] {
            if (!root || key == "definitions")
                && let Some(Value::Object(defs)) = map.remove(key)
            {
                moved.push((format!("#{pointer}/{key}/"), defs));
            }
        }
        for (key, child) in map.iter_mut() {
            let here = format!("{pointer}/{}", escape(key));
            match child {
                Value::Array(items) => {
                    for (i, item) in items.iter_mut().enumerate() {
                        collect(item, &format!("{here}/{i}"), false, moved);
                    }
                }
                Value::Object(_) => collect(child, &here, false, moved),
                _ => {}
            }
        }
    }
    fn rewrite(value: &mut Value, renames: &[(String, String)]) {
        match value {
            Value::Object(map) => {
                for (key, child) in map.iter_mut() {
                    if key == "$ref"
                        && let Value::String(reference) = child
                    {
                        if let Some((from, to)) = renames.iter().find(|(from, _)| {
                            reference == from || reference.starts_with(&format!("{from}/"))
                        }) {
                            *reference = format!("{to}{}", &reference[from.len()..]);
                        }
                    } else {
                        rewrite(child, renames);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|i| rewrite(i, renames)),
            _ => {}
        }
    }
    let mut moved = Vec::new();
    collect(schema, "", true, &mut moved);
    if moved.is_empty() {
        return;
    }
    let Value::Object(root) = schema else { return };
    let mut defs = match root.remove("$defs") {
        Some(Value::Object(defs)) => defs,
        _ => Map::new(),
    };
    let mut renames = Vec::new();
    for (prefix, found) in moved {
        for (name, def) in found {
            let mut new = name.clone();
            let mut n = 2;
            while defs.contains_key(&new) {
                new = format!("{name}_{n}");
                n += 1;
            }
            renames.push((
                format!("{prefix}{}", escape(&name)),
                format!("#/$defs/{}", escape(&new)),
            ));
            defs.insert(new, def);
        }
    }
    root.insert("$defs".into(), Value::Object(defs));
    rewrite(schema, &renames);
}

fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}
