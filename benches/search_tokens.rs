//! What a request with 1,000 deferred tools sends the model, beside the same tools sent whole:
//! writes both per provider, for `benches/tokens/deferred.sh` to count (o200k_base).
//!
//! `cargo bench -p toolwright-benches --bench search_tokens -- DEFS.jsonl OUT_DIR` takes the first
//! 1,000 definitions of `DEFS.jsonl` (one JSON object a line: `name`, `description`,
//! `parameters`) that make tools, defers every one, and writes, per provider, `<form>-all.json`
//! (`Toolbox::tools_for`: the list without search) and `<form>-deferred.json`: what the model is
//! shown of `Toolbox::request_fields`' list. For OpenAI Chat and Gemini that is the list itself
//! (the search function alone). Anthropic keeps deferred tools out of the model's context
//! altogether (entries with `defer_loading` are left out). OpenAI Responses shows the model
//! each deferred function's name and description (OpenAI's tool search guide), and of a
//! namespace its name and description: those are kept. `responses-namespaces` groups the tools
//! in namespaces of ten.

use std::io::BufRead;

use serde_json::{Map, Value, json};
use toolwright::dynamic::{Namespace, erase};
use toolwright::provider::{Provider, ToolRequest};
use toolwright::search::ToolSearch;
use toolwright::{DynamicTool, ToolDefinition, Toolbox};

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let [defs, out] = args.as_slice() else {
        eprintln!("usage: search_tokens DEFS.jsonl OUT_DIR");
        std::process::exit(2);
    };
    let file = std::io::BufReader::new(std::fs::File::open(defs).expect("the definitions file"));
    let mut definitions = Vec::new();
    // Two names one provider sends alike (`todo.add`, `todo_add`) cannot share a toolbox.
    let mut sent = std::collections::HashSet::<String>::new();
    for line in file.lines() {
        let line = line.expect("a line");
        let def: Value = serde_json::from_str(&line).expect("a JSON object");
        let (Some(name), Some(description)) = (def["name"].as_str(), def["description"].as_str())
        else {
            continue;
        };
        if !sent.insert(Provider::OpenAiChat.wire_name(name).into_owned()) {
            continue;
        }
        if let Ok(definition) =
            ToolDefinition::new(name.to_owned(), description, def["parameters"].clone())
        {
            // Only tools every provider here takes (real data has names some refuse).
            let takes = PROVIDERS
                .iter()
                .all(|(_, provider)| definition.lint(*provider).errors().next().is_none());
            if takes {
                definitions.push(definition.with_deferred(true));
            }
        }
        if definitions.len() == 1000 {
            break;
        }
    }
    assert_eq!(definitions.len(), 1000, "1,000 definitions that make tools");
    let build = |namespaces: bool| {
        let mut tools = Toolbox::new();
        for (at, definition) in definitions.iter().enumerate() {
            let definition = if namespaces {
                let group = at / 10;
                let names: Vec<&str> = definitions
                    [group * 10..(group * 10 + 10).min(definitions.len())]
                    .iter()
                    .map(ToolDefinition::name)
                    .collect();
                definition.clone().with_namespace(Some(Namespace::new(
                    format!("group_{group:03}"),
                    format!("Tools: {}.", names.join(", ")),
                )))
            } else {
                definition.clone()
            };
            tools
                .register_dyn(erase(DynamicTool::new(
                    definition,
                    |_: Map<String, Value>, _: &()| Value::Null,
                )))
                .expect("distinct names");
        }
        tools
            .with_tool_search(ToolSearch::new())
            .expect("no tool named search_tools")
    };
    let tools = build(false);
    let write = |name: &str, value: &Value| {
        std::fs::write(format!("{out}/{name}.json"), value.to_string())
            .expect("the output directory");
    };
    for (form, provider) in PROVIDERS {
        write(
            &format!("{form}-all"),
            &tools.tools_for(provider).expect("a clean list").to_value(),
        );
        let fields = tools
            .request_fields(provider, ToolRequest::default())
            .expect("deferred tools fit");
        write(
            &format!("{form}-deferred"),
            &shown(provider, fields.get("tools").expect("tools")),
        );
    }
    let grouped = build(true);
    let fields = grouped
        .request_fields(Provider::OpenAiResponses, ToolRequest::default())
        .expect("deferred tools fit");
    write(
        "responses-namespaces-deferred",
        &shown(
            Provider::OpenAiResponses,
            fields.get("tools").expect("tools"),
        ),
    );
}

const PROVIDERS: [(&str, Provider); 4] = [
    ("openai", Provider::OpenAiChat),
    ("openai-responses", Provider::OpenAiResponses),
    ("anthropic", Provider::Anthropic),
    ("gemini", Provider::Gemini),
];

/// What the model is shown of a request's tool list.
fn shown(provider: Provider, tools: &Value) -> Value {
    let entries = tools.as_array().cloned().unwrap_or_default();
    match provider {
        Provider::Anthropic => entries
            .into_iter()
            .filter(|entry| entry.get("defer_loading") != Some(&Value::Bool(true)))
            .collect(),
        Provider::OpenAiResponses => entries
            .into_iter()
            .map(|entry| match entry["type"].as_str() {
                Some("namespace") => json!({"type": "namespace", "name": entry["name"], "description": entry["description"]}),
                _ if entry.get("defer_loading") == Some(&Value::Bool(true)) => {
                    json!({"type": "function", "name": entry["name"], "description": entry["description"]})
                }
                _ => entry,
            })
            .collect(),
        _ => Value::Array(entries),
    }
}
