//! Tools built at run time, and tool calls, through the public API.

use serde_json::{Map, Value, json};
use toolwright::{
    Arguments, CallStatus, DynamicTool, Outcome, Tool, ToolCall, ToolDefinition, ToolOutput,
    Toolbox,
    dynamic::{FunctionParam, ParamType},
};

fn order_definition() -> ToolDefinition {
    ToolDefinition::from_params(
        "place_order",
        "Place an order.",
        &[
            FunctionParam::new(
                "customer",
                ParamType::Object(vec![
                    FunctionParam::new("name", ParamType::String).required(),
                    FunctionParam::new(
                        "address",
                        ParamType::Object(vec![
                            FunctionParam::new("city", ParamType::String).required(),
                        ]),
                    ),
                ]),
            )
            .describe("Who orders.")
            .required(),
            FunctionParam::new(
                "lines",
                ParamType::Array(Box::new(ParamType::Object(vec![
                    FunctionParam::new("sku", ParamType::String).required(),
                    FunctionParam::new("quantity", ParamType::Integer),
                ]))),
            )
            .required(),
            FunctionParam::new("speed", ParamType::String).one_of(["standard", "express"]),
        ],
    )
}

struct Shop {
    name: &'static str,
}

fn shop_tools() -> Toolbox<Shop> {
    let order = DynamicTool::new(
        order_definition(),
        |args: Map<String, Value>, shop: &Shop| {
            let lines = args["lines"].as_array().map_or(0, Vec::len);
            Ok::<_, String>(json!({"shop": shop.name, "lines": lines, "speed": args.get("speed")}))
        },
    );
    let raw = ToolDefinition::new(
        "lookup",
        "Look a key up.",
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Lookup",
            "type": "object",
            "properties": {"key": {"type": "string"}},
            "required": ["key"]
        }),
    )
    .unwrap();
    let lookup = DynamicTool::new_async(raw, |args: Map<String, Value>, _: &Shop| async move {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        match args["key"].as_str() {
            Some("secret") => Err("that key is not for you".to_owned()),
            Some(key) => Ok(ToolOutput::text(format!("value of {key}")).with_native(key.len())),
            None => Err("key must be a string".to_owned()),
        }
    });
    Toolbox::new()
        .with(order)
        .and_then(|t| t.with(lookup))
        .unwrap()
}

#[test]
fn function_params_nest_into_a_schema() {
    let definition = order_definition();
    assert_eq!(
        definition.parameters(),
        &json!({
            "type": "object",
            "properties": {
                "customer": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "address": {
                            "type": "object",
                            "properties": {"city": {"type": "string"}},
                            "required": ["city"],
                            "additionalProperties": false
                        }
                    },
                    "required": ["name"],
                    "additionalProperties": false,
                    "description": "Who orders."
                },
                "lines": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"sku": {"type": "string"}, "quantity": {"type": "integer"}},
                        "required": ["sku"],
                        "additionalProperties": false
                    }
                },
                "speed": {"type": "string", "enum": ["standard", "express"]}
            },
            "required": ["customer", "lines"],
            "additionalProperties": false
        })
    );
    assert_eq!(definition.required_param_names(), ["customer", "lines"]);
    assert_eq!(
        definition.accepted_param_names(),
        ["customer", "lines", "speed"]
    );
}

#[test]
fn dynamic_tools_dispatch_like_macro_tools() {
    let tools = shop_tools();
    let shop = Shop { name: "corner" };
    let call = ToolCall::new(
        "c1",
        "place_order",
        r#"{"customer": {"name": "Ada"}, "lines": [{"sku": "x"}, {"sku": "y"}]}"#,
    );
    let result = tools.execute_blocking(&call, &shop);
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(result.text(), r#"{"shop":"corner","lines":2,"speed":null}"#);

    let call = ToolCall::new("c2", "place_order", r#"{"customr": {"name": "Ada"}}"#);
    let result = tools.execute_blocking(&call, &shop);
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        "invalid arguments for tool `place_order`: 3 problems: unknown argument `customr` (did you \
         mean `customer`?); missing required argument `customer` (an object); missing required \
         argument `lines` (an array of objects).
Your arguments, with each problem marked:
{
  \"customr\": {  // <- unknown argument: did you mean `customer`?
    \"name\": \"Ada\"
  }
  // \"customer\": missing, required: an object
  // \"lines\": missing, required: an array of objects
}
Required arguments: `customer` and `lines`. Accepted arguments: `customer` (an object), `lines` \
         (an array of objects), `speed` (one of \"standard\" or \"express\")."
    );
}

#[tokio::test]
async fn raw_schemas_are_canonicalized_and_respected() {
    let tools = shop_tools();
    let lookup = tools.get("lookup").unwrap().definition();
    assert_eq!(
        lookup.parameters(),
        &json!({"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]})
    );
    // The raw schema allows additional properties, so they are not refused.
    let shop = Shop { name: "corner" };
    let call = ToolCall::new("c1", "lookup", r#"{"key": "k1", "extra": 1}"#);
    let result = tools.execute(&call, &shop).await;
    assert_eq!(result.text(), "value of k1");
    assert_eq!(result.native::<usize>(), Some(&2));

    assert!(ToolDefinition::new("bad", "Not an object.", json!({"type": "string"})).is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn async_dynamic_tools_run_on_tokio() {
    let tools = shop_tools();
    let shop = Shop { name: "corner" };
    let result = tools
        .execute(
            &ToolCall::new("c1", "lookup", r#"{"key": "secret"}"#),
            &shop,
        )
        .await;
    assert!(result.is_error);
    assert_eq!(result.text(), "that key is not for you");
    assert_eq!(
        result.tool_error::<String>().map(String::as_str),
        Some("that key is not for you")
    );
}

#[test]
fn arguments_as_map_is_forgiving() {
    let map = |arguments: Arguments| ToolCall::new("c", "t", arguments).arguments_as_map();
    assert_eq!(map(Arguments::from(r#"{"a": 1}"#))["a"], 1);
    assert_eq!(map(Arguments::from(json!({"a": 2})))["a"], 2);
    for empty in [
        Arguments::from(""),
        Arguments::from("null"),
        Arguments::from(Value::Null),
        Arguments::from("[1]"),
        Arguments::from("{oops"),
    ] {
        assert!(map(empty.clone()).is_empty(), "{empty:?}");
    }
}

#[test]
fn complete_parses_or_explains_and_keeps_the_text() {
    let mut call = ToolCall::new("c", "t", r#"{"a": 1}"#);
    call.status = CallStatus::Incomplete;
    call.complete().unwrap();
    assert_eq!(call.status, CallStatus::Complete);
    assert_eq!(call.arguments, Arguments::Json(json!({"a": 1})));

    let mut call = ToolCall::new("c", "t", r#"{"a": 1"#);
    let err = call.complete().unwrap_err();
    assert!(err.to_string().contains("not valid JSON"), "{err}");
    assert_eq!(
        call.arguments,
        Arguments::Text(r#"{"a": 1"#.into()),
        "nothing is lost"
    );

    let mut call = ToolCall::new("c", "t", "");
    call.complete().unwrap();
    assert_eq!(call.arguments, Arguments::Json(json!({})));
}

#[test]
fn calls_deserialize_from_provider_neutral_json() {
    let call: ToolCall =
        serde_json::from_value(json!({"call_id": "c1", "name": "add", "arguments": "{\"a\":1}"}))
            .unwrap();
    assert_eq!(call.arguments, Arguments::Text("{\"a\":1}".into()));
    let call: ToolCall =
        serde_json::from_value(json!({"call_id": "c1", "name": "add", "arguments": {"a": 1}}))
            .unwrap();
    assert_eq!(call.arguments, Arguments::Json(json!({"a": 1})));
}

/// A hand-written tool whose `call_now` hands the arguments back, saying (`RUNS_NOW`) or not
/// that its body runs at once.
struct HandsBack<const RUNS_NOW: bool>(ToolDefinition);

impl<const RUNS_NOW: bool> Tool for HandsBack<RUNS_NOW> {
    type Args = Value;
    const RUNS_NOW: bool = RUNS_NOW;

    fn definition(&self) -> &ToolDefinition {
        &self.0
    }

    fn parse_args(
        &self,
        arguments: &Arguments,
        _: &(),
        session: &mut toolwright::args::ParseSession,
    ) -> Result<Value, toolwright::ArgumentError> {
        toolwright::args::parse(&self.0, arguments, session)
    }

    fn call<'a>(
        &'a self,
        args: Value,
        _: &'a (),
        _: toolwright::exec::CallScope<'a>,
    ) -> impl Future<Output = Outcome> + Send + 'a {
        std::future::ready(Outcome::from_serialize(json!({"awaited": args})))
    }

    fn call_now(
        &self,
        args: Value,
        _: &(),
        _: &toolwright::exec::CallScope<'_>,
    ) -> Result<Outcome, Value> {
        Err(args)
    }
}

#[test]
fn a_tool_that_runs_now_has_no_call_path() {
    let definition = || ToolDefinition::new("echo", "Echo.", json!({})).unwrap();
    let call = ToolCall::new("c", "echo", r#"{"x": 1}"#);
    // Handing the arguments back is how an async body asks to be awaited...
    let tools = Toolbox::new()
        .with(HandsBack::<false>(definition()))
        .unwrap();
    let result = tools.execute_blocking(&call, &());
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(result.text(), r#"{"awaited":{"x":1}}"#);
    // ...and an error from a tool that said its body runs at once: `call` is not awaited.
    let tools = Toolbox::new()
        .with(HandsBack::<true>(definition()))
        .unwrap();
    let result = tools.execute_blocking(&call, &());
    assert!(result.is_error);
    assert_eq!(result.text(), "the tool's sync body did not run");
}
