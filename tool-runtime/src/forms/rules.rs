//! The rules several providers' forms share: the strict forms' object closing and their errors
//! for what they cannot say, and dropping the keywords and formats a form does not take.

use serde_json::{Map, Value};

use super::lint::{Rule, Severity};
use super::walk::{Pass, is_object, takes_null};

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

/// Removes a `format` the form does not take
/// ([`Keywords::formats`](super::keywords::Keywords::formats)), with a note.
pub(crate) fn drop_format(pass: &mut Pass<'_>, map: &mut Map<String, Value>) {
    let (Some(allowed), Some(Value::String(format))) = (pass.keywords.formats, map.get("format"))
    else {
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

/// Drops keywords the form does not take ([`Keywords::taken`](super::keywords::Keywords::taken)): annotations silently, rules
/// with a warning.
pub(crate) fn unknown_keywords(pass: &mut Pass<'_>, map: &mut Map<String, Value>) {
    let Some(taken) = pass.keywords.taken else {
        return;
    };
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
