//! Gemini: `functionCall` parts in, `functionResponse` parts out, and stream chunks assembled:
//! whole calls, and calls whose arguments stream as `partialArgs` set by JSON path.

use super::path::apply_fragment;
use serde_json::{Map, Value, json};

use crate::call::{Arguments, CallKind, CallStatus, ToolCall};
use crate::content::ContentPart;
use crate::result::ToolResult;
use crate::wire::assembly::{Buf, State};
use crate::wire::read::{
    At, Object, ROOT, flag, loose_flag, loose_str, loose_text, object, opt_array, opt_index,
    opt_object, opt_str, pick_choice, refuse_error, req_str,
};
use crate::wire::turn::Turn;
use crate::wire::{WireError, copy_options};
use toolwright_json::value as json;

/// The id of a call Gemini sent without one: the same for the same response and position, so
/// reading a response twice (or streamed and whole) gives the same ids.
fn generated_id(response_id: Option<&str>, index: usize) -> String {
    match response_id {
        Some(response) => format!("gemini_{response}_{index}"),
        None => format!("gemini_call_{index}"),
    }
}

/// A call from a `functionCall`, with no arguments yet.
fn start_call(
    function_call: &Object,
    part: &Object,
    response_id: Option<&str>,
    index: usize,
    path: &At,
) -> Result<ToolCall, WireError> {
    let mut call = ToolCall::new(
        "",
        req_str(function_call, "name", path)?,
        Arguments::default(),
    )
    .with_index(index);
    match opt_str(function_call, "id", path)? {
        Some(id) if !id.is_empty() => call.call_id = id.into(),
        _ => {
            call.call_id = generated_id(response_id, index).into();
            call.id_generated = true;
        }
    }
    // Gemini 3 wants the signature back with the model's turn; kept with the call.
    if let Some(signature) = part.get("thoughtSignature") {
        call.metadata
            .insert("thought_signature".into(), signature.clone());
    }
    Ok(call)
}

/// One part of a candidate's content, as far as calls and text go; each with the part itself.
enum Part<'a> {
    /// A `functionCall`.
    Call(&'a Object),
    /// Text the model wrote (not a thought).
    Text(String),
    /// A tool Gemini runs itself: `executableCode` (code execution) or `toolCall` (a built-in
    /// tool), with the part's key.
    Server(&'static str, &'a Object),
    /// The result of such a tool: `codeExecutionResult` or `toolResponse`.
    Result,
    /// Anything else: a thought, an image, a part of a kind toolwright does not know.
    Other,
}

/// Keys a part holds its content under: a part with none of them (and no other key toolwright
/// knows) is of a kind it does not know, and reported.
const PART_KEYS: &[&str] = &[
    "text",
    "functionCall",
    "functionResponse",
    "inlineData",
    "fileData",
    "executableCode",
    "codeExecutionResult",
    "toolCall",
    "toolResponse",
    "thought",
    "thoughtSignature",
    "videoMetadata",
    "partMetadata",
    "mediaResolution",
];

/// Visits the parts of a candidate's content, in order, each with its place.
fn each_part<'a>(
    candidate: &'a Object,
    path: &At,
    warnings: &mut Vec<WireError>,
    mut visit: impl FnMut(Part<'a>, &'a Value, &At) -> Result<(), WireError>,
) -> Result<(), WireError> {
    let Some(content) = opt_object(candidate, "content", path)? else {
        return Ok(());
    };
    let content_at = path.key("content");
    let parts_at = content_at.key("parts");
    for (at, value) in opt_array(content, "parts", &content_at)?.iter().enumerate() {
        let path = parts_at.index(at);
        let part = object(value, &path)?;
        if let Some(function_call) = opt_object(part, "functionCall", &path)? {
            visit(Part::Call(function_call), value, &path.key("functionCall"))?;
        } else if let Some((key, inner)) = ["executableCode", "toolCall"]
            .into_iter()
            .find_map(|key| Some((key, part.get(key)?.as_object()?)))
        {
            visit(Part::Server(key, inner), value, &path.key(key))?;
        } else if part.contains_key("codeExecutionResult") || part.contains_key("toolResponse") {
            visit(Part::Result, value, &path)?;
        } else if !loose_flag(part, "thought", &path, warnings) && part.contains_key("text") {
            let mut text = String::new();
            loose_text(part.get("text"), &path.key("text"), &mut text, warnings);
            visit(Part::Text(text), value, &path)?;
        } else {
            if !part.keys().any(|key| PART_KEYS.contains(&key.as_str())) {
                warnings.push(WireError::new(
                    path,
                    format!(
                        "a part of a kind toolwright does not know ({}): kept in the turn's content, not acted on",
                        part.keys()
                            .map(|key| format!("`{}`", toolwright_json::echo::bare(key)))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
            visit(Part::Other, value, &path)?;
        }
    }
    Ok(())
}

/// A call of a tool Gemini runs itself: `executableCode` as `code_execution` with its `language`
/// and `code`; `toolCall` as its `toolType`, lower case, with its `args`.
fn server_call(
    key: &'static str,
    inner: &Object,
    part: &Object,
    response_id: Option<&str>,
    index: usize,
) -> ToolCall {
    let (name, arguments) = if key == "executableCode" {
        let mut arguments = Map::new();
        for field in ["language", "code"] {
            if let Some(value) = inner.get(field) {
                arguments.insert(field.to_owned(), json::clone_value(value));
            }
        }
        ("code_execution".to_owned(), Value::Object(arguments))
    } else {
        let name = inner
            .get("toolType")
            .and_then(Value::as_str)
            .map_or_else(|| "tool".to_owned(), str::to_ascii_lowercase);
        let arguments = inner
            .get("args")
            .filter(|args| !args.is_null())
            .map_or_else(|| Value::Object(Map::new()), json::clone_value);
        (name, arguments)
    };
    let mut call = ToolCall::new("", name, Arguments::Json(arguments)).with_index(index);
    match inner.get("id").and_then(Value::as_str) {
        Some(id) if !id.is_empty() => call.call_id = id.into(),
        _ => {
            call.call_id = generated_id(response_id, index).into();
            call.id_generated = true;
        }
    }
    call.kind = CallKind::Server;
    call.metadata.insert("type".into(), Value::from(key));
    if let Some(signature) = part.get("thoughtSignature") {
        call.metadata
            .insert("thought_signature".into(), signature.clone());
    }
    call
}

/// Gives each call Gemini ran its result (`codeExecutionResult`, `toolResponse` parts), as
/// `metadata["result"]`: by `id` where both have one, else the latest call of its kind without
/// a result.
pub(super) fn pair_results(calls: &mut [ToolCall], results: Vec<Value>) {
    for result in results {
        let (key, call_type) = if result.get("toolResponse").is_some() {
            ("toolResponse", "toolCall")
        } else {
            ("codeExecutionResult", "executableCode")
        };
        let id = result
            .get(key)
            .and_then(|inner| inner.get("id"))
            .and_then(Value::as_str);
        let of_kind = |call: &ToolCall| {
            call.kind == CallKind::Server
                && call.metadata.get("type").and_then(Value::as_str) == Some(call_type)
        };
        let found = id
            .and_then(|id| {
                calls
                    .iter()
                    .position(|call| of_kind(call) && !call.id_generated && call.call_id == id)
            })
            .or_else(|| {
                calls
                    .iter()
                    .rposition(|call| of_kind(call) && !call.metadata.contains_key("result"))
            });
        if let Some(at) = found {
            calls[at].metadata.insert("result".into(), result);
        }
    }
}

/// The calls of one candidate of a response (the one whose `index` is `choice`).
pub(super) fn read_response(response: &Value, choice: usize) -> Result<Turn, WireError> {
    let root = object(response, &ROOT)?;
    refuse_error(root)?;
    let mut warnings = Vec::new();
    let response_id = loose_str(root, "responseId", &ROOT, &mut warnings);
    let response_id = response_id.as_deref();
    let mut turn = Turn::of(crate::forms::Provider::Gemini);
    let Some((candidate, position)) = pick_choice(root, "candidates", choice)? else {
        if root.contains_key("candidates") || root.contains_key("promptFeedback") {
            turn.warnings = warnings;
            return Ok(turn);
        }
        return Err(WireError::new(
            "/candidates",
            "`candidates` is missing: not a Gemini response",
        ));
    };
    let candidates = ROOT.key("candidates");
    let path = &candidates.index(position);
    turn.stop_reason = loose_str(candidate, "finishReason", path, &mut warnings);
    let mut results = Vec::new();
    each_part(candidate, path, &mut warnings, |part, value, path| {
        turn.content.push(json::clone_value(value));
        let whole = value
            .as_object()
            .unwrap_or_else(|| unreachable!("a part is an object"));
        match part {
            Part::Call(function_call) => {
                let index = turn.calls.len();
                let mut call = start_call(function_call, whole, response_id, index, path)?;
                if let Some(args) = function_call.get("args").filter(|a| !a.is_null()) {
                    call.arguments = Arguments::Json(json::clone_value(args));
                }
                turn.calls.push(call);
            }
            Part::Server(key, inner) => {
                let index = turn.calls.len();
                turn.calls
                    .push(server_call(key, inner, whole, response_id, index));
            }
            Part::Result => results.push(json::clone_value(value)),
            Part::Text(text) => turn.text.push_str(&text),
            Part::Other => {}
        }
        Ok(())
    })?;
    pair_results(&mut turn.calls, results);
    turn.warnings = warnings;
    Ok(turn)
}

/// The content of a streamed candidate: its parts in order, text run together as the whole
/// response has it (a `thoughtSignature` kept on the text it came with), and each call whole,
/// its arguments as assembled.
pub(super) fn content(state: &State) -> Vec<Value> {
    let mut parts = Vec::with_capacity(state.items.len());
    for (key, part) in &state.items {
        let mut part = json::clone_value(part);
        if let Some(&at) = state.item_slots.get(key)
            && let Value::Object(fields) = &mut part
        {
            let slot = &state.slots[at];
            let mut function_call = Map::new();
            if !slot.call.id_generated && !slot.call.call_id.is_empty() {
                function_call.insert("id".into(), Value::from(slot.call.call_id.as_str()));
            }
            function_call.insert("name".into(), Value::from(slot.call.name.as_str()));
            let args = match &slot.buf {
                Buf::Json(value) => json::clone_value(value),
                Buf::Text(text) | Buf::Start(text, _) => {
                    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.clone()))
                }
            };
            function_call.insert("args".into(), args);
            if let Some(old) = fields.insert("functionCall".into(), Value::Object(function_call)) {
                json::dispose(old);
            }
        }
        parts.push(part);
    }
    parts
}

/// Adds a streamed part to the content: text joined to the text part before it when both are
/// text of the same kind (thought or not) and the one before carries no signature yet.
fn keep_part(state: &mut State, part: &Object) -> (usize, usize) {
    let text_only = |part: &Object| {
        part.get("text").is_some_and(Value::is_string)
            && part
                .keys()
                .all(|key| matches!(key.as_str(), "text" | "thought" | "thoughtSignature"))
    };
    if text_only(part)
        && let Some((&key, Value::Object(last))) = state.items.iter_mut().next_back()
        && !state.item_slots.contains_key(&key)
        && text_only(last)
        && !last.contains_key("thoughtSignature")
        && last.get("thought") == part.get("thought")
    {
        if let (Some(Value::String(text)), Some(Value::String(more))) =
            (last.get_mut("text"), part.get("text"))
        {
            text.push_str(more);
        }
        if let Some(signature) = part.get("thoughtSignature") {
            last.insert("thoughtSignature".into(), signature.clone());
        }
        return key;
    }
    let key = (0, state.items.len());
    // A call's part is kept without its arguments, which its call holds.
    let kept = part
        .iter()
        .map(|(name, value)| {
            let value = if name == "functionCall" {
                Value::Object(Map::new())
            } else {
                json::clone_value(value)
            };
            (name.clone(), value)
        })
        .collect();
    state.items.insert(key, Value::Object(kept));
    key
}

/// A `functionResponse` part: `response` is always an object, `{"output": ..}` or
/// `{"error": ..}`, holding the result's value when its text is JSON (as a serialized result's
/// is), else the text; images go as `parts` of inline data.
pub(crate) fn encode(call: &ToolCall, wire_name: &str, result: &ToolResult) -> Value {
    let text = result.content.text();
    let value = serde_json::from_str(&text).unwrap_or(Value::String(text));
    let mut response = Map::new();
    response.insert(
        if result.is_error { "error" } else { "output" }.into(),
        value,
    );
    let mut function_response = Map::new();
    function_response.insert("name".into(), Value::from(wire_name));
    if !call.id_generated && !call.call_id.is_empty() {
        function_response.insert("id".into(), Value::from(call.call_id.as_str()));
    }
    function_response.insert("response".into(), Value::Object(response));
    let images: Vec<Value> = result
        .content
        .iter()
        .filter_map(|part| match part {
            ContentPart::Image { data, mime_type } => {
                Some(json!({"inlineData": {"mimeType": mime_type, "data": data}}))
            }
            ContentPart::Text { .. } => None,
            // In `response`'s text, as `Content::text` writes them.
            other => {
                crate::wire::fallback("gemini", &call.call_id, other);
                None
            }
        })
        .collect();
    if !images.is_empty() {
        function_response.insert("parts".into(), Value::Array(images));
    }
    copy_options(
        result,
        &["willContinue", "scheduling"],
        &mut function_response,
    );
    json!({"functionResponse": function_response})
}

/// One stream chunk.
pub(super) fn push(state: &mut State, chunk: &Value) -> Result<bool, WireError> {
    let root = object(chunk, &ROOT)?;
    refuse_error(root)?;
    if ![
        "candidates",
        "usageMetadata",
        "promptFeedback",
        "responseId",
        "modelVersion",
    ]
    .iter()
    .any(|key| root.contains_key(*key))
    {
        return Err(WireError::new(
            "/candidates",
            "`candidates` is missing: not a Gemini response chunk",
        ));
    }
    let response_id = loose_str(root, "responseId", &ROOT, &mut state.warnings);
    let response_id = response_id.as_deref();
    let mut ended = false;
    let mut problem = None;
    let candidates_at = ROOT.key("candidates");
    for (at, candidate) in opt_array(root, "candidates", &ROOT)?.iter().enumerate() {
        let path = candidates_at.index(at);
        let candidate = object(candidate, &path)?;
        let number = opt_index(candidate, "index", &path)?.unwrap_or(at);
        let reason = loose_str(candidate, "finishReason", &path, &mut state.warnings);
        ended |= reason.is_some();
        // The other candidates are alternatives to the one being read.
        if number != state.choice {
            state.other_choices = true;
            continue;
        }
        state.choice_seen = true;
        let mut warnings = Vec::new();
        each_part(candidate, &path, &mut warnings, |part, value, path| {
            let whole = value
                .as_object()
                .unwrap_or_else(|| unreachable!("a part is an object"));
            match part {
                Part::Call(function_call) => {
                    let before = state.slots.len();
                    if let Err(error) =
                        function_call_part(state, function_call, whole, number, response_id, path)
                    {
                        problem.get_or_insert(error);
                    }
                    // A call that began here is a part of the content; a continuation is not.
                    if state.slots.len() > before {
                        let key = keep_part(state, whole);
                        state.item_slots.insert(key, state.slots.len() - 1);
                    }
                }
                Part::Server(key, inner) => {
                    keep_part(state, whole);
                    let index = state.count(0, number);
                    let mut call = server_call(key, inner, whole, response_id, index);
                    let arguments = match std::mem::take(&mut call.arguments) {
                        Arguments::Json(value) => value,
                        Arguments::Text(text) => Value::String(text),
                    };
                    let at = state.add(call, (0, number, index), Buf::Json(arguments));
                    state.slots[at].done = true;
                }
                Part::Result => {
                    keep_part(state, whole);
                    state.outputs.push(json::clone_value(value));
                }
                Part::Text(text) => {
                    keep_part(state, whole);
                    state.text.push_str(&text);
                }
                Part::Other => {
                    keep_part(state, whole);
                }
            }
            Ok(())
        })?;
        state.warnings.append(&mut warnings);
        if let Some(reason) = reason {
            state.stop_reason = Some(reason);
        }
    }
    problem.map_or(Ok(ended), Err)
}

/// One `functionCall` part of a stream: a whole call, the start of one whose arguments follow
/// (`willContinue`), or a continuation of the open call (`partialArgs`; the open call ends at
/// the first continuation without `willContinue`).
fn function_call_part(
    state: &mut State,
    function_call: &Object,
    part: &Object,
    candidate: usize,
    response_id: Option<&str>,
    path: &At,
) -> Result<(), WireError> {
    let name = opt_str(function_call, "name", path)?.filter(|name| !name.is_empty());
    let continues = flag(function_call, "willContinue", path)?;
    let args = function_call.get("args").filter(|args| !args.is_null());
    let partial = opt_array(function_call, "partialArgs", path)?;
    let mut problem = None;
    let at = if name.is_some() {
        if let Some(open) = state.open.take() {
            let open = &state.slots[open].call;
            problem = Some(WireError::new(
                path.key("name"),
                format!(
                    "call `{}` ({}) was still streaming its arguments when this call began; it stays incomplete",
                    open.call_id, open.name
                ),
            ));
        }
        let index = state.count(0, candidate);
        let mut call = start_call(function_call, part, response_id, index, path)?;
        call.status = CallStatus::Incomplete;
        state.open_string = None;
        state.add(
            call,
            (0, candidate, index),
            Buf::Json(Value::Object(Map::new())),
        )
    } else if let Some(open) = state.open {
        open
    } else if args.is_some() || !partial.is_empty() {
        return Err(WireError::new(
            path,
            format!(
                "arguments with no call to go to (no call is streaming): {}",
                json::quote_object(function_call, json::QUOTE)
            ),
        ));
    } else {
        // An empty continuation with nothing open holds nothing to lose.
        return Ok(());
    };
    if let Some(args) = args {
        state.slots[at].buf = Buf::Json(json::clone_value(args));
    }
    let partial_path = path.key("partialArgs");
    for (index, fragment) in partial.iter().enumerate() {
        let fragment_path = partial_path.index(index);
        if let Err(error) = apply_fragment(state, at, fragment, &fragment_path) {
            problem.get_or_insert(error);
        }
    }
    if continues {
        state.open = Some(at);
    } else {
        state.slots[at].done = true;
        state.open = None;
        state.open_string = None;
    }
    problem.map_or(Ok(()), Err)
}
