//! The arguments pipeline.
//!
//! - `strict_valid/*`: strictly valid argument text through the whole pipeline (`Tool::parse_args`,
//!   as dispatch runs it) beside plain `serde_json::from_str` into the same generated arguments
//!   struct. `add` has no constraint beyond its types (the fast path); `search` has a range on
//!   `limit`, so every call is also validated.
//! - `lenient/external_cases`: the lenient parser over every external case that strict JSON
//!   refuses (throughput in bytes of input).
//! - `lenient/scaling/*`: one broken document of growing size; constant throughput is linear time.
//!
//! Run: `cargo bench -p toolwright-benches --bench arguments`. Figures are in BENCHMARKS.md.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::Value;
use toolwright::args::{JsonLimits, ParseSession, parse_lenient};
use toolwright::{Arguments, Tool};

#[allow(dead_code)]
mod common;

use common::{add, search};

fn strict_valid(c: &mut Criterion) {
    let mut group = c.benchmark_group("strict_valid");
    let text = r#"{"a": 2, "b": 3}"#;
    let arguments = Arguments::from(text);
    let mut session = ParseSession::default();
    assert!(Tool::<()>::parse_args(&add {}, &arguments, &(), &mut session).is_ok());
    group.bench_function("add/serde_json_from_str", |b| {
        b.iter(|| serde_json::from_str::<<add as Tool>::Args>(black_box(text)).unwrap())
    });
    group.bench_function("add/pipeline", |b| {
        b.iter(|| {
            let mut session = ParseSession::default();
            Tool::<()>::parse_args(&add {}, black_box(&arguments), &(), &mut session).unwrap()
        })
    });

    let text = r#"{"query": "rust tools", "limit": 10}"#;
    let arguments = Arguments::from(text);
    group.bench_function("search/serde_json_from_str", |b| {
        b.iter(|| serde_json::from_str::<<search as Tool>::Args>(black_box(text)).unwrap())
    });
    group.bench_function("search/pipeline", |b| {
        b.iter(|| {
            let mut session = ParseSession::default();
            Tool::<()>::parse_args(&search {}, black_box(&arguments), &(), &mut session).unwrap()
        })
    });
    group.finish();
}

/// Every external case's input that strict JSON refuses.
fn broken_inputs() -> Vec<String> {
    let data = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tool-runtime/tests/data/lenient"
    );
    let path = format!("{data}/cross_impl_differential.jsonl");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("cannot read fixture {path}: {error}"));
    text.lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|case| case["input"].as_str().map(str::to_owned))
        .filter(|input| serde_json::from_str::<Value>(input).is_err())
        .collect()
}

/// A large broken document: an array of models' typical damage, `items` times over.
fn broken_document(items: usize) -> String {
    let mut text = String::from("```json\n[\n");
    for i in 0..items {
        text.push_str(&format!(
            "  {{id: {i}, name: 'item {i}', tags: [\"a\", \"b\",], ok: True, note: \"line\nbreak\"}},\n"
        ));
    }
    text.push_str("// cut off here\n");
    text
}

fn lenient(c: &mut Criterion) {
    let limits = JsonLimits::default();
    let inputs = broken_inputs();
    let bytes: usize = inputs.iter().map(String::len).sum();
    let mut group = c.benchmark_group("lenient");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("external_cases", |b| {
        b.iter(|| {
            inputs
                .iter()
                .filter(|input| parse_lenient(black_box(input), &limits).is_ok())
                .count()
        })
    });
    for items in [100, 1_000, 10_000] {
        let text = broken_document(items);
        assert_eq!(
            parse_lenient(&text, &limits)
                .unwrap()
                .value
                .as_array()
                .map(Vec::len),
            Some(items)
        );
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::new("scaling", text.len()), &text, |b, text| {
            b.iter(|| parse_lenient(black_box(text), &limits).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, strict_valid, lenient);
criterion_main!(benches);
