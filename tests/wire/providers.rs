//! Provider forms of tool declarations: checked-in snapshots of the demo toolbox in every form,
//! values built from each provider's schema that the local pipeline must accept, OpenAI's
//! published strict-mode rules checked by a walk over the schema, the lints, and the facts
//! recorded from the providers' own SDKs (`tests/data/peers`).
//!
//! `UPDATE_SNAPSHOTS=1 cargo test -p toolwright-tests --test wire providers::` rewrites the snapshots after a deliberate
//! change; review the diff.

use crate::data;
use crate::demo;

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use toolwright::args::{ArgumentPolicy, CoercionKind};
use toolwright::{
    RegisterError, Tool, ToolCall, ToolDefinition, Toolbox,
    provider::Provider,
    schema::{Form, Rule, Severity, StrictFallback},
    tool,
};

/// The forms `examples/providers` takes, and what each means.
const FORMS: [(&str, Form); 10] = [
    ("openai", Form::new(Provider::OpenAiChat)),
    ("openai-strict", Form::strict(Provider::OpenAiChat)),
    ("openai-responses", Form::new(Provider::OpenAiResponses)),
    ("anthropic", Form::new(Provider::Anthropic)),
    ("anthropic-strict", Form::strict(Provider::Anthropic)),
    ("gemini", Form::new(Provider::Gemini)),
    ("gemini-json-schema", Form::gemini_json_schema()),
    ("mcp", Form::new(Provider::Mcp)),
    ("cohere", Form::new(Provider::Cohere)),
    ("bedrock", Form::new(Provider::Bedrock)),
];

/// The demo toolbox set to send `form`.
fn demo_toolbox(form: Form) -> Toolbox<demo::DemoContext> {
    demo::toolbox()
        .with_strict(form.is_strict())
        .with_gemini_json_schema(form.is_gemini_json_schema())
}

fn demo_list(form: impl Into<Form>) -> Value {
    let form = form.into();
    demo_toolbox(form)
        .tools_for(form.provider())
        .unwrap_or_else(|errors| panic!("{errors}"))
        .to_value()
}

/// `(name, parameters schema)` of each entry of a list for `provider`.
fn schemas(provider: Provider, list: &Value) -> Vec<(String, Value)> {
    let entries = match provider {
        Provider::Gemini => &list[0]["functionDeclarations"],
        Provider::Mcp => &list["tools"],
        _ => list,
    };
    entries
        .as_array()
        .expect("a list of tools")
        .iter()
        .map(|entry| {
            let function = match provider {
                Provider::OpenAiChat | Provider::Cohere => &entry["function"],
                Provider::Bedrock => &entry["toolSpec"],
                _ => entry,
            };
            let schema = if provider == Provider::Bedrock {
                function["inputSchema"]["json"].clone()
            } else {
                [
                    "parameters",
                    "input_schema",
                    "parametersJsonSchema",
                    "inputSchema",
                ]
                .iter()
                .find_map(|key| function.get(*key))
                .expect("a parameters schema")
                .clone()
            };
            (function["name"].as_str().unwrap().to_owned(), schema)
        })
        .collect()
}

fn snapshot_path(form: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("snapshots/providers")
        .join(format!("{form}.json"))
}

/// Whether `list` is the snapshot `name` (with `UPDATE_SNAPSHOTS` set, it becomes it).
fn matches_snapshot(name: &str, list: &impl Serialize) -> bool {
    let text = serde_json::to_string_pretty(list).unwrap() + "\n";
    let path = snapshot_path(name);
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &text).unwrap();
        return true;
    }
    std::fs::read_to_string(&path).ok().as_deref() == Some(text.as_str())
}

#[test]
fn every_form_of_the_demo_toolbox_matches_its_snapshot() {
    let mut stale = Vec::new();
    for (form, options) in FORMS {
        if !matches_snapshot(form, &demo_list(options)) {
            stale.push(format!("{form}: {}", snapshot_path(form).display()));
        }
    }
    assert!(
        stale.is_empty(),
        "snapshots differ (rerun with UPDATE_SNAPSHOTS=1 and review the diff):\n{}",
        stale.join("\n")
    );
}

#[test]
fn strict_is_written_where_openai_needs_it() {
    // The Responses API reads a missing `strict` as true: always written. Chat Completions reads
    // it as false: written only when true (a token saved per tool per request).
    for format in [Provider::OpenAiChat, Provider::OpenAiResponses] {
        for strict in [false, true] {
            let list = demo_list(Form::new(format).with_strict(strict));
            for entry in list.as_array().unwrap() {
                let (strict_field, expected) = if format == Provider::OpenAiChat {
                    (
                        entry["function"].get("strict"),
                        strict.then_some(Value::Bool(true)),
                    )
                } else {
                    (entry.get("strict"), Some(Value::Bool(strict)))
                };
                assert_eq!(strict_field, expected.as_ref(), "{entry}");
                assert_eq!(entry["type"], "function");
            }
        }
    }
    let anthropic = demo_list(Provider::Anthropic);
    assert!(anthropic[0].get("strict").is_none());
    assert_eq!(
        demo_list(Form::strict(Provider::Anthropic))[0]["strict"],
        true
    );
}

#[test]
fn every_root_is_an_object_with_properties_and_required() {
    for (form, options) in FORMS {
        for (name, schema) in schemas(options.provider(), &demo_list(options)) {
            assert_eq!(schema["type"], "object", "{form} {name}");
            assert!(schema["properties"].is_object(), "{form} {name}");
            // An empty `required` is left out where the form is plain JSON Schema.
            let required = schema.get("required");
            assert!(
                required.is_some_and(Value::is_array)
                    || (required.is_none()
                        && schema["properties"].as_object().unwrap().is_empty()
                        && !options.is_strict()
                        && !form.starts_with("gemini")),
                "{form} {name}"
            );
            assert!(schema.get("$schema").is_none() && schema.get("title").is_none());
            assert!(
                !schema.to_string().contains("\"oneOf\""),
                "{form} {name}: oneOf is sent as anyOf"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Values built from a provider's schema, fed to the local pipeline.

/// Values valid under a provider's schema (JSON Schema, or Gemini's OpenAPI subset with
/// `nullable`), built from it: each property's alternatives (null where nullable, each enum
/// value, each union branch) appear in at least one value.
fn instances(schema: &Value, defs: &Map<String, Value>, depth: usize) -> Vec<Value> {
    assert!(depth < 12, "instances nest too deep");
    let Value::Object(map) = schema else {
        return vec![json!("anything")];
    };
    let mut out = Vec::new();
    if let Some(Value::String(reference)) = map.get("$ref") {
        let name = reference.trim_start_matches("#/$defs/");
        out.extend(instances(&defs[name], defs, depth + 1));
    } else if let Some(Value::Array(branches)) = map.get("anyOf") {
        for branch in branches {
            out.extend(instances(branch, defs, depth + 1));
        }
    } else if let Some(Value::Array(values)) = map.get("enum") {
        out.extend(values.iter().cloned());
    } else if let Some(value) = map.get("const") {
        out.push(value.clone());
    } else {
        let types: Vec<&str> = match map.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        for ty in types {
            match ty {
                "null" => out.push(Value::Null),
                "boolean" => out.extend([json!(true), json!(false)]),
                "integer" => {
                    // Bounds the schema states, or that the description states in words
                    // (where a form takes no bounds, the model reads them there).
                    let said = |words: &str| {
                        let text = map.get("description").and_then(Value::as_str)?;
                        let at = text.find(words)? + words.len();
                        text[at..]
                            .split(|c: char| !c.is_ascii_digit() && c != '-')
                            .next()?
                            .parse::<i64>()
                            .ok()
                    };
                    let low = map
                        .get("minimum")
                        .and_then(Value::as_i64)
                        .or_else(|| said("at least "))
                        .unwrap_or(0);
                    let high = map
                        .get("maximum")
                        .and_then(Value::as_i64)
                        .or_else(|| said("at most "))
                        .unwrap_or(low + 7);
                    out.extend([json!(low), json!(high)]);
                }
                "number" => out.push(json!(2.5)),
                "string" => out.push(json!("x")),
                "array" => {
                    let items = map.get("items").cloned().unwrap_or(json!({}));
                    let each = instances(&items, defs, depth + 1);
                    out.push(Value::Array(each.into_iter().take(3).collect()));
                }
                "object" => out.extend(objects(map, defs, depth)),
                other => panic!("unknown type {other}"),
            }
        }
    }
    if map.get("nullable") == Some(&Value::Bool(true)) {
        out.push(Value::Null);
    }
    assert!(!out.is_empty(), "no value fits {schema}");
    out
}

/// Objects whose required properties are all present, taking each property's alternatives in
/// turn; the last one adds the optional properties too.
fn objects(map: &Map<String, Value>, defs: &Map<String, Value>, depth: usize) -> Vec<Value> {
    let empty = Map::new();
    let properties = map
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let required: Vec<&str> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let choices: Vec<(&String, Vec<Value>)> = properties
        .iter()
        .map(|(name, schema)| (name, instances(schema, defs, depth + 1)))
        .collect();
    let rounds = choices.iter().map(|(_, c)| c.len()).max().unwrap_or(1);
    let mut out = Vec::new();
    for round in 0..=rounds {
        let all = round == rounds;
        let object: Map<String, Value> = choices
            .iter()
            .filter(|(name, _)| all || required.contains(&name.as_str()))
            .map(|(name, values)| ((*name).clone(), values[round % values.len()].clone()))
            .collect();
        out.push(Value::Object(object));
    }
    out
}

#[test]
fn values_built_from_every_snapshot_pass_the_local_pipeline() {
    let ctx = demo::context();
    let mut checked = 0;
    for (form, options) in FORMS {
        let toolbox = demo_toolbox(options);
        let snapshot: Value = serde_json::from_str(&data::read_file(&snapshot_path(form))).unwrap();
        for (name, schema) in schemas(options.provider(), &snapshot) {
            let defs = schema
                .get("$defs")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            for value in instances(&schema, &defs, 0) {
                let call = ToolCall::new("c1", name.as_str(), value.to_string());
                if let Err(result) = toolbox.parse_arguments(&call, &ctx) {
                    panic!(
                        "{form}: {name} refused {value} although its schema takes it:\n{}",
                        result.text()
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "only {checked} values were built");
}

// ---------------------------------------------------------------------------------------------
// OpenAI strict mode, as its documentation states the rules.

/// Keywords OpenAI lists as supported in strict mode.
const OPENAI_STRICT_KEYWORDS: &[&str] = &[
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
];
const OPENAI_STRICT_FORMATS: &[&str] = &[
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

/// Panics with the path of the first rule `schema` breaks.
fn assert_openai_strict(tool: &str, root: &Value) {
    assert_eq!(root["type"], "object", "{tool}: the root is an object");
    assert!(
        root.get("anyOf").is_none(),
        "{tool}: the root is not a union"
    );
    let mut stats = (0_usize, 0_usize, 0_usize); // properties, enum values, text
    let mut depth_max = 0;
    walk_strict(tool, root, "", true, 0, &mut depth_max, &mut stats);
    assert!(
        stats.0 <= 5000 && stats.1 <= 1000 && stats.2 <= 120_000,
        "{tool}: limits"
    );
    assert!(depth_max <= 10, "{tool}: nesting");
}

fn walk_strict(
    tool: &str,
    schema: &Value,
    at: &str,
    root: bool,
    depth: usize,
    depth_max: &mut usize,
    stats: &mut (usize, usize, usize),
) {
    let map = schema
        .as_object()
        .unwrap_or_else(|| panic!("{tool} {at}: every schema is an object, not {schema}"));
    for key in map.keys() {
        assert!(
            OPENAI_STRICT_KEYWORDS.contains(&key.as_str()),
            "{tool} {at}: `{key}` is not supported in strict mode"
        );
    }
    assert!(
        !map.contains_key("$ref") || map.len() == 1,
        "{tool} {at}: `$ref` has siblings"
    );
    assert!(
        root || !map.contains_key("$defs"),
        "{tool} {at}: `$defs` below the root"
    );
    assert!(
        ["type", "anyOf", "$ref", "enum", "const"]
            .iter()
            .any(|k| map.contains_key(*k)),
        "{tool} {at}: every schema has a type"
    );
    if let Some(format) = map.get("format").and_then(Value::as_str) {
        assert!(
            OPENAI_STRICT_FORMATS.contains(&format),
            "{tool} {at}: format {format}"
        );
    }
    if let Some(values) = map.get("enum").and_then(Value::as_array) {
        stats.1 += values.len();
        stats.2 += values
            .iter()
            .filter_map(Value::as_str)
            .map(str::len)
            .sum::<usize>();
    }
    let is_object = map.get("type") == Some(&json!("object"))
        || map
            .get("type")
            .and_then(Value::as_array)
            .is_some_and(|t| t.contains(&json!("object")))
        || map.contains_key("properties");
    let mut depth = depth;
    if is_object {
        assert_eq!(
            map.get("additionalProperties"),
            Some(&Value::Bool(false)),
            "{tool} {at}: objects say additionalProperties: false"
        );
        let properties = map["properties"]
            .as_object()
            .expect("objects list properties");
        let required: BTreeSet<&str> = map["required"]
            .as_array()
            .expect("objects list required")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let names: BTreeSet<&str> = properties.keys().map(String::as_str).collect();
        assert_eq!(required, names, "{tool} {at}: every property is required");
        stats.0 += names.len();
        stats.2 += names.iter().map(|n| n.len()).sum::<usize>();
        depth += 1;
        *depth_max = (*depth_max).max(depth);
        for (name, property) in properties {
            walk_strict(
                tool,
                property,
                &format!("{at}/properties/{name}"),
                false,
                depth,
                depth_max,
                stats,
            );
        }
    }
    if let Some(items) = map.get("items") {
        walk_strict(
            tool,
            items,
            &format!("{at}/items"),
            false,
            depth,
            depth_max,
            stats,
        );
    }
    if let Some(Value::Array(branches)) = map.get("anyOf") {
        for (i, branch) in branches.iter().enumerate() {
            walk_strict(
                tool,
                branch,
                &format!("{at}/anyOf/{i}"),
                false,
                depth,
                depth_max,
                stats,
            );
        }
    }
    if let Some(Value::Object(defs)) = map.get("$defs") {
        for (name, def) in defs {
            walk_strict(
                tool,
                def,
                &format!("{at}/$defs/{name}"),
                false,
                0,
                depth_max,
                stats,
            );
        }
    }
}

#[test]
fn the_demo_toolbox_keeps_openai_strict_rules() {
    for format in [Provider::OpenAiChat, Provider::OpenAiResponses] {
        for (name, schema) in schemas(format, &demo_list(Form::strict(format))) {
            assert_openai_strict(&name, &schema);
        }
    }
}

// A zoo of the shapes Rust types take, all expressible in strict mode.

/// A postal address.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Address {
    street: String,
    city: String,
    zip: Option<String>,
}

/// A shape, tagged by `kind`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Shape {
    /// A circle.
    Circle { radius: f64 },
    /// A square.
    Square { side: f64 },
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
enum Speed {
    Fast,
    Slow,
}

/// An id or a name.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(untagged)]
enum IdOrName {
    Id(u64),
    Name(String),
}

/// Ship a parcel.
#[tool(strict)]
#[allow(clippy::too_many_arguments)]
fn ship(
    /// Where to.
    to: Address,
    /// Where from, when not the warehouse.
    from: Option<Address>,
    shape: Shape,
    speed: Speed,
    /// Who signs.
    signer: IdOrName,
    /// Labels, some blank.
    labels: Vec<Option<String>>,
    /// How many at once.
    #[tool(default = 1)]
    #[schemars(range(min = 1, max = 99))]
    count: u32,
    /// A note for the courier.
    #[schemars(length(max = 200))]
    note: Option<String>,
    /// Express delivery.
    #[tool(default)]
    express: bool,
) -> String {
    format!("{to:?} {from:?} {shape:?} {speed:?} {signer:?} {labels:?} {count} {note:?} {express}")
}

#[test]
fn a_zoo_of_rust_shapes_is_valid_strict_and_gemini() {
    let def = Tool::<()>::definition(&ShipTool);
    for form in [
        Form::strict(Provider::OpenAiChat),
        Form::strict(Provider::Anthropic),
        Form::new(Provider::Gemini),
        Form::new(Provider::Mcp),
    ] {
        def.lint(form).assert_clean();
    }
    let strict = def.provider_entry(Form::strict(Provider::OpenAiChat));
    assert_eq!(strict["function"]["strict"], true);
    assert_openai_strict("ship", &strict["function"]["parameters"]);
    // Every value built from every form's schema is accepted by the tool itself.
    let tools = Toolbox::new().with(ShipTool).unwrap();
    for (format, on) in [
        (Provider::OpenAiChat, true),
        (Provider::Anthropic, true),
        (Provider::Gemini, false),
        (Provider::Mcp, false),
    ] {
        let list = Toolbox::new()
            .with(ShipTool)
            .unwrap()
            .with_strict(on)
            .tools_for(format)
            .unwrap()
            .to_value();
        for (_, schema) in schemas(format, &list) {
            let defs = schema
                .get("$defs")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            for value in instances(&schema, &defs, 0) {
                let result =
                    tools.execute_blocking(&ToolCall::new("c", "ship", value.to_string()), &());
                assert!(!result.is_error, "{format:?}: {value} -> {}", result.text());
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Strict mode's null for "absent", through dispatch.

/// What to list.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Filter {
    /// Include hidden files.
    #[serde(default)]
    hidden: bool,
    /// Largest size, in bytes.
    max_size: Option<u64>,
}

/// List files.
#[tool(strict)]
fn list_files(
    dir: String,
    /// How many at most.
    #[tool(default = 20)]
    limit: u32,
    /// A glob to match.
    pattern: Option<String>,
    /// Sort key.
    #[tool(default = Some("name".to_owned()))]
    sort: Option<String>,
    /// What to include.
    filter: Option<Filter>,
) -> Value {
    json!({"dir": dir, "limit": limit, "pattern": pattern, "sort": sort, "filter": filter})
}

#[test]
fn strict_nulls_mean_absent_so_defaults_keep_their_meaning() {
    let tools = Toolbox::new()
        .with(ListFilesTool)
        .unwrap()
        .with_strict(true);
    let entry = &tools.tools_for(Provider::OpenAiChat).unwrap().entries()[0]["function"];
    assert_eq!(
        entry["parameters"]["required"],
        json!(["dir", "limit", "pattern", "sort", "filter"])
    );
    // What a strict model sends when it means "leave the rest out", built from the schema.
    let nulls =
        json!({"dir": "/tmp", "limit": null, "pattern": null, "sort": null, "filter": null});
    let absent = json!({"dir": "/tmp"});
    let run = |args: &Value| {
        tools.execute_blocking(&ToolCall::new("c", "list_files", args.to_string()), &())
    };
    let with_nulls = run(&nulls);
    assert!(!with_nulls.is_error, "{}", with_nulls.text());
    assert_eq!(with_nulls.text(), run(&absent).text());
    assert_eq!(
        serde_json::from_str::<Value>(&with_nulls.text()).unwrap(),
        json!({"dir": "/tmp", "limit": 20, "pattern": null, "sort": "name", "filter": null})
    );
    let fixes = with_nulls.fixes().expect("the nulls were taken as absent");
    let paths: Vec<String> = fixes
        .coercions
        .iter()
        .filter(|c| c.kind == CoercionKind::NullToAbsent)
        .map(|c| c.path.to_string())
        .collect();
    assert_eq!(
        paths,
        ["limit", "sort"],
        "only where null and absent differ"
    );
    // Nested: a strict model sends every member of `filter` too.
    let nested = run(
        &json!({"dir": "/", "limit": 5, "pattern": "*.rs", "sort": null,
        "filter": {"hidden": null, "max_size": null}}),
    );
    assert_eq!(
        serde_json::from_str::<Value>(&nested.text()).unwrap(),
        json!({"dir": "/", "limit": 5, "pattern": "*.rs", "sort": "name",
            "filter": {"hidden": false, "max_size": null}})
    );
    // Values built from the strict schema, nulls included, are all accepted.
    let schema = &entry["parameters"];
    let defs = schema["$defs"].as_object().expect("Filter is a definition");
    for value in instances(schema, defs, 0) {
        let result = run(&value);
        assert!(!result.is_error, "{value} -> {}", result.text());
    }
    // Off: null is a value, and a null for an integer is refused.
    let off = Toolbox::new()
        .with(ListFilesTool)
        .unwrap()
        .with_argument_policy(ArgumentPolicy::new().null_as_absent(false));
    let refused = off.execute_blocking(&ToolCall::new("c", "list_files", nulls.to_string()), &());
    assert!(refused.is_error, "{}", refused.text());
    assert!(refused.text().contains("limit"), "{}", refused.text());
}

#[test]
fn null_for_a_required_argument_is_still_an_error() {
    let tools = Toolbox::new().with(ListFilesTool).unwrap();
    let result = tools.execute_blocking(&ToolCall::new("c", "list_files", r#"{"dir": null}"#), &());
    assert!(result.is_error);
    assert!(result.text().contains("dir"), "{}", result.text());
}

// ---------------------------------------------------------------------------------------------
// Lints.

fn raw(name: &str, parameters: Value) -> ToolDefinition {
    ToolDefinition::new(name.to_owned(), "A tool.", parameters).unwrap()
}

fn has_error(def: &ToolDefinition, form: Form, rule: Rule) -> bool {
    def.lint(form).errors().any(|l| l.rule == rule)
}

fn errors(def: &ToolDefinition, form: Form) -> Vec<(String, Rule)> {
    def.lint(form)
        .errors()
        .map(|l| (l.path.clone(), l.rule.clone()))
        .collect()
}

/// Counts words.
#[tool]
fn tally(counts: HashMap<String, u32>) -> usize {
    counts.len()
}

/// A tree.
#[derive(Debug, Deserialize, JsonSchema)]
struct Tree {
    value: i32,
    children: Vec<Tree>,
}

/// Sums a tree.
#[tool]
fn sum_tree(tree: Tree) -> i64 {
    fn sum(t: &Tree) -> i64 {
        i64::from(t.value) + t.children.iter().map(sum).sum::<i64>()
    }
    sum(&tree)
}

/// Takes a pair.
#[tool]
fn pair(both: (i32, String)) -> String {
    format!("{both:?}")
}

/// Takes anything.
#[tool]
fn anything(data: Value) -> Value {
    data
}

#[test]
fn maps_cannot_be_strict_and_say_where() {
    let def = Tool::<()>::definition(&TallyTool);
    assert_eq!(
        errors(def, Form::strict(Provider::OpenAiChat)),
        [("/properties/counts".to_owned(), Rule::Map)]
    );
    assert_eq!(
        errors(def, Form::strict(Provider::Anthropic)),
        [("/properties/counts".to_owned(), Rule::Map)]
    );
    assert!(def.lint(Form::new(Provider::OpenAiChat)).is_clean());
    // Gemini cannot say the entries' type: a warning, the map still works.
    let gemini = def.lint(Form::new(Provider::Gemini));
    assert!(gemini.is_clean());
    assert!(
        gemini
            .of(Severity::Warning)
            .any(|l| l.path == "/properties/counts")
    );
    let lint = def
        .lint(Form::strict(Provider::OpenAiChat))
        .errors()
        .next()
        .unwrap()
        .to_string();
    assert!(
        lint.contains("tally") && lint.contains("OpenAI strict") && lint.contains("struct"),
        "{lint}"
    );
}

#[test]
fn recursion_is_an_error_only_where_the_form_cannot_say_it() {
    let def = Tool::<()>::definition(&SumTreeTool);
    assert!(
        def.lint(Form::strict(Provider::OpenAiChat)).is_clean(),
        "{}",
        def.lint(Form::strict(Provider::OpenAiChat))
    );
    assert!(def.lint(Form::gemini_json_schema()).is_clean());
    assert!(def.lint(Form::new(Provider::Mcp)).is_clean());
    assert!(has_error(def, Form::new(Provider::Gemini), Rule::Recursion));
    assert!(has_error(
        def,
        Form::strict(Provider::Anthropic),
        Rule::Recursion
    ));
    let gemini = def.provider_entry(Provider::Gemini);
    assert!(!gemini.to_string().contains("$ref"), "{gemini}");
}

#[test]
fn tuples_and_untyped_values_are_errors_where_a_type_is_needed() {
    let def = Tool::<()>::definition(&PairTool);
    assert!(has_error(
        def,
        Form::strict(Provider::OpenAiChat),
        Rule::Tuple
    ));
    assert!(has_error(def, Form::new(Provider::Gemini), Rule::Tuple));
    assert!(def.lint(Form::new(Provider::OpenAiChat)).is_clean());
    let def = Tool::<()>::definition(&AnythingTool);
    assert_eq!(
        errors(def, Form::strict(Provider::OpenAiChat)),
        [("/properties/data".to_owned(), Rule::Untyped)]
    );
    assert_eq!(
        errors(def, Form::new(Provider::Gemini)),
        [("/properties/data".to_owned(), Rule::Untyped)]
    );
    assert!(
        def.lint(Form::new(Provider::Mcp)).is_clean()
            && def.lint(Form::new(Provider::Anthropic)).is_clean()
    );
}

#[test]
fn names_follow_each_provider() {
    let cases = [
        ("files.read", [false, false, true, true]),
        ("2fa", [true, true, false, true]),
        ("ns:tool", [false, false, true, false]),
        (&*"x".repeat(65), [false, true, true, true]),
        (&*"x".repeat(129), [false, false, false, false]),
        ("read file", [false, false, false, false]),
    ];
    for (name, [openai, anthropic, gemini, mcp]) in cases {
        let def = raw(name, json!({}));
        // A name the provider refuses is sent under a stand-in that keeps its rules, with a
        // note; calls to the stand-in are mapped back (tests/wire.rs).
        let ok = |d: Form| {
            let lints: Vec<_> = def
                .lint(d)
                .lints()
                .iter()
                .filter(|l| l.rule == Rule::Name)
                .cloned()
                .collect();
            let wire = d.provider().wire_name(name);
            assert!(
                d.provider().check_name(&wire).is_ok(),
                "{name} as {wire} for {d}"
            );
            assert!(
                lints.iter().all(|l| l.severity == Severity::Note),
                "{lints:?}"
            );
            lints.is_empty()
        };
        assert_eq!(ok(Form::new(Provider::OpenAiChat)), openai, "{name} OpenAI");
        assert_eq!(
            ok(Form::strict(Provider::OpenAiChat)),
            openai,
            "{name} OpenAI strict"
        );
        assert_eq!(
            ok(Form::new(Provider::Anthropic)),
            anthropic,
            "{name} Anthropic"
        );
        assert_eq!(ok(Form::new(Provider::Gemini)), gemini, "{name} Gemini");
        assert_eq!(
            ok(Form::gemini_json_schema()),
            gemini,
            "{name} Gemini JSON Schema"
        );
        assert_eq!(ok(Form::new(Provider::Mcp)), mcp, "{name} MCP");
    }
}

#[test]
fn anthropic_property_keys_are_checked() {
    let def = raw(
        "t",
        json!({"type": "object", "properties": {"my key": {"type": "string"}}}),
    );
    assert_eq!(
        errors(&def, Form::new(Provider::Anthropic)),
        [("/properties/my key".to_owned(), Rule::PropertyName)]
    );
    assert!(def.lint(Form::new(Provider::OpenAiChat)).is_clean());
}

/// A parameter named as a person would, in Spanish: the `#[tool]` fn is told its attribute's
/// option, a tool built at run time what it can change (its schema, and how its body reads it).
#[tool]
fn registrar(año_vehiculo: u32) -> u32 {
    año_vehiculo
}

#[test]
fn a_property_name_lint_says_what_the_tool_can_change_as_it_was_built() {
    let schema = json!({"type": "object", "properties": {"año_vehiculo": {"type": "integer"}}});
    let run_time = raw("registrar", schema);
    let from_attribute = Toolbox::new().with(RegistrarTool).unwrap();
    let from_attribute = from_attribute.get("registrar").unwrap().definition();
    assert!(from_attribute.parameters()["properties"]["año_vehiculo"].is_object());
    let fix = |definition: &ToolDefinition| {
        let report = definition.lint(Form::new(Provider::Anthropic));
        let lint = report.errors().next().expect("a property-name error");
        assert_eq!(lint.rule, Rule::PropertyName);
        lint.fix.clone()
    };
    assert_eq!(
        fix(from_attribute),
        "rename the parameter (`#[tool(rename = \"ano_vehiculo\")]`, or \
         `#[serde(rename = \"ano_vehiculo\")]` on a field), or leave this tool out of the \
         Anthropic list"
    );
    let told = fix(&run_time);
    assert!(!told.contains("#[tool"), "{told}");
    assert!(
        told.starts_with(
            "rename the property in the schema given to `ToolDefinition::new` (to \"ano_vehiculo\", say) \
             and read the argument under that name in the tool's body"
        ),
        "{told}"
    );
    // Characters no accent explains become `_`.
    let spaced = raw("t", json!({"type": "object", "properties": {"my key": {}}}));
    assert!(fix(&spaced).contains("\"my_key\""), "{}", fix(&spaced));
}

#[test]
fn strict_limits_are_checked() {
    let many: Map<String, Value> = (0..5001)
        .map(|i| (format!("p{i}"), json!({"type": "integer"})))
        .collect();
    let def = raw("wide", json!({"type": "object", "properties": many}));
    assert!(has_error(
        &def,
        Form::strict(Provider::OpenAiChat),
        Rule::Limit
    ));

    let mut deep = json!({"type": "object", "properties": {"leaf": {"type": "string"}}});
    for _ in 0..10 {
        deep = json!({"type": "object", "properties": {"inner": deep}});
    }
    let def = raw("deep", deep);
    assert!(has_error(
        &def,
        Form::strict(Provider::OpenAiChat),
        Rule::Limit
    ));

    let values: Vec<String> = (0..1001).map(|i| format!("v{i}")).collect();
    let def = raw(
        "choices",
        json!({"type": "object", "properties": {"v": {"type": "string", "enum": values}}}),
    );
    assert!(has_error(
        &def,
        Form::strict(Provider::OpenAiChat),
        Rule::Limit
    ));

    let long: Vec<String> = (0..400).map(|i| format!("{i:0>300}")).collect();
    let def = raw(
        "long",
        json!({"type": "object", "properties": {"v": {"type": "string", "enum": long}}}),
    );
    let limits: Vec<String> = def
        .lint(Form::strict(Provider::OpenAiChat))
        .errors()
        .map(|l| l.message.clone())
        .collect();
    assert!(limits.iter().any(|m| m.contains("120,000")), "{limits:?}");
    assert!(limits.iter().any(|m| m.contains("15,000")), "{limits:?}");

    // Ten levels are fine.
    let mut ten = json!({"type": "object", "properties": {"leaf": {"type": "string"}}});
    for _ in 0..9 {
        ten = json!({"type": "object", "properties": {"inner": ten}});
    }
    assert!(
        raw("ten", ten)
            .lint(Form::strict(Provider::OpenAiChat))
            .is_clean()
    );
}

#[test]
fn strict_fallback_is_chosen_by_policy_never_silent() {
    let refuse = Toolbox::new()
        .with(TallyTool)
        .unwrap()
        .with(ShipTool)
        .unwrap()
        .with_strict(true);
    let report = refuse.tools_for(Provider::OpenAiChat).unwrap_err();
    assert_eq!(report.errors().count(), 1);
    assert_eq!(report.lints()[0].tool, "tally");

    let fall_back = Toolbox::new()
        .with(TallyTool)
        .unwrap()
        .with(ShipTool)
        .unwrap()
        .with_strict(true)
        .with_strict_fallback(StrictFallback::NonStrict);
    let list = fall_back.tools_for(Provider::OpenAiResponses).unwrap();
    assert_eq!(list.downgraded().len(), 1);
    assert_eq!(list.downgraded()[0].tool, "tally");
    assert_eq!(list.downgraded()[0].reasons.lints()[0].rule, Rule::Map);
    let entries = list.to_value();
    assert_eq!(entries[0]["name"], "tally");
    assert_eq!(entries[0]["strict"], false);
    assert_eq!(entries[1]["strict"], true);
}

/// Never strict.
#[tool(strict = false)]
fn loose(x: i32) -> i32 {
    x
}

#[test]
fn a_tool_can_choose_strict_mode_over_the_toolbox() {
    assert_eq!(Tool::<()>::definition(&LooseTool).strict(), Some(false));
    assert_eq!(Tool::<()>::definition(&ShipTool).strict(), Some(true));
    assert_eq!(Tool::<()>::definition(&TallyTool).strict(), None);
    let strict_box = Toolbox::new()
        .with(LooseTool)
        .unwrap()
        .with(TallyTool)
        .unwrap()
        .with(ShipTool)
        .unwrap();
    let plain = strict_box
        .tools_for(Provider::Anthropic)
        .unwrap()
        .to_value();
    let flags: Vec<Value> = plain
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.get("strict").cloned().unwrap_or(Value::Null))
        .collect();
    assert_eq!(flags, [Value::Null, Value::Null, Value::Bool(true)]);
    let strict_box = strict_box
        .with_strict(true)
        .with_strict_fallback(StrictFallback::NonStrict);
    let list = strict_box
        .tools_for(Provider::OpenAiChat)
        .unwrap()
        .to_value();
    let flags: Vec<&Value> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["function"]["strict"])
        .collect();
    // Chat Completions reads a missing `strict` as false.
    assert_eq!(flags, [&Value::Null, &Value::Null, &json!(true)]);
}

#[test]
fn registration_can_refuse_tools_a_provider_would_refuse() {
    let mut tools = Toolbox::new().require_valid_for([
        Form::strict(Provider::OpenAiChat),
        Form::new(Provider::Gemini),
    ]);
    tools.register(ShipTool).unwrap();
    match tools.register(TallyTool) {
        Err(RegisterError::Lint(report)) => {
            assert_eq!(report.lints().len(), 1, "{report}");
            assert!(report.to_string().contains("/properties/counts"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(tools.len(), 1);
}

#[test]
fn a_toolbox_lints_every_tool_at_once() {
    let tools = Toolbox::new()
        .with(TallyTool)
        .unwrap()
        .with(SumTreeTool)
        .unwrap()
        .with(PairTool)
        .unwrap();
    let report = tools.lint([
        Form::strict(Provider::OpenAiChat),
        Form::new(Provider::Gemini),
    ]);
    let tools_with_errors: BTreeSet<&str> = report.errors().map(|l| l.tool.as_str()).collect();
    assert_eq!(
        tools_with_errors,
        BTreeSet::from(["tally", "sum_tree", "pair"])
    );
    // One line per error, then per warning; notes (nothing to do) only counted, on a last
    // line, and listed by `{:#}`.
    let text = report.to_string();
    let notes = report.of(Severity::Note).count();
    let acted_on = report.lints().len() - notes;
    assert!(notes > 0, "{report:#}");
    assert_eq!(text.lines().count(), acted_on + 1, "{text}");
    let errors = report.errors().count();
    assert!(
        text.lines().take(errors).all(|l| l.starts_with("error: ")),
        "{text}"
    );
    assert!(!text.contains("note: "), "{text}");
    assert!(text.ends_with(&format!(
        "(and {notes} notes, nothing to do: `{{:#}}` lists them)"
    )));
    assert_eq!(format!("{report:#}").lines().count(), report.lints().len());
    let panic = std::panic::catch_unwind(|| report.assert_clean()).unwrap_err();
    let message = panic.downcast_ref::<String>().unwrap();
    assert!(message.contains("tally") && message.contains("sum_tree") && message.contains("pair"));
}

#[test]
fn demo_tools_are_valid_for_every_provider() {
    demo::toolbox().lint(Form::ALL).assert_clean();
}

#[test]
fn forms_are_built_once_per_tool_and_form() {
    let def = Tool::<()>::definition(&ShipTool);
    let first = def.provider_entry(Provider::Gemini);
    let again = def.provider_entry(Provider::Gemini);
    assert!(std::ptr::eq(first, again));
    let tools = Toolbox::new().with(ShipTool).unwrap();
    let a = tools.tools_for(Provider::Mcp).unwrap().entries()[0] as *const Value;
    let b = tools.tools_for(Provider::Mcp).unwrap().entries()[0] as *const Value;
    assert_eq!(a, b);
    // Changing the definition builds afresh.
    let changed = def.clone().with_display_text("Ship it");
    assert_eq!(changed.provider_entry(Provider::Mcp)["title"], "Ship it");
}

// ---------------------------------------------------------------------------------------------
// Transform details.

#[test]
fn openai_strict_inlines_ref_siblings_and_keeps_recursion_as_refs() {
    let def = Tool::<()>::definition(&demo::UpdatePreferencesTool);
    let strict = &def.provider_entry(Form::strict(Provider::OpenAiChat))["function"]["parameters"];
    // `data` had a description beside its `$ref`: it is the definition itself now.
    assert_eq!(strict["properties"]["data"]["type"], "object");
    assert_eq!(
        strict["properties"]["data"]["description"],
        "The preferences to store."
    );
    assert!(
        strict.get("$defs").is_none(),
        "an inlined definition no one names is dropped"
    );
    let def = Tool::<()>::definition(&SumTreeTool);
    let strict = &def.provider_entry(Form::strict(Provider::OpenAiChat))["function"]["parameters"];
    assert_openai_strict("sum_tree", strict);
    assert!(strict["$defs"]["Tree"].is_object());
}

#[test]
fn anthropic_strict_moves_bounds_into_descriptions() {
    let def = Tool::<()>::definition(&demo::SearchTool);
    let schema = &def.provider_entry(Form::strict(Provider::Anthropic))["input_schema"];
    let limit = &schema["properties"]["limit"];
    assert!(limit.get("minimum").is_none() && limit.get("maximum").is_none());
    assert_eq!(
        limit["description"],
        "How many results to return, from 1 to 50. (at least 1; at most 50)"
    );
    let notes: Vec<Rule> = def
        .lint(Form::strict(Provider::Anthropic))
        .of(Severity::Note)
        .map(|l| l.rule.clone())
        .collect();
    assert!(
        notes.contains(&Rule::InDescription("maximum".into())),
        "{notes:?}"
    );
    // minItems of 0 or 1 stays; more goes into the description.
    let def = raw(
        "t",
        json!({"type": "object", "properties": {
            "one": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            "two": {"type": "array", "items": {"type": "string"}, "minItems": 2},
        }}),
    );
    let schema = &def.provider_entry(Form::strict(Provider::Anthropic))["input_schema"];
    assert_eq!(schema["properties"]["one"]["minItems"], 1);
    assert!(schema["properties"]["two"].get("minItems").is_none());
    assert_eq!(
        schema["properties"]["two"]["description"],
        "(at least 2 items)"
    );
}

#[test]
fn gemini_parameters_use_the_openapi_subset() {
    let def = raw(
        "t",
        json!({
            "type": "object",
            "properties": {
                "n": {"type": ["integer", "null"], "exclusiveMinimum": 0, "format": "uint8"},
                "x": {"type": "number", "exclusiveMaximum": 1.5, "multipleOf": 0.5},
                "level": {"enum": [1, 2, 3]},
                "kind": {"const": "fixed"},
                "either": {"type": ["string", "integer"]},
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true, "examples": [["a"]]},
                "when": {"type": "string", "format": "date-time"},
                "mail": {"type": "string", "format": "email"},
            },
            "required": ["n"],
            "additionalProperties": false,
        }),
    );
    let gemini = &def.provider_entry(Provider::Gemini)["parameters"];
    assert_eq!(
        gemini["properties"]["n"],
        json!({"type": "integer", "nullable": true, "minimum": 1})
    );
    assert_eq!(
        gemini["properties"]["x"],
        json!({"type": "number", "description": "(less than 1.5; a multiple of 0.5)"})
    );
    assert_eq!(
        gemini["properties"]["level"],
        json!({"type": "integer", "description": "(one of 1, 2, 3)"})
    );
    assert_eq!(
        gemini["properties"]["kind"],
        json!({"type": "string", "enum": ["fixed"]})
    );
    assert_eq!(
        gemini["properties"]["either"],
        json!({"anyOf": [{"type": "string"}, {"type": "integer"}]})
    );
    assert_eq!(
        gemini["properties"]["tags"],
        json!({"type": "array", "items": {"type": "string"}, "example": ["a"], "description": "(no duplicate items)"})
    );
    assert_eq!(gemini["properties"]["when"]["format"], "date-time");
    assert!(gemini["properties"]["mail"].get("format").is_none());
    assert!(gemini.get("additionalProperties").is_none());
    assert!(def.lint(Form::new(Provider::Gemini)).is_clean());
}

#[test]
fn mcp_inlines_small_enums_and_keeps_definitions_at_the_root() {
    let def = Tool::<DemoCtx>::definition(&demo::GetWeatherTool);
    let mcp = def.provider_entry(Provider::Mcp);
    let unit = &mcp["inputSchema"]["properties"]["unit"];
    assert!(!unit.to_string().contains("$ref"), "{unit}");
    assert!(unit.to_string().contains("fahrenheit"));
    assert!(mcp["inputSchema"].get("$defs").is_none());
    assert_eq!(
        mcp["annotations"],
        json!({"readOnlyHint": true, "openWorldHint": true})
    );
    assert_eq!(mcp["outputSchema"]["type"], "object");

    // A schema the application wrote goes to MCP as written (issue 43: nested `$defs` and a
    // definition used once are JSON Schema 2020-12, which MCP takes); the rewrites below are
    // for the schemas toolwright derives and for output schemas.
    let written = json!({
        "type": "object",
        "properties": {"a": {"$ref": "#/properties/b/$defs/Inner"}, "c": {"$ref": "#/properties/b/$defs/Inner"}, "b": {"type": "object", "$defs": {"Inner": {"type": "object", "properties": {"x": {"type": "integer"}}}}}},
        "$defs": {"Inner": {"type": "string"}, "Used": {"type": "boolean"}},
        "required": [],
    });
    let nested = raw("t", written.clone());
    assert_eq!(nested.provider_entry(Provider::Mcp)["inputSchema"], written);
    // Definitions below the root move to the root's `$defs`, renamed on a clash.
    let with_output = raw("t", json!({})).with_output_schema(Some(written));
    let output = &with_output.provider_entry(Provider::Mcp)["outputSchema"];
    assert_eq!(output["properties"]["a"]["$ref"], "#/$defs/Inner_2");
    assert_eq!(
        output["$defs"]["Inner_2"]["properties"]["x"]["type"],
        "integer"
    );
    assert!(output["properties"]["b"].get("$defs").is_none());
    // In a derived schema, a definition used once is written where it is used.
    let derived = Tool::<()>::definition(&PlaceTool);
    let input = &derived.provider_entry(Provider::Mcp)["inputSchema"];
    assert_eq!(
        input["properties"]["at"]["properties"]["x"]["type"],
        "integer"
    );
    assert!(input.get("$defs").is_none());
}

/// A point on the grid.
#[derive(Deserialize, JsonSchema)]
struct Point {
    x: i64,
    y: i64,
}

/// Place a marker.
#[toolwright::tool]
fn place(at: Point) -> String {
    format!("{},{}", at.x, at.y)
}

type DemoCtx = demo::DemoContext;

// ---------------------------------------------------------------------------------------------
// Facts from the providers' SDKs (`tests/data/peers`, the README there names the versions).

fn peer_fixture(name: &str) -> Value {
    serde_json::from_str(&data::read(&format!("peers/{name}"))).unwrap()
}

/// The pydantic `Person` of `openai_to_strict_json_schema.json`, in Rust.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct PersonAddress {
    street: String,
    city: String,
    zip: Option<String>,
}

#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Role {
    Admin,
    #[default]
    User,
}

/// A person record.
#[tool(strict)]
#[allow(clippy::too_many_arguments)]
fn save_person(
    /// Full name
    name: String,
    age: Option<i64>,
    address: PersonAddress,
    #[tool(default)] tags: Vec<String>,
    #[tool(default)] role: Role,
    #[tool(default)] previous_addresses: Vec<PersonAddress>,
) -> String {
    let _ = (age, address, tags, role, previous_addresses);
    name
}

#[test]
fn openai_strict_agrees_with_the_openai_sdk_on_required_and_closed_objects() {
    let peer = peer_fixture("openai_to_strict_json_schema.json");
    let sdk = &peer["to_strict_json_schema"];
    let def = Tool::<()>::definition(&SavePersonTool);
    let ours = &def.provider_entry(Form::strict(Provider::OpenAiChat))["function"]["parameters"];
    let set = |v: &Value| -> BTreeSet<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(set(&ours["required"]), set(&sdk["required"]));
    assert_eq!(ours["additionalProperties"], sdk["additionalProperties"]);
    let our_address = &ours["$defs"]["PersonAddress"];
    assert_eq!(
        set(&our_address["required"]),
        set(&sdk["$defs"]["Address"]["required"])
    );
    assert_eq!(our_address["additionalProperties"], false);
    // Both make the optional ones nullable: `age`, and `zip` in the address.
    assert!(ours["properties"]["age"].to_string().contains("null"));
    assert!(
        our_address["properties"]["zip"]
            .to_string()
            .contains("null")
    );
    // The SDK keeps defaults (strict mode refuses them); we say them in the description.
    assert!(!ours.to_string().contains("\"default\""));
    assert_openai_strict("save_person", ours);
    // A map: the SDK lets it through to be refused by the API; we say so up front.
    let dict = &peer["to_strict_json_schema_dict_field"];
    assert!(dict["properties"]["meta"]["additionalProperties"].is_object());
    let def = raw("bad", peer["pydantic_model_json_schema"].clone());
    assert!(
        def.lint(Form::strict(Provider::OpenAiChat)).is_clean(),
        "{}",
        def.lint(Form::strict(Provider::OpenAiChat))
    );
    let mut dict_schema = dict.clone();
    dict_schema
        .as_object_mut()
        .unwrap()
        .remove("additionalProperties");
    let def = raw("bad", dict_schema);
    assert_eq!(
        errors(&def, Form::strict(Provider::OpenAiChat)),
        [("/properties/meta".to_owned(), Rule::Map)]
    );
}

#[test]
fn gemini_parameters_keep_to_the_fields_google_genai_accepts() {
    let peer = peer_fixture("google_genai_function_declaration_checks.json");
    let fields: BTreeSet<String> = peer["notes"]["Schema_fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| camel(f.as_str().unwrap()))
        .collect();
    // The SDK's own input that it refused as `parameters` (pydantic's `$ref`/`$defs`).
    let refused = &peer["results"]["pydantic_model_json_schema_as_parameters"];
    assert_eq!(refused["accepted"], false);
    let mut defs = vec![raw("from_pydantic", refused["input_schema"].clone())];
    defs.extend([
        Tool::<()>::definition(&ShipTool).clone(),
        Tool::<()>::definition(&TallyTool).clone(),
        Tool::<()>::definition(&ListFilesTool).clone(),
        Tool::<()>::definition(&SavePersonTool).clone(),
    ]);
    defs.extend(demo::toolbox().definitions().cloned());
    for def in defs {
        let entry = def.provider_entry(Provider::Gemini);
        keys_within(def.name(), &entry["parameters"], &fields);
        // The JSON Schema form takes anything (the SDK does not check it): `$defs` stay.
        let json_schema = def.provider_entry(Form::gemini_json_schema());
        let names = |v: Option<&Value>| {
            v.and_then(Value::as_object)
                .map(|d| d.keys().cloned().collect::<Vec<_>>())
        };
        assert_eq!(
            names(json_schema["parametersJsonSchema"].get("$defs")),
            names(def.parameters().get("$defs"))
        );
    }
}

fn camel(snake: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Every key of every schema is one the SDK's `Schema` has (`properties` holds names, not keys).
fn keys_within(tool: &str, schema: &Value, fields: &BTreeSet<String>) {
    let Value::Object(map) = schema else {
        panic!("{tool}: a schema that is not an object: {schema}");
    };
    for (key, value) in map {
        assert!(
            fields.contains(key),
            "{tool}: `{key}` is not a field of google-genai's Schema"
        );
        assert_ne!(
            key, "additionalProperties",
            "{tool}: the Gemini API refuses it"
        );
        match key.as_str() {
            "properties" => value
                .as_object()
                .unwrap()
                .values()
                .for_each(|v| keys_within(tool, v, fields)),
            "items" => keys_within(tool, value, fields),
            "anyOf" => value
                .as_array()
                .unwrap()
                .iter()
                .for_each(|v| keys_within(tool, v, fields)),
            _ => {}
        }
    }
}

/// The Gemini tool lists of this file's tools are their checked-in snapshots; with
/// `GEMINI_FORMS_OUT=<dir>`, they are written there too, for `.ci/run` to feed to the official
/// SDK (`tests/python/check_gemini.py`).
#[test]
fn gemini_forms_of_the_test_tools() {
    let peer = peer_fixture("google_genai_function_declaration_checks.json");
    let pydantic = raw(
        "from_pydantic",
        peer["results"]["pydantic_model_json_schema_as_parameters"]["input_schema"].clone(),
    );
    let tools = Toolbox::new()
        .with(ShipTool)
        .unwrap()
        .with(TallyTool)
        .unwrap()
        .with(ListFilesTool)
        .unwrap()
        .with(SavePersonTool)
        .unwrap()
        .with(LooseTool)
        .unwrap()
        .with(toolwright::DynamicTool::new(pydantic, |_, _: &()| {
            json!(null)
        }))
        .unwrap();
    for (json_schema, file) in [
        (false, "test-tools-gemini.json"),
        (true, "test-tools-gemini-json-schema.json"),
    ] {
        let tools = tools.clone().with_gemini_json_schema(json_schema);
        let list = tools
            .tools_for(Provider::Gemini)
            .unwrap_or_else(|e| panic!("{e}"));
        let text = serde_json::to_string_pretty(&list).unwrap();
        assert!(
            matches_snapshot(file.trim_end_matches(".json"), &list),
            "{file} differs from {} (rerun with UPDATE_SNAPSHOTS=1 and review the diff):\n{text}",
            snapshot_path(file.trim_end_matches(".json")).display()
        );
        if let Some(dir) = std::env::var_os("GEMINI_FORMS_OUT") {
            std::fs::write(PathBuf::from(dir).join(file), text).unwrap();
        }
    }
}

#[test]
fn inlining_is_bounded_when_definitions_double_at_every_level() {
    // D0 has two members of type D1, which has two of type D2, ... : 2^40 copies if inlined.
    let mut defs = Map::new();
    for i in 0..40 {
        let next = json!({"$ref": format!("#/$defs/D{}", i + 1), "description": "next"});
        defs.insert(
            format!("D{i}"),
            json!({"type": "object", "properties": {"x": next.clone(), "y": next}}),
        );
    }
    defs.insert("D40".into(), json!({"type": "string"}));
    let def = raw(
        "deep_dag",
        json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/D0"}}, "$defs": defs}),
    );
    for form in [
        Form::new(Provider::Gemini),
        Form::strict(Provider::OpenAiChat),
    ] {
        assert!(has_error(&def, form, Rule::Limit), "{form}");
        let size = def.provider_entry(form).to_string().len();
        assert!(size < 50_000_000, "{form}: {size} bytes");
    }
    assert!(def.lint(Form::new(Provider::Mcp)).is_clean());
}
