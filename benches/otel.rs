//! What tracing costs a call (issue 45): one valid `add` call dispatched with no subscriber,
//! then with an application's OpenTelemetry setup installed (`tracing-opentelemetry`'s layer over
//! the SDK's tracer provider with its batch processor, every span sampled, exported to an
//! exporter that drops them: what is measured is toolwright's span and the SDK's work for it,
//! not a network).
//!
//! Run: `cargo bench -p toolwright-benches --bench otel`. The numbers are in BENCHMARKS.md.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter};
use toolwright::{ToolCall, Toolbox};
use tracing_subscriber::layer::SubscriberExt as _;

#[allow(dead_code)]
mod common;

use common::{ADD_ARGS, AddTool};

/// An exporter that drops what it is given.
#[derive(Debug)]
struct Drop;

impl SpanExporter for Drop {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        black_box(batch);
        Ok(())
    }
}

fn otel(c: &mut Criterion) {
    let tools = Toolbox::new().with(AddTool).unwrap();
    let call = ToolCall::new("call_1", "add", ADD_ARGS);
    assert!(!tools.execute_blocking(&call, &()).is_error);
    let mut group = c.benchmark_group("add_call_traced");
    // First, while no subscriber has ever been set: the span's callsite is then never enabled.
    group.bench_function("no_subscriber", |b| {
        b.iter(|| black_box(tools.execute_blocking(black_box(&call), &())));
    });
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(Drop)
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("bench")));
    tracing::subscriber::with_default(subscriber, || {
        group.bench_function("opentelemetry_layer", |b| {
            b.iter(|| black_box(tools.execute_blocking(black_box(&call), &())));
        });
    });
    group.finish();
    let _ = provider.shutdown();
}

criterion_group!(benches, otel);
criterion_main!(benches);
