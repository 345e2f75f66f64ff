//! The canonical parameters schema of a tool (JSON Schema draft 2020-12), what is read off it,
//! and each provider's form of it: one transform pass per provider, and lints for what a form
//! cannot say.

mod anthropic;
mod gemini;
mod lean;
pub(crate) mod lint;
pub(crate) mod mcp;
mod openai;
pub(crate) mod walk;

use std::borrow::Cow;
use std::fmt;

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

pub use self::lint::{Lint, LintReport, Rule, Severity};
use self::walk::Pass;

/// A provider's dialect of JSON Schema for a tool's parameters: what it takes, what it refuses.
///
/// The canonical schema says everything the runtime enforces; each dialect is derived from it by a
/// transform pass, and whatever a dialect cannot say is reported by [`ToolDefinition::lint`]
/// (and still enforced when the call arrives).
///
/// [`ToolDefinition::lint`]: crate::ToolDefinition::lint
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Dialect {
    /// OpenAI (Chat Completions and Responses) with `strict: false`: JSON Schema, `oneOf` as
    /// `anyOf`, only standard formats.
    OpenAi,
    /// OpenAI with `strict: true` (Structured Outputs): every property required (optional ones
    /// nullable), `additionalProperties: false` everywhere, no `$ref` siblings, no `default`,
    /// a short keyword and format list, size limits.
    OpenAiStrict,
    /// Anthropic Messages: the canonical schema.
    Anthropic,
    /// Anthropic with `strict: true`: closed objects, no numeric or length bounds (they go into the
    /// description), `minItems` of 0 or 1, no recursion, a short format list.
    AnthropicStrict,
    /// Gemini `parameters`: the OpenAPI 3.0 subset. No `$ref`, `nullable` instead of null types,
    /// string enums, a short keyword and format list.
    Gemini,
    /// Gemini `parametersJsonSchema`: JSON Schema.
    GeminiJsonSchema,
    /// MCP `tools/list`: JSON Schema draft 2020-12, definitions at the root, small enums inline.
    Mcp,
}

impl Dialect {
    /// Every dialect.
    pub const ALL: [Dialect; 7] = [
        Dialect::OpenAi,
        Dialect::OpenAiStrict,
        Dialect::Anthropic,
        Dialect::AnthropicStrict,
        Dialect::Gemini,
        Dialect::GeminiJsonSchema,
        Dialect::Mcp,
    ];

    /// Whether this is a provider's strict mode.
    pub fn is_strict(self) -> bool {
        matches!(self, Dialect::OpenAiStrict | Dialect::AnthropicStrict)
    }

    /// Why a tool name breaks this provider's rules, if it does: OpenAI `[A-Za-z0-9_-]{1,64}`,
    /// Anthropic `[A-Za-z0-9_-]{1,128}`, Gemini `[A-Za-z_][A-Za-z0-9_.:-]{0,127}`, MCP
    /// `[A-Za-z0-9_.-]{1,128}`.
    ///
    /// ```
    /// use toolwright::schema::Dialect;
    ///
    /// assert!(Dialect::Mcp.check_name("files.read").is_ok());
    /// assert!(Dialect::OpenAi.check_name("files.read").is_err());
    /// assert!(Dialect::Gemini.check_name("2fa").is_err());
    /// ```
    ///
    /// # Errors
    /// What is wrong with the name, in words.
    pub fn check_name(self, name: &str) -> Result<(), String> {
        let (max, extra, rule) = self.name_rule();
        let length = name.chars().count();
        if length == 0 {
            return Err(format!("the name is empty; names are {rule}"));
        }
        if length > max {
            return Err(format!(
                "the name is {length} characters long, over {max}; names are {rule}"
            ));
        }
        if let Some(bad) = name
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || extra.contains(*c)))
        {
            return Err(format!("the name has {bad:?}; names are {rule}"));
        }
        let gemini = matches!(self, Dialect::Gemini | Dialect::GeminiJsonSchema);
        if gemini && name.starts_with(|c: char| !(c.is_ascii_alphabetic() || c == '_')) {
            return Err(format!(
                "the name starts with {:?}, not a letter or `_`; names are {rule}",
                name.chars().next().unwrap_or_default()
            ));
        }
        Ok(())
    }

    /// The provider's rule for tool names: the longest, the characters allowed beside ASCII
    /// letters and digits, and the rule as a pattern (for messages).
    fn name_rule(self) -> (usize, &'static str, &'static str) {
        match self {
            Dialect::OpenAi | Dialect::OpenAiStrict => (64, "_-", "[A-Za-z0-9_-]{1,64}"),
            Dialect::Anthropic | Dialect::AnthropicStrict => (128, "_-", "[A-Za-z0-9_-]{1,128}"),
            Dialect::Gemini | Dialect::GeminiJsonSchema => {
                (128, "_.:-", "[A-Za-z_][A-Za-z0-9_.:-]{0,127}")
            }
            Dialect::Mcp => (128, "_.-", "[A-Za-z0-9_.-]{1,128}"),
        }
    }

    /// The name a tool is sent under to this dialect's provider: the name itself when it keeps
    /// the provider's rules ([`check_name`](Self::check_name)), otherwise a stand-in that does.
    /// Each character the provider refuses becomes `_`; a name too long keeps its start and ends
    /// in a hash of the whole name; a Gemini name that does not start with a letter or `_` gets a
    /// leading `_`. The same name always maps to the same stand-in, and a toolbox maps calls to
    /// the stand-in back to the tool ([`Toolbox::read_response`](crate::Toolbox::read_response)).
    ///
    /// ```
    /// use toolwright::schema::Dialect;
    ///
    /// assert_eq!(Dialect::OpenAi.wire_name("files.read"), "files_read");
    /// assert_eq!(Dialect::Mcp.wire_name("files.read"), "files.read");
    /// assert_eq!(Dialect::Gemini.wire_name("2fa"), "_2fa");
    /// assert_eq!(Dialect::OpenAi.wire_name(&"x".repeat(80)).len(), 64);
    /// ```
    pub fn wire_name(self, name: &str) -> Cow<'_, str> {
        if self.check_name(name).is_ok() {
            return Cow::Borrowed(name);
        }
        let (max, extra, _) = self.name_rule();
        let mut wire: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || extra.contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let gemini = matches!(self, Dialect::Gemini | Dialect::GeminiJsonSchema);
        if wire.is_empty()
            || (gemini && !wire.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
        {
            wire.insert(0, '_');
        }
        if wire.len() > max {
            // All ASCII by now, so byte and character counts agree.
            wire.truncate(max - 9);
            wire.push_str(&format!("_{:08x}", fnv1a(name)));
        }
        Cow::Owned(wire)
    }

    /// This dialect's form of a canonical parameters schema, and what it could not say (lints
    /// without the tool's name).
    pub(crate) fn transform(self, parameters: &Value) -> (Value, Vec<Lint>) {
        let defs = match parameters.get("$defs") {
            Some(Value::Object(defs)) => defs.clone(),
            _ => Map::new(),
        };
        let mut pass = Pass::new(self, &defs);
        let mut schema = parameters.clone();
        match self {
            Dialect::OpenAi | Dialect::Anthropic | Dialect::GeminiJsonSchema => {
                plain(&mut pass, &mut schema);
            }
            Dialect::OpenAiStrict => openai::strict(&mut pass, &mut schema),
            Dialect::AnthropicStrict => anthropic::strict(&mut pass, &mut schema),
            Dialect::Gemini => gemini::parameters(&mut pass, &mut schema),
            Dialect::Mcp => mcp::input(&mut pass, &mut schema),
        }
        // The same rules in fewer tokens, where the form is JSON Schema as it is (the strict
        // and Gemini forms have shapes of their own, and Gemini's JSON Schema form is the
        // canonical schema).
        if matches!(self, Dialect::OpenAi | Dialect::Anthropic | Dialect::Mcp) {
            lean::lean(&mut schema);
        }
        (schema, pass.lints)
    }
}

/// The forms that take JSON Schema as it is (OpenAI and Anthropic without strict mode, Gemini's
/// `parametersJsonSchema`): `oneOf` as `anyOf`, and each provider's one rule of its own.
fn plain(pass: &mut Pass<'_>, schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    walk::one_of_to_any_of(map);
    match pass.dialect {
        // Rust-specific formats (`uint32`, `double`) mean nothing to OpenAI's models.
        Dialect::OpenAi => openai::drop_format(pass, map, openai::STANDARD_FORMATS),
        Dialect::Anthropic => anthropic::property_names(pass, map),
        _ => {}
    }
    pass.children(map, &mut plain);
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dialect::OpenAi => "OpenAI",
            Dialect::OpenAiStrict => "OpenAI strict",
            Dialect::Anthropic => "Anthropic",
            Dialect::AnthropicStrict => "Anthropic strict",
            Dialect::Gemini => "Gemini parameters",
            Dialect::GeminiJsonSchema => "Gemini parametersJsonSchema",
            Dialect::Mcp => "MCP",
        })
    }
}

/// The schema of `T` as JSON Schema draft 2020-12, definitions under `$defs`.
pub fn schema_for<T: JsonSchema + ?Sized>() -> Value {
    SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
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

/// The 32-bit FNV-1a hash: stable across runs and platforms, so a stand-in name never changes.
fn fnv1a(text: &str) -> u32 {
    text.bytes().fold(0x811c_9dc5, |hash, byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    })
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
