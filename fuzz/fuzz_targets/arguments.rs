//! The whole arguments pipeline (repair, coercion, validation, feedback) on any input, through
//! the public Toolbox API: every call gets exactly one result, with its id, and nothing panics.
//! Three tools: a dynamic one with a rich raw schema (the long way), a `#[tool]` fn whose
//! schema has rules beyond serde (the fast path that checks them on the text's tokens), and one
//! whose schema says nothing serde does not enforce (the fast path that reads the text as serde
//! asks for it).

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};
use toolwright_runtime::{DynamicTool, ToolCall, ToolDefinition, Toolbox};

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

/// An enum as serde writes it: a name, or a name and its content.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub enum Shape {
    /// A dot.
    Dot,
    /// A circle.
    Circle {
        /// Its radius.
        r: f64,
    },
    /// A label.
    Label(String),
}

/// A nested struct with nothing beyond serde's types.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Item {
    /// A name.
    pub name: String,
    /// A flag.
    #[serde(default)]
    pub on: bool,
}

/// Nothing beyond serde: its text is read as serde asks for it.
#[toolwright::tool]
fn plain(
    /// A name.
    name: String,
    /// A count.
    count: Option<i64>,
    /// Items.
    items: Vec<Item>,
    /// A shape.
    shape: Option<Shape>,
    /// Anything.
    extra: Option<Value>,
) -> String {
    format!("{name} {count:?} {items:?} {shape:?} {extra:?}")
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
        Toolbox::new()
            .with(tool)
            .unwrap()
            .with(RulesTool)
            .unwrap()
            .with(PlainTool)
            .unwrap()
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for name in ["search", "rules", "plain"] {
        let call = ToolCall::new("fuzz-1", name, text);
        let result = toolbox().execute_blocking(&call, &());
        assert_eq!(result.call_id, "fuzz-1");
        assert!(!result.text().is_empty());
    }
});
