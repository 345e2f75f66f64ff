//! OpenAI's forms: plain JSON Schema, and strict mode (Structured Outputs).
//!
//! Strict-mode rules as OpenAI documents them ("Supported schemas" in the Structured Outputs
//! guide): every property in `required`, optional ones as a union with `null`;
//! `additionalProperties: false` on every object; keywords limited to the list below; formats
//! `date-time`, `time`, `date`, `duration`, `email`, `hostname`, `ipv4`, `ipv6`, `uuid`; at most
//! 5000 properties, 10 levels of nesting, 1000 enum values, 120,000 characters of property names
//! and enum and const values, and 15,000 characters for an enum of over 250 values.

use serde_json::{Map, Value};

use super::lint::{Rule, Severity};
use super::walk::{
    Pass, describe, into_description, is_object, is_typed, one_of_to_any_of, prune_defs, takes_null,
};

/// Formats strict mode takes.
pub(crate) const STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// JSON Schema's own formats (draft 2020-12); the plain form drops schemars' Rust-specific ones
/// (`int32`, `uint`, `double`, ...), whose bounds the runtime enforces.
pub(crate) const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Keywords strict mode takes (`allOf` and `prefixItems` are reported, not taken).
const STRICT_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "description",
    "title",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "allOf",
    "prefixItems",
];

/// Keywords that only annotate: dropped without a word where a form does not take them.
pub(crate) const ANNOTATIONS: &[&str] = &[
    "examples",
    "example",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$id",
    "$anchor",
    "$schema",
    "contentEncoding",
    "contentMediaType",
    "nullable",
    "discriminator",
    "title",
    "definitions",
];

/// Bounds strict mode does not take, said in the description instead.
const INTO_DESCRIPTION: &[&str] = &[
    "minLength",
    "maxLength",
    "uniqueItems",
    "minProperties",
    "maxProperties",
];

/// Removes a `format` the form does not take, with a note.
pub(crate) fn drop_format(pass: &mut Pass<'_>, map: &mut Map<String, Value>, allowed: &[&str]) {
    let Some(Value::String(format)) = map.get("format") else {
        return;
    };
    if allowed.contains(&format.as_str()) {
        return;
    }
    let format = format.clone();
    map.remove("format");
    pass.lint(
        Severity::Note,
        Rule::Format(format.clone()),
        format!("the format `{format}` is not taken by this form and is left out"),
        "nothing to do: the runtime still checks it when the call arrives",
    );
}

/// The strict form.
pub(crate) fn strict(pass: &mut Pass<'_>, schema: &mut Value) {
    inline_ref_siblings(pass, schema, &mut Vec::new());
    prune_defs(schema);
    strict_node(pass, schema, true);
    limits(pass, schema);
}

fn strict_node(pass: &mut Pass<'_>, schema: &mut Value, root: bool) {
    let Some(map) = typed_schema(pass, schema) else {
        return;
    };
    one_of_to_any_of(map);
    pass.children(map, &mut |pass, child| strict_node(pass, child, false));
    if let Some(default) = map.remove("default") {
        // The model cannot leave an argument out here; it sends null, and the runtime applies
        // the default. Say what the default is.
        if !default.is_null()
            && let Some(words) = describe("default", &default)
        {
            pass.say(words);
        }
    }
    close_object(pass, map, root, true);
    for keyword in INTO_DESCRIPTION {
        into_description(pass, map, keyword);
    }
    drop_format(pass, map, STRICT_FORMATS);
    structural(pass, map);
    unknown_keywords(pass, map, STRICT_KEYWORDS);
    pass.flush_words(map);
    if !is_typed(map) {
        untyped(pass);
    }
}

/// A schema's keywords, for the strict forms: `true` (any value) is an error there, `false`
/// (nothing) is left as it is.
pub(crate) fn typed_schema<'v>(
    pass: &mut Pass<'_>,
    schema: &'v mut Value,
) -> Option<&'v mut Map<String, Value>> {
    match schema {
        Value::Object(map) => Some(map),
        Value::Bool(true) => {
            untyped(pass);
            None
        }
        _ => None,
    }
}

pub(crate) fn untyped(pass: &mut Pass<'_>) {
    pass.lint(
        Severity::Error,
        Rule::Untyped,
        "a value of any type: this form needs every value's type",
        "give the parameter a concrete type instead of a JSON value, or send this tool without strict mode",
    );
}

/// `allOf` and tuples, which strict forms cannot say.
pub(crate) fn structural(pass: &mut Pass<'_>, map: &Map<String, Value>) {
    if map.contains_key("allOf") {
        pass.lint(
            Severity::Error,
            Rule::AllOf,
            "`allOf` cannot be expressed in this form",
            "merge the parts into one type, or send this tool without strict mode",
        );
    }
    if map.contains_key("prefixItems") {
        pass.lint(
            Severity::Error,
            Rule::Tuple,
            "a tuple (`prefixItems`) cannot be expressed in this form",
            "use a struct with named fields instead of a tuple, or send this tool without strict mode",
        );
    }
}

/// Drops keywords the form does not take: annotations silently, rules with a warning.
pub(crate) fn unknown_keywords(pass: &mut Pass<'_>, map: &mut Map<String, Value>, taken: &[&str]) {
    let dropped: Vec<String> = map
        .keys()
        .filter(|k| !taken.contains(&k.as_str()))
        .cloned()
        .collect();
    for keyword in dropped {
        map.remove(&keyword);
        if ANNOTATIONS.contains(&keyword.as_str()) || keyword.starts_with("x-") {
            continue;
        }
        pass.lint(
            Severity::Warning,
            Rule::Keyword(keyword.clone()),
            format!("`{keyword}` is not taken by this form and is left out; the model is not told"),
            "nothing to do if the error message a call that breaks it gets is enough; \
             otherwise say it in the parameter's description",
        );
    }
}

/// A `$ref` with siblings (a description, say) becomes the definition itself with the siblings
/// on top: strict mode refuses siblings beside `$ref` (and `allOf`). Inside the definition being
/// inlined, a reference back to it becomes a one-branch `anyOf` with the siblings outside.
fn inline_ref_siblings(pass: &mut Pass<'_>, schema: &mut Value, stack: &mut Vec<String>) {
    let Value::Object(map) = schema else { return };
    let depth = stack.len();
    while map.len() > 1
        && let Some(Value::String(reference)) = map.get("$ref")
    {
        let reference = reference.clone();
        match pass.resolve(&reference) {
            Some((name, Value::Object(target)))
                if !stack.iter().any(|s| s == name) && pass.may_inline() =>
            {
                let mut merged = target.clone();
                map.remove("$ref");
                for (key, value) in std::mem::take(map) {
                    merged.insert(key, value);
                }
                *map = merged;
                stack.push(name.to_owned());
            }
            _ => {
                map.remove("$ref");
                map.insert(
                    "anyOf".into(),
                    Value::Array(vec![serde_json::json!({ "$ref": reference })]),
                );
                break;
            }
        }
    }
    one_of_to_any_of(map);
    pass.children(map, &mut |pass, child| {
        inline_ref_siblings(pass, child, stack);
    });
    stack.truncate(depth);
}

/// Closes an object: `additionalProperties: false`, and for OpenAI every property required (the
/// optional ones nullable). Maps and objects with any members cannot be closed.
pub(crate) fn close_object(
    pass: &mut Pass<'_>,
    map: &mut Map<String, Value>,
    root: bool,
    all_required: bool,
) {
    if !is_object(map) {
        return;
    }
    let named = map
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty());
    let additional = map.get("additionalProperties").cloned();
    let map_like = matches!(&additional, Some(Value::Object(s)) if !s.is_empty())
        || map.contains_key("patternProperties");
    if map_like {
        pass.lint(
            Severity::Error,
            Rule::Map,
            "a map (an object with entries of any name) cannot be expressed in this form: \
             it takes only objects whose members are all named",
            "use a struct, or a list of key/value pairs, or send this tool without strict mode",
        );
        map.remove("patternProperties");
    } else if !named && additional != Some(Value::Bool(false)) && !root {
        pass.lint(
            Severity::Error,
            Rule::OpenObject,
            "an object that takes any members cannot be expressed in this form",
            "use a struct with named fields, or send this tool without strict mode",
        );
    }
    map.insert("additionalProperties".into(), Value::Bool(false));
    if !all_required {
        return;
    }
    let required: Vec<String> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let mut all = Vec::new();
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            if !required.contains(name) {
                make_nullable(property);
            }
            all.push(Value::from(name.as_str()));
        }
    }
    map.insert("required".into(), Value::Array(all));
}

/// Makes a property schema take `null` too, as strict mode wants optional properties.
fn make_nullable(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    if takes_null(map) {
        return;
    }
    let simple_type = map.get("type").and_then(Value::as_str).map(str::to_owned);
    if let (Some(ty), false) = (&simple_type, map.contains_key("const")) {
        map.insert(
            "type".into(),
            Value::Array(vec![Value::from(ty.as_str()), Value::from("null")]),
        );
        if let Some(Value::Array(values)) = map.get_mut("enum") {
            values.push(Value::Null);
        }
        return;
    }
    if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
        branches.push(serde_json::json!({"type": "null"}));
        return;
    }
    // A reference or a constant: a union with null, the description kept outside.
    let mut outer = Map::new();
    for key in ["description", "title"] {
        if let Some(value) = map.remove(key) {
            outer.insert(key.into(), value);
        }
    }
    let inner = std::mem::take(map);
    outer.insert(
        "anyOf".into(),
        Value::Array(vec![
            Value::Object(inner),
            serde_json::json!({"type": "null"}),
        ]),
    );
    *map = outer;
}

/// Strict mode's size limits.
fn limits(pass: &mut Pass<'_>, schema: &Value) {
    #[derive(Default)]
    struct Count {
        properties: usize,
        enum_values: usize,
        text: usize,
        big_enum_text: Vec<usize>,
        depth: usize,
    }
    fn walk(value: &Value, depth: usize, count: &mut Count) {
        let Value::Object(map) = value else { return };
        let mut depth = depth;
        if let Some(Value::Object(properties)) = map.get("properties") {
            depth += 1;
            count.depth = count.depth.max(depth);
            count.properties += properties.len();
            count.text += properties.keys().map(|k| k.chars().count()).sum::<usize>();
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            count.enum_values += values.len();
            let text: usize = values
                .iter()
                .filter_map(Value::as_str)
                .map(|s| s.chars().count())
                .sum();
            count.text += text;
            if values.len() > 250 {
                count.big_enum_text.push(text);
            }
        }
        if let Some(Value::String(s)) = map.get("const") {
            count.text += s.chars().count();
        }
        for (key, child) in map {
            match (key.as_str(), child) {
                ("enum" | "const" | "required", _) => {}
                ("properties" | "$defs", Value::Object(named)) => {
                    let d = if key == "$defs" { 0 } else { depth };
                    named.values().for_each(|v| walk(v, d, count));
                }
                (_, Value::Array(items)) => items.iter().for_each(|v| walk(v, depth, count)),
                (_, Value::Object(_)) => walk(child, depth, count),
                _ => {}
            }
        }
    }
    let mut count = Count::default();
    walk(schema, 0, &mut count);
    let mut over = |what: String| {
        pass.lint(
            Severity::Error,
            Rule::Limit,
            what,
            "split the tool, or send it without strict mode",
        );
    };
    if count.properties > 5000 {
        over(format!(
            "{} properties, over strict mode's 5000",
            count.properties
        ));
    }
    if count.depth > 10 {
        over(format!(
            "{} levels of nesting, over strict mode's 10",
            count.depth
        ));
    }
    if count.enum_values > 1000 {
        over(format!(
            "{} enum values, over strict mode's 1000",
            count.enum_values
        ));
    }
    if count.text > 120_000 {
        over(format!(
            "{} characters of property names and enum and const values, over strict mode's 120,000",
            count.text
        ));
    }
    if let Some(text) = count.big_enum_text.iter().find(|t| **t > 15_000) {
        over(format!(
            "an enum of over 250 values with {text} characters, over strict mode's 15,000"
        ));
    }
}
