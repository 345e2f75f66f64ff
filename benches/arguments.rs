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
use toolwright::args::{JsonLimits, ParseSession, parse_lenient};
use toolwright::{Arguments, Tool};

#[allow(dead_code)]
mod common;
#[path = "common/corpus.rs"]
mod corpus;

use corpus::{broken_document, broken_inputs};

use common::{AddTool, SearchTool};

fn strict_valid(c: &mut Criterion) {
    let mut group = c.benchmark_group("strict_valid");
    let text = r#"{"a": 2, "b": 3}"#;
    let arguments = Arguments::from(text);
    let mut session = ParseSession::default();
    assert!(Tool::<()>::parse_args(&AddTool, &arguments, &(), &mut session).is_ok());
    group.bench_function("add/serde_json_from_str", |b| {
        b.iter(|| serde_json::from_str::<<AddTool as Tool>::Args>(black_box(text)).unwrap())
    });
    group.bench_function("add/pipeline", |b| {
        b.iter(|| {
            let mut session = ParseSession::default();
            Tool::<()>::parse_args(&AddTool, black_box(&arguments), &(), &mut session).unwrap()
        })
    });

    let text = r#"{"query": "rust tools", "limit": 10}"#;
    let arguments = Arguments::from(text);
    group.bench_function("search/serde_json_from_str", |b| {
        b.iter(|| serde_json::from_str::<<SearchTool as Tool>::Args>(black_box(text)).unwrap())
    });
    group.bench_function("search/pipeline", |b| {
        b.iter(|| {
            let mut session = ParseSession::default();
            Tool::<()>::parse_args(&SearchTool, black_box(&arguments), &(), &mut session).unwrap()
        })
    });
    group.finish();
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
