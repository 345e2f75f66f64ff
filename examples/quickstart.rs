//! The README's first command: `cargo run --example quickstart`.
//!
//! Declares the demo tools with `#[tool]`, prints the definitions a model is given, then runs a
//! script of tool calls such as a model makes (good ones and broken ones) and prints what the
//! model would see for each. Offline: no API keys, no network.

mod demo;
mod output;

use output::say;

use toolwright::{Arguments, ToolCall, ToolResult};

fn main() {
    let tools = demo::toolbox();
    let ctx = demo::context();

    say!("== The tools, as a model is shown them ==\n");
    for definition in tools.definitions() {
        say!("{}: {}", definition.name(), definition.description());
        let schema = serde_json::to_string_pretty(definition.parameters()).unwrap_or_default();
        say!("{schema}\n");
    }

    say!("== A script of tool calls, and what the model sees ==\n");
    let script = [
        (
            "a valid call",
            "get_weather",
            r#"{"city": "Paris", "unit": "fahrenheit"}"#,
        ),
        (
            "an optional argument left out",
            "get_weather",
            r#"{"city": "Oslo"}"#,
        ),
        (
            "broken JSON, as models send it",
            "add",
            "```json\n{'a': 2, b: \"3\",}\n```",
        ),
        ("a missing argument", "add", r#"{"a": 2}"#),
        (
            "several problems, one message",
            "search",
            r#"{"qurey": "rust", "limit": "500"}"#,
        ),
        (
            "a misspelled argument",
            "get_weather",
            r#"{"cty": "Paris"}"#,
        ),
        (
            "a wrong type, nested",
            "update_preferences",
            r#"{"unique_code": "u1", "data": {"items_per_page": "ten"}}"#,
        ),
        (
            "a value outside an enum",
            "get_weather",
            r#"{"city": "Rome", "unit": "kelvin"}"#,
        ),
        ("the tool's own error", "divide", r#"{"a": 1, "b": 0}"#),
        ("an unknown tool", "get_wether", r#"{"city": "Paris"}"#),
        ("a panicking tool", "explode", ""),
        ("context and call info injected", "whoami", "{}"),
        (
            "processed content",
            "create_invoice",
            r#"{"vendor_name": "ACME", "total_amount": "120.50 EUR"}"#,
        ),
    ];
    // A panicking tool is caught and reported to the model; keep the default hook's report quiet.
    std::panic::set_hook(Box::new(|_| {}));
    for (index, (what, tool, arguments)) in script.into_iter().enumerate() {
        let call = ToolCall::new(format!("call_{}", index + 1), tool, arguments).with_index(index);
        let result = tools.execute_blocking(&call, &ctx);
        print_result(what, &call, &result);
    }
}

fn print_result(what: &str, call: &ToolCall, result: &ToolResult) {
    let arguments = match &call.arguments {
        Arguments::Text(text) => text.clone(),
        Arguments::Json(value) => value.to_string(),
    };
    say!("-- {what}: {}({arguments})", call.name);
    let status = if result.is_error { "error" } else { "ok" };
    say!("   model sees [{status}]: {}", result.text());
    if let Some(fixes) = result.fixes() {
        say!(
            "   application sees what was fixed: {}",
            serde_json::to_string(fixes).unwrap_or_default()
        );
    }
    if let Some(invoice) = result.native::<demo::Invoice>() {
        say!("   application keeps: {invoice:?}");
    }
    if let Some(message) = result.panic_message() {
        say!("   application keeps the panic: {message:?}");
    }
    if let Some(error) = result.tool_error::<demo::DivideError>() {
        say!("   application keeps the typed error: {error:?}");
    }
    say!();
}
