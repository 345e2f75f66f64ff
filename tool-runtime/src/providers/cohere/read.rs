//! A whole Cohere v2 chat response read, the assistant message carried back, and results as
//! `tool` messages.

use serde_json::{Map, Value, json};

use crate::call::{Arguments, ToolCall};
use crate::content::ContentPart;
use crate::result::ToolResult;
use crate::wire::read::{
    At, Object, ROOT, loose_str, loose_text, object, opt_array, opt_object, refuse_error, req_str,
    require,
};
use crate::wire::turn::Turn;
use crate::wire::{WireError, copy_options, fallback};
use toolwright_json::value as json;

/// The calls of a chat response, the `tool_plan` and the text content as its text.
pub(super) fn read_response(response: &Value) -> Result<Turn, WireError> {
    let root = object(response, &ROOT)?;
    refuse_error(root)?;
    // An error body is `{"message": "..."}`: a string where an answer has its message.
    if let Some(Value::String(message)) = root.get("message") {
        return Err(WireError::new(
            ROOT.key("message"),
            format!("the provider reported an error: {message}"),
        ));
    }
    require(root, "message", "a Cohere chat response")?;
    let mut turn = Turn::of(crate::forms::Provider::Cohere);
    turn.stop_reason = loose_str(root, "finish_reason", &ROOT, &mut turn.warnings);
    let path = &ROOT.key("message");
    let Some(message) = opt_object(root, "message", &ROOT)? else {
        return Err(WireError::new(path, "`message` is not an object"));
    };
    turn.content.push(assistant_message(message));
    loose_text(
        message.get("tool_plan"),
        &path.key("tool_plan"),
        &mut turn.text,
        &mut turn.warnings,
    );
    // Text content items (thinking items are not text).
    loose_text(
        message.get("content"),
        &path.key("content"),
        &mut turn.text,
        &mut turn.warnings,
    );
    let calls_path = path.key("tool_calls");
    for (at, entry) in opt_array(message, "tool_calls", path)?.iter().enumerate() {
        turn.calls
            .push(read_call(entry, at, &calls_path.index(at))?);
    }
    Ok(turn)
}

/// One entry of `tool_calls`: `id`, and the `function` with its `name` and `arguments` (text).
fn read_call(entry: &Value, at: usize, path: &At) -> Result<ToolCall, WireError> {
    let entry = object(entry, path)?;
    read_entry(entry, at, path)
}

/// A call entry (a response's `tool_calls[]`, a stream's `tool-call-start`): its id, its
/// function's name and its arguments as sent.
pub(super) fn read_entry(entry: &Object, at: usize, path: &At) -> Result<ToolCall, WireError> {
    let Some(function) = opt_object(entry, "function", path)? else {
        return Err(WireError::new(
            path.key("function"),
            "`function` is missing",
        ));
    };
    let name = req_str(function, "name", &path.key("function"))?;
    let id = req_str(entry, "id", path)?;
    Ok(ToolCall::new(id, name, arguments(function)).with_index(at))
}

/// A function's arguments as sent: the text (`"null"` and `""` included), or a value sent as one.
fn arguments(function: &Object) -> Arguments {
    match function.get("arguments") {
        None | Some(Value::Null) => Arguments::Text(String::new()),
        Some(Value::String(text)) => Arguments::Text(text.clone()),
        Some(other) => Arguments::Json(json::clone_value(other)),
    }
}

/// The assistant message as a request takes it back (`AssistantChatMessageV2`): `role`,
/// `tool_plan`, `tool_calls`, `content` and `citations` as sent; nothing a response alone has.
pub(super) fn assistant_message(message: &Object) -> Value {
    let mut out = Map::new();
    out.insert("role".into(), Value::from("assistant"));
    for key in ["tool_calls", "tool_plan", "content", "citations"] {
        match message.get(key) {
            None | Some(Value::Null) => {}
            // Empty lists say nothing (a stream's `message-start` sends them).
            Some(Value::Array(items)) if items.is_empty() => {}
            Some(Value::String(text)) if text.is_empty() => {}
            Some(value) => {
                out.insert(key.into(), json::clone_value(value));
            }
        }
    }
    Value::Object(out)
}

/// A `tool` message: each text part whose text is a JSON object as a `document` block (Cohere
/// cites documents), other text as a `text` block; what is not text (an image, audio, a
/// resource) as the text that says what it was, with a warning.
pub(super) fn encode(call: &ToolCall, result: &ToolResult) -> Value {
    let blocks: Vec<Value> = result
        .content
        .iter()
        .map(|part| match part {
            ContentPart::Text { text } => match serde_json::from_str::<Value>(text) {
                Ok(Value::Object(data)) => json!({"type": "document", "document": {"data": data}}),
                _ => json!({"type": "text", "text": text}),
            },
            ContentPart::Image { mime_type, .. } => {
                tracing::warn!(
                    target: "toolwright::lint",
                    call_id = %call.call_id,
                    "an image result cannot go in a Cohere tool message; left out, and said so"
                );
                json!({"type": "text", "text": format!(
                    "[an image ({mime_type}) was left out: Cohere tool messages carry text and documents only]"
                )})
            }
            other => json!({"type": "text", "text": fallback("cohere", &call.call_id, other)}),
        })
        .collect();
    let mut message = Map::new();
    message.insert("role".into(), Value::from("tool"));
    message.insert("tool_call_id".into(), Value::from(call.call_id.as_str()));
    message.insert("content".into(), Value::Array(blocks));
    copy_options(result, &[], &mut message);
    Value::Object(message)
}
