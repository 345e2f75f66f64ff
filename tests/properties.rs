//! Contracts that hold for every input: dispatch never panics and answers every call exactly once,
//! with its own call id, whatever the model sends.

#[path = "../examples/demo/mod.rs"]
#[allow(dead_code)]
mod demo;

use proptest::prelude::*;
use serde_json::{Value, json};
use toolwright::{Arguments, ToolCall};

const TOOLS: &[&str] = &[
    "add",
    "get_weather",
    "divide",
    "set_tags",
    "update_preferences",
    "search",
    "whoami",
    "create_invoice",
    "no_such_tool",
];

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map("[a-z_]{1,12}", inner, 0..5)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

fn arguments() -> impl Strategy<Value = Arguments> {
    prop_oneof![
        ".{0,64}".prop_map(Arguments::Text),
        json_value().prop_map(|v| Arguments::Text(v.to_string())),
        json_value().prop_map(Arguments::Json),
        // Near misses of real argument objects.
        (
            prop::sample::select(vec![
                "a",
                "b",
                "city",
                "unit",
                "tags",
                "query",
                "limit",
                "data",
                "unique_code"
            ]),
            json_value()
        )
            .prop_map(|(key, value)| Arguments::Json(json!({ key: value }))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn every_call_gets_exactly_its_own_result(
        tool in prop::sample::select(TOOLS),
        arguments in arguments(),
        id in "[a-z0-9_]{1,16}",
    ) {
        let tools = demo::toolbox();
        let call = ToolCall::new(id.clone(), tool, arguments);
        let result = tools.execute_blocking(&call, &demo::context());
        prop_assert_eq!(&result.call_id, &id);
        prop_assert_eq!(result.tool_name.as_ref(), tool);
        prop_assert!(!result.text().is_empty());
        if result.is_error {
            prop_assert!(!result.text().contains("line 1 column"), "{}", result.text());
        }
    }

    #[test]
    fn add_agrees_with_integer_addition(a in any::<i64>(), b in any::<i64>()) {
        let tools = demo::toolbox();
        let call = ToolCall::new("c", "add", json!({"a": a, "b": b}));
        let result = tools.execute_blocking(&call, &demo::context());
        match a.checked_add(b) {
            Some(sum) => prop_assert_eq!(result.text(), sum.to_string()),
            None => prop_assert!(result.is_error),
        }
    }
}
