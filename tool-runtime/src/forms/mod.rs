//! The canonical parameters schema of a tool (JSON Schema draft 2020-12), what is read off it,
//! and each provider's form of it: one transform pass per provider, and lints for what a form
//! cannot say.

mod form;
pub(crate) mod keywords;
pub(crate) mod lean;
pub(crate) mod lint;
pub(crate) mod rules;
pub(crate) mod walk;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value};

pub use self::form::{Form, Provider, UnknownProvider};
use self::keywords::Keywords;
pub use self::lint::{Lint, LintReport, Rule, Severity};
use self::walk::Pass;

impl Form {
    /// This form of a canonical parameters schema, by the provider's pass `form_of` (its
    /// `Spec::schema`) reading the form's `keywords`, and what it could not say (lints without the tool's name; their fixes
    /// name `#[tool]`'s options when `from_attribute`).
    pub(crate) fn transform(
        self,
        parameters: &Value,
        from_attribute: bool,
        form_of: fn(&mut Pass<'_>, &mut Value),
        keywords: &'static Keywords,
    ) -> (Value, Vec<Lint>) {
        let defs = match parameters.get("$defs") {
            Some(Value::Object(defs)) => defs.clone(),
            _ => Map::new(),
        };
        let mut pass = Pass::new(self, &defs);
        pass.from_attribute = from_attribute;
        pass.keywords = keywords;
        let mut schema = parameters.clone();
        form_of(&mut pass, &mut schema);
        (schema, pass.lints)
    }
}

/// The forms that take JSON Schema as it is (OpenAI and Anthropic without strict mode, Gemini's
/// `parametersJsonSchema`): `oneOf` as `anyOf`, and `rule`, the provider's one rule of its own,
/// at each node.
pub(crate) fn plain(
    pass: &mut Pass<'_>,
    schema: &mut Value,
    rule: fn(&mut Pass<'_>, &mut Map<String, Value>),
) {
    let Value::Object(map) = schema else { return };
    walk::one_of_to_any_of(map);
    rule(pass, map);
    pass.children(map, &mut |pass, schema| plain(pass, schema, rule));
}

/// The schema of `T` as JSON Schema draft 2020-12, definitions under `$defs`.
pub fn schema_for<T: JsonSchema + ?Sized>() -> Value {
    SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

/// The schema of a generated arguments struct, from its own `json_schema`: the root of
/// [`schema_for`] built by shared code, so that each tool compiles only its fields' schema.
///
/// An arguments struct is never referred to by its own fields, so its root needs neither the
/// struct's id (which `into_root_schema_for` keeps for recursive references, and which for the
/// macro's generic struct is a `format!` of its type parameters) nor its name (the `title`, which
/// [`canonical_parameters`] removes with `$schema`). The definitions its fields made go under
/// `$defs`, last, as `into_root_schema_for` puts them.
pub(crate) fn arguments_schema(json_schema: fn(&mut SchemaGenerator) -> Schema) -> Value {
    let mut generator = SchemaSettings::draft2020_12().into_generator();
    let mut schema = json_schema(&mut generator).to_value();
    let mut definitions = generator.take_definitions(false);
    if !definitions.is_empty()
        && let Value::Object(root) = &mut schema
        && let Value::Object(defs) = root
            .entry("$defs")
            .or_insert_with(|| Value::Object(Map::new()))
    {
        defs.append(&mut definitions);
    }
    schema
}

/// Why a parameters schema was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// The schema is not a JSON object (nor `true`).
    #[error("a parameters schema must be a JSON object, not {0}")]
    NotAnObject(Value),
    /// The schema describes something other than an object: tools take named arguments.
    #[error(
        "a parameters schema must have `\"type\": \"object\"` (tools take named arguments), not {0}"
    )]
    NotObjectType(Value),
}

/// Brings a parameters schema to canonical form: `$schema` and the root `title` removed, and the
/// root an object with `properties` and `required`, even when both are empty.
///
/// # Errors
/// When the root describes something other than an object.
pub fn canonical_parameters(schema: Value) -> Result<Value, SchemaError> {
    let mut root = match schema {
        Value::Object(map) => map,
        Value::Bool(true) => Map::new(),
        other => return Err(SchemaError::NotAnObject(other)),
    };
    root.remove("$schema");
    root.remove("title");
    match root.get("type") {
        None => {
            root.insert("type".into(), Value::from("object"));
        }
        Some(Value::String(t)) if t == "object" => {}
        Some(other) => return Err(SchemaError::NotObjectType(other.clone())),
    }
    if !matches!(root.get("properties"), Some(Value::Object(_))) {
        root.insert("properties".into(), Value::Object(Map::new()));
    }
    if !matches!(root.get("required"), Some(Value::Array(_))) {
        root.insert("required".into(), Value::Array(Vec::new()));
    }
    // Keep the familiar order: type, properties, required first.
    let mut ordered = Map::with_capacity(root.len());
    for key in ["type", "description", "properties", "required"] {
        if let Some(value) = root.remove(key) {
            ordered.insert(key.into(), value);
        }
    }
    ordered.extend(root);
    Ok(Value::Object(ordered))
}

/// Tidies a return type's schema for use as an output schema: `$schema` and the root `title`
/// removed; a schema that allows anything says nothing and becomes `None`.
pub(crate) fn output_schema(schema: Value) -> Option<Value> {
    let Value::Object(mut root) = schema else {
        return None;
    };
    root.remove("$schema");
    root.remove("title");
    (!root.is_empty()).then_some(Value::Object(root))
}

/// Argument names read off a canonical parameters schema, built once per tool.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ParamTable {
    /// Names in `required`, in schema order.
    pub(crate) required: Vec<String>,
    /// Names in `properties`, in declaration order.
    pub(crate) accepted: Vec<String>,
    /// `additionalProperties: false`: unknown names are rejected.
    pub(crate) closed: bool,
    /// Whether the schema lists its properties at all (a bare `{"type": "object"}` does not).
    pub(crate) known: bool,
}

impl ParamTable {
    pub(crate) fn from_schema(schema: &Value) -> Self {
        let properties = schema.get("properties").and_then(Value::as_object);
        let accepted: Vec<String> = properties
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        let required = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|names| {
                names
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        ParamTable {
            required,
            known: properties.is_some_and(|p| !p.is_empty())
                || schema.get("additionalProperties") == Some(&Value::Bool(false)),
            closed: schema.get("additionalProperties") == Some(&Value::Bool(false)),
            accepted,
        }
    }

    pub(crate) fn accepts(&self, name: &str) -> bool {
        self.accepted.iter().any(|a| a == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_form_strips_root_noise_and_fills_the_object() {
        let canonical = canonical_parameters(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Args",
            "type": "object",
        }))
        .unwrap();
        assert_eq!(
            canonical,
            json!({"type": "object", "properties": {}, "required": []})
        );
    }

    #[test]
    fn non_object_roots_are_refused() {
        assert!(canonical_parameters(json!({"type": "string"})).is_err());
        assert!(canonical_parameters(json!(3)).is_err());
    }

    #[test]
    fn tables_read_required_accepted_and_closed() {
        let table = ParamTable::from_schema(&json!({
            "type": "object",
            "properties": {"b": {}, "a": {}},
            "required": ["b"],
            "additionalProperties": false,
        }));
        assert_eq!(table.accepted, ["b", "a"]);
        assert_eq!(table.required, ["b"]);
        assert!(table.closed && table.known);
        assert!(!ParamTable::from_schema(&json!({"type": "object"})).known);
    }
}
