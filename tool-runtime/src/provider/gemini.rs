//! Gemini: `functionCall` parts in, `functionResponse` parts out, and stream chunks assembled:
//! whole calls, and calls whose arguments stream as `partialArgs` set by JSON path.

use serde_json::{Map, Value, json};

use super::read::{
    At, Object, ROOT, flag, kind, object, opt_array, opt_index, opt_object, opt_str, refuse_error,
    req_str,
};
use super::stream::{Buf, State};
use super::{Turn, WireError, copy_options};
use crate::call::{Arguments, CallStatus, ToolCall};
use crate::content::ContentPart;
use crate::result::ToolResult;

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
        Some(id) if !id.is_empty() => id.clone_into(&mut call.call_id),
        _ => {
            call.call_id = generated_id(response_id, index);
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

/// One part of a candidate's content, as far as calls and text go.
enum Part<'a> {
    /// A `functionCall`, and the part holding it (for its `thoughtSignature`).
    Call(&'a Object, &'a Object),
    /// Text the model wrote (not a thought).
    Text(&'a str),
}

/// Visits the calls and the text of a candidate's content, in order, each with its place.
fn each_part<'a>(
    candidate: &'a Object,
    path: &At,
    mut visit: impl FnMut(Part<'a>, &At) -> Result<(), WireError>,
) -> Result<(), WireError> {
    let Some(content) = opt_object(candidate, "content", path)? else {
        return Ok(());
    };
    let content_at = path.key("content");
    let parts_at = content_at.key("parts");
    for (at, part) in opt_array(content, "parts", &content_at)?.iter().enumerate() {
        let path = parts_at.index(at);
        let part = object(part, &path)?;
        if let Some(function_call) = opt_object(part, "functionCall", &path)? {
            visit(Part::Call(function_call, part), &path.key("functionCall"))?;
        } else if !flag(part, "thought", &path)?
            && let Some(text) = opt_str(part, "text", &path)?
        {
            visit(Part::Text(text), &path)?;
        }
    }
    Ok(())
}

/// The calls of a response's first candidate.
pub(super) fn read_response(response: &Value) -> Result<Turn, WireError> {
    let root = object(response, &ROOT)?;
    refuse_error(root)?;
    let response_id = opt_str(root, "responseId", &ROOT)?;
    let mut turn = Turn::default();
    let Some(candidate) = opt_array(root, "candidates", &ROOT)?.first() else {
        if root.contains_key("candidates") || root.contains_key("promptFeedback") {
            return Ok(turn);
        }
        return Err(WireError::new(
            "/candidates",
            "`candidates` is missing: not a Gemini response",
        ));
    };
    let candidates = ROOT.key("candidates");
    let path = &candidates.index(0);
    let candidate = object(candidate, path)?;
    turn.stop_reason = opt_str(candidate, "finishReason", path)?.map(str::to_owned);
    each_part(candidate, path, |part, path| {
        match part {
            Part::Call(function_call, part) => {
                let index = turn.calls.len();
                let mut call = start_call(function_call, part, response_id, index, path)?;
                if let Some(args) = function_call.get("args").filter(|a| !a.is_null()) {
                    call.arguments = Arguments::Json(args.clone());
                }
                turn.calls.push(call);
            }
            Part::Text(text) => turn.text.push_str(text),
        }
        Ok(())
    })?;
    Ok(turn)
}

/// A `functionResponse` part: `response` is always an object, `{"output": ..}` or
/// `{"error": ..}`, holding the result's value when its text is JSON (as a serialized result's
/// is), else the text; images go as `parts` of inline data.
pub(super) fn encode(call: &ToolCall, wire_name: &str, result: &ToolResult) -> Value {
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
    let response_id = opt_str(root, "responseId", &ROOT)?;
    let mut ended = false;
    let mut problem = None;
    let candidates_at = ROOT.key("candidates");
    for (at, candidate) in opt_array(root, "candidates", &ROOT)?.iter().enumerate() {
        let path = candidates_at.index(at);
        let candidate = object(candidate, &path)?;
        let number = opt_index(candidate, "index", &path)?.unwrap_or(at);
        each_part(candidate, &path, |part, path| {
            match part {
                Part::Call(function_call, part) => {
                    if let Err(error) =
                        function_call_part(state, function_call, part, number, response_id, path)
                    {
                        problem.get_or_insert(error);
                    }
                }
                Part::Text(text) if number == 0 => state.text.push_str(text),
                Part::Text(_) => {}
            }
            Ok(())
        })?;
        if let Some(reason) = opt_str(candidate, "finishReason", &path)? {
            if number == 0 {
                state.stop_reason = Some(reason.to_owned());
            }
            ended = true;
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
                Value::Object(function_call.clone())
            ),
        ));
    } else {
        // An empty continuation with nothing open holds nothing to lose.
        return Ok(());
    };
    if let Some(args) = args {
        state.slots[at].buf = Buf::Json(args.clone());
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

/// One `partialArgs` entry: a value set at a JSON path, a string continued while the previous
/// piece at the same path said `willContinue`.
fn apply_fragment(
    state: &mut State,
    at: usize,
    fragment: &Value,
    path: &At,
) -> Result<(), WireError> {
    let fragment = object(fragment, path)?;
    let json_path = req_str(fragment, "jsonPath", path)?;
    let continues = flag(fragment, "willContinue", path)?;
    let (value, is_string) = if let Some(text) = fragment.get("stringValue") {
        let Value::String(text) = text else {
            return Err(WireError::new(path.key("stringValue"), "expected a string"));
        };
        (Value::String(text.clone()), true)
    } else if let Some(value) = ["numberValue", "boolValue", "structValue", "listValue"]
        .iter()
        .find_map(|key| fragment.get(*key))
    {
        (value.clone(), false)
    } else if fragment.contains_key("nullValue") {
        (Value::Null, false)
    } else {
        return Err(WireError::new(
            path,
            "no value (`stringValue`, `numberValue`, `boolValue`, `nullValue`, `structValue` or `listValue`)",
        ));
    };
    let append = is_string && state.open_string.as_deref() == Some(json_path);
    state.open_string = (is_string && continues).then(|| json_path.to_owned());
    let Buf::Json(root) = &mut state.slots[at].buf else {
        return Err(WireError::new(path, "the call's arguments are not JSON"));
    };
    set_path(root, json_path, value, append)
        .map_err(|message| WireError::new(path.key("jsonPath"), message))
}

/// One step of a JSON path.
#[derive(Debug, PartialEq)]
enum Step {
    Key(String),
    Index(usize),
}

/// `$`, then `.key`, `['key']`, `["key"]` and `[index]` steps.
fn parse_path(path: &str) -> Result<Vec<Step>, String> {
    let mut rest = path
        .strip_prefix('$')
        .ok_or_else(|| format!("`{path}` is not a JSON path: it does not start with `$`"))?;
    let mut steps = Vec::new();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            if end == 0 {
                return Err(format!("`{path}` has an empty key"));
            }
            steps.push(Step::Key(after[..end].to_owned()));
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix('[') {
            if let Some(quote) = after.chars().next().filter(|c| *c == '\'' || *c == '"') {
                let inner = &after[1..];
                let end = inner
                    .find(quote)
                    .ok_or_else(|| format!("`{path}` has an unclosed quoted key"))?;
                steps.push(Step::Key(inner[..end].to_owned()));
                rest = inner[end + 1..]
                    .strip_prefix(']')
                    .ok_or_else(|| format!("`{path}` has a quoted key without `]`"))?;
            } else {
                let end = after
                    .find(']')
                    .ok_or_else(|| format!("`{path}` has an unclosed `[`"))?;
                let index = after[..end]
                    .parse()
                    .map_err(|_| format!("`{path}` has a bad index `{}`", &after[..end]))?;
                steps.push(Step::Index(index));
                rest = &after[end + 1..];
            }
        } else {
            return Err(format!("`{path}` is not a JSON path at `{rest}`"));
        }
    }
    Ok(steps)
}

/// Sets `value` at `path` in `root`, making the objects and arrays on the way; appends to the
/// string there when `append`. An index may add one element to an array, not skip any.
fn set_path(root: &mut Value, path: &str, value: Value, append: bool) -> Result<(), String> {
    let steps = parse_path(path)?;
    let Some((last, on_the_way)) = steps.split_last() else {
        return match value {
            Value::Object(_) => {
                *root = value;
                Ok(())
            }
            _ => Err("the arguments at `$` must be an object".to_owned()),
        };
    };
    let mut current = root;
    for (at, step) in on_the_way.iter().enumerate() {
        let next = slot(current, step, path)?;
        if next.is_null() {
            *next = match steps[at + 1] {
                Step::Key(_) => Value::Object(Map::new()),
                Step::Index(_) => Value::Array(Vec::new()),
            };
        }
        current = next;
    }
    let target = slot(current, last, path)?;
    match (target, value) {
        (Value::String(text), Value::String(more)) if append => text.push_str(&more),
        (target, value) => *target = value,
    }
    Ok(())
}

/// The value one step below `current`, made `null` when new.
fn slot<'a>(current: &'a mut Value, step: &Step, path: &str) -> Result<&'a mut Value, String> {
    match (current, step) {
        (Value::Object(map), Step::Key(key)) => Ok(map.entry(key.clone()).or_insert(Value::Null)),
        (Value::Array(items), Step::Index(index)) => {
            if *index == items.len() {
                items.push(Value::Null);
            }
            let len = items.len();
            items.get_mut(*index).ok_or_else(|| {
                format!("`{path}` sets element {index} of an array of {len}, skipping elements")
            })
        }
        (current, Step::Key(key)) => Err(format!("`{path}` sets key `{key}` in {}", kind(current))),
        (current, Step::Index(index)) => Err(format!(
            "`{path}` sets element {index} in {}",
            kind(current)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_read_step_by_step() {
        assert_eq!(
            parse_path("$.recipe.ingredients[3]['a.b'][\"c\"]").unwrap(),
            [
                Step::Key("recipe".into()),
                Step::Key("ingredients".into()),
                Step::Index(3),
                Step::Key("a.b".into()),
                Step::Key("c".into()),
            ]
        );
        assert_eq!(parse_path("$").unwrap(), []);
        for bad in ["a.b", "$.", "$[1", "$['a]", "$[x]", "$x", "$['a'"] {
            assert!(parse_path(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn values_are_set_and_strings_continued() {
        let mut root = json!({});
        set_path(&mut root, "$.a[0].b", json!("x"), false).unwrap();
        set_path(&mut root, "$.a[0].b", json!("y"), true).unwrap();
        set_path(&mut root, "$.a[1]", json!(2), false).unwrap();
        set_path(&mut root, "$.c", json!(true), true).unwrap();
        assert_eq!(root, json!({"a": [{"b": "xy"}, 2], "c": true}));
        // Skipping elements would let one fragment allocate without bound.
        assert!(set_path(&mut root, "$.a[1000000000]", json!(1), false).is_err());
        assert!(set_path(&mut root, "$.c.d", json!(1), false).is_err());
        assert!(set_path(&mut root, "$", json!(1), false).is_err());
    }
}
