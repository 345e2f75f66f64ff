//! Anthropic Messages: `tool_use` blocks in, one `user` message of `tool_result` blocks out, and
//! stream events assembled by block `index`.

use serde_json::{Map, Value, json};

use crate::call::{Arguments, CallKind, CallStatus, ToolCall};
use crate::content::{ContentPart, ResourceBody, ResourceContents};
use crate::result::ToolResult;
use crate::search::Searcher;
use crate::wire::assembly::{Buf, State};
use crate::wire::read::{
    At, Object, ROOT, loose_str, loose_text, object, opt_array, opt_index, opt_object, opt_str,
    refuse_error, req_str, require,
};
use crate::wire::spec::NativeDefer;
use crate::wire::turn::Turn;
use crate::wire::{WireError, copy_options, text_only};
use toolwright_json::value as json;

/// The kind of call a block type is, if it is one.
fn call_kind(block_type: &str) -> Option<CallKind> {
    match block_type {
        "tool_use" => Some(CallKind::Function),
        // Run by Anthropic itself (web search, code execution, the MCP connector).
        "server_tool_use" | "mcp_tool_use" => Some(CallKind::Server),
        _ => None,
    }
}

/// A call from a `tool_use`-like block, its input kept aside. A whole message must say the
/// call's id and name (`strict`); in a stream, a block without them is still assembled, so that
/// its input is not lost, and the caller reports it.
fn call_from_block(
    block: &Object,
    kind: CallKind,
    index: usize,
    path: &At,
    strict: bool,
) -> Result<(ToolCall, Value), WireError> {
    let field = |key| {
        if strict {
            req_str(block, key, path)
        } else {
            opt_str(block, key, path).map(Option::unwrap_or_default)
        }
    };
    let mut call =
        ToolCall::new(field("id")?, field("name")?, Arguments::default()).with_index(index);
    call.kind = kind;
    if kind == CallKind::Server {
        let block_type = req_str(block, "type", path)?;
        call.metadata.insert("type".into(), Value::from(block_type));
        if let Some(server) = block.get("server_name").filter(|v| !v.is_null()) {
            call.metadata
                .insert("server_name".into(), json::clone_value(server));
        }
    }
    let input = match block.get("input") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(input) => json::clone_value(input),
    };
    Ok((call, input))
}

/// Whether a block is the result of a provider-run call (`web_search_tool_result`,
/// `code_execution_tool_result`, `mcp_tool_result`, ...), paired with it by `tool_use_id`.
fn is_result(block_type: &str) -> bool {
    block_type.ends_with("_tool_result")
}

/// Block types that are neither calls nor results: text, thinking, and the like.
fn is_known(block_type: &str) -> bool {
    matches!(
        block_type,
        "text" | "thinking" | "redacted_thinking" | "container_upload" | "compaction"
    )
}

/// The report of a block of a type toolwright does not know.
fn unknown_block(block_type: &str, path: &At) -> WireError {
    WireError::new(
        path.key("type"),
        format!(
            "a content block of type `{}`, which toolwright does not know: kept in the turn's content, not acted on",
            toolwright_json::echo::bare(block_type)
        ),
    )
}

/// The calls in a message's `content`.
pub(super) fn read_response(response: &Value) -> Result<Turn, WireError> {
    let root = object(response, &ROOT)?;
    refuse_error(root)?;
    require(root, "content", "a Messages response")?;
    let mut turn = Turn::of(crate::forms::Provider::Anthropic);
    turn.stop_reason = loose_str(root, "stop_reason", &ROOT, &mut turn.warnings);
    let mut results = Vec::new();
    for (at, value) in opt_array(root, "content", &ROOT)?.iter().enumerate() {
        let content_at = ROOT.key("content");
        let path = content_at.index(at);
        let block = object(value, &path)?;
        let block_type = req_str(block, "type", &path)?;
        turn.content.push(json::clone_value(value));
        if let Some(kind) = call_kind(block_type) {
            let (mut call, input) = call_from_block(block, kind, at, &path, true)?;
            call.arguments = Arguments::Json(input);
            turn.calls.push(call);
        } else if block_type == "text" {
            loose_text(
                block.get("text"),
                &path.key("text"),
                &mut turn.text,
                &mut turn.warnings,
            );
        } else if is_result(block_type) {
            results.push(json::clone_value(value));
        } else if !is_known(block_type) {
            turn.warnings.push(unknown_block(block_type, &path));
        }
    }
    pair_results(&mut turn.calls, results);
    Ok(turn)
}

/// Gives each provider-run call its result block (by `tool_use_id`), as `metadata["result"]`.
pub(super) fn pair_results(calls: &mut [ToolCall], results: Vec<Value>) {
    for result in results {
        let Some(id) = result.get("tool_use_id").and_then(Value::as_str) else {
            continue;
        };
        if let Some(call) = calls
            .iter_mut()
            .find(|call| call.kind == CallKind::Server && call.call_id == id)
        {
            call.metadata.insert("result".into(), result);
        }
    }
}

/// The content of a streamed message: its blocks in order, as their starts and deltas built
/// them, a call's `input` as assembled.
pub(super) fn content(state: &State) -> Vec<Value> {
    let mut blocks = Vec::with_capacity(state.items.len());
    for (&(segment, index), block) in &state.items {
        let mut block = json::clone_value(block);
        if let Some(&at) = state.by_key.get(&(segment, 0, index))
            && let Value::Object(fields) = &mut block
        {
            let input = match &state.slots[at].buf {
                Buf::Start(text, input) if text.is_empty() => json::clone_value(input),
                // Read leniently when the stream broke off.
                Buf::Text(text) | Buf::Start(text, _) => {
                    Value::Object(crate::wire::assembly::lenient_object(text))
                }
                Buf::Json(value) => json::clone_value(value),
            };
            if let Some(old) = fields.insert("input".into(), input) {
                json::dispose(old);
            }
        }
        blocks.push(block);
    }
    blocks
}

/// A block as the content keeps it while it streams: a call's without its `input`, which its
/// call holds (and the content takes from it at the end).
fn without_input(block: &Object) -> Value {
    Value::Object(
        block
            .iter()
            .filter(|(key, _)| key.as_str() != "input")
            .map(|(key, value)| (key.clone(), json::clone_value(value)))
            .collect(),
    )
}

/// Anthropic's deferral: `defer_loading` entries, and the search tool the application chose:
/// the toolbox's own (a client tool answered with `tool_reference` blocks), or Anthropic's BM25
/// or regex tool search tool.
pub(crate) const DEFER: NativeDefer = NativeDefer {
    search_entry: |searcher, own| match searcher {
        Searcher::Hosted => {
            json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"})
        }
        Searcher::HostedRegex => {
            json!({"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"})
        }
        _ => own.clone(),
    },
    namespaces: false,
};

/// The toolbox's search tool's answer: a `tool_result` of one `tool_reference` block per tool
/// found (Anthropic then loads their definitions from the request's deferred tools); a text
/// saying so when none was.
pub(crate) fn references(call: &ToolCall, found: &[Value]) -> Value {
    let content: Vec<Value> = found
        .iter()
        .filter_map(|entry| entry.get("name").and_then(Value::as_str))
        .map(|name| json!({"type": "tool_reference", "tool_name": name}))
        .collect();
    let content = if content.is_empty() {
        Value::from("No tool matched; try other words.")
    } else {
        Value::Array(content)
    };
    json!({"type": "tool_result", "tool_use_id": call.call_id.as_str(), "content": content})
}

/// A `tool_result` block: content as a string when it is one text, else as text and image
/// blocks; `is_error` only when set; `cache_control` passed through.
pub(crate) fn encode(call: &ToolCall, result: &ToolResult) -> Value {
    let mut block = Map::new();
    block.insert("type".into(), Value::from("tool_result"));
    block.insert("tool_use_id".into(), Value::from(call.call_id.as_str()));
    match text_only(&result.content) {
        // No content at all is allowed; an empty text block is not.
        Some(text) if text.is_empty() => {}
        Some(text) => {
            block.insert("content".into(), Value::String(text));
        }
        None => {
            let blocks = result
                .content
                .iter()
                .filter_map(|part| match part {
                    ContentPart::Text { text } if text.is_empty() => None,
                    ContentPart::Text { text } => Some(json!({"type": "text", "text": text})),
                    ContentPart::Image { data, mime_type } => Some(json!({
                        "type": "image",
                        "source": {"type": "base64", "media_type": mime_type, "data": data},
                    })),
                    ContentPart::Resource { resource } => Some(resource_block(call, resource)),
                    other => Some(json!({
                        "type": "text",
                        "text": crate::wire::fallback("anthropic", &call.call_id, other),
                    })),
                })
                .collect();
            block.insert("content".into(), Value::Array(blocks));
        }
    }
    if result.is_error {
        block.insert("is_error".into(), Value::Bool(true));
    }
    copy_options(result, &["cache_control"], &mut block);
    Value::Object(block)
}

/// An embedded resource in a `tool_result`: a text resource as a plain-text `document` block
/// titled with its URI, a PDF as a base64 `document`, an image as an `image`; any other binary
/// resource as its fallback text (Messages carries no other kind of data).
fn resource_block(call: &ToolCall, resource: &ResourceContents) -> Value {
    let mime = resource.mime_type.as_deref().unwrap_or("text/plain");
    match &resource.body {
        ResourceBody::Text(text) => json!({
            "type": "document",
            "source": {"type": "text", "media_type": "text/plain", "data": text},
            "title": resource.uri,
        }),
        ResourceBody::Blob(data) if mime == "application/pdf" => json!({
            "type": "document",
            "source": {"type": "base64", "media_type": mime, "data": data},
            "title": resource.uri,
        }),
        ResourceBody::Blob(data)
            if matches!(
                mime,
                "image/png" | "image/jpeg" | "image/gif" | "image/webp"
            ) =>
        {
            json!({
                "type": "image",
                "source": {"type": "base64", "media_type": mime, "data": data},
            })
        }
        ResourceBody::Blob(_) => json!({
            "type": "text",
            "text": crate::wire::fallback(
                "anthropic",
                &call.call_id,
                &ContentPart::Resource { resource: Box::new(resource.clone()) },
            ),
        }),
    }
}

/// One stream event.
pub(super) fn push(state: &mut State, event: &Value) -> Result<bool, WireError> {
    let root = object(event, &ROOT)?;
    require(root, "type", "a Messages stream event")?;
    let kind = req_str(root, "type", &ROOT)?;
    match kind {
        "message_start" => {
            // Several messages in one stream (a tool loop recorded whole): indexes restart, and
            // a call the previous message left open stays incomplete.
            if state.started {
                state.segment += 1;
            }
            state.started = true;
            // A follow-up (programmatic tool calling) may bring whole blocks in the message
            // itself: its calls are complete as they stand.
            if let Some(message) = opt_object(root, "message", &ROOT)? {
                start_blocks(state, message)?;
            }
        }
        "content_block_start" => block_start(state, root)?,
        "content_block_delta" => block_delta(state, root)?,
        "content_block_stop" => {
            let index = required_index(root)?;
            if let Some(&at) = state.by_key.get(&(state.segment, 0, index)) {
                state.slots[at].done = true;
            } else if let Some(stopped) = state.other_blocks.get_mut(&(state.segment, index)) {
                *stopped = true;
            } else {
                return Err(WireError::new(
                    "/index",
                    format!("a stop for block {index}, which no `content_block_start` began"),
                ));
            }
        }
        "message_delta" => {
            if let Some(Value::Object(delta)) = root.get("delta")
                && let Some(reason) = loose_str(
                    delta,
                    "stop_reason",
                    &ROOT.key("delta"),
                    &mut state.warnings,
                )
            {
                state.stop_reason = Some(reason);
            }
        }
        "message_stop" => return Ok(true),
        "error" => refuse_error(root)?,
        _ => {}
    }
    Ok(false)
}

/// `content_block_start`: a call's block, or another block (text, thinking, a result).
fn block_start(state: &mut State, root: &Object) -> Result<(), WireError> {
    let index = required_index(root)?;
    let Some(block) = opt_object(root, "content_block", &ROOT)? else {
        return Err(WireError::new(
            "/content_block",
            "`content_block` is missing",
        ));
    };
    let key = (state.segment, 0, index);
    // A second start at an index already taken begins a block of its own: later
    // deltas and the stop go to it, and the first keeps what it had.
    let restarted =
        state.by_key.contains_key(&key) || state.other_blocks.contains_key(&(state.segment, index));
    let block_type = req_str(block, "type", &ROOT.key("content_block"))?;
    keep_block(state, block, block_type, index, &ROOT.key("content_block"));
    if let Some(call_kind) = call_kind(block_type) {
        let (mut call, input) =
            call_from_block(block, call_kind, index, &ROOT.key("content_block"), false)?;
        call.status = CallStatus::Incomplete;
        let missing = if call.call_id.is_empty() {
            Some("id")
        } else if call.name.is_empty() {
            Some("name")
        } else {
            None
        };
        state.other_blocks.remove(&(state.segment, index));
        state.add(call, key, Buf::Start(String::new(), input));
        if restarted {
            return Err(restart(index));
        }
        if let Some(missing) = missing {
            return Err(WireError::new(
                ROOT.key("content_block").key(missing),
                format!(
                    "block {index} is a `{block_type}` without `{missing}`; its input is assembled all the same"
                ),
            ));
        }
    } else if restarted && state.by_key.contains_key(&key) {
        // A call's block, then another kind at its index: the call keeps what it had.
        state.by_key.remove(&key);
        state.other_blocks.insert((state.segment, index), false);
        return Err(restart(index));
    } else {
        state.other_blocks.insert((state.segment, index), false);
        block_text(state, block, block_type, &ROOT.key("content_block"));
    }
    Ok(())
}

/// The report of a block started twice at one index.
fn restart(index: usize) -> WireError {
    WireError::new(
        "/index",
        format!(
            "block {index} was started again; the new start is a block of its own, and the earlier one keeps what it had"
        ),
    )
}

/// A block as it starts, kept for the turn's content (a call's without its `input`, which its
/// call holds); a provider-run call's result kept to pair with it; a type toolwright does not
/// know reported.
fn keep_block(state: &mut State, block: &Object, block_type: &str, index: usize, path: &At) {
    state
        .items
        .insert((state.segment, index), without_input(block));
    if is_result(block_type) {
        state.outputs.push(Value::Object(json::clone_map(block)));
    } else if call_kind(block_type).is_none() && !is_known(block_type) {
        state.warnings.push(unknown_block(block_type, path));
    }
}

/// A text block's text, as it starts, added to the turn's text.
fn block_text(state: &mut State, block: &Object, block_type: &str, path: &At) {
    if block_type == "text" {
        loose_text(
            block.get("text"),
            &path.key("text"),
            &mut state.text,
            &mut state.warnings,
        );
    }
}

/// The blocks a `message_start` carries whole in `message.content`: calls, complete, and text.
fn start_blocks(state: &mut State, message: &Object) -> Result<(), WireError> {
    let message_at = ROOT.key("message");
    let content_at = message_at.key("content");
    for (index, block) in opt_array(message, "content", &message_at)?
        .iter()
        .enumerate()
    {
        let path = content_at.index(index);
        let block = object(block, &path)?;
        let block_type = req_str(block, "type", &path)?;
        keep_block(state, block, block_type, index, &path);
        if let Some(kind) = call_kind(block_type) {
            let (call, input) = call_from_block(block, kind, index, &path, true)?;
            let at = state.add(call, (state.segment, 0, index), Buf::Json(input));
            state.slots[at].done = true;
        } else {
            state.other_blocks.insert((state.segment, index), true);
            block_text(state, block, block_type, &path);
        }
    }
    Ok(())
}

/// `content_block_delta`: input for a call, text for a text block.
fn block_delta(state: &mut State, root: &Object) -> Result<(), WireError> {
    let index = required_index(root)?;
    let Some(delta) = opt_object(root, "delta", &ROOT)? else {
        return Err(WireError::new("/delta", "`delta` is missing"));
    };
    let delta_type = req_str(delta, "type", &ROOT.key("delta"))?;
    if let Some(&at) = state.by_key.get(&(state.segment, 0, index)) {
        if delta_type == "input_json_delta" {
            let partial = req_str(delta, "partial_json", &ROOT.key("delta"))?;
            let slot = &mut state.slots[at];
            // A start that held input of its own, then deltas: the streamed input is the
            // call's, and the start's is kept beside it (`metadata["start_input"]`).
            let replaces_start = matches!(&slot.buf, Buf::Start(text, Value::Object(input))
                if text.is_empty() && !input.is_empty() && !partial.is_empty());
            slot.append(partial);
            if replaces_start {
                return Err(WireError::new(
                    "/delta/partial_json",
                    format!(
                        "block {index} started with input of its own and now streams more; the streamed input is taken, and the start's is kept in the call's metadata as `start_input`"
                    ),
                ));
            }
            if slot.done {
                return Err(WireError::new(
                    "/index",
                    format!(
                        "input for block {index} after its `content_block_stop`; it was appended"
                    ),
                ));
            }
        }
    } else if state.other_blocks.contains_key(&(state.segment, index)) {
        if let Some(Value::Object(block)) = state.items.get_mut(&(state.segment, index))
            && !extend_block(block, delta_type, delta)
        {
            state.warnings.push(WireError::new(
                ROOT.key("delta").key("type"),
                format!(
                    "a delta of type `{}`, which toolwright does not know, for block {index}: not kept",
                    toolwright_json::echo::bare(delta_type)
                ),
            ));
        }
        if delta_type == "text_delta" {
            loose_text(
                delta.get("text"),
                &ROOT.key("delta").key("text"),
                &mut state.text,
                &mut state.warnings,
            );
        }
    } else {
        // Nowhere to put it: the error carries what it held.
        return Err(WireError::new(
            "/index",
            format!(
                "a delta for block {index}, which no `content_block_start` began: {}",
                json::quote_object(delta, json::QUOTE)
            ),
        ));
    }
    Ok(())
}

/// A text or thinking block's delta, applied to the block as the content keeps it: text and
/// thinking appended, the signature set, a citation added. `false` for a delta of a type
/// toolwright does not know (other blocks' content comes whole at their start).
fn extend_block(block: &mut Object, delta_type: &str, delta: &Object) -> bool {
    let (key, append) = match delta_type {
        "text_delta" => ("text", true),
        "thinking_delta" => ("thinking", true),
        "signature_delta" => ("signature", false),
        "citations_delta" => {
            if let Some(citation) = delta.get("citation") {
                let citations = block
                    .entry("citations")
                    .or_insert_with(|| Value::Array(Vec::new()));
                if !citations.is_array() {
                    *citations = Value::Array(Vec::new());
                }
                if let Value::Array(citations) = citations {
                    citations.push(json::clone_value(citation));
                }
            }
            return true;
        }
        _ => return false,
    };
    let Some(Value::String(piece)) = delta.get(key) else {
        return true;
    };
    match block.get_mut(key) {
        Some(Value::String(text)) if append => text.push_str(piece),
        _ => {
            block.insert(key.into(), Value::String(piece.clone()));
        }
    }
    true
}

fn required_index(root: &Object) -> Result<usize, WireError> {
    opt_index(root, "index", &ROOT)?.ok_or_else(|| WireError::new("/index", "`index` is missing"))
}
