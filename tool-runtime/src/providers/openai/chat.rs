//! OpenAI Chat Completions: `choices[].message.tool_calls[]` in, `tool` messages out, and
//! `delta.tool_calls[]` chunks assembled.

use serde_json::{Map, Value, json};

use crate::call::{Arguments, CallStatus, ToolCall};
use crate::content::ContentPart;
use crate::result::ToolResult;
use crate::wire::assembly::{Buf, State};
use crate::wire::read::{
    At, Object, ROOT, loose_str, loose_text, object, opt_array, opt_index, opt_object, opt_str,
    pick_choice, refuse_error, req_str, require,
};
use crate::wire::turn::Turn;
use crate::wire::{WireError, copy_options};
use toolwright_json::value as json;

/// The metadata key that marks a call read from a legacy `function_call` (Chat Completions
/// before `tool_calls`): it has no id, and its result goes back as a `function` message.
const LEGACY_FUNCTION_CALL: &str = "legacy_function_call";

/// The calls of one choice of a chat completion (the one whose `index` is `choice`).
pub(super) fn read_response(response: &Value, choice: usize) -> Result<Turn, WireError> {
    let root = object(response, &ROOT)?;
    refuse_error(root)?;
    require(root, "choices", "a chat completion")?;
    let mut turn = Turn::of(crate::forms::Provider::OpenAiChat);
    let Some((choice, position)) = pick_choice(root, "choices", choice)? else {
        return Ok(turn);
    };
    let choices = ROOT.key("choices");
    let path = &choices.index(position);
    turn.stop_reason = loose_str(choice, "finish_reason", path, &mut turn.warnings);
    let Some(message) = opt_object(choice, "message", path)? else {
        return Err(WireError::new(path.key("message"), "`message` is missing"));
    };
    let path = &path.key("message");
    turn.content.push(replay_message(message));
    loose_text(
        message.get("content"),
        &path.key("content"),
        &mut turn.text,
        &mut turn.warnings,
    );
    let calls_path = path.key("tool_calls");
    for (at, entry) in opt_array(message, "tool_calls", path)?.iter().enumerate() {
        let path = calls_path.index(at);
        let entry = object(entry, &path)?;
        // Custom tools take free text.
        let (name, arguments) = if opt_str(entry, "type", &path)? == Some("custom") {
            let Some(custom) = opt_object(entry, "custom", &path)? else {
                return Err(WireError::new(path.key("custom"), "`custom` is missing"));
            };
            let custom_path = path.key("custom");
            let input = opt_str(custom, "input", &custom_path)?.unwrap_or_default();
            (
                req_str(custom, "name", &custom_path)?,
                Arguments::from(input),
            )
        } else {
            let Some(function) = opt_object(entry, "function", &path)? else {
                return Err(WireError::new(
                    path.key("function"),
                    "`function` is missing",
                ));
            };
            let function_path = path.key("function");
            (
                req_str(function, "name", &function_path)?,
                function_arguments(function),
            )
        };
        let mut call = ToolCall::new("", name, arguments).with_index(at);
        match opt_str(entry, "id", &path)? {
            Some(id) if !id.is_empty() => call.call_id = id.into(),
            _ => {
                // Reported (a whole body is still read), and marked: no result for it can be
                // sent back as the provider's.
                tracing::warn!(
                    index = at,
                    "an OpenAI Chat tool call came without an id; one is made up (`id_generated`)"
                );
                call.call_id = format!("call_{at}").into();
                call.id_generated = true;
            }
        }
        turn.calls.push(call);
    }
    // The legacy form: one call, no id; answered by a `function` message that names it.
    if let Some(function) = opt_object(message, "function_call", path)? {
        let index = turn.calls.len();
        let name = req_str(function, "name", &path.key("function_call"))?;
        turn.calls
            .push(legacy_call(name, function_arguments(function), index));
    }
    Ok(turn)
}

/// The assistant message as a request takes it back: `role`, `content`, `refusal`, the
/// `tool_calls` (`id`, `type`, and the `function` or `custom` call) and a legacy
/// `function_call`. What only a response has (`annotations`, a server's `reasoning_content`,
/// which must not be sent back) is left out.
fn replay_message(message: &Object) -> Value {
    let mut out = Map::new();
    out.insert("role".into(), Value::from("assistant"));
    out.insert(
        "content".into(),
        message
            .get("content")
            .map_or(Value::Null, json::clone_value),
    );
    for key in ["refusal", "function_call", "name"] {
        if let Some(value) = message.get(key).filter(|value| !value.is_null()) {
            out.insert(key.into(), json::clone_value(value));
        }
    }
    if let Some(Value::Array(calls)) = message.get("tool_calls")
        && !calls.is_empty()
    {
        let calls = calls
            .iter()
            .map(|entry| {
                let mut call = Map::new();
                for key in ["id", "type", "function", "custom"] {
                    if let Some(value) = entry.get(key).filter(|value| !value.is_null()) {
                        call.insert(key.into(), json::clone_value(value));
                    }
                }
                Value::Object(call)
            })
            .collect();
        out.insert("tool_calls".into(), Value::Array(calls));
    }
    Value::Object(out)
}

/// The assistant message of a stream, as [`replay_message`] writes a whole one: the text, and
/// the calls of the choice read as assembled (under the names the model wrote).
pub(super) fn content(state: &State) -> Vec<Value> {
    let mut slots: Vec<&crate::wire::assembly::Slot> = state.slots.iter().collect();
    slots.sort_by_key(|slot| slot.key);
    let mut out = Map::new();
    out.insert("role".into(), Value::from("assistant"));
    out.insert(
        "content".into(),
        if state.text.is_empty() {
            Value::Null
        } else {
            Value::String(state.text.clone())
        },
    );
    let mut calls = Vec::new();
    for slot in slots {
        let arguments = match &slot.buf {
            Buf::Text(text) | Buf::Start(text, _) => text.clone(),
            Buf::Json(value) => json::to_text(value),
        };
        if slot.call.metadata.contains_key(LEGACY_FUNCTION_CALL) {
            out.insert(
                "function_call".into(),
                json!({"name": slot.call.name, "arguments": arguments}),
            );
        } else {
            calls.push(json!({
                "id": slot.call.call_id,
                "type": "function",
                "function": {"name": slot.call.name, "arguments": arguments},
            }));
        }
    }
    if !calls.is_empty() {
        out.insert("tool_calls".into(), Value::Array(calls));
    }
    vec![Value::Object(out)]
}

/// A `function`'s `arguments`: text as sent; some servers send an object, or `null` for no
/// arguments, kept as sent.
fn function_arguments(function: &Object) -> Arguments {
    match function.get("arguments") {
        None => Arguments::Text(String::new()),
        Some(Value::String(text)) => Arguments::Text(text.clone()),
        Some(other) => Arguments::Json(json::clone_value(other)),
    }
}

/// A call of the legacy `function_call` form: a made-up id, and the mark that sends its result
/// as a `function` message.
fn legacy_call(name: &str, arguments: Arguments, index: usize) -> ToolCall {
    let mut call = ToolCall::new(format!("call_{index}"), name, arguments).with_index(index);
    call.id_generated = true;
    call.metadata
        .insert(LEGACY_FUNCTION_CALL.into(), Value::Bool(true));
    call
}

/// Whether a call was read from a legacy `function_call` (which never has an id of its own: a
/// call with the provider's id is answered by a `tool` message whatever its metadata says).
pub(crate) fn is_legacy(call: &ToolCall) -> bool {
    call.id_generated && call.metadata.get(LEGACY_FUNCTION_CALL) == Some(&Value::Bool(true))
}

/// A `tool` message (a `function` message, naming the function, for a call read from a legacy
/// `function_call`). Chat tool messages carry text only: an image is replaced by a note that
/// says it was left out.
pub(crate) fn encode(call: &ToolCall, wire_name: &str, result: &ToolResult) -> Value {
    let mut content = String::new();
    for part in &*result.content {
        if !content.is_empty() {
            content.push('\n');
        }
        match part {
            ContentPart::Text { text } => content.push_str(text),
            ContentPart::Image { mime_type, .. } => {
                tracing::warn!(call_id = %call.call_id, "an image result cannot go in an OpenAI Chat tool message; left out");
                content.push_str(&format!(
                    "[an image ({mime_type}) was left out: tool messages carry text only]"
                ));
            }
            other => content.push_str(&crate::wire::fallback("openai", &call.call_id, other)),
        }
    }
    let mut message = if is_legacy(call) {
        json!({"role": "function", "name": wire_name, "content": content})
    } else {
        json!({
            "role": "tool",
            "tool_call_id": call.call_id,
            "content": content,
        })
    };
    if let Value::Object(map) = &mut message {
        copy_options(result, &[], map);
    }
    message
}

/// One chat completion chunk.
pub(super) fn push(state: &mut State, chunk: &Value) -> Result<bool, WireError> {
    let root = object(chunk, &ROOT)?;
    refuse_error(root)?;
    require(root, "choices", "a chat completion chunk")?;
    let mut problem = None;
    for (at, choice) in opt_array(root, "choices", &ROOT)?.iter().enumerate() {
        let choices_at = ROOT.key("choices");
        let path = choices_at.index(at);
        let choice = object(choice, &path)?;
        let number = opt_index(choice, "index", &path)?.unwrap_or(at);
        // The other choices are alternatives to the one being read.
        if number != state.choice {
            state.other_choices = true;
            continue;
        }
        state.choice_seen = true;
        if let Some(delta) = opt_object(choice, "delta", &path)? {
            let delta_path = path.key("delta");
            loose_text(
                delta.get("content"),
                &delta_path.key("content"),
                &mut state.text,
                &mut state.warnings,
            );
            let calls_path = delta_path.key("tool_calls");
            for (at, entry) in opt_array(delta, "tool_calls", &delta_path)?
                .iter()
                .enumerate()
            {
                if let Err(error) = delta_call(state, number, entry, &calls_path.index(at)) {
                    problem.get_or_insert(error);
                }
            }
            if let Err(error) = delta_function_call(state, number, delta, &delta_path) {
                problem.get_or_insert(error);
            }
        }
        if let Some(reason) = loose_str(choice, "finish_reason", &path, &mut state.warnings) {
            state.finished.insert(number);
            state.stop_reason = Some(reason);
        }
    }
    problem.map_or(Ok(false), Err)
}

/// What a read found, or nothing when it failed, its error kept as the chunk's problem (the
/// first one stands).
fn reported<T>(read: Result<Option<T>, WireError>, problem: &mut Option<WireError>) -> Option<T> {
    read.unwrap_or_else(|error| {
        problem.get_or_insert(error);
        None
    })
}

/// One entry of `delta.tool_calls`: found by id, then by index, then as the latest call.
fn delta_call(state: &mut State, choice: usize, entry: &Value, path: &At) -> Result<(), WireError> {
    let entry = object(entry, path)?;
    // An index that is not a number is reported, and the call found by id or as the latest.
    let (index, mut problem) = match opt_index(entry, "index", path) {
        Ok(index) => (index, None),
        Err(error) => (None, Some(error)),
    };
    // A field of the wrong type is reported, and the call kept with what else the entry holds.
    let id = reported(opt_str(entry, "id", path), &mut problem).filter(|id| !id.is_empty());
    let function_path = path.key("function");
    let function = reported(opt_object(entry, "function", path), &mut problem);
    let name = function
        .and_then(|function| reported(opt_str(function, "name", &function_path), &mut problem))
        .filter(|n| !n.is_empty());
    let arguments = function
        .and_then(|function| function.get("arguments"))
        .filter(|arguments| !arguments.is_null());

    let by_id = id.and_then(|id| state.by_id.get(id).copied());
    let by_index = || {
        let at = *state.by_key.get(&(0, choice, index?))?;
        // Another id at the same index is another call (servers that send every call at 0).
        (id.is_none() || state.slots[at].call.call_id.is_empty()).then_some(at)
    };
    let latest = || {
        let at = state.latest?;
        (id.is_none() && index.is_none() && state.slots[at].key.1 == choice).then_some(at)
    };
    let found = by_id.or_else(by_index).or_else(latest);
    let at = if let Some(at) = found {
        at
    } else {
        let index = index.unwrap_or_else(|| state.count(0, choice));
        let mut call = ToolCall::new("", "", Arguments::Text(String::new())).with_index(index);
        call.status = CallStatus::Incomplete;
        state.add(call, (0, choice, index), Buf::Text(String::new()))
    };
    state.latest = Some(at);
    let slot = &mut state.slots[at];
    if let Some(id) = id
        && slot.call.call_id.is_empty()
    {
        slot.call.call_id = id.into();
        state.by_id.insert(id.to_owned(), at);
    }
    if let Some(error) = extend(state, at, choice, name, arguments, &function_path) {
        problem.get_or_insert(error);
    }
    problem.map_or(Ok(()), Err)
}

/// Gives the call in slot `at` its name (a different name later is reported, the first kept)
/// and appends its arguments delta (reported when its choice already finished).
fn extend(
    state: &mut State,
    at: usize,
    choice: usize,
    name: Option<&str>,
    arguments: Option<&Value>,
    function_path: &At,
) -> Option<WireError> {
    let finished = state.finished.contains(&choice);
    let slot = &mut state.slots[at];
    let mut problem = None;
    if let Some(name) = name {
        if slot.call.name.is_empty() {
            name.clone_into(&mut slot.call.name);
        } else if slot.call.name != name {
            problem = Some(WireError::new(
                function_path.key("name"),
                format!(
                    "call `{}` is named `{}`, and this delta names it `{name}`; the first name is kept",
                    slot.call.call_id, slot.call.name
                ),
            ));
        }
    }
    match arguments {
        Some(Value::String(text)) => slot.append(text),
        Some(other) => slot.append(&json::to_text(other)),
        None => {}
    }
    if finished && arguments.is_some() {
        problem.get_or_insert(WireError::new(
            function_path.key("arguments"),
            format!(
                "arguments for call `{}` after its choice finished; they were appended",
                slot.call.call_id
            ),
        ));
    }
    problem
}

/// A legacy `delta.function_call`: the one call of the choice, its name first, then its
/// arguments in pieces.
fn delta_function_call(
    state: &mut State,
    choice: usize,
    delta: &Object,
    path: &At,
) -> Result<(), WireError> {
    let Some(function) = opt_object(delta, "function_call", path)? else {
        return Ok(());
    };
    let function_path = path.key("function_call");
    let mut problem = None;
    let name = reported(opt_str(function, "name", &function_path), &mut problem)
        .filter(|name| !name.is_empty());
    let arguments = function
        .get("arguments")
        .filter(|arguments| !arguments.is_null());
    let at = if let Some(at) = state.legacy {
        at
    } else {
        let index = state.count(0, choice);
        let mut call = legacy_call("", Arguments::Text(String::new()), index);
        call.status = CallStatus::Incomplete;
        // Keyed after every `tool_calls` index, as the whole body lists it; not the latest
        // call a `tool_calls` delta without id or index could continue.
        let latest = state.latest;
        let at = state.add(call, (0, choice, usize::MAX), Buf::Text(String::new()));
        state.latest = latest;
        state.legacy = Some(at);
        at
    };
    if let Some(error) = extend(state, at, choice, name, arguments, &function_path) {
        problem.get_or_insert(error);
    }
    problem.map_or(Ok(()), Err)
}
