//! toolwright's validator against the `jsonschema` crate (a dev-dependency only, draft 2020-12,
//! formats asserted as toolwright asserts them): both must agree on whether each generated value
//! is valid, for the demo tools' schemas and for every schema of the official suite, with values
//! made by mutating the suite's own test data. Schemas where toolwright deliberately differs are
//! those listed in `tests/data/schema-suite-differences.txt`, and are left out here for the same
//! reasons (and patterns `CompiledSchema::unsupported` lists, the list's pattern difference); so
//! are the suite's remote references (this oracle is given no retriever).

use crate::demo;
use crate::mutate;
use crate::shapes;

use shapes::{Expr, Shape};

use std::cell::Cell;
use std::fs;
use std::path::PathBuf;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{Value, json};
use toolwright::args::CompiledSchema;
use toolwright::{Tool, tool};

use crate::data;

fn suite() -> PathBuf {
    data::path("json-schema-test-suite/draft2020-12")
}

/// `file :: case` of every listed difference.
fn differing_cases() -> Vec<(String, String)> {
    data::read("schema-suite-differences.txt")
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let parts: Vec<&str> = line.split(" :: ").collect();
            (parts[0].to_owned(), parts[1].to_owned())
        })
        .collect()
}

/// The string formats toolwright asserts (the rest only annotate, as the list of differences
/// says).
const ASSERTED_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "json-pointer",
    "uuid",
];

/// One schema and values to start from.
struct Subject {
    name: String,
    schema: Value,
    seeds: Vec<Value>,
}

fn suite_subjects() -> Vec<Subject> {
    let differing = differing_cases();
    let mut subjects = Vec::new();
    for folder in ["", "optional", "optional/format"] {
        let dir = suite().join(folder);
        let mut files: Vec<PathBuf> = fs::read_dir(&dir)
            .unwrap_or_else(|error| panic!("the suite's folder {}: {error}", dir.display()))
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
            .collect();
        files.sort();
        assert!(!files.is_empty(), "no suite files in {}", dir.display());
        for path in files {
            let file = path.strip_prefix(suite()).unwrap().display().to_string();
            // The format annotation file agrees once both assert formats.
            let cases: Vec<Value> =
                serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
            for case in cases {
                let description = case["description"].as_str().unwrap().to_owned();
                let text = case["schema"].to_string();
                // Formats toolwright does not assert (listed for the optional suite); the
                // annotation file's others agree once both assert formats.
                let unasserted = case["schema"]["format"]
                    .as_str()
                    .is_some_and(|format| !ASSERTED_FORMATS.contains(&format));
                let listed = unasserted
                    || (file != "format.json"
                        && differing
                            .iter()
                            .any(|(f, c)| *f == file && *c == description));
                let remote = text.contains("localhost:1234") || file.contains("cross-draft");
                // A custom meta-schema turns vocabularies off; the oracle reads it remotely.
                // Patterns without a translation (`\p{..}`) are listed by `unsupported` and
                // not enforced: the pattern difference of the list.
                let untranslated = ours(&case["schema"])
                    .unsupported()
                    .iter()
                    .any(|u| u.starts_with("the pattern"));
                if listed || remote || untranslated {
                    continue;
                }
                let seeds = case["tests"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|test| test["data"].clone())
                    .collect();
                subjects.push(Subject {
                    name: format!("{file} :: {description}"),
                    schema: case["schema"].clone(),
                    seeds,
                });
            }
        }
    }
    subjects
}

/// The meta-schemas, which the oracle has built in, for toolwright from `tests/data`.
fn retrieve(uri: &str) -> Option<Value> {
    let rest = uri.strip_prefix("https://json-schema.org/draft/2020-12/")?;
    let path = data::path("metaschemas/draft2020-12").join(format!("{rest}.json"));
    serde_json::from_str(&fs::read_to_string(path).ok()?).ok()
}

fn ours(schema: &Value) -> CompiledSchema {
    CompiledSchema::compile_with(schema, &retrieve)
}

/// toolwright reads schemars' integer formats (`uint32`, `int8`, ...) as the bounds they name
/// (documented); the oracle, which asserts string formats only, is given those bounds.
fn integer_formats_as_bounds(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            let bounds = match map.get("format").and_then(Value::as_str) {
                Some("int8") => Some((json!(i8::MIN), json!(i8::MAX))),
                Some("int16") => Some((json!(i16::MIN), json!(i16::MAX))),
                Some("int32") => Some((json!(i32::MIN), json!(i32::MAX))),
                Some("int64" | "int") => Some((json!(i64::MIN), json!(i64::MAX))),
                Some("uint8") => Some((json!(0), json!(u8::MAX))),
                Some("uint16") => Some((json!(0), json!(u16::MAX))),
                Some("uint32") => Some((json!(0), json!(u32::MAX))),
                Some("uint64" | "uint") => Some((json!(0), json!(u64::MAX))),
                _ => None,
            };
            if let Some((low, high)) = bounds {
                // Within its own bounds, beside whatever `minimum`/`maximum` say.
                let rule =
                    json!({"if": {"type": "number"}, "then": {"minimum": low, "maximum": high}});
                let all = map.entry("allOf").or_insert_with(|| json!([]));
                all.as_array_mut().unwrap().push(rule);
            }
            for value in map.values_mut() {
                integer_formats_as_bounds(value);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integer_formats_as_bounds),
        _ => {}
    }
}

/// Whether a value holds an integer beyond 2^53.
fn huge(value: &Value) -> bool {
    match value {
        Value::Number(n) => n
            .as_i64()
            .map_or(n.is_u64(), |i| i.unsigned_abs() > 1 << 53),
        Value::Array(items) => items.iter().any(huge),
        Value::Object(map) => map.values().any(huge),
        _ => false,
    }
}

fn oracle(schema: &Value) -> jsonschema::Validator {
    let mut schema = schema.clone();
    integer_formats_as_bounds(&mut schema);
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(&schema)
        .expect("the oracle compiles the schema")
}

/// Both validators on `cases` values made from each subject's seeds; returns how many values
/// each outcome had, so a run can show it meant something.
fn agree(subjects: &[Subject], cases: u32) -> (usize, usize) {
    let compiled: Vec<(CompiledSchema, jsonschema::Validator)> = subjects
        .iter()
        .map(|s| (ours(&s.schema), oracle(&s.schema)))
        .collect();
    let (valid, invalid) = (Cell::new(0), Cell::new(0));
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (
        0..subjects.len(),
        any::<usize>(),
        prop::collection::vec(mutate::edit(), 0..4),
    );
    let result = runner.run(&strategy, |(subject, seed, edits)| {
        let s = &subjects[subject];
        let start = if s.seeds.is_empty() {
            json!({})
        } else {
            s.seeds[seed % s.seeds.len()].clone()
        };
        let value = mutate::apply(start, &edits);
        let (ours, theirs) = &compiled[subject];
        let problems = ours.validate(&value);
        let expected = theirs.is_valid(&value);
        // `multipleOf` on integers past 2^53: the oracle divides in floats (9007199254740993
        // is not a multiple of 1.5 to it); toolwright decides on the digits (it is), which
        // `schema_rules` and the unit tests check exactly.
        if problems.is_empty() != expected
            && s.schema.to_string().contains("multipleOf")
            && huge(&value)
        {
            return Ok(());
        }
        if problems.is_empty() != expected {
            return Err(TestCaseError::fail(format!(
                "{}: {value} is {} to jsonschema; toolwright says {problems:?}",
                s.name,
                if expected { "valid" } else { "invalid" }
            )));
        }
        let count = if expected { &valid } else { &invalid };
        count.set(count.get() + 1);
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
    (valid.get(), invalid.get())
}

#[test]
fn agrees_with_jsonschema_on_the_suites_schemas() {
    let subjects = suite_subjects();
    assert!(subjects.len() > 300, "{}", subjects.len());
    // Every seed first, unchanged.
    for s in &subjects {
        let (ours, theirs) = (ours(&s.schema), oracle(&s.schema));
        for seed in &s.seeds {
            assert_eq!(
                ours.validate(seed).is_empty(),
                theirs.is_valid(seed),
                "{}: {seed}",
                s.name
            );
        }
    }
    let (valid, invalid) = agree(&subjects, 50_000);
    println!("{valid} valid, {invalid} invalid");
    assert!(
        valid > 2_000 && invalid > 2_000,
        "{valid} valid, {invalid} invalid"
    );
}

/// A drawing.
#[tool]
fn draw(
    /// The shapes.
    #[schemars(length(min = 1, max = 8))]
    shapes: Vec<Shape>,
    /// Distinct labels.
    labels: std::collections::BTreeSet<String>,
    /// A label or a number.
    tag: Option<serde_json::Value>,
    /// An expression.
    expr: Option<Expr>,
) -> usize {
    let _ = (labels, tag, expr);
    shapes.len()
}

fn tool_subject<T: Tool<demo::DemoContext>>(tool: &T, seeds: Vec<Value>) -> Subject {
    let definition = tool.definition();
    Subject {
        name: definition.name().to_owned(),
        schema: definition.parameters().clone(),
        seeds,
    }
}

#[test]
fn agrees_with_jsonschema_on_the_demo_tools() {
    let subjects = vec![
        tool_subject(&demo::AddTool, vec![json!({"a": 2, "b": 3})]),
        tool_subject(
            &demo::GetWeatherTool,
            vec![json!({"city": "Paris", "unit": "celsius"})],
        ),
        tool_subject(&demo::DivideTool, vec![json!({"a": 1.5, "b": 2})]),
        tool_subject(&demo::SetTagsTool, vec![json!({"tags": ["a", "b"]})]),
        tool_subject(
            &demo::UpdatePreferencesTool,
            vec![
                json!({"unique_code": "x", "data": {"auto_complete_email": true, "items_per_page": 10}}),
            ],
        ),
        tool_subject(
            &demo::SearchTool,
            vec![json!({"query": "rust", "limit": 10})],
        ),
        tool_subject(
            &demo::CreateInvoiceTool,
            vec![json!({"vendor_name": "Acme", "total_amount": "120.50 EUR"})],
        ),
        tool_subject(&demo::SleepTool, vec![json!({"ms": 10})]),
        tool_subject(
            &DrawTool,
            vec![json!({
                "shapes": [{"kind": "circle", "radius": 1.5}, {"kind": "rect", "width": 2, "height": 3}],
                "labels": ["a", "b"],
                "tag": "x",
                "expr": {"op": "add", "args": [1, {"op": "mul", "args": [2, 3.5]}]},
            })],
        ),
    ];
    let (valid, invalid) = agree(&subjects, 20_000);
    assert!(
        valid > 500 && invalid > 500,
        "{valid} valid, {invalid} invalid"
    );
}

/// A schema made of draft 2020-12's keywords with values of every kind, nested: what a
/// third-party server might send, sane or not.
fn any_schema() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(json!(true)),
        Just(json!(false)),
        Just(json!({})),
        prop::sample::select(vec![
            json!({"type": "string"}),
            json!({"type": ["integer", "null"]}),
            json!({"type": "number", "minimum": 1.5, "exclusiveMaximum": 10}),
            json!({"type": "integer", "multipleOf": 3}),
            json!({"multipleOf": 0.01}),
            json!({"minLength": 2, "maxLength": 3.0}),
            json!({"pattern": "^a.*[b-d]$"}),
            json!({"pattern": "\\s\\d+"}),
            json!({"format": "date"}),
            json!({"format": "email"}),
            json!({"const": 1}),
            json!({"enum": [1, "a", null, [1], {"a": 1}]}),
            json!({"$ref": "#"}),
            json!({"$ref": "#/$defs/a"}),
            json!({"$ref": "#nowhere"}),
            json!({"$dynamicRef": "#node"}),
            json!({"uniqueItems": true}),
            json!({"minItems": 1, "maxItems": 2}),
            json!({"minProperties": 1}),
            json!({"required": ["a", "b"]}),
            json!({"dependentRequired": {"a": ["b"]}}),
        ]),
    ];
    leaf.prop_recursive(4, 48, 4, |inner| {
        let keyword = prop::sample::select(vec![
            "properties",
            "patternProperties",
            "$defs",
            "dependentSchemas",
        ]);
        let one = prop::sample::select(vec![
            "items",
            "additionalProperties",
            "not",
            "if",
            "then",
            "else",
            "contains",
            "propertyNames",
            "unevaluatedItems",
            "unevaluatedProperties",
        ]);
        let list = prop::sample::select(vec!["allOf", "anyOf", "oneOf", "prefixItems"]);
        let key = prop::sample::select(vec!["a", "b", "c", "^a", "node"]);
        prop_oneof![
            (one, inner.clone(), inner.clone()).prop_map(|(k, s, base)| {
                let mut base = if base.is_object() { base } else { json!({}) };
                base[k] = s;
                base
            }),
            (list, prop::collection::vec(inner.clone(), 1..4))
                .prop_map(|(k, items)| json!({k: items})),
            (
                keyword,
                prop::collection::btree_map(key, inner.clone(), 1..3)
            )
                .prop_map(|(k, members)| {
                    let members: serde_json::Map<String, Value> = members
                        .into_iter()
                        .map(|(k, v)| (k.to_owned(), v))
                        .collect();
                    json!({k: members})
                }),
            (inner.clone(), prop::sample::select(vec!["node", "x"])).prop_map(|(s, name)| {
                let mut s = if s.is_object() { s } else { json!({}) };
                s["$dynamicAnchor"] = json!(name);
                s["$id"] = json!(format!("https://example.org/{name}"));
                s
            }),
        ]
    })
}

/// Values of every kind, for the arbitrary schemas.
fn any_value() -> impl Strategy<Value = Value> {
    let leaf = mutate::leaf();
    leaf.prop_recursive(3, 24, 4, |inner| {
        let key = prop::sample::select(vec!["a", "b", "c", "ab", "node"]);
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(key, inner, 0..4).prop_map(|members| {
                Value::Object(
                    members
                        .into_iter()
                        .map(|(k, v)| (k.to_owned(), v))
                        .collect(),
                )
            }),
        ]
    })
}

#[test]
fn any_schema_compiles_and_validates_without_panicking_and_agrees_when_the_oracle_takes_it() {
    let mut runner = TestRunner::new(Config {
        cases: 10_000,
        failure_persistence: None,
        ..Config::default()
    });
    let compared = Cell::new(0);
    let result = runner.run(&(any_schema(), any_value()), |(schema, value)| {
        let ours = ours(&schema);
        let problems = ours.validate(&value);
        // Where toolwright enforces all of it, and the oracle takes the schema, both agree.
        let Ok(theirs) = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(true)
            .build(&schema)
        else {
            return Ok(());
        };
        if !ours.unsupported().is_empty() {
            return Ok(());
        }
        // A reference that loops back on the same value (`allOf` through `$ref` to itself) has
        // no answer: toolwright stops with its one "too complex" problem, never a verdict.
        if problems
            .iter()
            .any(|p| p.expected == "arguments small enough to check")
        {
            return Ok(());
        }
        compared.set(compared.get() + 1);
        let expected = theirs.is_valid(&value);
        if problems.is_empty() != expected {
            return Err(TestCaseError::fail(format!(
                "{schema}: {value} is {} to jsonschema; toolwright says {problems:?}",
                if expected { "valid" } else { "invalid" }
            )));
        }
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
    assert!(compared.get() > 1_000, "{} compared", compared.get());
}
