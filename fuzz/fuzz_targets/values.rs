//! Arguments built as JSON values (of any depth and shape, not only what text can say), through
//! every way a value reaches a tool: `ToolCall::new` with a value, the Anthropic, Gemini and
//! MCP readers, an Anthropic stream and a Gemini `partialArgs` stream, and a hook that rewrites
//! the arguments. Everything runs on a thread with a 1 MiB stack, half a tokio worker's: nothing
//! may recurse per level of the value (values here reach a million levels). Every call gets exactly one result with
//! its id; a value past the depth limit gets the depth error, on every path.

#![no_main]

use std::sync::{Arc, Mutex, OnceLock};

use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};
use toolwright_runtime::provider::{Assembler, Provider};
use toolwright_runtime::args::ArgumentError;
use toolwright_runtime::exec::{Before, Hook};
use toolwright_runtime::{Arguments, DynamicTool, ToolCall, ToolDefinition, Toolbox};

/// Rules beyond serde, checked in passing.
#[toolwright::tool]
fn rules(
    /// A ratio.
    #[schemars(range(min = 0.5, max = 10.0))]
    ratio: f64,
    /// Anything.
    extra: Option<Value>,
) -> String {
    format!("{ratio} {}", extra.is_some())
}

/// Replaces every call's arguments with the value of the current input.
struct Rewrite(Arc<Mutex<Option<Value>>>);

impl<C: ?Sized> Hook<C> for Rewrite {
    fn before(&self, _: &ToolDefinition, _: &ToolCall, _: &C) -> Before {
        match self.0.lock().unwrap().take() {
            Some(value) => Before::Rewrite(Arguments::Json(value)),
            None => Before::Continue,
        }
    }
}

struct Tools {
    plain: Toolbox,
    hooked: Toolbox,
    rewrite: Arc<Mutex<Option<Value>>>,
}

fn tools() -> &'static Tools {
    static TOOLS: OnceLock<Tools> = OnceLock::new();
    TOOLS.get_or_init(|| {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": "array", "items": {"$ref": "#/$defs/Node"}, "uniqueItems": true},
                "n": {"type": "integer", "minimum": 0},
            },
            "$defs": {"Node": {"anyOf": [
                {"type": "object", "additionalProperties": {"$ref": "#/$defs/Node"}},
                {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                {"type": ["string", "number", "boolean", "null"]},
            ]}},
        });
        let definition = ToolDefinition::new("tree", "Take a tree.", schema).unwrap();
        let tree = || {
            DynamicTool::new(definition.clone(), |args: Map<String, Value>, _: &()| {
                json!(args.len())
            })
        };
        let rewrite = Arc::new(Mutex::new(None));
        Tools {
            plain: Toolbox::new().with(tree()).unwrap().with(RulesTool).unwrap(),
            hooked: Toolbox::new()
                .with(tree())
                .unwrap()
                .with(RulesTool)
                .unwrap()
                .with_hook(Rewrite(Arc::clone(&rewrite))),
            rewrite,
        }
    })
}

/// A value from the input, read as a little program: each byte pushes a scalar, opens or
/// closes a container, or wraps what was built in many levels at once, so that depths of
/// thousands take a few bytes. Bounded to about a million values in all.
fn build(data: &[u8]) -> Value {
    let mut budget = 1_000_000usize;
    let mut stack: Vec<Value> = vec![Value::Object(Map::new())];
    let mut bytes = data.iter().copied();
    while let Some(op) = bytes.next() {
        let arg = bytes.next().unwrap_or(0);
        match op % 8 {
            0 => push(&mut stack, Value::from(arg)),
            1 => push(&mut stack, Value::from(format!("s{arg}"))),
            2 => push(&mut stack, [Value::Null, Value::Bool(true), json!(-1.5)][arg as usize % 3].clone()),
            3 => stack.push(Value::Array(Vec::new())),
            4 => stack.push(Value::Object(Map::new())),
            5 if stack.len() > 1 => {
                let done = stack.pop().unwrap();
                push(&mut stack, done);
            }
            6 => {
                let levels = (usize::from(arg) * 64).min(budget);
                budget -= levels;
                let mut inner = stack.pop().unwrap_or(Value::Null);
                for level in 0..levels {
                    inner = if level % 2 == 0 {
                        Value::Array(vec![inner])
                    } else {
                        Value::Object(Map::from_iter([("k".to_owned(), inner)]))
                    };
                }
                stack.push(inner);
            }
            7 => {
                let copies = usize::from(arg % 16).min(budget);
                budget -= copies;
                if let Some(Value::Array(items)) = stack.last_mut() {
                    items.extend((0..copies).map(|i| Value::from(i as u64)));
                }
            }
            _ => {}
        }
    }
    while stack.len() > 1 {
        let done = stack.pop().unwrap();
        push(&mut stack, done);
    }
    stack.pop().unwrap()
}

/// Adds `value` to the container on top: an array's next item, or an object's next member.
fn push(stack: &mut Vec<Value>, value: Value) {
    match stack.last_mut() {
        Some(Value::Array(items)) => items.push(value),
        Some(Value::Object(map)) => {
            let key = if map.is_empty() { "a".to_owned() } else { format!("k{}", map.len()) };
            map.insert(key, value);
        }
        _ => stack.push(value),
    }
}

/// Nesting depth, without recursion.
fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut pending = vec![(value, 0)];
    while let Some((value, level)) = pending.pop() {
        match value {
            Value::Array(items) => {
                deepest = deepest.max(level + 1);
                pending.extend(items.iter().map(|item| (item, level + 1)));
            }
            Value::Object(map) => {
                deepest = deepest.max(level + 1);
                pending.extend(map.values().map(|item| (item, level + 1)));
            }
            _ => {}
        }
    }
    deepest
}

/// Drops a value without recursion (serde_json's own drop recurses per level).
fn dispose(value: Value) {
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::Array(items) => pending.extend(items),
            Value::Object(map) => pending.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

/// Every way the value reaches a tool, each giving calls to run.
fn calls_for(value: &Value) -> Vec<ToolCall> {
    let mut calls = vec![
        ToolCall::new("direct-tree", "tree", value.clone_deep()),
        ToolCall::new("direct-rules", "rules", value.clone_deep()),
    ];
    let bodies = [
        (Provider::Anthropic, json!({"content": [{"type": "tool_use", "id": "anthropic", "name": "tree", "input": null}]}), "/content/0/input"),
        (Provider::Gemini, json!({"candidates": [{"content": {"parts": [{"functionCall": {"id": "gemini", "name": "tree", "args": null}}]}}]}), "/candidates/0/content/parts/0/functionCall/args"),
        (Provider::Mcp, json!({"jsonrpc": "2.0", "id": "mcp", "method": "tools/call", "params": {"name": "tree", "arguments": null}}), "/params/arguments"),
    ];
    for (provider, mut body, at) in bodies {
        *body.pointer_mut(at).unwrap() = value.clone_deep();
        if let Ok(turn) = provider.read_response(&body) {
            calls.extend(turn.calls);
        }
        dispose(body);
    }
    let mut start = json!({"type": "content_block_start", "index": 0,
        "content_block": {"type": "tool_use", "id": "stream", "name": "tree", "input": null}});
    start["content_block"]["input"] = value.clone_deep();
    let mut stream = Assembler::new(Provider::Anthropic);
    let _ = stream.push(&start);
    let _ = stream.push(&json!({"type": "content_block_stop", "index": 0}));
    calls.extend(stream.finish());
    dispose(start);
    let mut chunk = json!({"candidates": [{"content": {"parts": [{"functionCall": {"id": "partial", "name": "tree",
        "partialArgs": [{"jsonPath": "$.a[0]", "structValue": null}]}}]}}]});
    *chunk.pointer_mut("/candidates/0/content/parts/0/functionCall/partialArgs/0/structValue").unwrap() =
        value.clone_deep();
    let mut stream = Assembler::new(Provider::Gemini);
    let _ = stream.push(&chunk);
    calls.extend(stream.finish());
    dispose(chunk);
    calls
}

/// A deep copy without recursion.
trait CloneDeep {
    fn clone_deep(&self) -> Value;
}

impl CloneDeep for Value {
    fn clone_deep(&self) -> Value {
        // Rebuilt from the leaves up: a post-order walk over (value, children done) frames.
        let mut out: Vec<Value> = Vec::new();
        let mut pending: Vec<(&Value, bool)> = vec![(self, false)];
        while let Some((value, expanded)) = pending.pop() {
            match value {
                Value::Array(items) if !expanded => {
                    pending.push((value, true));
                    pending.extend(items.iter().rev().map(|item| (item, false)));
                }
                Value::Object(map) if !expanded => {
                    pending.push((value, true));
                    pending.extend(map.values().rev().map(|item| (item, false)));
                }
                Value::Array(items) => {
                    let at = out.len() - items.len();
                    let children: Vec<Value> = out.drain(at..).collect();
                    out.push(Value::Array(children));
                }
                Value::Object(map) => {
                    let at = out.len() - map.len();
                    let members: Map<String, Value> =
                        map.keys().cloned().zip(out.drain(at..)).collect();
                    out.push(Value::Object(members));
                }
                scalar => out.push(scalar.clone()),
            }
        }
        out.pop().unwrap_or(Value::Null)
    }
}

fn check(value: Value) {
    let deep = depth(&value) > 128;
    let tools = tools();
    let calls = calls_for(&value);
    for call in &calls {
        let result = tools.plain.execute_blocking(call, &());
        assert_eq!(result.call_id, call.call_id);
        assert!(!result.text().is_empty());
        // Every path that brings the value whole as the arguments refuses it past the limit.
        if deep && call.call_id != "partial" && matches!(call.arguments, Arguments::Json(Value::Object(_))) {
            assert!(
                matches!(result.argument_error(), Some(ArgumentError::TooDeep { .. })),
                "{}: {}",
                call.call_id,
                result.text()
            );
        }
    }
    // A hook rewriting the arguments to the value.
    *tools.rewrite.lock().unwrap() = Some(value.clone_deep());
    let call = ToolCall::new("hooked", "tree", "{}");
    let result = tools.hooked.execute_blocking(&call, &());
    assert_eq!(result.call_id, "hooked");
    if deep {
        assert!(matches!(result.argument_error(), Some(ArgumentError::TooDeep { .. })));
    }
    for call in calls {
        if let Arguments::Json(value) = call.arguments {
            dispose(value);
        }
    }
    dispose(value);
}

fuzz_target!(|data: &[u8]| {
    let value = build(data);
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || check(value))
        .unwrap()
        .join()
        .unwrap();
});
