//! A Responses stream read event by event: items added, argument deltas, items done, each call
//! assembled where its item says.

use serde_json::Value;

use super::{Item, call_from_item, classify, provider_call, stop_reason, unknown_item};
use crate::call::{Arguments, CallStatus, ToolCall};
use crate::wire::WireError;
use crate::wire::assembly::{Buf, State};
use crate::wire::read::{
    At, Object, ROOT, loose_str, loose_text, object, opt_index, opt_object, opt_str, req_str,
    require,
};
use toolwright_json::value as json;

/// One stream event.
pub(crate) fn push(state: &mut State, event: &Value) -> Result<bool, WireError> {
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
        "response.output_item.added" => item_added(state, root)?,
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
            loose_text(
                root.get("delta"),
                &ROOT.key("delta"),
                &mut state.text,
                &mut state.warnings,
            );
        }
        "response.completed" | "response.incomplete" => {
            if let Some(Value::Object(response)) = root.get("response") {
                state.stop_reason =
                    stop_reason(response, &ROOT.key("response"), &mut state.warnings);
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

/// `response.output_item.added`: an item begins; a call's is assembled from here.
fn item_added(state: &mut State, root: &Object) -> Result<(), WireError> {
    let item = required_item(root)?;
    let item_at = ROOT.key("item");
    let kind = req_str(item, "type", &item_at)?;
    let index = output_index(state, root)?;
    state
        .items
        .insert((state.segment, index), Value::Object(json::clone_map(item)));
    let class = classify(kind, item);
    if matches!(
        class,
        Some(Item::Function | Item::Builtin(_) | Item::Server(_))
    ) && let Some(item_id) = item.get("id").and_then(Value::as_str)
        && state.by_id.contains_key(item_id)
    {
        return Err(WireError::new(
            "/item/id",
            format!("item `{item_id}` was already added"),
        ));
    }
    match class {
        Some(Item::Function) => {
            add(state, item, index)?;
        }
        Some(class @ (Item::Builtin(_) | Item::Server(_))) => {
            add_provider_call(state, item, kind, class, index, false);
        }
        Some(Item::Output | Item::Other) => {}
        None => state.warnings.push(unknown_item(kind, &item_at)),
    }
    Ok(())
}

/// `response.output_item.done`: an item, final.
fn item_done(state: &mut State, root: &Object) -> Result<(), WireError> {
    let item = required_item(root)?;
    let item_at = ROOT.key("item");
    let kind = req_str(item, "type", &item_at)?;
    let class = classify(kind, item);
    let found = find(state, root).ok();
    let index = match found {
        Some(at) if opt_index(root, "output_index", &ROOT)?.is_none() => state.slots[at].key.2,
        _ => output_index(state, root)?,
    };
    let known = state
        .items
        .insert((state.segment, index), Value::Object(json::clone_map(item)))
        .is_some();
    match class {
        Some(Item::Function) => {}
        Some(class @ (Item::Builtin(_) | Item::Server(_))) => {
            match found {
                // Final: the call as the done item says it.
                Some(at) => {
                    let mut call =
                        provider_call(item, kind, class, index, &item_at, &mut state.warnings);
                    let slot = &mut state.slots[at];
                    slot.buf = take_buf(&mut call);
                    slot.call = call;
                    slot.done = slot.call.status != CallStatus::Incomplete;
                }
                None => add_provider_call(state, item, kind, class, index, true),
            }
            return Ok(());
        }
        Some(Item::Output) => {
            state.outputs.push(Value::Object(json::clone_map(item)));
            return Ok(());
        }
        Some(Item::Other) => return Ok(()),
        None => {
            if !known {
                state.warnings.push(unknown_item(kind, &item_at));
            }
            return Ok(());
        }
    }
    // An item done without being added is whole in itself.
    let at = if let Some(at) = found {
        at
    } else {
        add(state, item, index)?
    };
    let custom = opt_str(item, "type", &ROOT.key("item"))? == Some("custom_tool_call");
    let key = if custom { "input" } else { "arguments" };
    let slot = &mut state.slots[at];
    if slot.call.call_id.is_empty()
        && let Some(id) = opt_str(item, "call_id", &ROOT.key("item"))?
    {
        slot.call.call_id = id.into();
    }
    if slot.call.name.is_empty()
        && let Some(name) = opt_str(item, "name", &ROOT.key("item"))?
    {
        name.clone_into(&mut slot.call.name);
    }
    slot.done = loose_str(item, "status", &ROOT.key("item"), &mut state.warnings).as_deref()
        != Some("incomplete");
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

/// Starts a built-in or provider-run call from its item (`done`: the item is final).
fn add_provider_call(
    state: &mut State,
    item: &Object,
    kind: &str,
    class: Item,
    index: usize,
    done: bool,
) {
    let mut call = provider_call(
        item,
        kind,
        class,
        index,
        &ROOT.key("item"),
        &mut state.warnings,
    );
    let complete = done && call.status != CallStatus::Incomplete;
    call.status = CallStatus::Incomplete;
    let buf = take_buf(&mut call);
    let item_id = item.get("id").and_then(Value::as_str).map(str::to_owned);
    let at = state.add(call, (state.segment, 0, index), buf);
    state.slots[at].done = complete;
    if let Some(item_id) = item_id {
        state.by_id.insert(item_id, at);
    }
}

/// A call's arguments as the buffer a slot keeps them in.
fn take_buf(call: &mut ToolCall) -> Buf {
    match std::mem::take(&mut call.arguments) {
        Arguments::Text(text) => Buf::Text(text),
        Arguments::Json(value) => Buf::Json(value),
    }
}

/// Starts a call from its item.
fn add(state: &mut State, item: &Object, index: usize) -> Result<usize, WireError> {
    let mut call = call_from_item(item, index, &ROOT.key("item"), false, &mut state.warnings)?;
    let text = match &call.arguments {
        Arguments::Text(text) => text.clone(),
        Arguments::Json(_) => String::new(),
    };
    call.status = CallStatus::Incomplete;
    // An id that is not a string was reported with the call (`call_from_item`).
    let item_id = item.get("id").and_then(Value::as_str).map(str::to_owned);
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
        // An item's id of another type was reported when the item was read; its output
        // index finds it.
        None => match opt_object(root, "item", &ROOT)? {
            Some(item) => item.get("id").and_then(Value::as_str),
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
