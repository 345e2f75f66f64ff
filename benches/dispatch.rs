//! One valid `add` call dispatched from raw argument text to a `ToolResult`, beside a hand-written
//! baseline doing the least any dispatcher must: serde_json into the arguments struct, call the
//! fn, serialize the result.
//!
//! Run: `cargo bench -p toolwright-benches --bench dispatch`. The ratio of the two is reported in BENCHMARKS.md.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use toolwright::{ToolCall, Toolbox};

#[allow(dead_code)]
mod common;

use common::{AddTool, baseline};

fn dispatch(c: &mut Criterion) {
    let tools = Toolbox::<()>::new().with(AddTool).unwrap();
    let call = ToolCall::new("call_1", "add", r#"{"a": 2, "b": 3}"#);
    let result = tools.execute_blocking(&call, &());
    assert_eq!(result.text(), "5");
    let base = baseline("call_1", r#"{"a": 2, "b": 3}"#);
    assert_eq!(
        (base.call_id.as_str(), base.content.as_str(), base.is_error),
        ("call_1", "5", false)
    );

    let mut group = c.benchmark_group("add_call");
    group.bench_function("baseline_serde", |b| {
        b.iter(|| baseline(black_box("call_1"), black_box(r#"{"a": 2, "b": 3}"#)))
    });
    group.bench_function("toolwright_execute_blocking", |b| {
        b.iter(|| tools.execute_blocking(black_box(&call), &()))
    });
    group.finish();
}

criterion_group!(benches, dispatch);
criterion_main!(benches);
