//! OpenAI's forms: plain JSON Schema, and strict mode (Structured Outputs).
//!
//! Strict-mode rules as OpenAI documents them ("Supported schemas" in the Structured Outputs
//! guide): every property in `required`, optional ones as a union with `null`;
//! `additionalProperties: false` on every object; keywords limited to the list below; formats
//! `date-time`, `time`, `date`, `duration`, `email`, `hostname`, `ipv4`, `ipv6`, `uuid`; at most
//! 5000 properties, 10 levels of nesting, 1000 enum values, 120,000 characters of property names
//! and enum and const values, and 15,000 characters for an enum of over 250 values.

use serde_json::Value;

use crate::forms::keywords::Keywords;
use crate::forms::lint::{Rule, Severity};
use crate::forms::rules::{
    close_object, drop_format, structural, typed_schema, unknown_keywords, untyped,
};
use crate::forms::walk::{
    Pass, describe, into_description, is_typed, one_of_to_any_of, prune_defs,
};

/// Formats strict mode takes.
const STRICT_FORMATS: &[&str] = &[
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
const STANDARD_FORMATS: &[&str] = &[
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

/// Bounds strict mode does not take, said in the description instead.
const INTO_DESCRIPTION: &[&str] = &[
    "minLength",
    "maxLength",
    "uniqueItems",
    "minProperties",
    "maxProperties",
];

/// The plain form: JSON Schema as it is, without the formats OpenAI's models do not know.
pub(crate) const PLAIN: Keywords = Keywords {
    formats: Some(STANDARD_FORMATS),
    ..Keywords::ALL
};

/// Strict mode.
pub(crate) const STRICT: Keywords = Keywords {
    taken: Some(STRICT_KEYWORDS),
    described: INTO_DESCRIPTION,
    dropped: &[],
    formats: Some(STRICT_FORMATS),
};

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
    for keyword in pass.keywords.described {
        into_description(pass, map, keyword);
    }
    drop_format(pass, map);
    structural(pass, map);
    unknown_keywords(pass, map);
    pass.flush_words(map);
    if !is_typed(map) {
        untyped(pass);
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
