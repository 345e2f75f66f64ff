//! The arguments pipeline through the public API: policies per toolbox and per tool, every
//! schema keyword enforced, one bounded and deterministic message, typed problems for the
//! application.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::entry::every_entry_path;
use toolwright::args::{ArgumentPolicy, CoercionKind, CutOff, ProblemKind, RepairKind};
use toolwright::provider::{Assembler, Provider};
use toolwright::{
    Arguments, CallStatus, DynamicTool, ToolCall, ToolDefinition, Toolbox,
    args::ArgumentError,
    dynamic::ToolAnnotations,
    exec::{Before, Hook},
    tool,
};

/// Count items.
#[tool(read_only)]
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
        .with(CountTool)
        .unwrap()
        .with(CountStrictTool)
        .unwrap()
        .with(AreaTool)
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

/// A point.
#[derive(Debug, Deserialize, JsonSchema)]
struct Point {
    /// Across.
    x: f64,
    /// Down.
    y: f64,
}

/// Where a label goes: a point, its fields flattened into the label's.
#[derive(Debug, Deserialize, JsonSchema)]
struct Placement {
    /// The point.
    at: Point,
}

/// Place a point: a nested struct and nothing else beyond serde, so the deserializer alone
/// sees that it is an object.
#[tool]
fn place(
    /// Where.
    at: Point,
) -> f64 {
    at.x + at.y
}

/// Place a label: the nested struct sits in a flattened one, which serde reads from a value it
/// keeps aside (and would take from an array).
#[tool]
fn label(
    /// The text.
    text: String,
    /// Where.
    #[serde(flatten)]
    placement: Placement,
) -> String {
    format!("{text} at {}, {}", placement.at.x, placement.at.y)
}

#[test]
fn nested_structs_are_objects_on_every_entry_path_flattened_or_not() {
    let tools = Toolbox::new()
        .with(PlaceTool)
        .unwrap()
        .with(LabelTool)
        .unwrap();
    for (name, good, bad) in [
        ("place", r#"{"at": {"x": 1, "y": 2}}"#, r#"{"at": [1, 2]}"#),
        (
            "label",
            r#"{"text": "here", "at": {"x": 1, "y": 2}}"#,
            r#"{"text": "here", "at": [1, 2]}"#,
        ),
    ] {
        let refused = |result: &toolwright::ToolResult, path: &str| {
            assert!(result.is_error, "{name} {path}: {}", result.text());
            assert!(
                result.text().contains("`at`: expected an object"),
                "{name} {path}: {}",
                result.text()
            );
        };
        // Every entry path: text, a value, an OpenAI Chat body (text), an Anthropic body (a
        // value), an assembled stream, a hook's rewrite of good arguments.
        let bad_value: Value = serde_json::from_str(bad).unwrap();
        for (path, result) in every_entry_path(&tools, name, &bad_value) {
            refused(&result, path);
        }
        let value: Value = serde_json::from_str(good).unwrap();
        for arguments in [Arguments::Text(good.to_owned()), Arguments::Json(value)] {
            let result = run(&tools, name, arguments.clone());
            assert!(!result.is_error, "{name} {arguments:?}: {}", result.text());
        }
    }
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

// ---------------------------------------------------------------------------------------------
// Arguments that ended early (issue 28, item 5): closing them may change what the model meant,
// so by default only a read-only tool runs on them, on every path a call takes.

/// Save a note at a path.
#[tool]
fn save_note(
    /// Where.
    path: String,
    /// What.
    text: String,
) -> String {
    format!("saved {} bytes at {path}", text.len())
}

/// Save a note, closing whatever was cut off.
#[tool(cut_off = "run")]
fn save_anyway(
    /// Where.
    path: String,
) -> String {
    format!("saved at {path}")
}

/// Look a path up (read-only), but never on a guess.
#[tool(read_only, cut_off = "refuse")]
fn look_strictly(
    /// Where.
    path: String,
) -> String {
    format!("looked at {path}")
}

/// Look a path up.
#[tool(read_only)]
fn look(
    /// Where.
    path: String,
) -> String {
    format!("looked at {path}")
}

fn cut_tools() -> Toolbox {
    Toolbox::new()
        .with_all((SaveNoteTool, SaveAnywayTool, LookStrictlyTool, LookTool))
        .unwrap()
}

/// The string was cut in the middle: `/home/user/tmp` would have been something else.
const CUT: &str = r#"{"path": "/home/user/tm"#;

fn assert_cut_off(result: &toolwright::ToolResult, offset: usize) {
    assert!(result.is_error, "{}", result.text());
    match result.argument_error() {
        Some(ArgumentError::CutOff { offset: at, .. }) => assert_eq!(*at, offset),
        other => panic!("expected a cut-off error, got {other:?}: {}", result.text()),
    }
    assert!(
        result.text().contains("stopped early")
            && result.text().contains("Send the whole call again"),
        "{}",
        result.text()
    );
}

#[test]
fn a_cut_off_call_runs_only_a_read_only_tool_by_default() {
    let tools = cut_tools();
    // `save_note`: not run, and the model is told where its arguments stopped.
    let result = run(&tools, "save_note", CUT);
    // Where the text stops.
    assert_cut_off(&result, 23);
    assert!(
        result.text().contains("line 1, column 24"),
        "{}",
        result.text()
    );
    // A read-only tool runs on the closed text; a tool may choose either way for itself.
    assert_eq!(run(&tools, "look", CUT).text(), "looked at /home/user/tm");
    assert_eq!(
        run(&tools, "save_anyway", CUT).text(),
        "saved at /home/user/tm"
    );
    assert_cut_off(&run(&tools, "look_strictly", CUT), 23);
    // Repairs that cannot change the meaning still run any tool.
    let fixable = r#"```json
{path: '/tmp/a', "text": "hi",} // done
```"#;
    assert_eq!(
        run(&tools, "save_note", fixable).text(),
        "saved 2 bytes at /tmp/a"
    );
    // An object whose last member is whole but whose brace never came is cut off too: the
    // members after the cut would fall back to their defaults.
    assert_cut_off(
        &run(&tools, "save_note", r#"{"path": "/tmp/a", "text": "hi""#),
        31,
    );
}

#[test]
fn the_toolbox_decides_for_tools_that_do_not() {
    let run_all = cut_tools().with_argument_policy(ArgumentPolicy::new().cut_off(CutOff::Run));
    assert_eq!(
        run(&run_all, "save_note", r#"{"path": "/tmp/a", "text": "Dear"#).text(),
        "saved 4 bytes at /tmp/a"
    );
    // The tool's own rule stands over the toolbox's.
    assert_cut_off(&run(&run_all, "look_strictly", CUT), 23);
    let refuse_all =
        cut_tools().with_argument_policy(ArgumentPolicy::new().cut_off(CutOff::Refuse));
    assert_cut_off(&run(&refuse_all, "look", CUT), 23);
    assert_eq!(
        run(&refuse_all, "save_anyway", CUT).text(),
        "saved at /home/user/tm"
    );
}

#[test]
fn a_cut_off_call_is_refused_on_every_entry_path() {
    let tools = cut_tools();
    // A value: arguments stringified (as some servers send them), cut.
    let stringified = Arguments::Json(Value::String(CUT.to_owned()));
    assert_cut_off(&run(&tools, "save_note", stringified), 23);

    // A whole provider body whose output limit was reached inside the arguments.
    let body = json!({"choices": [{"index": 0, "finish_reason": "length", "message": {
        "role": "assistant",
        "tool_calls": [{"id": "call_1", "type": "function",
            "function": {"name": "save_note", "arguments": CUT}}],
    }}]});
    let turn = tools.read_response(Provider::OpenAiChat, &body).unwrap();
    assert_cut_off(&tools.execute_blocking(&turn.calls[0], &()), 23);

    // A stream that ended inside a call: the call is incomplete, whatever its text holds.
    let mut stream = tools.assembler(Provider::Anthropic);
    for event in [
        json!({"type": "message_start", "message": {"content": []}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {
            "type": "tool_use", "id": "toolu_1", "name": "save_note", "input": {}}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {
            "type": "input_json_delta", "partial_json": r#"{"path": "/tmp/a", "text": "hi"}"#}}),
    ] {
        stream.push(&event).unwrap();
    }
    let calls = stream.finish();
    assert_eq!(calls[0].status, CallStatus::Incomplete);
    let result = tools.execute_blocking(&calls[0], &());
    assert!(
        matches!(result.argument_error(), Some(ArgumentError::IncompleteCall)),
        "{}",
        result.text()
    );
    assert!(
        result.text().contains("did not arrive in full"),
        "{}",
        result.text()
    );
    // A read-only tool runs on what arrived.
    let mut incomplete = ToolCall::new("toolu_2", "look", r#"{"path": "/tmp/a"}"#);
    incomplete.status = CallStatus::Incomplete;
    assert_eq!(
        tools.execute_blocking(&incomplete, &()).text(),
        "looked at /tmp/a"
    );

    // A batch.
    let batch = [
        ToolCall::new("c1", "save_note", CUT),
        ToolCall::new("c2", "look", CUT).with_index(1),
    ];
    let results = tools.execute_all_blocking(&batch, &());
    assert_cut_off(&results[0], 23);
    assert_eq!(results[1].text(), "looked at /home/user/tm");

    // A hook's rewrite that cuts the arguments.
    let hooked = cut_tools().with_hook(CutEverything);
    let whole = r#"{"path": "/tmp/a", "text": "hi"}"#;
    assert_cut_off(&run(&hooked, "save_note", whole), 23);

    // A dynamic tool, with its annotations.
    let schema = json!({"type": "object", "properties": {"path": {"type": "string"}}});
    let definition = |name| ToolDefinition::new(name, "Write.", schema.clone()).unwrap();
    let echo = |arguments: Map<String, Value>, _: &()| Value::Object(arguments);
    let dynamic = Toolbox::new()
        .with(DynamicTool::new(definition("write"), echo))
        .unwrap()
        .with(DynamicTool::new(
            definition("read").with_annotations(ToolAnnotations {
                read_only: Some(true),
                ..ToolAnnotations::default()
            }),
            echo,
        ))
        .unwrap();
    assert_cut_off(&run(&dynamic, "write", CUT), 23);
    assert_eq!(
        run(&dynamic, "read", CUT).text(),
        r#"{"path":"/home/user/tm"}"#
    );
}

/// Rewrites every call's arguments to a cut-off text.
struct CutEverything;

impl Hook<()> for CutEverything {
    fn before(&self, _: &ToolDefinition, _: &ToolCall, _: &()) -> Before {
        Before::Rewrite(Arguments::Text(CUT.to_owned()))
    }
}

#[test]
fn the_stream_and_the_text_agree_on_where_a_call_stopped() {
    // An OpenAI Chat stream whose output limit was reached inside a call: the choice finished
    // (`length`), so the call is complete as a block, and its text is cut.
    let tools = cut_tools();
    let mut stream = Assembler::new(Provider::OpenAiChat);
    for line in [
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"save_note","arguments":"{\"path\": \"/home"}}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"/user/tm"}}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}"#,
    ] {
        stream.push_line(line).unwrap();
    }
    let calls = stream.finish();
    assert_eq!(calls[0].status, CallStatus::Complete);
    assert_cut_off(&tools.execute_blocking(&calls[0], &()), 23);
}
