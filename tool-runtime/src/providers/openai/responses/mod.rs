//! OpenAI Responses API: `function_call` output items in, `function_call_output` items out, and
//! stream events assembled by `item_id` (or `output_index`).

mod encode;
mod stream;

pub(crate) use self::encode::encode;
pub(super) use self::stream::push;
use serde_json::{Map, Value, json};

use crate::call::{Arguments, CallKind, CallStatus, ToolCall};
use crate::search::Searcher;
use crate::wire::WireError;
use crate::wire::assembly::{Buf, State};
use crate::wire::read::{
    At, Object, ROOT, loose_str, loose_text, object, opt_array, opt_str, refuse_error, req_str,
    require,
};
use crate::wire::spec::NativeDefer;
use crate::wire::turn::Turn;
use toolwright_json::value as json;

/// The Responses API's deferral: `defer_loading` entries, grouped in their namespaces, and the
/// `tool_search` tool: run by the client with the toolbox's search function's description and
/// parameters, or hosted.
pub(crate) const DEFER: NativeDefer = NativeDefer {
    search_entry: |searcher, own| match searcher {
        Searcher::Local => json!({
            "type": "tool_search",
            "execution": "client",
            "description": own["description"],
            "parameters": own["parameters"],
        }),
        _ => json!({"type": "tool_search"}),
    },
    namespaces: true,
};

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
            toolwright_json::echo::bare(kind)
        ),
    )
}

/// A call from a `function_call` or `custom_tool_call` item. A whole response must say the
/// call's id and name (`strict`); a stream may say them only when the item is done.
pub(super) fn call_from_item(
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
        call.call_id = format!("item_{index}").into();
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
    let mut turn = Turn::of(crate::forms::Provider::OpenAiResponses);
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
pub(super) fn stop_reason(
    response: &Object,
    path: &At,
    warnings: &mut Vec<WireError>,
) -> Option<String> {
    if let Some(Value::Object(details)) = response.get("incomplete_details")
        && let Some(reason) =
            loose_str(details, "reason", &path.key("incomplete_details"), warnings)
    {
        return Some(reason);
    }
    loose_str(response, "status", path, warnings)
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
