//! The whole arguments pipeline (repair, coercion, validation, feedback) on any input, through
//! the public Toolbox API: every call gets exactly one result, with its id, and nothing panics.
//! Six tools: a dynamic one with a rich raw schema (the long way), `#[tool]` fns whose schemas
//! have rules beyond serde of every kind (those about one value at a time, checked in passing as
//! serde reads the text; and those over whole values, checked on a tape: tagged unions, sets),
//! one whose schema says little serde does not enforce, and one whose schema says nothing beyond
//! serde but that its nested structs (one flattened) are objects (read with no rule checked).
//! Input that is JSON is also sent as a value, and must get the same verdict (valid or not) as
//! its text.

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

/// A unit.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// Celsius.
    Celsius,
    /// Fahrenheit.
    Fahrenheit,
}

/// A number or words, told apart by type.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum Amount {
    /// At most 100.
    Number(#[schemars(range(max = 100))] f64),
    /// Words.
    Words {
        /// One to five characters.
        #[schemars(length(min = 1, max = 5))]
        text: String,
    },
}

/// A tagged union (checked on the tape: the tag may come last).
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Figure {
    /// A circle.
    Circle {
        /// Not negative.
        #[schemars(range(min = 0.0))]
        radius: f64,
    },
    /// A square.
    Square {
        /// At most 10.
        #[schemars(range(max = 10))]
        side: u32,
    },
}

/// The other rules about one value at a time: integer ranges, exclusive bounds, steps, enums,
/// constants, formats, counts of members, unions picked by type.
#[toolwright::tool]
fn kinds(
    /// From -5 to 5.
    #[schemars(range(min = -5, max = 5))]
    level: i32,
    /// Between 0 and 1, both excluded.
    #[schemars(extend("exclusiveMinimum" = 0, "exclusiveMaximum" = 1))]
    share: Option<f64>,
    /// In steps of a quarter.
    #[schemars(extend("multipleOf" = 0.25))]
    step: Option<f64>,
    /// A unit.
    unit: Option<Unit>,
    /// Always "v1".
    #[schemars(extend("const" = "v1"))]
    version: Option<String>,
    /// A date.
    #[schemars(extend("format" = "date"))]
    day: Option<String>,
    /// At most two counts.
    #[schemars(extend("maxProperties" = 2))]
    counts: Option<std::collections::BTreeMap<String, u8>>,
    /// An amount.
    amount: Option<Amount>,
) -> String {
    format!("{level} {share:?} {step:?} {unit:?} {version:?} {day:?} {counts:?} {amount:?}")
}

/// Rules over whole values: a tagged union, a set.
#[toolwright::tool]
fn whole(
    /// A figure.
    figure: Figure,
    /// Units, each once.
    units: Option<std::collections::BTreeSet<Unit>>,
) -> String {
    format!("{figure:?} {units:?}")
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

/// A point: a nested struct with nothing beyond serde's types.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct Spot {
    /// Across.
    pub x: f64,
    /// Down.
    pub y: Option<i64>,
}

/// Flattened into the arguments: serde keeps its members aside, and would build `near` from an
/// array.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct Around {
    /// Nearby.
    pub near: Spot,
}

/// Nothing beyond serde but nested structs' being objects: read with no rule checked, its structs
/// objects by the deserializer's own refusal of arrays, or (flattened) by the tape's checks.
#[toolwright::tool]
fn placed(
    /// Where.
    at: Spot,
    /// More places.
    more: Vec<Spot>,
    /// What is around.
    #[serde(flatten)]
    around: Around,
) -> String {
    format!("{at:?} {more:?} {around:?}")
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
            .with(KindsTool)
            .unwrap()
            .with(WholeTool)
            .unwrap()
            .with(PlacedTool)
            .unwrap()
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // Only objects: other JSON (a string holding the arguments, say) is read differently as text.
    let value = serde_json::from_str::<Value>(text).ok().filter(Value::is_object);
    for name in ["search", "rules", "plain", "kinds", "whole", "placed"] {
        let call = ToolCall::new("fuzz-1", name, text);
        let result = toolbox().execute_blocking(&call, &());
        assert_eq!(result.call_id, "fuzz-1");
        assert!(!result.text().is_empty());
        if let Some(value) = &value {
            let call = ToolCall::new("fuzz-2", name, value.clone());
            let from_value = toolbox().execute_blocking(&call, &());
            assert_eq!(from_value.call_id, "fuzz-2");
            assert_eq!(
                from_value.is_error,
                result.is_error,
                "{name}: text and value disagree on {text:?}: {} | {}",
                result.text(),
                from_value.text()
            );
        }
    }
});
