//! OpenAI Responses API: `function_call` output items in, `function_call_output` items out, and
//! stream events assembled by `item_id` (or `output_index`).

use serde_json::{Map, Value, json};

use super::read::{
    At, Object, ROOT, object, opt_array, opt_index, opt_object, opt_str, refuse_error, req_str,
    require,
};
use super::stream::{Buf, State};
use super::{Turn, WireError, copy_options, data_url, text_only};
use crate::call::{Arguments, CallStatus, ToolCall};
use crate::content::ContentPart;
use crate::result::ToolResult;

/// Item types that are calls of the application's tools: `function_call` (JSON arguments) and
/// `custom_tool_call` (free text `input`).
fn is_call(kind: &str) -> bool {
    matches!(kind, "function_call" | "custom_tool_call")
}

/// A call from a `function_call` or `custom_tool_call` item. A whole response must say the
/// call's id and name (`strict`); a stream may say them only when the item is done.
fn call_from_item(
    item: &Object,
    index: usize,
    path: &At,
    strict: bool,
) -> Result<ToolCall, WireError> {
    let field = |key| {
        if strict {
            req_str(item, key, path)
        } else {
            opt_str(item, key, path).map(Option::unwrap_or_default)
        }
    };
    let custom = opt_str(item, "type", path)? == Some("custom_tool_call");
    let arguments = opt_str(item, if custom { "input" } else { "arguments" }, path)?;
    let mut call = ToolCall::new(
        field("call_id")?,
        field("name")?,
        Arguments::from(arguments.unwrap_or_default()),
    )
    .with_index(index);
    if let Some(item_id) = opt_str(item, "id", path)? {
        call.metadata.insert("item_id".into(), Value::from(item_id));
    }
    if opt_str(item, "status", path)? == Some("incomplete") {
        call.status = CallStatus::Incomplete;
    }
    Ok(call)
}

/// The calls in a response's `output`.
pub(super) fn read_response(response: &Value) -> Result<Turn, WireError> {
    let root = object(response, &ROOT)?;
    refuse_error(root)?;
    require(root, "output", "a Responses API response")?;
    let mut turn = Turn {
        stop_reason: stop_reason(root)?,
        ..Turn::default()
    };
    for (at, item) in opt_array(root, "output", &ROOT)?.iter().enumerate() {
        let output_at = ROOT.key("output");
        let path = output_at.index(at);
        let item = object(item, &path)?;
        let kind = req_str(item, "type", &path)?;
        if is_call(kind) {
            turn.calls.push(call_from_item(item, at, &path, true)?);
        } else if kind == "message" {
            let content_path = path.key("content");
            for (at, part) in opt_array(item, "content", &path)?.iter().enumerate() {
                let part_path = content_path.index(at);
                let part = object(part, &part_path)?;
                if opt_str(part, "type", &part_path)? == Some("output_text") {
                    turn.text
                        .push_str(opt_str(part, "text", &part_path)?.unwrap_or_default());
                }
            }
        }
    }
    Ok(turn)
}

/// `incomplete_details.reason`, else the response's `status`.
fn stop_reason(response: &Object) -> Result<Option<String>, WireError> {
    if let Some(details) = opt_object(response, "incomplete_details", &ROOT)?
        && let Some(reason) = opt_str(details, "reason", &ROOT.key("incomplete_details"))?
    {
        return Ok(Some(reason.to_owned()));
    }
    Ok(opt_str(response, "status", &ROOT)?.map(str::to_owned))
}

/// A `function_call_output` item: a string, or input parts when there are images.
pub(super) fn encode(call: &ToolCall, result: &ToolResult) -> Value {
    let output = match text_only(&result.content) {
        Some(text) => Value::String(text),
        None => result
            .content
            .iter()
            .map(|part| match part {
                ContentPart::Text { text } => json!({"type": "input_text", "text": text}),
                ContentPart::Image { data, mime_type } => {
                    json!({"type": "input_image", "image_url": data_url(mime_type, data)})
                }
            })
            .collect(),
    };
    let mut item = Map::new();
    item.insert("type".into(), Value::from("function_call_output"));
    item.insert("call_id".into(), Value::from(call.call_id.as_str()));
    item.insert("output".into(), output);
    copy_options(result, &[], &mut item);
    Value::Object(item)
}

/// One stream event.
pub(super) fn push(state: &mut State, event: &Value) -> Result<bool, WireError> {
    let root = object(event, &ROOT)?;
    require(root, "type", "a Responses stream event")?;
    let kind = req_str(root, "type", &ROOT)?;
    match kind {
        "response.created" => {
            // Several responses in one stream (a tool loop recorded whole): indexes restart.
            if state.started {
                state.segment += 1;
            }
            state.started = true;
        }
        "response.output_item.added" => {
            let item = required_item(root)?;
            let kind = req_str(item, "type", &ROOT.key("item"))?;
            if is_call(kind) {
                let index = output_index(state, root)?;
                if let Some(item_id) = opt_str(item, "id", &ROOT.key("item"))?
                    && state.by_id.contains_key(item_id)
                {
                    return Err(WireError::new(
                        "/item/id",
                        format!("item `{item_id}` was already added"),
                    ));
                }
                add(state, item, index)?;
            }
        }
        "response.function_call_arguments.delta" | "response.custom_tool_call_input.delta" => {
            let delta = req_str(root, "delta", &ROOT)?;
            let at = find(state, root)?;
            let slot = &mut state.slots[at];
            slot.append(delta);
            if slot.done {
                return Err(WireError::new(
                    "/delta",
                    format!(
                        "arguments for call `{}` after its item was done; they were appended",
                        slot.call.call_id
                    ),
                ));
            }
        }
        "response.function_call_arguments.done" | "response.custom_tool_call_input.done" => {
            let key = if kind.ends_with("input.done") {
                "input"
            } else {
                "arguments"
            };
            let at = find(state, root)?;
            if let Some(text) = opt_str(root, key, &ROOT)? {
                settle(state, at, text, &ROOT.key(key))?;
            }
        }
        "response.output_item.done" => {
            item_done(state, root)?;
        }
        "response.output_text.delta" => {
            state.text.push_str(req_str(root, "delta", &ROOT)?);
        }
        "response.completed" | "response.incomplete" => {
            if let Some(response) = opt_object(root, "response", &ROOT)? {
                state.stop_reason = stop_reason(response)?;
            }
            return Ok(true);
        }
        "response.failed" | "error" => {
            let message = root
                .get("response")
                .and_then(|response| response.get("error"))
                .or_else(|| root.get("error"))
                .and_then(|error| error.get("message"))
                .or_else(|| root.get("message"))
                .and_then(Value::as_str)
                .unwrap_or("no message");
            return Err(WireError::new(
                "",
                format!("the provider reported an error: {message}"),
            ));
        }
        _ => {}
    }
    Ok(false)
}

/// `response.output_item.done`: a call's item, final.
fn item_done(state: &mut State, root: &Object) -> Result<(), WireError> {
    let item = required_item(root)?;
    if !is_call(req_str(item, "type", &ROOT.key("item"))?) {
        return Ok(());
    }
    // An item done without being added is whole in itself.
    let at = if let Ok(at) = find(state, root) {
        at
    } else {
        let index = output_index(state, root)?;
        add(state, item, index)?
    };
    let custom = opt_str(item, "type", &ROOT.key("item"))? == Some("custom_tool_call");
    let key = if custom { "input" } else { "arguments" };
    let slot = &mut state.slots[at];
    if slot.call.call_id.is_empty()
        && let Some(id) = opt_str(item, "call_id", &ROOT.key("item"))?
    {
        id.clone_into(&mut slot.call.call_id);
    }
    if slot.call.name.is_empty()
        && let Some(name) = opt_str(item, "name", &ROOT.key("item"))?
    {
        name.clone_into(&mut slot.call.name);
    }
    slot.done = opt_str(item, "status", &ROOT.key("item"))? != Some("incomplete");
    // Done, and still no id: one is made up and marked (`ToolCall::id_generated`), and no
    // result can be sent for it as the provider's.
    let no_id = slot.call.call_id.is_empty().then_some(slot.call.index);
    if let Some(text) = opt_str(item, key, &ROOT.key("item"))? {
        settle(state, at, text, &ROOT.key("item").key(key))?;
    }
    match no_id {
        Some(index) => Err(WireError::new(
            "/item/call_id",
            format!(
                "call {index} is done without a `call_id`; one is made up for it, marked as such"
            ),
        )),
        None => Ok(()),
    }
}

fn required_item(root: &Object) -> Result<&Object, WireError> {
    opt_object(root, "item", &ROOT)?.ok_or_else(|| WireError::new("/item", "`item` is missing"))
}

/// The event's `output_index`, or the next free index of the current response.
fn output_index(state: &State, root: &Object) -> Result<usize, WireError> {
    Ok(opt_index(root, "output_index", &ROOT)?.unwrap_or_else(|| state.count(state.segment, 0)))
}

/// Starts a call from its item.
fn add(state: &mut State, item: &Object, index: usize) -> Result<usize, WireError> {
    let mut call = call_from_item(item, index, &ROOT.key("item"), false)?;
    let text = match &call.arguments {
        Arguments::Text(text) => text.clone(),
        Arguments::Json(_) => String::new(),
    };
    call.status = CallStatus::Incomplete;
    let item_id = opt_str(item, "id", &ROOT.key("item"))?.map(str::to_owned);
    let at = state.add(call, (state.segment, 0, index), Buf::Text(text));
    if let Some(item_id) = item_id {
        state.by_id.insert(item_id, at);
    }
    Ok(at)
}

/// The call an event is about: by `item_id`, else by `output_index` in the current response.
fn find(state: &State, root: &Object) -> Result<usize, WireError> {
    let item_id = match opt_str(root, "item_id", &ROOT)? {
        Some(id) => Some(id),
        None => match opt_object(root, "item", &ROOT)? {
            Some(item) => opt_str(item, "id", &ROOT.key("item"))?,
            None => None,
        },
    };
    if let Some(id) = item_id
        && let Some(&at) = state.by_id.get(id)
    {
        return Ok(at);
    }
    if let Some(index) = opt_index(root, "output_index", &ROOT)?
        && let Some(&at) = state.by_key.get(&(state.segment, 0, index))
    {
        return Ok(at);
    }
    Err(WireError::new(
        if item_id.is_some() {
            "/item_id"
        } else {
            "/output_index"
        },
        format!(
            "refers to item {}, which no `response.output_item.added` event started",
            item_id.map_or_else(
                || format!("at output index {:?}", root.get("output_index")),
                |id| format!("`{id}`")
            )
        ),
    ))
}

/// The final arguments of a call: taken when no delta came; when deltas said something else,
/// the final text is kept and the deltas are kept beside it in the call's metadata
/// (`streamed_arguments`), and the difference is an error.
fn settle(state: &mut State, at: usize, text: &str, path: &At) -> Result<(), WireError> {
    let slot = &mut state.slots[at];
    let Buf::Text(streamed) = &mut slot.buf else {
        return Ok(());
    };
    if streamed.is_empty() {
        text.clone_into(streamed);
        return Ok(());
    }
    if streamed == text {
        return Ok(());
    }
    let streamed = std::mem::replace(streamed, text.to_owned());
    let (got, kept) = (streamed.len(), text.len());
    slot.call
        .metadata
        .insert("streamed_arguments".into(), Value::String(streamed));
    Err(WireError::new(
        path,
        format!(
            "the final arguments of call `{}` ({kept} bytes) differ from its deltas ({got} bytes); \
             the final ones are kept, the deltas are in its `streamed_arguments` metadata",
            slot.call.call_id
        ),
    ))
}
