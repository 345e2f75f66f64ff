//! MCP: a `tools/call` request in, a `CallToolResult` out.

use serde_json::{Map, Value, json};

use crate::call::{Arguments, ToolCall};
use crate::content::{ContentPart, ResourceBody, ResourceContents};
use crate::result::ToolResult;
use crate::wire::assembly::{Buf, State};
use crate::wire::read::{ROOT, kind, object, opt_object, req_str};
use crate::wire::turn::Turn;
use crate::wire::{WireError, copy_options};
use toolwright_json::value as json;

/// The call in a `tools/call` request (JSON-RPC, or just its `params`); its id is the request's
/// (a number written as text), or made up when there is none.
pub(super) fn read_request(request: &Value) -> Result<Turn, WireError> {
    let root = object(request, &ROOT)?;
    let (params, path, id) = if root.contains_key("method") {
        let method = req_str(root, "method", &ROOT)?;
        if method != "tools/call" {
            return Err(WireError::new(
                "/method",
                format!("expected a `tools/call` request, found `{method}`"),
            ));
        }
        let Some(params) = opt_object(root, "params", &ROOT)? else {
            return Err(WireError::new("/params", "`params` is missing"));
        };
        let id = match root.get("id") {
            Some(Value::String(id)) => Some(id.clone()),
            Some(Value::Number(id)) => Some(id.to_string()),
            None | Some(Value::Null) => None,
            Some(other) => {
                return Err(WireError::new(
                    "/id",
                    format!("expected a string or a number, found {}", kind(other)),
                ));
            }
        };
        (params, ROOT.key("params"), id)
    } else {
        (root, ROOT, None)
    };
    let arguments = match params.get("arguments") {
        None => Arguments::default(),
        Some(arguments) => Arguments::Json(json::clone_value(arguments)),
    };
    let mut call = ToolCall::new("", req_str(params, "name", &path)?, arguments);
    if let Some(id) = id {
        call.call_id = id.into();
    } else {
        call.call_id = "mcp_call_0".into();
        call.id_generated = true;
    }
    if let Some(meta) = params.get("_meta").filter(|meta| !meta.is_null()) {
        call.metadata
            .insert("_meta".into(), json::clone_value(meta));
    }
    Ok(Turn {
        calls: vec![call],
        ..Turn::default()
    })
}

/// Each chunk of an MCP "stream" is a whole request.
pub(super) fn push(state: &mut State, chunk: &Value) -> Result<bool, WireError> {
    let index = state.slots.len();
    for mut call in read_request(chunk)?.calls {
        if call.id_generated {
            call.call_id = format!("mcp_call_{index}").into();
        }
        call.index = index;
        let arguments = std::mem::take(&mut call.arguments);
        let buf = match arguments {
            Arguments::Json(value) => Buf::Json(value),
            Arguments::Text(text) => Buf::Text(text),
        };
        let at = state.add(call, (0, 0, index), buf);
        state.slots[at].done = true;
    }
    Ok(false)
}

/// A `CallToolResult`: text and image content, `isError`, and `structuredContent` (the result's
/// JSON value) when the tool declares an output schema. Since protocol revision 2026-07-28
/// (SEP-2106) that value may be any JSON, not only an object; rmcp drops a non-object one for
/// clients on older revisions, which keep the text copy.
pub(crate) fn encode(result: &ToolResult, output_schema: Option<&Value>) -> Value {
    let content: Vec<Value> = result
        .content
        .iter()
        .map(|part| match part {
            ContentPart::Text { text } => json!({"type": "text", "text": text}),
            ContentPart::Image { data, mime_type } => {
                json!({"type": "image", "data": data, "mimeType": mime_type})
            }
            ContentPart::Audio { data, mime_type } => {
                json!({"type": "audio", "data": data, "mimeType": mime_type})
            }
            ContentPart::Resource { resource } => {
                json!({"type": "resource", "resource": resource_json(resource)})
            }
            ContentPart::ResourceLink(link) => {
                let mut out = Map::new();
                out.insert("type".into(), Value::from("resource_link"));
                out.insert("uri".into(), Value::from(link.uri.as_str()));
                out.insert("name".into(), Value::from(link.name.as_str()));
                for (key, value) in [
                    ("title", &link.title),
                    ("description", &link.description),
                    ("mimeType", &link.mime_type),
                ] {
                    if let Some(value) = value {
                        out.insert(key.into(), Value::from(value.as_str()));
                    }
                }
                Value::Object(out)
            }
        })
        .collect();
    let mut out = Map::new();
    out.insert("content".into(), Value::Array(content));
    if let Some(value) = structured_content(result, output_schema) {
        out.insert("structuredContent".into(), value);
    }
    out.insert("isError".into(), Value::Bool(result.is_error));
    copy_options(result, &["_meta"], &mut out);
    Value::Object(out)
}

/// An embedded resource's contents as MCP writes them: `uri`, `mimeType`, and `text` or `blob`.
fn resource_json(resource: &ResourceContents) -> Value {
    let mut out = Map::new();
    out.insert("uri".into(), Value::from(resource.uri.as_str()));
    if let Some(mime_type) = &resource.mime_type {
        out.insert("mimeType".into(), Value::from(mime_type.as_str()));
    }
    match &resource.body {
        ResourceBody::Text(text) => out.insert("text".into(), Value::from(text.as_str())),
        ResourceBody::Blob(data) => out.insert("blob".into(), Value::from(data.as_str())),
    };
    Value::Object(out)
}

/// The `type` a schema names, when it names one. Its few keys are read in order: a lookup hashes
/// the key first, which costs more than comparing a schema's handful of keys (this is read at
/// every MCP call of a tool with an output schema).
pub fn schema_type(schema: &Value) -> Option<&str> {
    schema
        .as_object()?
        .iter()
        .find_map(|(key, value)| (key == "type").then_some(value))?
        .as_str()
}

/// A result's `structuredContent`: the JSON of its text, when the tool declares an output schema
/// and the call succeeded. A string output has none: its text is the value, unquoted, and a client
/// on a revision before 2026-07-28 would get it twice.
pub fn structured_content(result: &ToolResult, output_schema: Option<&Value>) -> Option<Value> {
    let schema = output_schema?;
    if result.is_error || schema_type(schema) == Some("string") {
        return None;
    }
    // One text part (most results) is read where it is, not joined into a new string first.
    match &*result.content {
        [ContentPart::Text { text }] => serde_json::from_str(text).ok(),
        _ => serde_json::from_str(&result.content.text()).ok(),
    }
}
