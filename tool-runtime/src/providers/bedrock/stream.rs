//! `ConverseStream` events, each as the JSON the service's event stream carries, keyed by its
//! type (`{"contentBlockDelta": {..}}`, as the AWS SDKs give them and `EventStreamDecoder`
//! decodes them from the binary framing): `messageStart`, `contentBlockStart`,
//! `contentBlockDelta` (text, `toolUse` input pieces, `reasoningContent`), `contentBlockStop`,
//! `messageStop` (with the `stopReason`), `metadata`, and the exceptions.
//!
//! The state's items are the message's content blocks by `(0, contentBlockIndex)`, as they
//! stand; a `toolUse` block's input is its call's, written at the end.

use serde_json::{Map, Value, json};

use super::read::{kind, refuse_exception};
use crate::call::{Arguments, ToolCall};
use crate::wire::WireError;
use crate::wire::assembly::{Buf, State, lenient_object};
use crate::wire::read::{
    At, Object, ROOT, loose_str, object, opt_index, opt_object, opt_str, req_str,
};
use toolwright_json::value as json;

/// One event; `true` when it ends the message.
pub(super) fn push(state: &mut State, event: &Value) -> Result<bool, WireError> {
    let root = object(event, &ROOT)?;
    refuse_exception(root)?;
    let Some((kind, body)) = root.iter().next().filter(|_| root.len() == 1) else {
        return Err(WireError::new(
            "",
            "expected one event, keyed by its type (`{\"contentBlockDelta\": {..}}`)",
        ));
    };
    let path = ROOT.key(kind);
    let body = object(body, &path)?;
    match kind.as_str() {
        "messageStart" => state.started = true,
        "contentBlockStart" => block_start(state, body, &path)?,
        "contentBlockDelta" => block_delta(state, body, &path)?,
        "contentBlockStop" => {
            let index = index(body, &path)?;
            if let Some(&at) = state.by_key.get(&(0, 0, index)) {
                state.slots[at].done = true;
            }
        }
        "messageStop" => {
            state.stop_reason = loose_str(body, "stopReason", &path, &mut state.warnings);
            return Ok(true);
        }
        "metadata" => {}
        other => state.warnings.push(WireError::new(
            path,
            format!("an event of a kind toolwright does not know (`{other}`); skipped"),
        )),
    }
    Ok(false)
}

fn index(body: &Object, path: &At) -> Result<usize, WireError> {
    opt_index(body, "contentBlockIndex", path)?.ok_or_else(|| {
        WireError::new(
            path.key("contentBlockIndex"),
            "`contentBlockIndex` is missing",
        )
    })
}

/// A block's start: a `toolUse` starts a call; any other kind is kept as it came.
fn block_start(state: &mut State, body: &Object, path: &At) -> Result<(), WireError> {
    let index = index(body, path)?;
    let start_path = path.key("start");
    let start = opt_object(body, "start", path)?;
    if state.items.contains_key(&(0, index)) {
        return Err(WireError::new(
            path.key("contentBlockIndex"),
            format!("content block {index} was started twice"),
        ));
    }
    if let Some(tool_use) = start
        .map(|s| opt_object(s, "toolUse", &start_path))
        .transpose()?
        .flatten()
    {
        let tool_path = start_path.key("toolUse");
        let id = req_str(tool_use, "toolUseId", &tool_path)?;
        let name = req_str(tool_use, "name", &tool_path)?;
        let mut call = ToolCall::new(id, name, Arguments::Text(String::new())).with_index(index);
        call.kind = kind(tool_use, &tool_path, &mut state.warnings);
        state.add(call, (0, 0, index), Buf::Text(String::new()));
        state
            .items
            .insert((0, index), json!({"toolUse": json::clone_map(tool_use)}));
    } else if let Some(start) = start.filter(|start| !start.is_empty()) {
        state
            .items
            .insert((0, index), Value::Object(json::clone_map(start)));
    }
    Ok(())
}

/// A piece of a block: text, a call's input, reasoning text or its signature, anything else
/// kept under its key.
fn block_delta(state: &mut State, body: &Object, path: &At) -> Result<(), WireError> {
    let index = index(body, path)?;
    let delta_path = path.key("delta");
    let Some(delta) = opt_object(body, "delta", path)? else {
        return Err(WireError::new(delta_path, "`delta` is missing"));
    };
    if let Some(tool_use) = opt_object(delta, "toolUse", &delta_path)? {
        let Some(&at) = state.by_key.get(&(0, 0, index)) else {
            return Err(WireError::new(
                path.key("contentBlockIndex"),
                format!("tool input for block {index}, which started no tool call"),
            ));
        };
        let input = opt_str(tool_use, "input", &delta_path.key("toolUse"))?;
        state.slots[at].append(input.unwrap_or_default());
        return Ok(());
    }
    let block = state
        .items
        .entry((0, index))
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(block) = block else {
        return Ok(());
    };
    for (key, piece) in delta {
        match (key.as_str(), piece) {
            ("text", Value::String(text)) => {
                append(block, "text", text);
                state.text.push_str(text);
            }
            ("reasoningContent", Value::Object(reasoning)) => {
                let Value::Object(held) = block
                    .entry("reasoningContent")
                    .or_insert_with(|| Value::Object(Map::new()))
                else {
                    continue;
                };
                for (part, value) in reasoning {
                    match (part.as_str(), value) {
                        ("text" | "signature", Value::String(piece)) => {
                            let Value::Object(text) = held
                                .entry("reasoningText")
                                .or_insert_with(|| json!({"text": ""}))
                            else {
                                continue;
                            };
                            append(text, part, piece);
                        }
                        (_, value) => {
                            held.insert(part.clone(), json::clone_value(value));
                        }
                    }
                }
            }
            (key, value) => {
                block.insert(key.to_owned(), json::clone_value(value));
            }
        }
    }
    Ok(())
}

/// Appends `piece` to the string at `key`.
fn append(map: &mut Map<String, Value>, key: &str, piece: &str) {
    match map.get_mut(key) {
        Some(Value::String(text)) => text.push_str(piece),
        _ => {
            map.insert(key.to_owned(), Value::String(piece.to_owned()));
        }
    }
}

/// The message's content blocks, as a whole response has them: a `toolUse` with its input as
/// the object it streamed (read leniently when cut off; `{}` for a call without arguments).
pub(super) fn content(state: &State) -> Vec<Value> {
    state
        .items
        .iter()
        .map(|(&(_, index), block)| {
            let mut block = json::clone_value(block);
            if let (Some(Value::Object(tool_use)), Some(&at)) =
                (block.get_mut("toolUse"), state.by_key.get(&(0, 0, index)))
            {
                let input = match &state.slots[at].buf {
                    Buf::Text(text) | Buf::Start(text, _) => {
                        match serde_json::from_str::<Value>(text) {
                            Ok(value @ Value::Object(_)) => value,
                            _ => Value::Object(lenient_object(text)),
                        }
                    }
                    Buf::Json(value) => json::clone_value(value),
                };
                tool_use.insert("input".into(), input);
            }
            block
        })
        .collect()
}
