//! Provider forms of the demo toolbox: building every form of every tool from fresh definitions
//! (what the first `tools_for` per form pays, once), and the cached lookup every later request
//! pays.
//!
//! Run: `cargo bench -p toolwright-benches --bench providers`. Figures are in BENCHMARKS.md.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use toolwright::{ToolDefinition, provider::Provider, schema::Form};

#[path = "../examples/demo/mod.rs"]
#[allow(dead_code)]
mod demo;

/// Every form a definition caches.
const FORMS: [Form; 9] = [
    Form::new(Provider::OpenAiChat),
    Form::strict(Provider::OpenAiChat),
    Form::new(Provider::OpenAiResponses),
    Form::strict(Provider::OpenAiResponses),
    Form::new(Provider::Anthropic),
    Form::strict(Provider::Anthropic),
    Form::new(Provider::Gemini),
    Form::gemini_json_schema(),
    Form::new(Provider::Mcp),
];

fn providers(c: &mut Criterion) {
    let tools = demo::toolbox();
    // What a definition is made of, to build fresh ones (with empty caches) in the loop.
    let parts: Vec<(String, String, serde_json::Value)> = tools
        .definitions()
        .map(|d| {
            (
                d.name().to_owned(),
                d.description().to_owned(),
                d.parameters().clone(),
            )
        })
        .collect();
    let mut group = c.benchmark_group("provider_forms");
    group.bench_function("build_all_forms_demo_toolbox", |b| {
        b.iter(|| {
            let mut bytes = 0;
            for (name, description, parameters) in &parts {
                let def =
                    ToolDefinition::new(name.clone(), description.clone(), parameters.clone())
                        .unwrap();
                for form in FORMS {
                    bytes += black_box(def.provider_entry(form))
                        .as_object()
                        .map_or(0, |m| m.len());
                }
            }
            bytes
        })
    });
    // Warm every form, then measure what a request pays: the toolbox's list for one format.
    for form in FORMS {
        tools.tools_for(form.provider()).unwrap();
    }
    group.bench_function("cached_tools_for_openai_demo_toolbox", |b| {
        b.iter(|| {
            black_box(tools.tools_for(black_box(Provider::OpenAiChat)).unwrap())
                .entries()
                .len()
        })
    });
    let strict = demo::toolbox().with_strict(true);
    strict.tools_for(Provider::OpenAiChat).unwrap();
    group.bench_function("cached_tools_for_openai_strict_demo_toolbox", |b| {
        b.iter(|| {
            black_box(strict.tools_for(black_box(Provider::OpenAiChat)).unwrap())
                .entries()
                .len()
        })
    });
    let def = tools.definitions().nth(1).unwrap();
    group.bench_function("cached_provider_entry_one_tool", |b| {
        b.iter(|| black_box(def.provider_entry(black_box(Form::new(Provider::Gemini)))))
    });
    group.finish();
}

criterion_group!(benches, providers);
criterion_main!(benches);
