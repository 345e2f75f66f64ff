//! One valid call dispatched from raw argument text to a `ToolResult`, beside a hand-written
//! baseline doing the least any dispatcher must: serde_json into the arguments struct (the
//! range checked by hand where there is one), call the fn, serialize the result. Issue 32's
//! three tools: `add` (no rule beyond its types), `search` (a range), `register` (three levels
//! of structs); each also with its call built per iteration from strings a provider reader owns.
//!
//! Run: `cargo bench -p toolwright-benches --bench dispatch`. The ratios are in BENCHMARKS.md.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use toolwright::{ToolCall, Toolbox};

#[allow(dead_code)]
mod common;

use common::{
    ADD_ARGS, AddTool, Baseline, REGISTER_ARGS, RegisterTool, SEARCH_ARGS, SearchTool, baseline,
    baseline_owned, baseline_register, baseline_search,
};

/// A hand-written dispatcher of one tool: call id and argument text in, result out.
type HandWritten = fn(&str, &str) -> Baseline;

fn dispatch(c: &mut Criterion) {
    let tools = Toolbox::new()
        .with(AddTool)
        .and_then(|tools| tools.with(SearchTool))
        .and_then(|tools| tools.with(RegisterTool))
        .unwrap();
    let cases: [(&str, &str, HandWritten); 3] = [
        ("add", ADD_ARGS, baseline),
        ("search", SEARCH_ARGS, baseline_search),
        ("register", REGISTER_ARGS, baseline_register),
    ];
    for (name, arguments, base) in cases {
        let call = ToolCall::new("call_1", name, arguments);
        let result = tools.execute_blocking(&call, &());
        let expected = base("call_1", arguments);
        assert!(!result.is_error && !expected.is_error, "{name}");
        // A text result goes to the model as its text; the baseline writes every result as JSON.
        let text = result.text();
        assert!(
            text == expected.content || serde_json::to_string(&text).unwrap() == expected.content,
            "{name}: {text} against {}",
            expected.content
        );

        let mut group = c.benchmark_group(format!("{name}_call"));
        group.bench_function("baseline_serde", |b| {
            b.iter(|| base(black_box("call_1"), black_box(arguments)))
        });
        group.bench_function("toolwright_execute_blocking", |b| {
            b.iter(|| tools.execute_blocking(black_box(&call), &()))
        });
        let owned = || {
            (
                black_box("call_1").to_owned(),
                black_box(name).to_owned(),
                black_box(arguments).to_owned(),
            )
        };
        group.bench_function("baseline_owned_strings", |b| {
            b.iter(|| {
                let (id, tool, text) = owned();
                baseline_owned(id, tool, text)
            })
        });
        group.bench_function("toolwright_owned_strings", |b| {
            b.iter(|| {
                let (id, tool, text) = owned();
                tools.execute_blocking(&ToolCall::new(id, tool, text), &())
            })
        });
        group.finish();
    }
}

criterion_group!(benches, dispatch);
criterion_main!(benches);
