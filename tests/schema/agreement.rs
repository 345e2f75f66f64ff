//! Schema/serde agreement, per demo tool: the schema the model is shown and the typed arguments
//! serde builds accept exactly the same values (after coercion, as the pipeline runs them).
//!
//! - every value the schema accepts deserializes into the tool's `Args`;
//! - every value serde accepts is valid under the schema, or the schema constrains more than
//!   serde and the pipeline validates every call (so its fast path is sound);
//! - arguments built from typed Rust values and serialized are valid.

use crate::demo;
use crate::mutate;
use crate::shapes;

use shapes::{Expr, Layer, Op, Shape};

use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use toolwright::args::{ArgumentPolicy, CompiledSchema, ParseSession};
use toolwright::{Arguments, Tool, tool};

use demo::DemoContext;

/// Leaves that probe the edges serde and the schema both care about: integer widths and
/// signs, integral and fractional floats, enum variants and near misses, numeric strings.
fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        prop::sample::select(vec![
            json!(0),
            json!(1),
            json!(-1),
            json!(50),
            json!(51),
            json!(4_294_967_295_u64),
            json!(4_294_967_296_u64),
            json!(i64::MIN),
            json!(u64::MAX),
            json!(3.0),
            json!(2.5),
            json!(-0.5),
            json!(1e300),
        ]),
        any::<i64>().prop_map(Value::from),
        (-5i64..60).prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        prop::sample::select(vec![
            "celsius",
            "fahrenheit",
            "kelvin",
            "5",
            "2.5",
            "true",
            "null",
            "",
            "Paris",
            "{\"items_per_page\": 3}",
            "ab",
            "abcd",
            "abcde",
            "[\"a\"]",
        ])
        .prop_map(Value::from),
        ".{0,8}".prop_map(Value::from),
    ]
}

/// Mostly leaves; sometimes a short array, or an object over the nested struct's names.
fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        6 => leaf(),
        1 => prop::collection::vec(leaf(), 0..4).prop_map(Value::from),
        1 => prop::collection::vec(prop::sample::select(vec!["a", "bc", "x y"]), 0..5)
            .prop_map(Value::from),
        2 => prop::collection::btree_map(
            prop::sample::select(vec!["auto_complete_email", "items_per_page", "other"]),
            leaf(),
            0..3
        )
        .prop_map(|map| Value::Object(map.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())),
    ]
}

/// Argument objects over a tool's own names: each name absent or given a value, sometimes an
/// unknown name besides.
fn arguments(names: Vec<String>) -> impl Strategy<Value = Value> {
    let members: Vec<_> = names
        .into_iter()
        .map(|name| prop::option::weighted(0.8, value()).prop_map(move |v| (name.clone(), v)))
        .collect();
    (members, prop::option::weighted(0.1, value())).prop_map(|(members, extra)| {
        let mut map: Map<String, Value> = members
            .into_iter()
            .filter_map(|(name, value)| value.map(|v| (name, v)))
            .collect();
        if let Some(extra) = extra {
            map.insert("unexpected".into(), extra);
        }
        Value::Object(map)
    })
}

/// Runs the agreement check over many generated argument objects for one tool, and makes sure
/// both outcomes were seen often enough for the check to mean something.
fn agrees<T>(tool: &T, cases: u32)
where
    T: Tool<DemoContext>,
    T::Args: DeserializeOwned,
{
    let names = tool.definition().accepted_param_names().to_vec();
    agrees_on(tool, arguments(names), cases);
}

/// [`agrees`] over values made by editing valid arguments (for schemas a blind generator
/// rarely satisfies: tagged unions, sets, recursion).
fn agrees_from<T>(tool: &T, seeds: Vec<Value>, cases: u32)
where
    T: Tool<DemoContext>,
    T::Args: DeserializeOwned,
{
    let strategy = (0..seeds.len(), prop::collection::vec(mutate::edit(), 0..3))
        .prop_map(move |(seed, edits)| mutate::apply(seeds[seed].clone(), &edits));
    agrees_on(tool, strategy, cases);
}

fn agrees_on<T>(tool: &T, strategy: impl Strategy<Value = Value>, cases: u32)
where
    T: Tool<DemoContext>,
    T::Args: DeserializeOwned,
{
    let definition = tool.definition();
    let schema: &CompiledSchema = definition.compiled_schema();
    assert!(
        schema.unsupported().is_empty(),
        "{:?}",
        schema.unsupported()
    );
    let (valid, invalid) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&strategy, |mut args| {
        schema.coerce(&mut args);
        let problems = schema.validate(&args);
        let typed = serde_json::from_value::<T::Args>(args.clone());
        let typed_ok = typed.is_ok();
        // Whatever the schema accepts, serde takes.
        prop_assert!(
            !problems.is_empty() || typed_ok,
            "{}: the schema accepts what serde refuses ({:?}): {}",
            definition.name(),
            typed.as_ref().err().map(ToString::to_string),
            args
        );
        // Whatever serde takes, the schema accepts, unless the schema says more than serde
        // enforces (a range, say): then the pipeline checks those rules on every call.
        prop_assert!(
            problems.is_empty() || !typed_ok || schema.constrains_beyond_types(),
            "{}: serde takes what the schema refuses ({:?}), and nothing would check it: {}",
            definition.name(),
            problems,
            args
        );
        // The pipeline, with repair and coercion off, accepts exactly what the schema and serde
        // both accept, from text and from a value: its fast path (serde, checking the schema's
        // extra rules as it reads) and its long way agree.
        let expected = problems.is_empty() && typed_ok;
        let context = demo::context();
        for arguments in [
            Arguments::Json(args.clone()),
            Arguments::Text(args.to_string()),
        ] {
            let mut session = ParseSession::new(ArgumentPolicy::new().repair(false).coerce(false));
            let parsed = tool.parse_args(&arguments, &context, &mut session);
            prop_assert_eq!(
                parsed.is_ok(),
                expected,
                "{}: the pipeline says {:?} for {}",
                definition.name(),
                parsed.err().map(|e| e.to_string()),
                args
            );
        }
        if problems.is_empty() {
            &valid
        } else {
            &invalid
        }
        .fetch_add(1, Ordering::Relaxed);
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
    let (valid, invalid) = (valid.into_inner(), invalid.into_inner());
    assert!(
        valid >= 20 && invalid >= 20,
        "{}: too one-sided to mean anything ({valid} valid, {invalid} invalid)",
        definition.name()
    );
}

/// Nested rules of every scalar kind, to exercise the fast path's checks in passing.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Page {
    /// Items per page.
    #[schemars(range(min = 1, max = 50))]
    pub items_per_page: Option<u32>,
    /// A short label.
    #[schemars(length(min = 1, max = 4), regex(pattern = r"^[a-z]+$"))]
    pub auto_complete_email: Option<String>,
}

/// A tool whose schema says much more than serde enforces.
#[tool]
fn constrained(
    /// At least 0.5, at most 10.
    #[schemars(range(min = 0.5, max = 10.0))]
    a: f64,
    /// One to three tags.
    #[schemars(length(min = 1, max = 3))]
    tags: Vec<String>,
    /// Nested rules.
    data: Option<Page>,
) -> String {
    format!("{a} {tags:?} {data:?}")
}

#[test]
fn constrained_rules() {
    agrees::<_>(&ConstrainedTool, 12_000);
}

#[test]
fn add() {
    agrees::<_>(&demo::AddTool, 2000);
}

#[test]
fn get_weather() {
    agrees::<_>(&demo::GetWeatherTool, 2000);
}

#[test]
fn divide() {
    agrees::<_>(&demo::DivideTool, 2000);
}

#[test]
fn set_tags() {
    agrees::<_>(&demo::SetTagsTool, 2000);
}

#[test]
fn update_preferences() {
    agrees::<_>(&demo::UpdatePreferencesTool, 2000);
}

#[test]
fn search() {
    agrees::<_>(&demo::SearchTool, 2000);
}

#[test]
fn create_invoice() {
    agrees::<_>(&demo::CreateInvoiceTool, 2000);
}

/// A tool with tagged and untagged unions, sets and optional nested structs.
#[tool]
fn draw(
    /// One to three shapes.
    #[schemars(length(min = 1, max = 3))]
    shapes: Vec<Shape>,
    /// Distinct small numbers.
    marks: std::collections::HashSet<u8>,
    /// An optional layer.
    layer: Option<Layer>,
    /// An optional expression.
    expr: Option<Expr>,
    /// Distinct operators.
    ops: Option<std::collections::BTreeSet<Op>>,
) -> String {
    format!("{shapes:?} {marks:?} {layer:?} {expr:?} {ops:?}")
}

#[test]
fn unions_and_sets() {
    let seeds = vec![
        json!({
            "shapes": [{"kind": "circle", "radius": 1.5}, {"kind": "rect", "width": 2, "height": 3}],
            "marks": [1, 2, 3],
            "layer": {"name": "top", "shapes": [{"kind": "label", "text": "ab"}], "tags": ["a", "b"]},
            "expr": {"op": "add", "args": [1, {"op": "mul", "args": [2, 3]}]},
            "ops": ["add", "mul"],
        }),
        json!({"shapes": [{"kind": "label", "text": "x"}], "marks": [], "layer": null, "expr": 7}),
        // Members before the tag, duplicates in a set: the long way decides.
        json!({"shapes": [{"radius": 2, "kind": "circle"}], "marks": [4, 4], "expr": null, "ops": ["mul", "mul"]}),
    ];
    agrees_from(&DrawTool, seeds, 6_000);
}

#[test]
fn tools_without_arguments_accept_exactly_the_empty_object() {
    for tool in [schema(demo::WhoamiTool), schema(demo::ExplodeTool)] {
        assert!(tool.validate(&json!({})).is_empty());
        assert!(!tool.validate(&json!({"x": 1})).is_empty());
    }
}

fn schema<T: Tool<DemoContext>>(tool: T) -> CompiledSchema {
    tool.definition().compiled_schema().clone()
}

proptest! {
    /// Arguments serialized from typed values are valid: what a well-behaved model sends from the
    /// schema is accepted.
    #[test]
    fn serialized_typed_arguments_validate(
        a in any::<i64>(),
        b in any::<f64>().prop_filter("finite", |f| f.is_finite()),
        city in ".{0,12}",
        unit in prop::option::of(prop::sample::select(vec![demo::Unit::Celsius, demo::Unit::Fahrenheit])),
        tags in prop::collection::vec(".{0,6}", 0..4),
        email in prop::option::of(any::<bool>()),
        per_page in prop::option::of(any::<u32>()),
        limit in 1u32..=50,
    ) {
        let preferences = demo::Preferences { auto_complete_email: email, items_per_page: per_page };
        let cases = [
            (schema(demo::AddTool), json!({"a": a, "b": a / 2})),
            (schema(demo::DivideTool), json!({"a": b, "b": b})),
            (schema(demo::GetWeatherTool), json!({"city": city, "unit": unit})),
            (schema(demo::SetTagsTool), json!({"tags": tags})),
            (schema(demo::UpdatePreferencesTool), json!({"unique_code": city, "data": preferences})),
            (schema(demo::SearchTool), json!({"query": city, "limit": limit})),
        ];
        for (schema, args) in cases {
            let problems = schema.validate(&args);
            prop_assert!(problems.is_empty(), "{args}: {problems:?}");
        }
    }
}
