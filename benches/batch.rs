//! Batches (issue 6): how concurrency pays off, and what a batch costs over single calls.
//!
//! - `concurrency/limit_N`: 50 calls that each wait 20 ms, in one batch on a multi-thread tokio
//!   runtime, with at most N running at once. Expected: about 20 ms × ceil(50 / N), not 50 waits
//!   (1 s) unless N is 1.
//! - `overhead/*`: 10 trivial `add` calls: one `execute_all`, against `execute` ten times (both
//!   driven by toolwright's `block_on`) and `execute_blocking` ten times.
//!
//! Run: `cargo bench -p toolwright-benches --bench batch`. Numbers are in BENCHMARKS.md.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use toolwright::{ToolCall, Toolbox, exec::block_on, tool};

#[allow(dead_code)]
mod common;

use common::AddTool;

/// Waits `ms` milliseconds.
#[tool(concurrent)]
async fn wait(ms: u64) -> u64 {
    toolwright::exec::sleep(Duration::from_millis(ms)).await;
    ms
}

fn concurrency(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let tools = Toolbox::new().with(WaitTool).unwrap();
    let calls: Vec<ToolCall> = (0..50)
        .map(|i| ToolCall::new(format!("c{i}"), "wait", r#"{"ms": 20}"#))
        .collect();
    let mut group = c.benchmark_group("concurrency");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for limit in [1, 5, 10, 16, 50] {
        let tools = tools.clone().with_concurrency(limit);
        let results = runtime.block_on(tools.execute_all(&calls, &()));
        assert!(results.iter().all(|r| r.text() == "20"));
        group.bench_function(format!("limit_{limit}"), |b| {
            b.iter(|| runtime.block_on(tools.execute_all(black_box(&calls), &())));
        });
    }
    group.finish();
}

fn overhead(c: &mut Criterion) {
    let tools = Toolbox::new().with(AddTool).unwrap();
    let calls: Vec<ToolCall> = (0..10)
        .map(|i| ToolCall::new(format!("c{i}"), "add", r#"{"a": 2, "b": 3}"#))
        .collect();
    assert!(
        tools
            .execute_all_blocking(&calls, &())
            .iter()
            .all(|r| r.text() == "5")
    );
    let mut group = c.benchmark_group("overhead");
    group.bench_function("execute_all_10", |b| {
        b.iter(|| block_on(tools.execute_all(black_box(&calls), &())));
    });
    group.bench_function("execute_10", |b| {
        b.iter(|| {
            black_box(&calls)
                .iter()
                .map(|call| block_on(tools.execute(call, &())))
                .collect::<Vec<_>>()
        });
    });
    group.bench_function("execute_blocking_10", |b| {
        b.iter(|| {
            black_box(&calls)
                .iter()
                .map(|call| tools.execute_blocking(call, &()))
                .collect::<Vec<_>>()
        });
    });
    group.finish();
}

criterion_group!(benches, concurrency, overhead);
criterion_main!(benches);
