//! Anthropic's forms (and the JSON Schema form Gemini takes as `parametersJsonSchema`).
//!
//! Strict tool use, as Anthropic documents its JSON Schema limits: objects closed with
//! `additionalProperties: false`; no numeric bounds (`minimum`, `maximum`, `multipleOf`...) and no
//! string lengths; `minItems` only 0 or 1; no recursive schemas; formats `date-time`, `time`,
//! `date`, `duration`, `email`, `hostname`, `uri`, `ipv4`, `ipv6`, `uuid`. Property keys match
//! `^[a-zA-Z0-9_.-]{1,64}$` in every form.

use serde_json::{Map, Value};

use crate::forms::keywords::Keywords;
use crate::forms::lint::{Rule, Severity};
use crate::forms::rules::{close_object, drop_format, structural, typed_schema, untyped};
use crate::forms::walk::{Pass, into_description, is_recursive, is_typed, one_of_to_any_of};

const STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Bounds strict tool use does not take, said in the description instead.
const INTO_DESCRIPTION: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
];

/// Rules strict tool use does not take and that have no words: left out, with a warning.
const DROPPED: &[&str] = &[
    "not",
    "if",
    "then",
    "else",
    "contains",
    "minContains",
    "maxContains",
    "propertyNames",
    "dependentRequired",
    "dependentSchemas",
    "unevaluatedProperties",
    "unevaluatedItems",
];

/// Strict tool use.
pub(crate) const STRICT: Keywords = Keywords {
    taken: None,
    described: INTO_DESCRIPTION,
    dropped: DROPPED,
    formats: Some(STRICT_FORMATS),
};

/// Property keys Anthropic refuses.
pub(crate) fn property_names(pass: &mut Pass<'_>, map: &Map<String, Value>) {
    let Some(Value::Object(properties)) = map.get("properties") else {
        return;
    };
    let bad: Vec<String> = properties
        .keys()
        .filter(|k| {
            k.is_empty()
                || k.chars().count() > 64
                || !k
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
        })
        .cloned()
        .collect();
    for key in bad {
        let fix = rename_fix(&key, pass.from_attribute);
        pass.at("properties", |pass| {
            pass.at(&key, |pass| {
                pass.lint(
                    Severity::Error,
                    Rule::PropertyName,
                    format!("the property name {key:?} does not match ^[a-zA-Z0-9_.-]{{1,64}}$"),
                    fix,
                );
            });
        });
    }
}

/// What to do about a property name Anthropic refuses: for `#[tool]`, its options; for a schema
/// given at run time, the schema itself (toolwright does not map property names back, so the
/// tool then reads the argument under the new name).
fn rename_fix(key: &str, from_attribute: bool) -> String {
    let name = allowed_name(key);
    if from_attribute {
        format!(
            "rename the parameter (`#[tool(rename = \"{name}\")]`, or `#[serde(rename = \"{name}\")]` \
             on a field), or leave this tool out of the Anthropic list"
        )
    } else {
        format!(
            "rename the property in the schema given to `ToolDefinition::new` (to \"{name}\", say) \
             and read the argument under that name in the tool's body (a schema derived from a \
             type: `#[serde(rename = \"{name}\")]` on its field), or leave this tool out of the \
             Anthropic list"
        )
    }
}

/// A name Anthropic takes, close to `key`: accented Latin letters without their accents, any
/// other character refused as `_`, at most 64 characters.
fn allowed_name(key: &str) -> String {
    let mut name = String::new();
    for c in key.chars() {
        let plain = match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '_' | '.' | '-' => c,
            'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' => 'a',
            'À' | 'Á' | 'Â' | 'Ã' | 'Ä' | 'Å' => 'A',
            'ç' => 'c',
            'Ç' => 'C',
            'è' | 'é' | 'ê' | 'ë' => 'e',
            'È' | 'É' | 'Ê' | 'Ë' => 'E',
            'ì' | 'í' | 'î' | 'ï' => 'i',
            'Ì' | 'Í' | 'Î' | 'Ï' => 'I',
            'ñ' => 'n',
            'Ñ' => 'N',
            'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' => 'o',
            'Ò' | 'Ó' | 'Ô' | 'Õ' | 'Ö' | 'Ø' => 'O',
            'ù' | 'ú' | 'û' | 'ü' => 'u',
            'Ù' | 'Ú' | 'Û' | 'Ü' => 'U',
            'ý' | 'ÿ' => 'y',
            'Ý' => 'Y',
            _ => '_',
        };
        name.push(plain);
    }
    if name.is_empty() {
        name.push_str("argument");
    }
    name.chars().take(64).collect()
}

/// The strict form.
pub(crate) fn strict(pass: &mut Pass<'_>, schema: &mut Value) {
    if let Some(name) = is_recursive(schema, pass.defs) {
        pass.lint(
            Severity::Error,
            Rule::Recursion,
            format!("`{name}` refers to itself; strict tool use takes no recursive schemas"),
            "send this tool without strict mode",
        );
    }
    strict_node(pass, schema, true);
}

fn strict_node(pass: &mut Pass<'_>, schema: &mut Value, root: bool) {
    let Some(map) = typed_schema(pass, schema) else {
        return;
    };
    one_of_to_any_of(map);
    property_names(pass, map);
    pass.children(map, &mut |pass, child| strict_node(pass, child, false));
    close_object(pass, map, root, false);
    for keyword in pass.keywords.described {
        into_description(pass, map, keyword);
    }
    if map
        .get("minItems")
        .and_then(Value::as_u64)
        .is_some_and(|n| n > 1)
    {
        into_description(pass, map, "minItems");
    }
    drop_format(pass, map);
    if map.contains_key("prefixItems") {
        structural(
            pass,
            &Map::from_iter([("prefixItems".to_owned(), Value::Null)]),
        );
    }
    let all_of_ref = map
        .get("allOf")
        .and_then(Value::as_array)
        .is_some_and(|parts| parts.iter().any(|p| p.get("$ref").is_some()));
    if all_of_ref {
        pass.lint(
            Severity::Error,
            Rule::AllOf,
            "`allOf` with a `$ref` is not taken by strict tool use",
            "merge the parts into one type, or send this tool without strict mode",
        );
    }
    for keyword in pass.keywords.dropped {
        if map.remove(*keyword).is_some() {
            pass.lint(
                Severity::Warning,
                Rule::Keyword((*keyword).to_owned()),
                format!("`{keyword}` is not taken by strict tool use and is left out; the model is not told"),
                "nothing to do if the error message a call that breaks it gets is enough",
            );
        }
    }
    pass.flush_words(map);
    if !is_typed(map) {
        untyped(pass);
    }
}
