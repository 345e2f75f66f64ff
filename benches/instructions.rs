//! The `dispatch` bench's two loops, and the `arguments` bench's strict-valid pair, in a plain
//! `main`, for instruction counts under callgrind, which are repeatable where wall time on a
//! shared machine is not. Run `benches/instructions.sh`.
//!
//! `cargo bench` runs it once with few iterations, as a smoke test.

use std::hint::black_box;

use toolwright::args::ParseSession;
use toolwright::{Arguments, Tool, ToolCall, Toolbox};

mod common;

use common::{
    ADD_ARGS, AddTool, REGISTER_ARGS, RegisterTool, SEARCH_ARGS, SearchTool, baseline,
    baseline_owned, baseline_register, baseline_search, baseline_value,
};

/// The three tools of issue 32, each one valid call through the whole dispatch (`<tool>-call-base`,
/// `<tool>-call`), and from strings a provider reader owns, one set per call (`<tool>-owned-base`,
/// `<tool>-owned`; `<tool>-strings`: making and dropping those strings alone). (`search-base` and
/// `search-toolwright` are the argument parse alone, below.)
fn three_tools(which: &str, iterations: usize) -> Option<usize> {
    let (tool, path) = which.split_once('-')?;
    if !matches!(
        path,
        "call-base" | "call" | "owned-base" | "owned" | "strings"
    ) {
        return None;
    }
    let (base, arguments): (fn(&str, &str) -> common::Baseline, &str) = match tool {
        "add" => (baseline, ADD_ARGS),
        "search" => (baseline_search, SEARCH_ARGS),
        "register" => (baseline_register, REGISTER_ARGS),
        _ => return None,
    };
    let tools = Toolbox::new()
        .with(AddTool)
        .and_then(|tools| tools.with(SearchTool))
        .and_then(|tools| tools.with(RegisterTool))
        .expect("three tools");
    let call = ToolCall::new("call_1", tool, arguments);
    assert!(!tools.execute_blocking(&call, &()).is_error, "{which}");
    let owned = || {
        (
            black_box("call_1").to_owned(),
            black_box(tool).to_owned(),
            black_box(arguments).to_owned(),
        )
    };
    let mut checksum = 0;
    match path {
        "call-base" => {
            for _ in 0..iterations {
                let result = black_box(base(black_box("call_1"), black_box(arguments)));
                checksum += result.content.len() + usize::from(result.is_error);
            }
        }
        "call" => {
            for _ in 0..iterations {
                checksum += black_box(tools.execute_blocking(black_box(&call), &()))
                    .content
                    .len();
            }
        }
        "owned-base" => {
            for _ in 0..iterations {
                let (id, name, text) = owned();
                let result = black_box(baseline_owned(id, name, text));
                checksum += result.content.len() + usize::from(result.is_error);
            }
        }
        // What the three owned strings cost alone (made and dropped), to tell them from the call.
        "strings" => {
            for _ in 0..iterations {
                let (id, name, text) = black_box(owned());
                checksum += id.len() + name.len() + text.len();
            }
        }
        "owned" => {
            for _ in 0..iterations {
                let (id, name, text) = owned();
                let call = ToolCall::new(id, name, text);
                checksum += black_box(tools.execute_blocking(black_box(&call), &()))
                    .content
                    .len();
            }
        }
        _ => return None,
    }
    Some(checksum)
}

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let which = args.next().unwrap_or_else(|| "both".to_owned());
    let iterations: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(1000);
    if let Some(checksum) = three_tools(&which, iterations) {
        println!("{which}: {iterations} iterations, checksum {checksum}");
        return;
    }
    let tools = Toolbox::new().with(AddTool).expect("one tool");
    let call = ToolCall::new("call_1", "add", r#"{"a": 2, "b": 3}"#);
    let mut checksum = 0;
    if which == "base" || which == "both" {
        for _ in 0..iterations {
            let result = black_box(baseline(
                black_box("call_1"),
                black_box(r#"{"a": 2, "b": 3}"#),
            ));
            checksum += result.content.len() + result.call_id.len() + usize::from(result.is_error);
        }
    }
    if which == "toolwright" || which == "both" {
        for _ in 0..iterations {
            checksum += black_box(tools.execute_blocking(black_box(&call), &()))
                .content
                .len();
        }
    }
    // The same call with its arguments as a JSON value, as Anthropic, Gemini and MCP send them.
    let value = serde_json::json!({"a": 2, "b": 3});
    let call_value = ToolCall::new("call_1", "add", value.clone());
    if which == "value-base" || which == "both" {
        for _ in 0..iterations {
            let result = black_box(baseline_value(black_box("call_1"), black_box(&value)));
            checksum += result.content.len() + result.call_id.len() + usize::from(result.is_error);
        }
    }
    if which == "value-toolwright" || which == "both" {
        for _ in 0..iterations {
            checksum += black_box(tools.execute_blocking(black_box(&call_value), &()))
                .content
                .len();
        }
    }
    let text = r#"{"a": 2, "b": 3}"#;
    let arguments = Arguments::from(text);
    if which == "parse-base" || which == "both" {
        for _ in 0..iterations {
            let args = serde_json::from_str::<<AddTool as Tool>::Args>(black_box(text));
            checksum += usize::from(black_box(args).is_ok());
        }
    }
    if which == "parse-toolwright" || which == "both" {
        for _ in 0..iterations {
            let mut session = ParseSession::default();
            let args = Tool::<()>::parse_args(&AddTool, black_box(&arguments), &(), &mut session);
            checksum += usize::from(black_box(args).is_ok());
        }
    }
    let text = r#"{"query": "rust tools", "limit": 10}"#;
    let arguments = Arguments::from(text);
    if which == "search-base" || which == "both" {
        for _ in 0..iterations {
            let args = serde_json::from_str::<<SearchTool as Tool>::Args>(black_box(text));
            checksum += usize::from(black_box(args).is_ok());
        }
    }
    if which == "search-toolwright" || which == "both" {
        for _ in 0..iterations {
            let mut session = ParseSession::default();
            let args =
                Tool::<()>::parse_args(&SearchTool, black_box(&arguments), &(), &mut session);
            checksum += usize::from(black_box(args).is_ok());
        }
    }
    println!("{which}: {iterations} iterations, checksum {checksum}");
}
