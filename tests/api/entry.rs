//! Every way a call's arguments come in, for the tests that hold a rule on all of them.

use serde_json::{Value, json};
use toolwright::exec::{Before, Hook};
use toolwright::provider::Provider;
use toolwright::{Arguments, ToolCall, ToolDefinition, ToolResult, Toolbox};

/// Rewrites every call's arguments to the value it holds.
pub(crate) struct RewriteTo(pub(crate) Value);

impl<C: ?Sized> Hook<C> for RewriteTo {
    fn before(&self, _: &ToolDefinition, _: &ToolCall, _: &C) -> Before {
        Before::Rewrite(Arguments::Json(self.0.clone()))
    }
}

/// One call of `name` with `arguments`, made through every way arguments come in: text, a value,
/// an OpenAI Chat body (text), an Anthropic body (a value), an Anthropic stream, a hook's rewrite.
pub(crate) fn every_entry_path(
    tools: &Toolbox,
    name: &str,
    arguments: &Value,
) -> Vec<(&'static str, ToolResult)> {
    let text = arguments.to_string();
    let mut results = vec![
        (
            "text",
            tools.execute_blocking(&ToolCall::new("c1", name, text.as_str()), &()),
        ),
        (
            "value",
            tools.execute_blocking(&ToolCall::new("c1", name, arguments.clone()), &()),
        ),
    ];
    let chat = json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant",
        "tool_calls": [{"id": "call_1", "type": "function",
            "function": {"name": name, "arguments": text}}],
    }}]});
    let turn = tools.read_response(Provider::OpenAiChat, &chat).unwrap();
    results.push((
        "OpenAI Chat body",
        tools.execute_blocking(&turn.calls[0], &()),
    ));
    let messages = json!({"role": "assistant", "stop_reason": "tool_use", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": name, "input": arguments},
    ]});
    let turn = tools.read_response(Provider::Anthropic, &messages).unwrap();
    results.push((
        "Anthropic body",
        tools.execute_blocking(&turn.calls[0], &()),
    ));
    let mut stream = tools.assembler(Provider::Anthropic);
    for event in [
        json!({"type": "message_start", "message": {"content": []}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {
            "type": "tool_use", "id": "toolu_1", "name": name, "input": {}}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {
            "type": "input_json_delta", "partial_json": text}}),
        json!({"type": "content_block_stop", "index": 0}),
    ] {
        stream.push(&event).unwrap();
    }
    let calls = stream.finish();
    results.push(("Anthropic stream", tools.execute_blocking(&calls[0], &())));
    let hooked = tools.clone().with_hook(RewriteTo(arguments.clone()));
    let call = ToolCall::new("c1", name, r#"{"query": "before the hook"}"#);
    results.push(("hook rewrite", hooked.execute_blocking(&call, &())));
    results
}
