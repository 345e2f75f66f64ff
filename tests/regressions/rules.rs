//! Issue 14's bugs, each a regression test through the public API: every keyword the model is
//! shown holds on every path (text and value arguments, the typed fast path and the long way),
//! numbers compare exactly, one problem per value and rule family, ECMA-262 patterns, and
//! valid input within the documented limits passes.

use std::sync::atomic::{AtomicUsize, Ordering};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use toolwright::args::{ArgumentPolicy, CompiledSchema, JsonLimits};
use toolwright::{Arguments, ToolCall, Toolbox, tool};

/// Tags, with a definition of their own (schemars refers to it with `$ref`).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Tags(pub Vec<String>);

/// A code, with a definition of its own.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Code(pub String);

static RAN: AtomicUsize = AtomicUsize::new(0);

/// Label things.
#[tool]
fn label(
    /// At most two tags.
    #[schemars(extend("maxItems" = 2))]
    tags: Tags,
    /// Lower-case letters only.
    #[schemars(extend("pattern" = "^[a-z]+$"))]
    code: Code,
) -> String {
    RAN.fetch_add(1, Ordering::SeqCst);
    format!("{} {}", tags.0.len(), code.0)
}

fn run(tools: &Toolbox, name: &str, arguments: impl Into<Arguments>) -> (bool, String) {
    let result = tools.execute_blocking(&ToolCall::new("call_1", name, arguments), &());
    (result.is_error, result.text())
}

#[test]
fn rules_beside_a_ref_hold_on_every_path() {
    let tools = Toolbox::new().with(LabelTool).unwrap();
    let schema = tools
        .get("label")
        .unwrap()
        .definition()
        .parameters()
        .clone();
    // What the model is shown: the rules beside the references.
    assert_eq!(schema["properties"]["tags"]["maxItems"], json!(2));
    assert!(schema["properties"]["tags"]["$ref"].is_string());
    assert_eq!(schema["properties"]["code"]["pattern"], json!("^[a-z]+$"));
    assert!(schema["properties"]["code"]["$ref"].is_string());

    let bad = json!({"tags": ["a", "b", "c"], "code": "ABC"});
    let before = RAN.load(Ordering::SeqCst);
    for arguments in [Arguments::Json(bad.clone()), bad.to_string().into()] {
        let (is_error, text) = run(&tools, "label", arguments);
        assert!(is_error, "{text}");
        assert!(
            text.contains("`tags`: expected an array of strings with at most 2 items, found an array of 3 items"),
            "{text}"
        );
        assert!(
            text.contains("`code`: expected a string matching /^[a-z]+$/, found \"ABC\""),
            "{text}"
        );
    }
    assert_eq!(RAN.load(Ordering::SeqCst), before, "the body never ran");

    let good = json!({"tags": ["a", "b"], "code": "abc"});
    for arguments in [Arguments::Json(good.clone()), good.to_string().into()] {
        assert_eq!(run(&tools, "label", arguments), (false, "2 abc".to_owned()));
    }
}

#[test]
fn counts_written_as_decimals_hold() {
    let schema = CompiledSchema::compile(&json!({
        "type": "object",
        "properties": {
            "items": {"type": "array", "maxItems": 2.0, "minItems": 1.0},
            "name": {"type": "string", "minLength": 2.0, "maxLength": 3.0},
        },
        "minProperties": 1.0,
        "maxProperties": 2.0,
    }));
    assert!(
        schema
            .validate(&json!({"items": [1], "name": "ab"}))
            .is_empty()
    );
    let problems = schema.validate(&json!({"items": [1, 2, 3], "name": "a"}));
    let shown: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert_eq!(
        shown,
        [
            "`items`: expected an array with 1 to 2 items, found an array of 3 items",
            "`name`: expected a string of 2 to 3 characters, found \"a\" (1 character)",
        ]
    );
    assert_eq!(schema.validate(&json!({})).len(), 1);
    assert_eq!(
        schema
            .validate(&json!({"items": [1], "name": "ab", "x": 1}))
            .len(),
        1
    );
}

#[test]
fn numbers_compare_exactly() {
    let valid =
        |schema: Value, value: Value| CompiledSchema::compile(&schema).validate(&value).is_empty();
    // `multipleOf` on the decimal digits: no overflow, no tolerance.
    assert!(!valid(json!({"multipleOf": 0.123_456_789}), json!(1e308)));
    assert!(valid(
        json!({"type": "integer", "multipleOf": 0.5}),
        json!(1e308)
    ));
    assert!(!valid(json!({"multipleOf": 1}), json!(1e-10)));
    assert!(valid(json!({"multipleOf": 0.01}), json!(19.99)));
    assert!(valid(json!({"multipleOf": 0.0001}), json!(0.0075)));
    // Integers beyond 2^53 compare as integers.
    let big = json!(9_007_199_254_740_993_u64);
    assert!(!valid(
        json!({"maximum": 9_007_199_254_740_992_u64}),
        big.clone()
    ));
    assert!(!valid(
        json!({"exclusiveMaximum": 9_007_199_254_740_993_u64}),
        big.clone()
    ));
    assert!(valid(
        json!({"exclusiveMaximum": 9_007_199_254_740_994_u64}),
        big.clone()
    ));
    assert!(!valid(
        json!({"minimum": 9_007_199_254_740_994_u64}),
        big.clone()
    ));
    assert!(!valid(json!({"multipleOf": 2}), big.clone()));
    assert!(valid(json!({"multipleOf": 3}), big.clone()));
    assert!(valid(
        json!({"uniqueItems": true}),
        json!([9_007_199_254_740_993_u64, 9_007_199_254_740_992_u64])
    ));
    assert!(!valid(json!({"uniqueItems": true}), json!([1, 1.0])));
    assert!(!valid(
        json!({"const": 9_007_199_254_740_992_u64}),
        big.clone()
    ));
    assert!(valid(json!({"enum": [9_007_199_254_740_993_u64]}), big));
}

/// Count things.
#[tool]
fn count(
    /// How many.
    limit: u32,
) -> u32 {
    limit
}

#[test]
fn one_problem_per_value_and_rule_family() {
    let tools = Toolbox::new().with(CountTool).unwrap();
    for arguments in [
        Arguments::Json(json!({"limit": -5})),
        r#"{"limit": -5}"#.into(),
    ] {
        let (is_error, text) = run(&tools, "count", arguments);
        assert!(is_error);
        assert!(
            text.starts_with("invalid arguments for tool `count`: `limit`: expected an integer at least 0, found -5.\n"),
            "{text}"
        );
        assert_eq!(
            text.matches("found -5").count(),
            2,
            "once in the summary, once marked: {text}"
        );
    }
}

#[test]
fn patterns_are_ecma_262() {
    let schema = |pattern: &str| {
        let compiled = CompiledSchema::compile(&json!({"type": "string", "pattern": pattern}));
        assert!(compiled.unsupported().is_empty(), "{pattern}");
        compiled
    };
    assert!(!schema("^.$").validate(&json!("\r")).is_empty());
    assert!(schema(r"^\s$").validate(&json!("\u{feff}")).is_empty());
    assert!(schema(r"^\s$").validate(&json!("\u{2003}")).is_empty());
    assert!(!schema(r"^\d$").validate(&json!("\u{0967}")).is_empty());
    assert!(!schema(r"^\w$").validate(&json!("\u{e9}")).is_empty());
    // What has no translation is listed, never silently accepted as checked.
    let unicode = CompiledSchema::compile(&json!({"pattern": r"^\p{Letter}+$"}));
    assert_eq!(
        unicode.unsupported().len(),
        1,
        "{:?}",
        unicode.unsupported()
    );
}

/// A tree of nodes, as deep as a model may send.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Node {
    /// A name.
    pub name: String,
    /// Children.
    #[serde(default)]
    pub children: Vec<Node>,
}

/// Count a tree's nodes.
#[tool]
fn tree(
    /// The root.
    root: Node,
) -> usize {
    fn size(node: &Node) -> usize {
        1 + node.children.iter().map(size).sum::<usize>()
    }
    size(&root)
}

/// A chain of `levels` nodes, each the only child of the one before.
fn chain(levels: usize) -> Value {
    let mut value = json!({"name": "leaf"});
    for _ in 1..levels {
        value = json!({"name": "n", "children": [value]});
    }
    value
}

#[test]
fn valid_input_within_the_limits_passes() {
    // The default depth limit is 128 levels; each node is two (object, children array).
    let limit = JsonLimits::default().max_depth;
    let nodes = (limit - 2) / 2;
    let tools = Toolbox::new().with(TreeTool).unwrap();
    let arguments = json!({"root": chain(nodes)});
    // Deep: through the typed path and the long way (a coerced string forces it).
    let (is_error, text) = run(&tools, "tree", Arguments::Json(arguments.clone()));
    assert!(!is_error, "{text}");
    assert_eq!(text, nodes.to_string());
    let mut long_way = arguments;
    long_way["root"]["name"] = json!(7);
    let (is_error, text) = run(&tools, "tree", long_way.to_string());
    assert!(!is_error, "{text}");
    assert_eq!(text, nodes.to_string());

    // Deeper, where the toolbox allows it: 190 nodes, 380 levels (the checker used to stop at
    // 256 nested checks, a few per level).
    let deep = JsonLimits {
        max_depth: 400,
        ..JsonLimits::default()
    };
    let tools_deep = Toolbox::new()
        .with(TreeTool)
        .unwrap()
        .with_argument_policy(ArgumentPolicy::new().limits(deep));
    let deep_arguments = json!({"root": chain(190)});
    let schema = tools_deep
        .get("tree")
        .unwrap()
        .definition()
        .compiled_schema()
        .clone();
    assert_eq!(schema.validate(&deep_arguments), []);
    let (is_error, text) = run(&tools_deep, "tree", Arguments::Json(deep_arguments.clone()));
    assert!(!is_error, "{text}");
    assert_eq!(text, "190");
    // The long way: a number where the root's name is a string is coerced, then all validated.
    let mut long_way = deep_arguments;
    long_way["root"]["name"] = json!(7);
    let (is_error, text) = run(&tools_deep, "tree", Arguments::Json(long_way));
    assert!(!is_error, "{text}");
    assert_eq!(text, "190");

    // Wide: far more values than the old fixed budget of 200,000 schema visits.
    let wide: Vec<Value> = (0..60_000)
        .map(|i| json!({"name": i.to_string()}))
        .collect();
    let arguments = json!({"root": {"name": "r", "children": wide}});
    let schema = tools
        .get("tree")
        .unwrap()
        .definition()
        .compiled_schema()
        .clone();
    assert!(schema.validate(&arguments).is_empty());
    let (is_error, text) = run(&tools, "tree", arguments.to_string());
    assert!(!is_error, "{text}");
    assert_eq!(text, "60001");
}

/// A schema nested `levels` deep (`items` in `items`), and one whose `$ref`s chain as long.
fn deep_schemas(levels: usize) -> [Value; 2] {
    let mut nested = json!({"type": "integer"});
    for _ in 0..levels {
        // Not `json!` with `nested` inside: that would copy it, recursively.
        let mut array = serde_json::Map::new();
        array.insert("type".into(), json!("array"));
        array.insert("items".into(), nested);
        nested = Value::Object(array);
    }
    let mut defs = serde_json::Map::new();
    for i in 0..levels {
        defs.insert(
            format!("d{i}"),
            json!({"$ref": format!("#/$defs/d{}", i + 1), "minimum": 0}),
        );
    }
    defs.insert(format!("d{levels}"), json!({"type": "integer"}));
    let chained = json!({"$defs": defs, "$ref": "#/$defs/d0"});
    [nested, chained]
}

/// Drops a deeply nested schema one level at a time (serde_json's own drop recurses).
fn dispose(mut schema: Value) {
    while let Some(inner) = schema.get_mut("items").map(Value::take) {
        schema = inner;
    }
}

#[test]
fn deep_and_long_schemas_compile_and_check_on_a_small_stack() {
    // A third-party server's schema can nest anything: compiling and checking take bounded
    // stack (here 1 MiB, half of a default thread, in a debug build), past the nesting compiled
    // (192) too.
    let worker = std::thread::Builder::new().stack_size(1 << 20).spawn(|| {
        for levels in [100, 191, 5_000] {
            let [nested, chained] = deep_schemas(levels);
            // Nesting past 192 is listed, not compiled; a chain of references is compiled
            // whole (references are followed from a queue, not by recursion).
            for (schema, whole) in [(nested, levels < 192), (chained, true)] {
                let compiled = CompiledSchema::compile(&schema);
                assert_eq!(compiled.unsupported().is_empty(), whole, "{levels}");
                let mut value = json!(1);
                for _ in 0..levels.min(120) {
                    value = json!([value]);
                }
                let _ = compiled.validate(&value);
                let _ = compiled.validate(&json!(-1));
                dispose(schema);
            }
        }
    });
    worker.unwrap().join().expect("no overflow");
}
