//! A valid call's argument handling, per demo and test tool, beside the obvious alternative:
//! text -> `serde_json::Value` -> `jsonschema` (`is_valid`) -> `serde_json::from_value` into the
//! same generated arguments struct (issue 14's goal: toolwright costs no more).
//!
//! - `valid_call/<tool>/toolwright`: `Tool::parse_args`, as dispatch runs it.
//! - `valid_call/<tool>/jsonschema`: the alternative above, validator built once.
//! - `validate/<schema>/toolwright|jsonschema`: validation alone of a valid value
//!   (`CompiledSchema::validate` against `jsonschema::Validator::is_valid`), for the schemas
//!   whose unions and recursion made validation slow (`recursive_one_of`: two untagged object
//!   branches at every level, where each branch tried used to build its messages).
//!
//! - `compile/<tool>/toolwright|jsonschema`: compiling a tool's schema (once per tool).
//!
//! Run: `cargo bench -p toolwright-benches --bench schema -- --noplot`. Figures are in BENCHMARKS.md.

use std::collections::BTreeSet;
use std::hint::black_box;

use criterion::{Criterion, criterion_group};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use toolwright::args::ParseSession;
use toolwright::{Arguments, Tool, tool};

#[path = "../examples/demo/mod.rs"]
#[allow(dead_code)]
mod demo;
#[path = "../tests/support/shapes.rs"]
mod shapes;

use shapes::{Expr, Layer};

/// Draw layers of shapes (nested, with sets and a tagged union).
#[tool]
fn draw(
    /// The layers, 1 to 8.
    #[schemars(length(min = 1, max = 8))]
    layers: Vec<Layer>,
    /// Distinct labels.
    labels: BTreeSet<String>,
) -> usize {
    layers.len() + labels.len()
}

/// Evaluate an expression (a recursive `anyOf`).
#[tool]
fn evaluate(
    /// The expression.
    expr: Expr,
) -> usize {
    let _ = expr;
    1
}

fn drawing() -> Value {
    let layer = |name: &str| {
        json!({
            "name": name,
            "shapes": [
                {"kind": "circle", "radius": 2.5},
                {"kind": "rect", "width": 3, "height": 4},
                {"kind": "label", "text": "north"},
                {"kind": "circle", "radius": 1},
            ],
            "tags": ["a", "b", "c"],
            "hidden": false,
        })
    };
    json!({"layers": [layer("base"), layer("top"), layer("notes")], "labels": ["x", "y"]})
}

fn expression(depth: usize) -> Value {
    if depth == 0 {
        return json!(1.5);
    }
    json!({"op": if depth.is_multiple_of(2) { "add" } else { "mul" }, "args": [expression(depth - 1), 2, expression(depth - 1)]})
}

/// The `jsonschema` validator of a schema, draft 2020-12 (formats as annotations, its default).
fn oracle(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(schema)
        .expect("jsonschema compiles the schema")
}

/// One valid call, ready for both routes: toolwright's `Tool::parse_args`, and text -> `Value`
/// -> `jsonschema::is_valid` -> `serde_json::from_value` into the same arguments struct.
struct Route<'t, T> {
    tool: &'t T,
    text: String,
    call: Arguments,
    context: demo::DemoContext,
    validator: jsonschema::Validator,
}

impl<'t, T> Route<'t, T>
where
    T: Tool<demo::DemoContext>,
    T::Args: DeserializeOwned,
{
    fn new(name: &str, tool: &'t T, arguments: &Value) -> Self {
        let text = arguments.to_string();
        let route = Route {
            tool,
            call: Arguments::from(text.as_str()),
            text,
            context: demo::context(),
            validator: oracle(tool.definition().parameters()),
        };
        assert!(
            route.toolwright() && route.jsonschema(),
            "{name}: {}",
            route.text
        );
        route
    }

    fn toolwright(&self) -> bool {
        let mut session = ParseSession::default();
        self.tool
            .parse_args(black_box(&self.call), &self.context, &mut session)
            .is_ok()
    }

    fn jsonschema(&self) -> bool {
        let value: Value = serde_json::from_str(black_box(&self.text)).unwrap();
        self.validator.is_valid(&value) && serde_json::from_value::<T::Args>(value).is_ok()
    }
}

/// What is done with each case: benched, or counted.
trait Case {
    fn case<T>(&mut self, name: &str, tool: &T, arguments: &Value)
    where
        T: Tool<demo::DemoContext>,
        T::Args: DeserializeOwned;
}

/// Every demo tool and the two nested test tools, each with a valid call.
fn each_case(visit: &mut impl Case) {
    visit.case("add", &demo::AddTool, &json!({"a": 2, "b": 3}));
    let weather = json!({"city": "Paris", "unit": "celsius"});
    visit.case("get_weather", &demo::GetWeatherTool, &weather);
    visit.case("divide", &demo::DivideTool, &json!({"a": 7.5, "b": 2}));
    visit.case(
        "set_tags",
        &demo::SetTagsTool,
        &json!({"tags": ["a", "b", "c"]}),
    );
    let preferences =
        json!({"unique_code": "u-1", "data": {"auto_complete_email": true, "items_per_page": 20}});
    visit.case(
        "update_preferences",
        &demo::UpdatePreferencesTool,
        &preferences,
    );
    let search = json!({"query": "rust tools", "limit": 10});
    visit.case("search", &demo::SearchTool, &search);
    let invoice = json!({"vendor_name": "Acme", "total_amount": "120.50 EUR"});
    visit.case("create_invoice", &demo::CreateInvoiceTool, &invoice);
    visit.case("sleep", &demo::SleepTool, &json!({"ms": 10}));
    visit.case("draw", &DrawTool, &drawing());
    visit.case("evaluate", &EvaluateTool, &json!({"expr": expression(4)}));
}

/// Benches both routes of every case.
struct Bench<'c>(&'c mut Criterion);

impl Case for Bench<'_> {
    fn case<T>(&mut self, name: &str, tool: &T, arguments: &Value)
    where
        T: Tool<demo::DemoContext>,
        T::Args: DeserializeOwned,
    {
        let route = Route::new(name, tool, arguments);
        let mut group = self.0.benchmark_group(format!("valid_call/{name}"));
        group.bench_function("toolwright", |b| b.iter(|| route.toolwright()));
        group.bench_function("jsonschema", |b| b.iter(|| route.jsonschema()));
        group.finish();
    }
}

fn valid_calls(c: &mut Criterion) {
    each_case(&mut Bench(c));
}

/// A recursive `oneOf` of two object branches with no tag: every level tries both.
fn recursive_one_of() -> (Value, Value) {
    let schema = json!({
        "oneOf": [
            {"type": "object", "properties": {"leaf": {"type": "number"}}, "required": ["leaf"]},
            {
                "type": "object",
                "properties": {"children": {"type": "array", "items": {"$ref": "#"}}},
                "required": ["children"],
            },
        ],
    });
    fn tree(depth: usize) -> Value {
        if depth == 0 {
            return json!({"leaf": 1.5});
        }
        json!({"children": [tree(depth - 1), tree(depth - 1), tree(depth - 1)]})
    }
    (schema, tree(4))
}

fn validation(c: &mut Criterion) {
    let (tree_schema, tree) = recursive_one_of();
    for (name, parameters, value) in [
        ("recursive_one_of", tree_schema, tree),
        (
            "draw",
            Tool::<()>::definition(&DrawTool).parameters().clone(),
            drawing(),
        ),
        (
            "evaluate",
            Tool::<()>::definition(&EvaluateTool).parameters().clone(),
            json!({"expr": expression(6)}),
        ),
    ] {
        let ours = toolwright::args::CompiledSchema::compile(&parameters);
        assert!(ours.validate(&value).is_empty());
        let theirs = oracle(&parameters);
        let mut group = c.benchmark_group(format!("validate/{name}"));
        group.bench_function("toolwright", |b| {
            b.iter(|| ours.validate(black_box(&value)))
        });
        group.bench_function("jsonschema", |b| {
            b.iter(|| theirs.is_valid(black_box(&value)))
        });
        group.finish();
    }
}

/// Compiling a tool's schema, once per tool: toolwright's node tree against `jsonschema`'s
/// validator.
fn compiling(c: &mut Criterion) {
    for (name, parameters) in [
        (
            "update_preferences",
            Tool::<demo::DemoContext>::definition(&demo::UpdatePreferencesTool)
                .parameters()
                .clone(),
        ),
        (
            "draw",
            Tool::<()>::definition(&DrawTool).parameters().clone(),
        ),
    ] {
        let mut group = c.benchmark_group(format!("compile/{name}"));
        group.bench_function("toolwright", |b| {
            b.iter(|| toolwright::args::CompiledSchema::compile(black_box(&parameters)))
        });
        group.bench_function("jsonschema", |b| {
            b.iter(|| {
                jsonschema::options()
                    .with_draft(jsonschema::Draft::Draft202012)
                    .build(black_box(&parameters))
                    .unwrap()
            })
        });
        group.finish();
    }
}

criterion_group!(benches, valid_calls, validation, compiling);

/// `schema count <tool> <toolwright|jsonschema> <n>`: `n` valid calls of one case in a plain
/// loop, for instruction counts under callgrind (`benches/schema_instructions.sh`); otherwise
/// criterion.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "count") {
        let mut count = Count {
            name: args[at + 1].clone(),
            route: args[at + 2].clone(),
            n: args[at + 3].parse().unwrap(),
            ran: false,
        };
        each_case(&mut count);
        assert!(count.ran, "no such tool: {}", count.name);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}

/// Runs one case's route `n` times.
struct Count {
    name: String,
    route: String,
    n: usize,
    ran: bool,
}

impl Case for Count {
    fn case<T>(&mut self, name: &str, tool: &T, arguments: &Value)
    where
        T: Tool<demo::DemoContext>,
        T::Args: DeserializeOwned,
    {
        if name != self.name {
            return;
        }
        let route = Route::new(name, tool, arguments);
        let toolwright = self.route == "toolwright";
        let valid = (0..self.n)
            .filter(|_| {
                if toolwright {
                    route.toolwright()
                } else {
                    route.jsonschema()
                }
            })
            .count();
        assert_eq!(valid, self.n);
        self.ran = true;
    }
}
