//! A whole `ConverseResponse` read, and results as `toolResult` blocks.

use serde_json::{Map, Value, json};

use crate::call::{Arguments, CallKind, ToolCall};
use crate::content::ContentPart;
use crate::result::ToolResult;
use crate::wire::read::{At, Object, ROOT, loose_str, object, opt_array, opt_object, req_str};
use crate::wire::turn::Turn;
use crate::wire::{WireError, copy_options, fallback};
use toolwright_json::value as json;

/// The calls of a Converse response: `output.message.content[]`'s `toolUse` blocks, its text
/// blocks as the text; every block kept for the next turn.
pub(super) fn read_response(response: &Value) -> Result<Turn, WireError> {
    let root = object(response, &ROOT)?;
    refuse_exception(root)?;
    // An error body is `{"message": "..."}` (its type in the `x-amzn-ErrorType` header).
    if let (false, Some(Value::String(message))) =
        (root.contains_key("output"), root.get("message"))
    {
        return Err(WireError::new(
            ROOT.key("message"),
            format!("the provider reported an error: {message}"),
        ));
    }
    let mut turn = Turn::of(crate::forms::Provider::Bedrock);
    turn.stop_reason = loose_str(root, "stopReason", &ROOT, &mut turn.warnings);
    let Some(output) = opt_object(root, "output", &ROOT)? else {
        return Err(WireError::new(
            ROOT.key("output"),
            "`output` is missing: not a Converse response",
        ));
    };
    let output_path = ROOT.key("output");
    let Some(message) = opt_object(output, "message", &output_path)? else {
        return Ok(turn);
    };
    let path = output_path.key("message");
    let content_path = path.key("content");
    let mut results = Vec::new();
    for (at, block) in opt_array(message, "content", &path)?.iter().enumerate() {
        let block_path = content_path.index(at);
        let map = object(block, &block_path)?;
        turn.content.push(json::clone_value(block));
        if let Some(Value::String(text)) = map.get("text") {
            turn.text.push_str(text);
        } else if let Some(tool_use) = opt_object(map, "toolUse", &block_path)? {
            // Numbered by the block's place in the content, as a stream's `contentBlockIndex`.
            let call = call(tool_use, at, &block_path.key("toolUse"), &mut turn.warnings)?;
            turn.calls.push(call);
        } else if map.contains_key("toolResult") {
            // The result of a tool the service ran (`server_tool_use`).
            results.push(json::clone_value(block));
        }
    }
    pair_results(&mut turn.calls, results);
    Ok(turn)
}

/// A `toolUse` block's call: `toolUseId`, `name`, `input` (an object); a `type` of
/// `server_tool_use` is a tool the service runs itself.
fn call(
    tool_use: &Object,
    index: usize,
    path: &At,
    warnings: &mut Vec<WireError>,
) -> Result<ToolCall, WireError> {
    let id = req_str(tool_use, "toolUseId", path)?;
    let name = req_str(tool_use, "name", path)?;
    let input = tool_use.get("input").map_or(Value::Null, json::clone_value);
    let mut call = ToolCall::new(id, name, Arguments::Json(input)).with_index(index);
    call.kind = kind(tool_use, path, warnings);
    Ok(call)
}

/// Whose call a `toolUse` is: the service's for a `type` of `server_tool_use`, else the
/// application's. A `type` that is not a string is reported and costs the call nothing.
pub(super) fn kind(tool_use: &Object, path: &At, warnings: &mut Vec<WireError>) -> CallKind {
    match loose_str(tool_use, "type", path, warnings).as_deref() {
        Some("server_tool_use") => CallKind::Server,
        _ => CallKind::Function,
    }
}

/// Gives each call the service ran its `toolResult` block (`metadata["result"]`).
pub(super) fn pair_results(calls: &mut [ToolCall], results: Vec<Value>) {
    for result in results {
        let id = result
            .get("toolResult")
            .and_then(|r| r.get("toolUseId"))
            .and_then(Value::as_str);
        if let Some(call) = calls
            .iter_mut()
            .find(|call| Some(call.call_id.as_str()) == id)
        {
            call.metadata.insert("result".into(), result);
        }
    }
}

/// An exception the service sent in place of an answer (`{"message": ..}` with its type in
/// the key: a stream's `internalServerException`, `throttlingException`, ...).
pub(super) fn refuse_exception(root: &Object) -> Result<(), WireError> {
    for (key, value) in root {
        if key.ends_with("Exception") {
            let message = value
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default();
            return Err(WireError::new(
                ROOT.key(key),
                format!("the provider reported {key}: {message}"),
            ));
        }
    }
    Ok(())
}

/// A `toolResult` block: each text part whose text is JSON (an object or an array) as a `json`
/// block, other text as a `text` block, images as `image` blocks (PNG, JPEG, GIF, WebP);
/// `status: "error"` for an error. What has no block of its own goes as the text that says
/// what it was, with a warning.
pub(super) fn encode(call: &ToolCall, result: &ToolResult) -> Value {
    let mut content: Vec<Value> = result
        .content
        .iter()
        .map(|part| match part {
            ContentPart::Text { text } => match serde_json::from_str::<Value>(text) {
                Ok(value @ (Value::Object(_) | Value::Array(_))) => json!({"json": value}),
                _ => json!({"text": text}),
            },
            ContentPart::Image { data, mime_type } => {
                if let Some(format) = image_format(mime_type) {
                    json!({"image": {"format": format, "source": {"bytes": data}}})
                } else {
                    tracing::warn!(
                        target: "toolwright::lint",
                        call_id = %call.call_id,
                        mime_type = %mime_type,
                        "Bedrock takes PNG, JPEG, GIF and WebP images in tool results; left out"
                    );
                    json!({"text": format!(
                        "[an image ({mime_type}) was left out: Bedrock tool results take PNG, JPEG, GIF and WebP]"
                    )})
                }
            }
            other => json!({"text": fallback("bedrock", &call.call_id, other)}),
        })
        .collect();
    if content.is_empty() {
        // A result block holds at least one block.
        content.push(json!({"text": ""}));
    }
    let mut block = Map::new();
    block.insert("toolUseId".into(), Value::from(call.call_id.as_str()));
    block.insert("content".into(), Value::Array(content));
    if result.is_error {
        block.insert("status".into(), Value::from("error"));
    }
    copy_options(result, &[], &mut block);
    json!({"toolResult": block})
}

/// Bedrock's name for an image's MIME type.
fn image_format(mime_type: &str) -> Option<&'static str> {
    match mime_type {
        "image/png" => Some("png"),
        "image/jpeg" | "image/jpg" => Some("jpeg"),
        "image/gif" => Some("gif"),
        "image/webp" => Some("webp"),
        _ => None,
    }
}
