//! The machinery the provider passes share: a path-keeping walk over subschemas, `$ref`
//! resolution, and writing a dropped rule into a description.

use serde_json::{Map, Value};
use toolwright_schema::subschemas::{Holds, holds, is_schema};

use super::Form;
use super::keywords::Keywords;
use super::lint::{Lint, Rule, Severity};

/// A provider pass in progress: where it is, and what it has found.
pub(crate) struct Pass<'a> {
    pub(crate) form: Form,
    /// Whether `#[tool]` wrote the schema (from a fn's parameters), so that a lint's fix can name
    /// the attribute; otherwise it was given at run time.
    pub(crate) from_attribute: bool,
    /// The canonical schema's `$defs`, for resolving references.
    pub(crate) defs: &'a Map<String, Value>,
    /// What the form does with each keyword and format.
    pub(crate) keywords: &'static Keywords,
    path: Vec<String>,
    pub(crate) lints: Vec<Lint>,
    /// Words for the current node's description, written by [`Pass::flush_words`].
    words: Vec<String>,
    /// Definitions inlined so far (see [`Pass::may_inline`]).
    inlined: usize,
}

/// Definitions a pass inlines at most: a definition used twice by one used twice... doubles the
/// schema at every level, so a small schema could otherwise inline into an enormous one.
const MAX_INLINED: usize = 2_000;

impl<'a> Pass<'a> {
    pub(crate) fn new(form: Form, defs: &'a Map<String, Value>) -> Self {
        Pass {
            form,
            from_attribute: false,
            defs,
            keywords: &Keywords::ALL,
            path: Vec::new(),
            lints: Vec::new(),
            words: Vec::new(),
            inlined: 0,
        }
    }

    /// The current location as a JSON pointer.
    pub(crate) fn pointer(&self) -> String {
        let mut out = String::new();
        for segment in &self.path {
            out.push('/');
            out.push_str(&segment.replace('~', "~0").replace('/', "~1"));
        }
        out
    }

    pub(crate) fn lint(
        &mut self,
        severity: Severity,
        rule: Rule,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) {
        self.lints.push(Lint {
            tool: String::new(),
            form: self.form,
            path: self.pointer(),
            rule,
            severity,
            message: message.into(),
            fix: fix.into(),
        });
    }

    /// Whether one more definition may be inlined; the first refusal is a lint error.
    pub(crate) fn may_inline(&mut self) -> bool {
        if self.inlined < MAX_INLINED {
            self.inlined += 1;
            return true;
        }
        if self.inlined == MAX_INLINED {
            self.inlined += 1;
            self.lint(
                Severity::Error,
                Rule::Limit,
                format!(
                    "inlining the schema's references would take more than {MAX_INLINED} copies of \
                     its definitions"
                ),
                "send the tool in a form that keeps references (`parametersJsonSchema`, or \
                 without strict mode), or flatten the types",
            );
        }
        false
    }

    /// Keeps words for the current node's description.
    pub(crate) fn say(&mut self, words: String) {
        self.words.push(words);
    }

    /// Writes the kept words into the node's description, in one parenthesis.
    pub(crate) fn flush_words(&mut self, schema: &mut Map<String, Value>) {
        if !self.words.is_empty() {
            let words = std::mem::take(&mut self.words).join("; ");
            append_description(schema, &words);
        }
    }

    /// Runs `f` one level down, at `segment`.
    pub(crate) fn at<R>(&mut self, segment: &str, f: impl FnOnce(&mut Self) -> R) -> R {
        self.path.push(segment.to_owned());
        let out = f(self);
        self.path.pop();
        out
    }

    /// Calls `visit` on every direct subschema of `schema`, with the path kept.
    pub(crate) fn children(
        &mut self,
        schema: &mut Map<String, Value>,
        visit: &mut dyn FnMut(&mut Self, &mut Value),
    ) {
        for (key, value) in schema.iter_mut() {
            let key = key.as_str();
            match holds(key, value) {
                Some(Holds::One) => self.at(key, |pass| visit(pass, value)),
                Some(Holds::List) => {
                    for (i, item) in value.as_array_mut().into_iter().flatten().enumerate() {
                        self.at(key, |pass| {
                            pass.at(&i.to_string(), |pass| visit(pass, item));
                        });
                    }
                }
                Some(Holds::Map) => {
                    let members = value.as_object_mut().into_iter().flatten();
                    for (name, item) in members.filter(|(_, item)| is_schema(item)) {
                        self.at(key, |pass| pass.at(name, |pass| visit(pass, item)));
                    }
                }
                None => {}
            }
        }
    }

    /// The schema a `$ref` names, among the root's `$defs`.
    pub(crate) fn resolve(&self, reference: &str) -> Option<(&'a str, &'a Value)> {
        resolve(self.defs, reference)
    }
}

/// The definition a local reference names (`#/$defs/Name`, `#/definitions/Name`).
pub(crate) fn resolve<'a>(
    defs: &'a Map<String, Value>,
    reference: &str,
) -> Option<(&'a str, &'a Value)> {
    let name = reference
        .strip_prefix("#/$defs/")
        .or_else(|| reference.strip_prefix("#/definitions/"))?;
    let name = name.replace("~1", "/").replace("~0", "~");
    defs.get_key_value(name.as_str())
        .map(|(k, v)| (k.as_str(), v))
}

/// Whether any schema reachable from `schema` (through `$ref`s into `defs`) refers back to a
/// definition it is inside of, or to the root (`#`).
pub(crate) fn is_recursive(schema: &Value, defs: &Map<String, Value>) -> Option<String> {
    fn walk(
        schema: &Value,
        defs: &Map<String, Value>,
        stack: &mut Vec<String>,
        done: &mut Vec<String>,
    ) -> Option<String> {
        let Value::Object(map) = schema else {
            return None;
        };
        if let Some(Value::String(reference)) = map.get("$ref") {
            if reference == "#" {
                return Some("the tool's own parameters".to_owned());
            }
            if let Some((name, target)) = resolve(defs, reference) {
                if stack.iter().any(|s| s == name) {
                    return Some(name.to_owned());
                }
                if !done.iter().any(|d| d == name) {
                    stack.push(name.to_owned());
                    let found = walk(target, defs, stack, done);
                    stack.pop();
                    done.push(name.to_owned());
                    if found.is_some() {
                        return found;
                    }
                }
            }
        }
        for (key, value) in map {
            if key == "$defs" || key == "definitions" {
                continue;
            }
            let found = match value {
                Value::Array(list) => list.iter().find_map(|v| walk(v, defs, stack, done)),
                Value::Object(named) if holds(key, value) == Some(Holds::Map) => {
                    named.values().find_map(|v| walk(v, defs, stack, done))
                }
                Value::Object(_) => walk(value, defs, stack, done),
                _ => None,
            };
            if found.is_some() {
                return found;
            }
        }
        None
    }
    walk(schema, defs, &mut Vec::new(), &mut Vec::new())
}

/// Moves `keyword` out of `schema` into its description, as words ("at most 50"), and records a
/// note. Returns whether it was there. The words are written by [`Pass::flush_words`].
pub(crate) fn into_description(
    pass: &mut Pass<'_>,
    schema: &mut Map<String, Value>,
    keyword: &str,
) -> bool {
    let Some(value) = schema.remove(keyword) else {
        return false;
    };
    let Some(words) = describe(keyword, &value) else {
        return true;
    };
    pass.say(words.clone());
    pass.lint(
        Severity::Note,
        Rule::InDescription(keyword.to_owned()),
        format!("`{keyword}` is not taken by this form; the description says \"{words}\""),
        "nothing to do: the bound is still enforced when the call arrives",
    );
    true
}

/// `at most 50`, `at least 3 characters`, ...
pub(crate) fn describe(keyword: &str, value: &Value) -> Option<String> {
    let v = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    // `at least 1 character`, `at most 2 characters`.
    let count = |one: &str, many: &str| {
        let unit = if value.as_f64() == Some(1.0) {
            one
        } else {
            many
        };
        format!("{v} {unit}")
    };
    Some(match keyword {
        "minimum" => format!("at least {v}"),
        "maximum" => format!("at most {v}"),
        "exclusiveMinimum" => format!("greater than {v}"),
        "exclusiveMaximum" => format!("less than {v}"),
        "multipleOf" => format!("a multiple of {v}"),
        "minLength" => format!("at least {}", count("character", "characters")),
        "maxLength" => format!("at most {}", count("character", "characters")),
        "minItems" => format!("at least {}", count("item", "items")),
        "maxItems" => format!("at most {}", count("item", "items")),
        "uniqueItems" if value == &Value::Bool(true) => "no duplicate items".to_owned(),
        "minProperties" => format!("at least {}", count("entry", "entries")),
        "maxProperties" => format!("at most {}", count("entry", "entries")),
        "pattern" => format!("matching the pattern {v}"),
        "format" => format!("format: {v}"),
        "default" => format!("default: {value}"),
        "enum" => {
            let values: Vec<String> = value.as_array()?.iter().map(ToString::to_string).collect();
            format!("one of {}", values.join(", "))
        }
        _ => return None,
    })
}

/// Adds words to a schema's description, in parentheses after what it says.
pub(crate) fn append_description(schema: &mut Map<String, Value>, words: &str) {
    match schema.get_mut("description") {
        Some(Value::String(text)) if !text.is_empty() => {
            text.push_str(&format!(" ({words})"));
        }
        _ => {
            schema.insert("description".into(), Value::from(format!("({words})")));
        }
    }
}

/// Whether a schema accepts `null` as it stands.
pub(crate) fn takes_null(schema: &Map<String, Value>) -> bool {
    let typed_null = match schema.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "null"),
        _ => false,
    };
    typed_null
        || schema
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|e| e.contains(&Value::Null))
        || schema.get("const") == Some(&Value::Null)
        || ["anyOf", "oneOf"].iter().any(|k| {
            schema
                .get(*k)
                .and_then(Value::as_array)
                .is_some_and(|branches| {
                    branches
                        .iter()
                        .any(|b| b.as_object().is_some_and(takes_null))
                })
        })
}

/// Whether a schema says what type its value has (by `type`, a union, a reference or values).
pub(crate) fn is_typed(schema: &Map<String, Value>) -> bool {
    ["type", "anyOf", "oneOf", "allOf", "$ref", "enum", "const"]
        .iter()
        .any(|k| schema.contains_key(*k))
}

/// Whether a schema describes an object (by type, or by having properties).
pub(crate) fn is_object(schema: &Map<String, Value>) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
        _ => schema.contains_key("properties"),
    }
}

/// Renames `oneOf` to `anyOf` (the providers that take unions take `anyOf`; the runtime still
/// enforces exactly one).
pub(crate) fn one_of_to_any_of(schema: &mut Map<String, Value>) {
    if !schema.contains_key("oneOf") {
        return;
    }
    if schema.contains_key("anyOf") {
        // Both: a value must match one branch of each; keep them as two `allOf` parts.
        let any = schema.remove("anyOf").unwrap_or(Value::Null);
        let one = schema.remove("oneOf").unwrap_or(Value::Null);
        schema.insert(
            "allOf".into(),
            Value::Array(vec![
                Value::Object(Map::from_iter([("anyOf".to_owned(), any)])),
                Value::Object(Map::from_iter([("anyOf".to_owned(), one)])),
            ]),
        );
        return;
    }
    rename(schema, "oneOf", "anyOf");
}

/// Renames a key where it stands, keeping the order of the others.
pub(crate) fn rename(schema: &mut Map<String, Value>, from: &str, to: &str) {
    let old = std::mem::take(schema);
    for (key, value) in old {
        if key == from {
            schema.insert(to.to_owned(), value);
        } else {
            schema.insert(key, value);
        }
    }
}

/// Removes definitions no `$ref` names any longer (after inlining), from the root's `$defs`.
pub(crate) fn prune_defs(root: &mut Value) {
    fn refs(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (key, item) in map {
                    if key == "$ref"
                        && let Value::String(r) = item
                    {
                        out.push(r.clone());
                    } else {
                        refs(item, out);
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|i| refs(i, out)),
            _ => {}
        }
    }
    let Some(Value::Object(defs)) = root.get("$defs") else {
        return;
    };
    // A definition is kept when something outside the definitions names it, or a kept one does.
    let mut outside = Vec::new();
    if let Value::Object(map) = &*root {
        for (key, value) in map {
            if key != "$defs" {
                refs(value, &mut outside);
            }
        }
    }
    let mut keep: Vec<String> = Vec::new();
    let mut queue = outside;
    while let Some(reference) = queue.pop() {
        if let Some((name, def)) = resolve(defs, &reference)
            && !keep.iter().any(|k| k == name)
        {
            keep.push(name.to_owned());
            refs(def, &mut queue);
        }
    }
    if let Some(Value::Object(defs)) = root.get_mut("$defs") {
        defs.retain(|name, _| keep.iter().any(|k| k == name));
        if defs.is_empty() {
            root.as_object_mut().map(|m| m.remove("$defs"));
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::forms::Provider;

    #[test]
    fn pointers_escape_slashes_and_tildes() {
        let defs = Map::new();
        let mut pass = Pass::new(Form::new(Provider::Mcp), &defs);
        let pointer = pass.at("properties", |p| p.at("a/b~c", |p| p.pointer()));
        assert_eq!(pointer, "/properties/a~1b~0c");
        assert_eq!(pass.pointer(), "");
    }

    #[test]
    fn children_are_visited_with_their_paths() {
        let defs = Map::new();
        let mut pass = Pass::new(Form::new(Provider::Mcp), &defs);
        let mut schema = json!({
            "properties": {"a": {}},
            "items": {},
            "anyOf": [{}, {}],
            "prefixItems": [{}],
            "description": "not a schema",
        });
        let mut seen = Vec::new();
        pass.children(schema.as_object_mut().unwrap(), &mut |pass, _| {
            seen.push(pass.pointer());
        });
        assert_eq!(
            seen,
            [
                "/properties/a",
                "/items",
                "/anyOf/0",
                "/anyOf/1",
                "/prefixItems/0"
            ]
        );
    }

    #[test]
    fn unused_definitions_are_pruned_and_used_ones_kept_transitively() {
        let mut schema = json!({
            "properties": {"a": {"$ref": "#/$defs/A"}},
            "$defs": {
                "A": {"items": {"$ref": "#/$defs/B"}},
                "B": {"type": "string"},
                "Unused": {"$ref": "#/$defs/B"},
            },
        });
        prune_defs(&mut schema);
        let names: Vec<&String> = schema["$defs"].as_object().unwrap().keys().collect();
        assert_eq!(names, ["A", "B"]);
        let mut none = json!({"properties": {}, "$defs": {"X": {}}});
        prune_defs(&mut none);
        assert!(none.get("$defs").is_none());
    }

    #[test]
    fn recursion_is_found_through_definitions_and_the_root() {
        let defs = json!({
            "Tree": {"properties": {"children": {"items": {"$ref": "#/$defs/Tree"}}}},
            "Leaf": {"type": "string"},
        });
        let defs = defs.as_object().unwrap();
        let tree = json!({"properties": {"t": {"$ref": "#/$defs/Tree"}}});
        assert_eq!(is_recursive(&tree, defs).as_deref(), Some("Tree"));
        let leaf =
            json!({"properties": {"l": {"$ref": "#/$defs/Leaf"}, "m": {"$ref": "#/$defs/Leaf"}}});
        assert_eq!(is_recursive(&leaf, defs), None);
        let root = json!({"properties": {"again": {"$ref": "#"}}});
        assert!(is_recursive(&root, defs).is_some());
    }

    #[test]
    fn union_renaming_keeps_key_order_and_both_unions() {
        let mut schema = json!({"description": "d", "oneOf": [{}], "title": "t"});
        one_of_to_any_of(schema.as_object_mut().unwrap());
        let keys: Vec<&String> = schema.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["description", "anyOf", "title"]);
        let mut both = json!({"anyOf": [{"type": "string"}], "oneOf": [{"minLength": 1}]});
        one_of_to_any_of(both.as_object_mut().unwrap());
        assert_eq!(
            both,
            json!({"allOf": [{"anyOf": [{"type": "string"}]}, {"anyOf": [{"minLength": 1}]}]})
        );
    }

    #[test]
    fn words_for_rules() {
        assert_eq!(describe("maximum", &json!(50)).unwrap(), "at most 50");
        assert_eq!(
            describe("minLength", &json!(3)).unwrap(),
            "at least 3 characters"
        );
        assert_eq!(
            describe("minLength", &json!(1)).unwrap(),
            "at least 1 character"
        );
        assert_eq!(describe("maxItems", &json!(1)).unwrap(), "at most 1 item");
        assert_eq!(
            describe("minProperties", &json!(1)).unwrap(),
            "at least 1 entry"
        );
        assert_eq!(describe("minItems", &json!(2)).unwrap(), "at least 2 items");
        assert_eq!(describe("enum", &json!([1, 2])).unwrap(), "one of 1, 2");
        assert_eq!(describe("uniqueItems", &json!(false)), None);
        let mut schema = Map::new();
        append_description(&mut schema, "at most 5");
        assert_eq!(schema["description"], "(at most 5)");
        append_description(&mut schema, "default: 2");
        assert_eq!(schema["description"], "(at most 5) (default: 2)");
    }
}
