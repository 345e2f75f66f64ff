//! The whole arguments pipeline (repair, coercion, validation, feedback) on any input, through
//! the public Toolbox API: every call gets exactly one result, with its id, and nothing panics.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};
use tool_runtime::{DynamicTool, ToolCall, ToolDefinition, Toolbox};

fn toolbox() -> &'static Toolbox {
    static TOOLS: OnceLock<Toolbox> = OnceLock::new();
    TOOLS.get_or_init(|| {
        let schema = json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1, "pattern": "^[a-z ]+$"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 50},
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
                "filter": {"$ref": "#/$defs/Filter"},
                "shape": {"oneOf": [
                    {"type": "object", "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}}, "required": ["kind", "r"]},
                    {"type": "object", "properties": {"kind": {"const": "square"}, "side": {"type": "integer"}}, "required": ["kind", "side"]}
                ]},
                "when": {"type": ["string", "null"], "format": "date-time"}
            },
            "required": ["query"],
            "additionalProperties": false,
            "$defs": {"Filter": {
                "type": "object",
                "properties": {"open": {"type": "boolean"}, "next": {"$ref": "#/$defs/Filter"}},
                "additionalProperties": false
            }}
        });
        let definition = ToolDefinition::new("search", "Search.", schema).unwrap();
        let tool = DynamicTool::new(definition, |args: Map<String, Value>, _: &()| {
            Value::Object(args)
        });
        Toolbox::new().with(tool).unwrap()
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let call = ToolCall::new("fuzz-1", "search", text);
    let result = toolbox().execute_blocking(&call, &());
    assert_eq!(result.call_id, "fuzz-1");
    assert!(!result.text().is_empty());
});
