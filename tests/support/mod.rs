//! Helpers shared by the integration tests that read the recorded provider streams.

use serde_json::Value;

/// The `tool_use` blocks that an Anthropic stream's `message_start` events carry whole in
/// `message.content` (programmatic tool calling's follow-ups), which the manifest leaves out;
/// see `tests/data/providers/README.md`.
pub fn whole_in_message_start(stream: &str) -> Vec<Value> {
    stream
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|event| event["type"] == "message_start")
        .flat_map(|event| {
            event["message"]["content"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter(|block| block["type"] == "tool_use")
        .collect()
}
