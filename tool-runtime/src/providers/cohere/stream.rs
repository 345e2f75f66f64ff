//! Cohere's v2 chat stream: `message-start`, `tool-plan-delta`, `content-start`/`-delta`/`-end`
//! (text and thinking), `tool-call-start`/`-delta`/`-end`, `citation-start`/`-end`,
//! `message-end` (with the `finish_reason`).
//!
//! The state's items are the message's content blocks by `(0, index)`, as they stand; the tool
//! plan, which has no index, is the item `(1, 0)`, and the citations `(2, n)`.

use serde_json::{Map, Value};

use super::read::{assistant_message, read_entry};
use crate::call::Arguments;
use crate::wire::WireError;
use crate::wire::assembly::{Buf, State};
use crate::wire::read::{
    At, Object, ROOT, loose_str, object, opt_index, opt_object, refuse_error, req_str,
};
use toolwright_json::value as json;

/// The item that holds the tool plan.
const PLAN: (usize, usize) = (1, 0);
/// The segment of the citations' items.
const CITATIONS: usize = 2;

/// One event; `true` when it ends the stream.
pub(super) fn push(state: &mut State, event: &Value) -> Result<bool, WireError> {
    let root = object(event, &ROOT)?;
    refuse_error(root)?;
    let kind = req_str(root, "type", &ROOT)?;
    let delta_path = ROOT.key("delta");
    let message_path = delta_path.key("message");
    let message = match opt_object(root, "delta", &ROOT)? {
        Some(delta) => opt_object(delta, "message", &delta_path)?,
        None => None,
    };
    match kind {
        "message-start" => state.started = true,
        "tool-plan-delta" => {
            if let Some(Value::String(plan)) = message.and_then(|m| m.get("tool_plan")) {
                state.text.push_str(plan);
                let item = state
                    .items
                    .entry(PLAN)
                    .or_insert_with(|| Value::String(String::new()));
                if let Value::String(text) = item {
                    text.push_str(plan);
                }
            }
        }
        "content-start" | "content-delta" => {
            let index = index(root)?;
            let content = match message {
                Some(message) => opt_object(message, "content", &message_path)?,
                None => None,
            };
            let Some(content) = content else {
                return Err(WireError::new(
                    message_path.key("content"),
                    "`delta.message.content` is missing",
                ));
            };
            content_piece(state, kind == "content-start", index, content)?;
        }
        "tool-call-start" => {
            let index = index(root)?;
            let path = message_path.key("tool_calls");
            let entry = match message {
                Some(message) => opt_object(message, "tool_calls", &message_path)?,
                None => None,
            };
            let Some(entry) = entry else {
                return Err(WireError::new(
                    path,
                    "`delta.message.tool_calls` is missing",
                ));
            };
            call_start(state, index, entry, &path)?;
        }
        "tool-call-delta" => {
            let index = index(root)?;
            let at = slot(state, index)?;
            let calls_path = message_path.key("tool_calls");
            let path = calls_path.key("function");
            let text = message
                .and_then(|m| m.get("tool_calls"))
                .and_then(|calls| calls.get("function"))
                .and_then(|function| function.get("arguments"));
            match text {
                Some(Value::String(text)) => state.slots[at].append(text),
                None | Some(Value::Null) => {}
                Some(_) => {
                    return Err(WireError::new(path.key("arguments"), "expected a string"));
                }
            }
        }
        "tool-call-end" => {
            let at = slot(state, index(root)?)?;
            state.slots[at].done = true;
        }
        "citation-start" => {
            if let Some(citations) = message.and_then(|m| m.get("citations")) {
                let next = state
                    .items
                    .range((CITATIONS, 0)..(CITATIONS + 1, 0))
                    .count();
                state
                    .items
                    .insert((CITATIONS, next), json::clone_value(citations));
            }
        }
        "message-end" => {
            if let Some(delta) = opt_object(root, "delta", &ROOT)? {
                state.stop_reason =
                    loose_str(delta, "finish_reason", &delta_path, &mut state.warnings);
            }
            return Ok(true);
        }
        // Nothing the turn keeps.
        "content-end" | "citation-end" | "debug" => {}
        other => state.warnings.push(WireError::new(
            ROOT.key("type"),
            format!("an event of a kind toolwright does not know (`{other}`); skipped"),
        )),
    }
    Ok(false)
}

/// An event's `index`.
fn index(root: &Object) -> Result<usize, WireError> {
    opt_index(root, "index", &ROOT)?
        .ok_or_else(|| WireError::new(ROOT.key("index"), "`index` is missing"))
}

/// The slot of the call at `index`.
fn slot(state: &State, index: usize) -> Result<usize, WireError> {
    state.by_key.get(&(0, 0, index)).copied().ok_or_else(|| {
        WireError::new(
            ROOT.key("index"),
            format!("no tool call {index} was started"),
        )
    })
}

/// A call's start: its id, name, and the arguments it starts with.
fn call_start(state: &mut State, index: usize, entry: &Object, path: &At) -> Result<(), WireError> {
    if state.by_key.contains_key(&(0, 0, index)) {
        return Err(WireError::new(
            ROOT.key("index"),
            format!("tool call {index} was started twice"),
        ));
    }
    let mut call = read_entry(entry, index, path)?;
    // The arguments it starts with are the buffer's start; the deltas append to it.
    let buf = match std::mem::replace(&mut call.arguments, Arguments::Text(String::new())) {
        Arguments::Text(text) => Buf::Text(text),
        Arguments::Json(value) => Buf::Json(value),
    };
    state.add(call, (0, 0, index), buf);
    Ok(())
}

/// A content block's start or a piece of it: text is the turn's, thinking is not.
fn content_piece(
    state: &mut State,
    start: bool,
    index: usize,
    content: &Object,
) -> Result<(), WireError> {
    if start {
        state
            .items
            .insert((0, index), Value::Object(json::clone_map(content)));
    }
    let Some(Value::Object(block)) = state.items.get_mut(&(0, index)) else {
        return Err(WireError::new(
            ROOT.key("index"),
            format!("content block {index} was not started"),
        ));
    };
    let is_text = block.get("type").and_then(Value::as_str) == Some("text");
    for (key, piece) in content {
        let Value::String(piece) = piece else {
            continue;
        };
        if key == "type" || start {
            continue;
        }
        match block.get_mut(key.as_str()) {
            Some(Value::String(text)) => text.push_str(piece),
            _ => {
                block.insert(key.clone(), Value::String(piece.clone()));
            }
        }
        if is_text && key == "text" {
            state.text.push_str(piece);
        }
    }
    if start
        && is_text
        && let Some(Value::String(text)) = content.get("text")
    {
        state.text.push_str(text);
    }
    Ok(())
}

/// The assistant message of a stream, as a whole response's: the plan, the calls as assembled,
/// the content blocks.
pub(super) fn content(state: &State) -> Vec<Value> {
    let mut message = Map::new();
    if let Some(plan) = state.items.get(&PLAN) {
        message.insert("tool_plan".into(), json::clone_value(plan));
    }
    let mut slots: Vec<_> = state.slots.iter().collect();
    slots.sort_by_key(|slot| slot.key);
    let calls: Vec<Value> = slots
        .iter()
        .map(|slot| {
            let arguments = match &slot.buf {
                Buf::Text(text) | Buf::Start(text, _) => Value::String(text.clone()),
                Buf::Json(value) => Value::String(json::to_text(value)),
            };
            serde_json::json!({
                "id": slot.call.call_id.as_str(),
                "type": "function",
                "function": {"name": slot.call.name, "arguments": arguments},
            })
        })
        .collect();
    message.insert("tool_calls".into(), Value::Array(calls));
    let blocks: Vec<Value> = state
        .items
        .range((0, 0)..(1, 0))
        .map(|(_, block)| json::clone_value(block))
        .collect();
    message.insert("content".into(), Value::Array(blocks));
    let citations: Vec<Value> = state
        .items
        .range((CITATIONS, 0)..(CITATIONS + 1, 0))
        .flat_map(|(_, cited)| match cited {
            Value::Array(items) => items.iter().map(json::clone_value).collect(),
            other => vec![json::clone_value(other)],
        })
        .collect();
    message.insert("citations".into(), Value::Array(citations));
    vec![assistant_message(&message)]
}
