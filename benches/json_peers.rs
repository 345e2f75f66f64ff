//! toolwright-json's lenient parser against the Rust crates that repair the JSON models send:
//! `llm_json` (a port of Python's `json_repair`) and `jsonrepair-rs` (a port of jsonrepair). Each
//! reads the same inputs to a `serde_json::Value`:
//! - `json_peers/corpus/*`: every external case's input that strict JSON refuses (about a
//!   thousand mostly tiny documents, `tool-json/tests/data/lenient`), those every parser reads
//!   without panicking; throughput over all their bytes;
//! - `json_peers/document/*`: one large broken document (code fence, unquoted keys, single
//!   quotes, trailing commas, Python literals, raw newlines in strings, cut off), 1,000 items.
//!
//! `cargo bench -p toolwright-benches --bench json_peers`; the numbers are in BENCHMARKS.md.

use std::hint::black_box;
use std::panic::{AssertUnwindSafe, catch_unwind};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::Value;
use toolwright_json::{JsonLimits, parse_lenient};

#[path = "common/corpus.rs"]
mod corpus;

use corpus::{broken_document, broken_inputs};

/// One parser: its name and how it reads text to a value (`None`: it refused the text).
type Parser = (&'static str, fn(&str) -> Option<Value>);

/// The lenient parser alone: the inputs are all text strict JSON refuses, so `parse_json`'s
/// strict attempt first would only add its failure to each.
fn toolwright(text: &str) -> Option<Value> {
    parse_lenient(text, &JsonLimits::default())
        .ok()
        .map(|read| read.value)
}

fn llm_json(text: &str) -> Option<Value> {
    let options = llm_json::RepairOptions {
        return_objects: true,
        ..llm_json::RepairOptions::default()
    };
    llm_json::loads(text, &options).ok()
}

fn jsonrepair(text: &str) -> Option<Value> {
    jsonrepair_rs::jsonrepair_value(text).ok()
}

const PARSERS: [Parser; 3] = [
    ("toolwright_json", toolwright),
    ("llm_json", llm_json),
    ("jsonrepair_rs", jsonrepair),
];

fn peers(c: &mut Criterion) {
    // The same inputs for all: those no parser panics on (a panic is no answer to time).
    let inputs: Vec<String> = broken_inputs()
        .into_iter()
        .filter(|input| {
            PARSERS
                .iter()
                .all(|(_, parse)| catch_unwind(AssertUnwindSafe(|| parse(input))).is_ok())
        })
        .collect();
    let bytes: usize = inputs.iter().map(String::len).sum();
    let mut group = c.benchmark_group("json_peers");
    group.throughput(Throughput::Bytes(bytes as u64));
    for (name, parse) in PARSERS {
        let read = inputs.iter().filter(|input| parse(input).is_some()).count();
        println!(
            "{name}: reads {read} of the corpus's {} inputs",
            inputs.len()
        );
        group.bench_function(format!("corpus/{name}"), |b| {
            b.iter(|| {
                inputs
                    .iter()
                    .filter(|input| parse(black_box(input)).is_some())
                    .count()
            })
        });
    }
    let document = broken_document(1_000);
    group.throughput(Throughput::Bytes(document.len() as u64));
    for (name, parse) in PARSERS {
        let items = parse(&document).and_then(|value| value.as_array().map(Vec::len));
        println!("{name}: reads the document as {items:?} items (of 1000)");
        group.bench_function(format!("document/{name}"), |b| {
            b.iter(|| parse(black_box(&document)))
        });
    }
    group.finish();
}

criterion_group!(benches, peers);
criterion_main!(benches);
