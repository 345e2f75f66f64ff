//! Gemini's `parameters` form: the OpenAPI 3.0 subset its `Schema` type takes.
//!
//! Fields the official SDK (google-genai 3.6.1) accepts on a `Schema`: `anyOf`, `default`,
//! `description`, `enum`, `example`, `format`, `items`, `maxItems`, `maxLength`, `maxProperties`,
//! `maximum`, `minItems`, `minLength`, `minProperties`, `minimum`, `nullable`, `pattern`,
//! `properties`, `propertyOrdering`, `required`, `title`, `type`; any other is refused
//! (`extra_forbidden`), `$ref`/`$defs` among them. The API refuses `additionalProperties`. Types
//! are single names, with `nullable: true` for null; enums are strings; formats are `enum`,
//! `date-time`, `int32`, `int64`, `float`, `double`.

use schemars::Schema;
use schemars::transform::{ReplaceBoolSchemas, ReplaceConstValue, SetSingleExample, Transform};
use serde_json::{Map, Value, json};

use crate::forms::keywords::Keywords;
use crate::forms::lint::{Rule, Severity};
use crate::forms::rules::{drop_format, structural, unknown_keywords};
use crate::forms::walk::{
    Pass, append_description, describe, into_description, is_typed, one_of_to_any_of, resolve,
};

const FORMATS: &[&str] = &["enum", "date-time", "int32", "int64", "float", "double"];

const KEYWORDS: &[&str] = &[
    "anyOf",
    "default",
    "description",
    "enum",
    "example",
    "format",
    "items",
    "maxItems",
    "maxLength",
    "maxProperties",
    "maximum",
    "minItems",
    "minLength",
    "minProperties",
    "minimum",
    "nullable",
    "pattern",
    "properties",
    "propertyOrdering",
    "required",
    "title",
    "type",
    // Reported as errors, and kept so the report shows them.
    "allOf",
    "prefixItems",
];

/// The `parameters` form: the OpenAPI subset's keywords and formats.
pub(crate) const PARAMETERS: Keywords = Keywords {
    taken: Some(KEYWORDS),
    described: &[],
    dropped: &[],
    formats: Some(FORMATS),
};

/// The `parameters` form.
pub(crate) fn parameters(outer: &mut Pass<'_>, schema: &mut Value) {
    // schemars' own passes, where they say what Gemini needs: no boolean schemas (but
    // `additionalProperties: false` stays a boolean until it is dropped), `const` as a one-value
    // `enum`, `examples` as one `example`.
    let mut tidy = Schema::try_from(std::mem::take(schema)).unwrap_or_default();
    let mut no_bools = ReplaceBoolSchemas::default();
    no_bools.skip_additional_properties = true;
    no_bools.transform(&mut tidy);
    ReplaceConstValue::default().transform(&mut tidy);
    SetSingleExample::default().transform(&mut tidy);
    *schema = tidy.to_value();
    let defs = match schema.as_object_mut() {
        Some(root) => {
            let mut defs = match root.remove("$defs") {
                Some(Value::Object(defs)) => defs,
                _ => Map::new(),
            };
            if let Some(Value::Object(old)) = root.remove("definitions") {
                defs.extend(old);
            }
            defs
        }
        None => Map::new(),
    };
    let mut pass = Pass::new(outer.form, &defs);
    pass.from_attribute = outer.from_attribute;
    pass.keywords = outer.keywords;
    node(&mut pass, schema, &mut Vec::new());
    outer.lints.append(&mut pass.lints);
}

fn node(pass: &mut Pass<'_>, schema: &mut Value, stack: &mut Vec<String>) {
    let Value::Object(map) = schema else { return };
    let depth = stack.len();
    inline(pass, map, stack);
    one_of_to_any_of(map);
    type_lists(map);
    pass.children(map, &mut |pass, child| node(pass, child, stack));
    stack.truncate(depth);
    null_branches(map);
    enums(pass, map);
    if !map.contains_key("type") && !map.contains_key("anyOf") {
        let inferred = if map.contains_key("properties") {
            Some("object")
        } else if map.contains_key("items") {
            Some("array")
        } else if map.contains_key("enum") {
            Some("string")
        } else {
            None
        };
        match inferred {
            Some(ty) => {
                map.insert("type".into(), Value::from(ty));
            }
            None if !is_typed(map) => pass.lint(
                Severity::Error,
                Rule::Untyped,
                "a value of any type: Gemini's `parameters` needs every value's type",
                "give the parameter a concrete type, or send the tool as `parametersJsonSchema`",
            ),
            None => {}
        }
    }
    exclusive_bounds(pass, map);
    into_description(pass, map, "multipleOf");
    into_description(pass, map, "uniqueItems");
    if let Some(additional) = map.remove("additionalProperties")
        && additional.as_object().is_some_and(|s| !s.is_empty())
    {
        pass.lint(
            Severity::Warning,
            Rule::Keyword("additionalProperties".into()),
            "a map: Gemini's `parameters` takes no `additionalProperties`, so the model is not told the entries' type",
            "describe the entries in the parameter's description, or send the tool as `parametersJsonSchema`",
        );
    }
    structural(pass, map);
    drop_format(pass, map);
    unknown_keywords(pass, map);
    pass.flush_words(map);
}

/// Replaces `$ref`s with what they name, siblings on top; a reference back into a definition
/// being inlined is recursion, which this form cannot say.
fn inline(pass: &mut Pass<'_>, map: &mut Map<String, Value>, stack: &mut Vec<String>) {
    while let Some(Value::String(reference)) = map.get("$ref").cloned() {
        if !pass.may_inline() {
            return;
        }
        map.remove("$ref");
        let target = resolve(pass.defs, &reference);
        match target {
            Some((name, _)) if stack.iter().any(|s| s == name) => {
                recursion(pass, name);
                map.insert("type".into(), Value::from("object"));
                return;
            }
            Some((name, Value::Object(target))) => {
                let mut merged = target.clone();
                for (key, value) in std::mem::take(map) {
                    merged.insert(key, value);
                }
                *map = merged;
                stack.push(name.to_owned());
            }
            _ if reference == "#" => {
                recursion(pass, "the tool's own parameters");
                map.insert("type".into(), Value::from("object"));
                return;
            }
            _ => {
                pass.lint(
                    Severity::Error,
                    Rule::Keyword("$ref".into()),
                    format!("the reference {reference:?} names no definition"),
                    "fix the schema's `$ref`",
                );
                return;
            }
        }
    }
}

fn recursion(pass: &mut Pass<'_>, name: &str) {
    pass.lint(
        Severity::Error,
        Rule::Recursion,
        format!("`{name}` refers to itself; Gemini's `parameters` cannot say a recursive type"),
        "send the tool as `parametersJsonSchema`, or bound the nesting with distinct types",
    );
}

/// `type: [T, "null"]` becomes `type: T, nullable: true`; several types become a union.
fn type_lists(map: &mut Map<String, Value>) {
    let Some(Value::Array(types)) = map.get("type") else {
        return;
    };
    let mut names: Vec<Value> = types.clone();
    let before = names.len();
    names.retain(|t| t != "null");
    if names.len() < before {
        map.insert("nullable".into(), Value::Bool(true));
    }
    match names.len() {
        0 => {
            map.remove("type");
        }
        1 => {
            map.insert("type".into(), names.remove(0));
        }
        _ => {
            map.remove("type");
            let branches = names.into_iter().map(|t| json!({ "type": t })).collect();
            map.insert("anyOf".into(), Value::Array(branches));
        }
    }
}

fn is_null_only(schema: &Value) -> bool {
    let Value::Object(map) = schema else {
        return false;
    };
    map.get("type") == Some(&Value::from("null"))
        || map.get("enum") == Some(&json!([null]))
        || (map.get("nullable") == Some(&Value::Bool(true)) && !map.contains_key("type"))
}

/// A union branch that is one string value (`{"type": "string", "enum": ["celsius"]}`, as a
/// `const` became): the value, and its description as `celsius: Degrees Celsius`.
fn one_string(branch: &Value) -> Option<(Value, Option<String>)> {
    let branch = branch.as_object()?;
    let annotated_value = branch
        .keys()
        .all(|k| matches!(k.as_str(), "enum" | "type" | "description" | "title"));
    match branch.get("enum")?.as_array()?.as_slice() {
        [Value::String(value)]
            if annotated_value && branch.get("type").is_none_or(|t| t == "string") =>
        {
            let described = branch.get("description").and_then(Value::as_str);
            let words = described.map(|d| format!("{value}: {}", d.trim_end_matches('.')));
            Some((Value::from(value.as_str()), words))
        }
        _ => None,
    }
}

/// Null branches of a union become `nullable: true`; a union left with one branch becomes that
/// branch; a union of one-string values becomes one string enum, the values' descriptions said
/// in the description.
fn null_branches(map: &mut Map<String, Value>) {
    let Some(Value::Array(mut branches)) = map.remove("anyOf") else {
        return;
    };
    let before = branches.len();
    branches.retain(|b| !is_null_only(b));
    if branches.len() < before {
        map.insert("nullable".into(), Value::Bool(true));
    }
    let strings: Option<Vec<(Value, Option<String>)>> = branches.iter().map(one_string).collect();
    match (branches.len(), strings) {
        (0, _) => {}
        (1, _) => {
            if let Some(Value::Object(only)) = branches.pop() {
                // The site's own keywords (its description) win over the branch's.
                for (key, value) in only {
                    map.entry(key).or_insert(value);
                }
            }
        }
        (_, Some(values)) => {
            let (values, words): (Vec<Value>, Vec<Option<String>>) = values.into_iter().unzip();
            let words: Vec<String> = words.into_iter().flatten().collect();
            map.insert("type".into(), Value::from("string"));
            map.insert("enum".into(), Value::Array(values));
            if !words.is_empty() {
                append_description(map, &words.join("; "));
            }
        }
        _ => {
            map.insert("anyOf".into(), Value::Array(branches));
        }
    }
}

/// Enums of strings only; `null` among the values becomes `nullable`; other values go into the
/// description.
fn enums(pass: &mut Pass<'_>, map: &mut Map<String, Value>) {
    let Some(Value::Array(values)) = map.get_mut("enum") else {
        return;
    };
    let before = values.len();
    values.retain(|v| !v.is_null());
    if values.len() < before {
        map.insert("nullable".into(), Value::Bool(true));
    }
    let Some(Value::Array(values)) = map.get("enum") else {
        return;
    };
    if values.iter().all(Value::is_string) {
        if !map.contains_key("type") {
            map.insert("type".into(), Value::from("string"));
        }
        return;
    }
    if !map.contains_key("type") {
        let ty = if values.iter().all(Value::is_i64) || values.iter().all(Value::is_u64) {
            Some("integer")
        } else if values.iter().all(Value::is_number) {
            Some("number")
        } else if values.iter().all(Value::is_boolean) {
            Some("boolean")
        } else {
            None
        };
        if let Some(ty) = ty {
            map.insert("type".into(), Value::from(ty));
        }
    }
    let values = map.remove("enum").unwrap_or(Value::Null);
    let words = describe("enum", &values).unwrap_or_default();
    pass.say(words.clone());
    pass.lint(
        Severity::Note,
        Rule::NonStringEnum,
        format!("Gemini takes enums of strings only; the description says \"{words}\""),
        "nothing to do: the values are still checked when the call arrives",
    );
}

/// `exclusiveMinimum`/`exclusiveMaximum`: on integers, the inclusive bound next to them; on
/// numbers, words in the description.
fn exclusive_bounds(pass: &mut Pass<'_>, map: &mut Map<String, Value>) {
    let integer = map.get("type") == Some(&Value::from("integer"));
    for (exclusive, inclusive, step) in [
        ("exclusiveMinimum", "minimum", 1_i64),
        ("exclusiveMaximum", "maximum", -1_i64),
    ] {
        let Some(bound) = map
            .get(exclusive)
            .and_then(Value::as_i64)
            .filter(|_| integer)
        else {
            into_description(pass, map, exclusive);
            continue;
        };
        map.remove(exclusive);
        let moved = bound.saturating_add(step);
        let tighter = match map.get(inclusive).and_then(Value::as_f64) {
            #[expect(
                clippy::cast_precision_loss,
                reason = "a bound past 2^53 is approximate in JSON Schema already"
            )]
            Some(existing) if step > 0 => existing.max(moved as f64),
            #[expect(
                clippy::cast_precision_loss,
                reason = "a bound past 2^53 is approximate in JSON Schema already"
            )]
            Some(existing) => existing.min(moved as f64),
            #[expect(
                clippy::cast_precision_loss,
                reason = "a bound past 2^53 is approximate in JSON Schema already"
            )]
            None => moved as f64,
        };
        #[expect(
            clippy::cast_possible_truncation,
            reason = "a whole number within i64, checked above"
        )]
        map.insert(inclusive.into(), Value::from(tighter as i64));
    }
}
