//! The whole arguments pipeline (repair, coercion, validation, feedback) on any input, through
//! the public Toolbox API: every call gets exactly one result, with its id, and nothing panics.
//! Two tools: a dynamic one with a rich raw schema (the long way), and a `#[tool]` fn whose
//! schema has rules beyond serde (the fast path that checks them while serde reads).

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};
use tool_runtime::{DynamicTool, ToolCall, ToolDefinition, Toolbox};

/// Nested rules.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Page {
    /// Items per page.
    #[schemars(range(min = 1, max = 50))]
    pub size: Option<u32>,
    /// A label.
    #[schemars(length(min = 1, max = 4), regex(pattern = r"^[a-z]+$"))]
    pub label: Option<String>,
}

/// Rules beyond serde, checked in passing.
#[toolwright::tool]
fn rules(
    /// A ratio.
    #[schemars(range(min = 0.5, max = 10.0))]
    ratio: f64,
    /// Tags.
    #[schemars(length(min = 1, max = 3))]
    tags: Vec<String>,
    /// A page.
    page: Option<Page>,
) -> String {
    format!("{ratio} {tags:?} {page:?}")
}

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
        Toolbox::new().with(tool).unwrap().with(rules {}).unwrap()
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for name in ["search", "rules"] {
        let call = ToolCall::new("fuzz-1", name, text);
        let result = toolbox().execute_blocking(&call, &());
        assert_eq!(result.call_id, "fuzz-1");
        assert!(!result.text().is_empty());
    }
});
