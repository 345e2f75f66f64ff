//! Stream assembly scales linearly: one call whose arguments arrive as 1k, 10k and 100k deltas,
//! per provider. The time per byte of arguments must stay flat as the delta count grows (a
//! re-parse of the accumulated prefix per delta would make it grow with the count).
//!
//! `push` takes one delta chunk, already parsed, `n` times (the assembler's own work, per byte of
//! arguments); `push_line` takes the `n` distinct lines of the stream as text (each chunk parsed
//! too, as a stream reader does; per byte of the stream).
//!
//! Run: `cargo bench -p toolwright-benches --bench assembly`. Figures are in BENCHMARKS.md.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};
use toolwright::provider::{Assembler, Provider};

/// The deltas of one call's arguments: `{"text": "` , `n - 2` pieces of text, `"}`.
fn deltas(n: usize) -> Vec<String> {
    let mut deltas = vec!["{\"text\": \"".to_owned()];
    deltas.extend((0..n - 2).map(|i| format!("word{:03} ", i % 1000)));
    deltas.push("\"}".to_owned());
    deltas
}

/// The chunks of a stream that sends `deltas` as one call's arguments, in `provider`'s shape.
fn stream(provider: Provider, deltas: &[String]) -> Vec<Value> {
    let mut chunks = Vec::with_capacity(deltas.len() + 3);
    match provider {
        Provider::OpenAiChat => {
            chunks.push(json!({"choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": 0, "id": "call_1", "type": "function", "function": {"name": "write", "arguments": ""}},
            ]}}]}));
            chunks.extend(deltas.iter().map(|d| {
                json!({"choices": [{"index": 0, "delta": {"tool_calls": [
                    {"index": 0, "function": {"arguments": d}},
                ]}}]})
            }));
            chunks.push(
                json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
            );
        }
        Provider::OpenAiResponses => {
            chunks.push(json!({"type": "response.output_item.added", "output_index": 0, "item":
                {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "write", "arguments": ""}}));
            chunks.extend(deltas.iter().map(|d| {
                json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0, "delta": d})
            }));
            chunks.push(json!({"type": "response.output_item.done", "output_index": 0, "item":
                {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "write", "status": "completed"}}));
        }
        Provider::Anthropic => {
            chunks.push(
                json!({"type": "content_block_start", "index": 0, "content_block":
                {"type": "tool_use", "id": "toolu_1", "name": "write", "input": {}}}),
            );
            chunks.extend(deltas.iter().map(|d| {
                json!({"type": "content_block_delta", "index": 0, "delta":
                    {"type": "input_json_delta", "partial_json": d}})
            }));
            chunks.push(json!({"type": "content_block_stop", "index": 0}));
        }
        _ => {
            // Gemini streams the string value itself, piece by piece at one path.
            let part = |function_call: Value| json!({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": function_call}]}}]});
            chunks.push(part(json!({"name": "write", "willContinue": true})));
            chunks.extend(deltas.iter().map(|d| {
                part(json!({"partialArgs": [
                    {"jsonPath": "$.text", "stringValue": d, "willContinue": true},
                ], "willContinue": true}))
            }));
            chunks.push(part(json!({})));
        }
    }
    chunks
}

fn assembly(c: &mut Criterion) {
    let mut group = c.benchmark_group("assembly");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for n in [1_000, 10_000, 100_000] {
        let deltas = deltas(n);
        for provider in [
            Provider::OpenAiChat,
            Provider::OpenAiResponses,
            Provider::Anthropic,
            Provider::Gemini,
        ] {
            let chunks = stream(provider, &deltas);
            // The assembler's own work, per byte of arguments: the same delta chunk pushed
            // `n` times (built once, so walking `n` separately built values, whose cache misses
            // grow with `n`, does not blur the figure; `push_line` below reads `n` distinct
            // lines).
            let (first, rest) = chunks.split_first().unwrap();
            let (last, middle) = rest.split_last().unwrap();
            let delta = &middle[1];
            let delta_bytes = deltas[1].len() * n;
            group.throughput(Throughput::Bytes(delta_bytes as u64));
            group.bench_function(BenchmarkId::new(format!("{provider}/push"), n), |b| {
                b.iter(|| {
                    let mut assembler = Assembler::new(provider);
                    assembler.push(first).unwrap();
                    for _ in 0..n {
                        assembler.push(delta).unwrap();
                    }
                    assembler.push(last).unwrap();
                    black_box(assembler.finish())
                });
            });
            // What a stream reader pays: per byte of the stream's lines.
            let lines: Vec<String> = chunks
                .iter()
                .map(|chunk| format!("data: {chunk}"))
                .collect();
            let line_bytes: usize = lines.iter().map(|line| line.len() + 1).sum();
            group.throughput(Throughput::Bytes(line_bytes as u64));
            group.bench_with_input(
                BenchmarkId::new(format!("{provider}/push_line"), n),
                &lines,
                |b, lines| {
                    b.iter(|| {
                        let mut assembler = Assembler::new(provider);
                        for line in lines {
                            assembler.push_line(line).unwrap();
                        }
                        black_box(assembler.finish())
                    });
                },
            );
        }
    }
    group.finish();
}

criterion_group!(benches, assembly);
criterion_main!(benches);
