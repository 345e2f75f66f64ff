//! OpenAI Responses API: `function_call` output items in, `function_call_output` items out, and
//! stream events assembled by `item_id` (or `output_index`).

mod encode;

pub(super) use self::encode::encode;
use serde_json::{Map, Value};

use crate::call::{Arguments, CallKind, CallStatus, ToolCall};
use crate::json;
use crate::provider::read::{
    At, Object, ROOT, loose_str, loose_text, object, opt_array, opt_index, opt_object, opt_str,
    refuse_error, req_str, require,
};
use crate::provider::stream::{Buf, State};
use crate::provider::{Turn, WireError};

/// What an output item is to the application. The list is the openai Python SDK's
/// `ResponseOutputItem` union.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Item {
    /// A call of one of the application's functions: `function_call` (JSON arguments),
    /// `custom_tool_call` (free text `input`).
    Function,
    /// A built-in tool the application carries out: the tool's name (`None`: the item's own
    /// `name`, as an MCP approval request's).
    Builtin(Option<&'static str>),
    /// A tool the provider runs itself.
    Server(Option<&'static str>),
    /// The output of a call: of the provider's own (a `shell_call_output` beside its call, run
    /// in a hosted container), or of an earlier turn's.
    Output,
    /// Text, reasoning, compaction, an MCP server's tool list: no call.
    Other,
}

/// Output item types that are the result of a call, paired with it by `call_id`.
const OUTPUTS: &[&str] = &[
    "function_call_output",
    "custom_tool_call_output",
    "computer_call_output",
    "local_shell_call_output",
    "shell_call_output",
    "apply_patch_call_output",
    "tool_search_output",
    "program_output",
    "mcp_approval_response",
];

/// What an item of this type is; `None` for a type toolwright does not know.
pub(super) fn classify(kind: &str, item: &Object) -> Option<Item> {
    Some(match kind {
        "function_call" | "custom_tool_call" => Item::Function,
        "apply_patch_call" => Item::Builtin(Some("apply_patch")),
        "shell_call" => Item::Builtin(Some("shell")),
        "local_shell_call" => Item::Builtin(Some("local_shell")),
        "computer_call" => Item::Builtin(Some("computer")),
        "mcp_approval_request" => Item::Builtin(None),
        "tool_search_call" if item.get("execution").and_then(Value::as_str) == Some("client") => {
            Item::Builtin(Some("tool_search"))
        }
        "tool_search_call" => Item::Server(Some("tool_search")),
        "web_search_call" => Item::Server(Some("web_search")),
        "file_search_call" => Item::Server(Some("file_search")),
        "code_interpreter_call" => Item::Server(Some("code_interpreter")),
        "image_generation_call" => Item::Server(Some("image_generation")),
        // Programmatic tool calling: the provider runs the program, which calls the
        // application's functions (their `function_call`s name it as `caller`).
        "program" => Item::Server(Some("program")),
        "mcp_call" => Item::Server(None),
        "message" | "reasoning" | "compaction" | "mcp_list_tools" | "additional_tools" => {
            Item::Other
        }
        kind if OUTPUTS.contains(&kind) => Item::Output,
        _ => return None,
    })
}

/// The report of an item of a type toolwright does not know: kept (in [`Turn::content`], for the
/// next turn), not acted on.
pub(super) fn unknown_item(kind: &str, path: &At) -> WireError {
    WireError::new(
        path.key("type"),
        format!(
            "an output item of type `{}`, which toolwright does not know: kept in the turn's content, not acted on",
            crate::echo::bare(kind)
        ),
    )
}

/// A call from a `function_call` or `custom_tool_call` item. A whole response must say the
/// call's id and name (`strict`); a stream may say them only when the item is done.
fn call_from_item(
    item: &Object,
    index: usize,
    path: &At,
    strict: bool,
    warnings: &mut Vec<WireError>,
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
    if let Some(item_id) = loose_str(item, "id", path, warnings) {
        call.metadata.insert("item_id".into(), Value::from(item_id));
    }
    if custom {
        // Answered by a `custom_tool_call_output`.
        call.metadata
            .insert("type".into(), Value::from("custom_tool_call"));
    }
    // Tool namespaces: the call names its tool within one, and the namespace goes back with
    // the result. A program's calls name it as `caller`, which goes back too.
    for key in ["namespace", "caller"] {
        if let Some(value) = item.get(key).filter(|value| !value.is_null()) {
            call.metadata.insert(key.into(), json::clone_value(value));
        }
    }
    if loose_str(item, "status", path, warnings).as_deref() == Some("incomplete") {
        call.status = CallStatus::Incomplete;
    }
    Ok(call)
}

/// A call from a built-in or provider-run item: id from `call_id` (or the item's `id` where it
/// has none, as MCP items), the tool's name, the item's request as arguments, and the item
/// whole in `metadata["item"]`.
pub(super) fn provider_call(
    item: &Object,
    kind: &str,
    class: Item,
    index: usize,
    path: &At,
    warnings: &mut Vec<WireError>,
) -> ToolCall {
    let (call_kind, name) = match class {
        Item::Builtin(name) => (CallKind::Builtin, name),
        _ => (
            CallKind::Server,
            match class {
                Item::Server(name) => name,
                _ => None,
            },
        ),
    };
    let id = ["call_id", "id"].iter().find_map(|key| {
        item.get(*key)
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty())
    });
    let name = name.map_or_else(
        || loose_str(item, "name", path, warnings).unwrap_or_else(|| kind.to_owned()),
        str::to_owned,
    );
    let arguments = match kind {
        "apply_patch_call" => item.get("operation"),
        "computer_call" => item
            .get("action")
            .filter(|a| !a.is_null())
            .or(item.get("actions")),
        "tool_search_call" | "mcp_call" | "mcp_approval_request" => item.get("arguments"),
        _ => item.get("action"),
    };
    let arguments = match arguments {
        Some(Value::String(text)) => Arguments::Text(text.clone()),
        Some(value) if !value.is_null() => Arguments::Json(json::clone_value(value)),
        _ => {
            // Items whose request is in fields of their own.
            let mut request = Map::new();
            for key in ["code", "container_id", "queries", "language"] {
                if let Some(value) = item.get(key).filter(|v| !v.is_null()) {
                    request.insert(key.to_owned(), json::clone_value(value));
                }
            }
            Arguments::Json(Value::Object(request))
        }
    };
    let mut call = ToolCall::new(id.unwrap_or_default(), name, arguments).with_index(index);
    if id.is_none() {
        call.call_id = format!("item_{index}");
        call.id_generated = true;
    }
    call.kind = call_kind;
    call.metadata.insert("type".into(), Value::from(kind));
    if let Some(item_id) = item.get("id").and_then(Value::as_str) {
        call.metadata.insert("item_id".into(), Value::from(item_id));
    }
    call.metadata
        .insert("item".into(), Value::Object(json::clone_map(item)));
    if item.get("status").and_then(Value::as_str) == Some("incomplete") {
        call.status = CallStatus::Incomplete;
    }
    call
}

/// Pairs output items with the calls of the turn they answer (by `call_id`; a server-run tool
/// search's output, which has none, with the tool search before it): such a call was run by the
/// provider (a shell in a hosted container, say), and its output is its `metadata["result"]`.
/// Outputs of an earlier turn's calls pair with nothing and stay in the content.
pub(super) fn pair_outputs(calls: &mut [ToolCall], outputs: Vec<Value>) {
    for output in outputs {
        let call_id = output.get("call_id").and_then(Value::as_str);
        let found = match call_id {
            Some(id) => calls
                .iter()
                .position(|call| call.call_id == id && !call.id_generated),
            None => calls.iter().rposition(|call| {
                call.metadata.get("type").and_then(Value::as_str)
                    == output
                        .get("type")
                        .and_then(Value::as_str)
                        .and_then(|kind| kind.strip_suffix("_output"))
                        .map(|kind| format!("{kind}_call"))
                        .as_deref()
                    && !call.metadata.contains_key("result")
            }),
        };
        if let Some(at) = found {
            let call = &mut calls[at];
            call.kind = CallKind::Server;
            call.metadata.insert("result".into(), output);
        }
    }
}

/// The calls in a response's `output`.
pub(super) fn read_response(response: &Value) -> Result<Turn, WireError> {
    let root = object(response, &ROOT)?;
    refuse_error(root)?;
    require(root, "output", "a Responses API response")?;
    let mut turn = Turn::of(crate::provider::Provider::OpenAiResponses);
    turn.stop_reason = stop_reason(root, &ROOT, &mut turn.warnings);
    let mut outputs = Vec::new();
    let output_at = ROOT.key("output");
    for (at, value) in opt_array(root, "output", &ROOT)?.iter().enumerate() {
        let path = output_at.index(at);
        let item = object(value, &path)?;
        let kind = req_str(item, "type", &path)?;
        turn.content.push(json::clone_value(value));
        match classify(kind, item) {
            Some(Item::Function) => {
                turn.calls
                    .push(call_from_item(item, at, &path, true, &mut turn.warnings)?);
            }
            Some(class @ (Item::Builtin(_) | Item::Server(_))) => {
                turn.calls.push(provider_call(
                    item,
                    kind,
                    class,
                    at,
                    &path,
                    &mut turn.warnings,
                ));
            }
            Some(Item::Output) => outputs.push(json::clone_value(value)),
            Some(Item::Other) => {
                if kind == "message" {
                    loose_text(
                        item.get("content"),
                        &path.key("content"),
                        &mut turn.text,
                        &mut turn.warnings,
                    );
                }
            }
            None => turn.warnings.push(unknown_item(kind, &path)),
        }
    }
    pair_outputs(&mut turn.calls, outputs);
    Ok(turn)
}

/// `incomplete_details.reason`, else the response's `status`.
fn stop_reason(response: &Object, path: &At, warnings: &mut Vec<WireError>) -> Option<String> {
    if let Some(Value::Object(details)) = response.get("incomplete_details")
        && let Some(reason) =
            loose_str(details, "reason", &path.key("incomplete_details"), warnings)
    {
        return Some(reason);
    }
    loose_str(response, "status", path, warnings)
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
        id.clone_into(&mut slot.call.call_id);
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

/// The content of a streamed response: its output items in order, as their `done` events gave
/// them (as added, for one never done), a function call's arguments as assembled.
pub(super) fn content(state: &State) -> Vec<Value> {
    let mut items: Vec<Value> = Vec::with_capacity(state.items.len());
    for (&(segment, index), item) in &state.items {
        let mut item = json::clone_value(item);
        if let Some(&at) = state.by_key.get(&(segment, 0, index))
            && let Value::Object(fields) = &mut item
        {
            let slot = &state.slots[at];
            let key = match fields.get("type").and_then(Value::as_str) {
                Some("function_call") => Some("arguments"),
                Some("custom_tool_call") => Some("input"),
                _ => None,
            };
            if let (Some(key), Buf::Text(text)) = (key, &slot.buf)
                && let Some(old) = fields.insert(key.into(), Value::String(text.clone()))
            {
                json::dispose(old);
            }
        }
        items.push(item);
    }
    items
}
