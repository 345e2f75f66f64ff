//! The arguments pipeline through the public API: policies per toolbox and per tool, every
//! schema keyword enforced, one bounded and deterministic message, typed problems for the
//! application.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use toolwright::args::{ArgumentPolicy, CoercionKind, ProblemKind, RepairKind};
use toolwright::{ArgumentError, DynamicTool, ToolCall, ToolDefinition, Toolbox, tool};

/// Count items.
#[tool]
fn count(
    /// Items to count.
    items: Vec<u32>,
) -> usize {
    items.len()
}

/// Count items, strictly as sent.
#[tool(repair = false, coerce = false)]
fn count_strict(
    /// Items to count.
    items: Vec<u32>,
) -> usize {
    items.len()
}

/// A shape, tagged by `kind`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Shape {
    /// A circle.
    Circle {
        /// Radius.
        r: f64,
    },
    /// A square.
    Square {
        /// Side.
        side: u32,
    },
}

/// A window.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Window {
    /// Width in pixels.
    width: u32,
    /// Height in pixels.
    height: u32,
}

/// Describe a shape.
#[tool]
fn area(
    /// The shape.
    shape: Shape,
    /// Where to draw it.
    window: Option<Window>,
) -> f64 {
    let _ = window;
    match shape {
        Shape::Circle { r } => 3.0 * r * r,
        Shape::Square { side } => f64::from(side * side),
    }
}

fn tools() -> Toolbox {
    Toolbox::new()
        .with(count {})
        .unwrap()
        .with(count_strict {})
        .unwrap()
        .with(area {})
        .unwrap()
}

fn run(
    tools: &Toolbox,
    name: &str,
    arguments: impl Into<toolwright::Arguments>,
) -> toolwright::ToolResult {
    tools.execute_blocking(&ToolCall::new("c1", name, arguments), &())
}

#[test]
fn by_default_broken_json_is_repaired_and_values_coerced() {
    let tools = tools();
    let result = run(&tools, "count", "{items: [1, \"2\", 3.0,]");
    assert_eq!(result.text(), "3", "{}", result.text());
    let fixes = result.fixes().unwrap();
    let repairs: Vec<RepairKind> = fixes.repairs.iter().map(|r| r.kind).collect();
    assert_eq!(
        repairs,
        // In input order: the object left open starts at byte 0.
        [
            RepairKind::UnclosedObject,
            RepairKind::UnquotedKey,
            RepairKind::TrailingComma
        ]
    );
    let coercions: Vec<(String, CoercionKind)> = fixes
        .coercions
        .iter()
        .map(|c| (c.path.to_string(), c.kind))
        .collect();
    assert_eq!(
        coercions,
        [
            ("items[1]".to_owned(), CoercionKind::StringToNumber),
            ("items[2]".to_owned(), CoercionKind::FloatToInteger),
        ]
    );
    // A single value where an array is expected.
    assert_eq!(run(&tools, "count", json!({"items": 7})).text(), "1");
    // Valid arguments need no fixes.
    assert!(run(&tools, "count", r#"{"items": [1]}"#).fixes().is_none());
}

#[test]
fn a_tool_can_refuse_repair_and_coercion_for_itself() {
    let tools = tools();
    let result = run(&tools, "count_strict", "{items: [1]}");
    assert!(result.is_error);
    assert!(
        result.text().contains("not valid JSON"),
        "{}",
        result.text()
    );
    let result = run(&tools, "count_strict", r#"{"items": [1, "2"]}"#);
    assert!(result.is_error);
    assert!(
        result
            .text()
            .contains("`items[1]`: expected an integer at least 0, found \"2\""),
        "{}",
        result.text()
    );
}

#[test]
fn a_toolbox_policy_applies_to_every_tool_without_its_own() {
    let tools = tools().with_argument_policy(ArgumentPolicy::new().repair(false).coerce(false));
    assert!(run(&tools, "count", "{items: [1]}").is_error);
    assert!(run(&tools, "count", r#"{"items": ["1"]}"#).is_error);
    assert_eq!(run(&tools, "count", r#"{"items": [1]}"#).text(), "1");

    let tools = tools.with_argument_policy(ArgumentPolicy::new().ignore_unknown(true));
    let result = run(&tools, "count", r#"{"items": [1], "verbose": true}"#);
    assert_eq!(result.text(), "1", "{}", result.text());
    let dropped = &result.fixes().unwrap().coercions[0];
    assert_eq!(dropped.kind, CoercionKind::DroppedUnknown);
    assert_eq!(dropped.path.to_string(), "verbose");
}

#[test]
fn tagged_enums_are_coerced_by_their_tag_even_inside_a_string() {
    let tools = tools();
    let result = run(
        &tools,
        "area",
        json!({"shape": "{\"kind\": \"square\", \"side\": \"4\"}"}),
    );
    assert_eq!(result.text(), "16.0", "{}", result.text());
    let result = run(&tools, "area", json!({"shape": {"kind": "hexagon"}}));
    assert!(result.is_error);
    assert!(result.text().contains("`shape`"), "{}", result.text());
}

#[test]
fn an_unknown_or_missing_tag_is_told_the_tags_and_nothing_else() {
    let tools = tools();
    let invalid = |arguments: Value| {
        let result = run(&tools, "area", arguments);
        assert!(result.is_error, "{}", result.text());
        let invalid = result
            .argument_error()
            .and_then(|error| error.invalid())
            .cloned()
            .expect("the schema's problems");
        (invalid, result.text().to_owned())
    };
    let (unknown, text) = invalid(json!({"shape": {"kind": "triangle", "r": 1}}));
    assert_eq!(unknown.problems.len(), 1, "{text}");
    let problem = &unknown.problems[0];
    assert_eq!(problem.path.to_string(), "shape.kind");
    assert_eq!(problem.kind, ProblemKind::NotAllowed);
    assert_eq!(problem.expected, r#"one of "circle" or "square""#);
    assert_eq!(problem.found, r#""triangle""#);
    // Not the first variant's demands.
    assert!(!text.contains("exactly"), "{text}");
    assert!(
        !text.contains("`side`") && !text.contains("missing"),
        "{text}"
    );

    let (missing, text) = invalid(json!({"shape": {"r": 1}}));
    assert_eq!(missing.problems.len(), 1, "{text}");
    let problem = &missing.problems[0];
    assert_eq!(problem.path.to_string(), "shape.kind");
    assert_eq!(problem.kind, ProblemKind::Missing);
    assert_eq!(problem.expected, r#"one of "circle" or "square""#);

    // A tag that names a branch still gets that branch's own problems.
    let (branch, text) = invalid(json!({"shape": {"kind": "square", "side": "big"}}));
    assert_eq!(branch.problems.len(), 1, "{text}");
    assert_eq!(branch.problems[0].path.to_string(), "shape.side");
}

#[test]
fn nested_structs_sent_as_arrays_are_refused_as_the_schema_says() {
    // serde would build `Window` from `[800, 600]`; the schema the model saw says object.
    let tools = tools();
    let result = run(
        &tools,
        "area",
        r#"{"shape": {"kind": "circle", "r": 1}, "window": [800, 600]}"#,
    );
    assert!(result.is_error, "{}", result.text());
    assert!(
        result.text().contains("`window`: expected an object"),
        "{}",
        result.text()
    );
}

fn strict_tool() -> Toolbox {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 2, "maxLength": 8, "pattern": "^[a-z]+$"},
            "email": {"type": "string", "format": "email"},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3, "uniqueItems": true},
            "level": {"enum": ["low", "high"]},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.25},
            "size": {"type": "object", "properties": {"w": {"type": "integer", "minimum": 1}}, "required": ["w"], "additionalProperties": false},
        },
        "required": ["name", "email"],
        "additionalProperties": false,
    });
    let definition = ToolDefinition::new("profile", "Store a profile.", schema).unwrap();
    let tool = DynamicTool::new(definition, |args: Map<String, Value>, _: &()| {
        Value::Object(args)
    });
    // The tests below make many invalid calls in a row on purpose: no retry budget, so each
    // message is the argument error alone (budgets are tested in tests/batch.rs).
    Toolbox::new().with(tool).unwrap().with_retry_budget(0)
}

#[test]
fn every_keyword_the_model_is_shown_is_enforced_and_all_problems_come_at_once() {
    let tools = strict_tool();
    let result = run(
        &tools,
        "profile",
        json!({
            "name": "Ada Lovelace!",
            "email": "ada at example",
            "tags": ["a", "a", "b", "c"],
            "level": "medium",
            "ratio": 0.3,
            "size": {"w": 0, "h": 2},
        }),
    );
    assert!(result.is_error);
    let invalid = result
        .argument_error()
        .and_then(ArgumentError::invalid)
        .unwrap();
    let mut found: Vec<(String, ProblemKind)> = invalid
        .problems
        .iter()
        .map(|p| (p.path.to_string(), p.kind))
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        found,
        [
            ("email".to_owned(), ProblemKind::Format),
            ("level".to_owned(), ProblemKind::NotAllowed),
            ("name".to_owned(), ProblemKind::Length),
            ("name".to_owned(), ProblemKind::Pattern),
            ("ratio".to_owned(), ProblemKind::Range),
            ("size.h".to_owned(), ProblemKind::Unknown),
            ("size.w".to_owned(), ProblemKind::Range),
            ("tags".to_owned(), ProblemKind::Items),
            ("tags".to_owned(), ProblemKind::Items),
        ]
    );
    let text = result.text();
    assert!(
        text.starts_with("invalid arguments for tool `profile`: 9 problems: "),
        "{text}"
    );
    for marked in [
        "\"email\": \"ada at example\",  // <- expected a string that is an email address",
        "\"level\": \"medium\",  // <- expected one of \"low\" or \"high\", found \"medium\"",
        "\"h\": 2  // <- unknown argument: this tool does not take it",
    ] {
        assert!(text.contains(marked), "{marked:?} not in:\n{text}");
    }
    // The same arguments, the same message.
    let again = run(&tools, "profile", result_arguments());
    assert_eq!(
        run(&tools, "profile", result_arguments()).text(),
        again.text()
    );
}

fn result_arguments() -> Value {
    json!({"name": "x", "email": "bad", "tags": []})
}

#[test]
fn the_message_stays_bounded_for_huge_arguments() {
    let tools = strict_tool();
    // Objects are not coerced to strings: 5000 wrong items.
    let tags: Vec<Value> = (0..5000).map(|i| json!({"i": i})).collect();
    let arguments = json!({
        "name": "a".repeat(100_000),
        "email": "ada@example.org",
        "tags": tags,
    });
    let result = run(&tools, "profile", arguments);
    assert!(result.is_error);
    let text = result.text();
    assert!(text.len() < 16_000, "{} bytes", text.len());
    assert!(text.contains("and 4994 more (marked below)"), "{text}");
    assert!(text.contains("// (cut: 100000 characters)"), "{text}");
    assert!(
        text.contains("// ... (cut: the arguments are too long to show whole)"),
        "{text}"
    );
    let invalid = result
        .argument_error()
        .and_then(ArgumentError::invalid)
        .unwrap();
    assert_eq!(
        invalid.problems.len(),
        5002,
        "every problem is kept for the application"
    );
}

#[test]
fn arguments_over_the_size_limit_are_refused_even_when_valid() {
    let limits = toolwright::args::JsonLimits {
        max_len: 64,
        ..toolwright::args::JsonLimits::default()
    };
    let tools = tools().with_argument_policy(ArgumentPolicy::new().limits(limits));
    let items: Vec<u32> = (0..40).collect();
    let result = run(&tools, "count", json!({"items": items}).to_string());
    assert!(result.is_error);
    assert!(
        result.text().contains("more than the limit of 64 bytes"),
        "{}",
        result.text()
    );
    assert_eq!(run(&tools, "count", r#"{"items": [1, 2]}"#).text(), "2");
}

#[test]
fn keywords_that_cannot_be_enforced_are_reported_once() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "string", "pattern": "(?<=x)y"}, "b": {"$ref": "#/$defs/Missing"}},
        // Draft 2019-09's, gone from 2020-12 (`unevaluatedProperties`, once listed here, is
        // enforced since issue 14).
        "$recursiveRef": "#",
    });
    let definition = ToolDefinition::new("odd", "Odd schema.", schema).unwrap();
    let unsupported = definition.compiled_schema().unsupported().to_vec();
    assert_eq!(unsupported.len(), 3, "{unsupported:?}");
    assert!(unsupported.iter().any(|u| u.contains("$recursiveRef")));
    assert!(unsupported.iter().any(|u| u.contains("(?<=x)y")));
    assert!(unsupported.iter().any(|u| u.contains("#/$defs/Missing")));
}

/// Found by the `arguments` fuzz target: a deeply nested array under `uniqueItems` made the
/// duplicate check quote its items level by level, doubling the size at each level (2 GB).
#[test]
fn unique_items_over_deeply_nested_values_stays_linear() {
    let schema = json!({"type": "object", "properties": {
        "tags": {"type": "array", "uniqueItems": true},
    }});
    let definition = ToolDefinition::new("t", "T.", schema).unwrap();
    let nested = format!("{}{}", "[".repeat(100), "]".repeat(100));
    let value: Value =
        serde_json::from_str(&format!(r#"{{"tags": [{nested}, {nested}, "x\"y"]}}"#)).unwrap();
    let problems = definition.compiled_schema().validate(&value);
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].kind, ProblemKind::Items);
}
