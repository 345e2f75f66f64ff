//! Tools built at run time, and tool calls, through the public API.

use crate::entry::every_entry_path;
use serde_json::{Map, Value, json};
use toolwright::{
    Arguments, CallStatus, DynamicTool, Outcome, Tool, ToolCall, ToolDefinition, ToolOutput,
    Toolbox,
    dynamic::{FunctionParam, ParamType, UnknownArgs},
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
    Toolbox::for_context()
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
    ) -> Result<Value, toolwright::args::ArgumentError> {
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

/// Four run-time tools over one schema that says nothing of other arguments: as written, closed
/// in the schema, and each policy chosen in code. Each answers with the arguments it received.
fn unknown_args_tools() -> Toolbox {
    let schema = json!({
        "type": "object",
        "properties": {"query": {"type": "string"}},
        "required": ["query"],
    });
    let mut closed = schema.clone();
    closed["additionalProperties"] = json!(false);
    let echo = |name: &'static str, definition: ToolDefinition| {
        let definition = definition.with_name(name);
        DynamicTool::new(definition, |args: Map<String, Value>, (): &()| {
            Ok::<_, String>(Value::Object(args))
        })
    };
    let open = || ToolDefinition::new("open", "Search.", schema.clone()).unwrap();
    Toolbox::new()
        .with(echo("open", open()))
        .and_then(|t| {
            t.with(echo(
                "closed",
                ToolDefinition::new("closed", "Search.", closed).unwrap(),
            ))
        })
        .and_then(|t| {
            t.with(echo(
                "rejecting",
                open().with_unknown_args(UnknownArgs::Reject),
            ))
        })
        .and_then(|t| {
            t.with(echo(
                "ignoring",
                open().with_unknown_args(UnknownArgs::Ignore),
            ))
        })
        .and_then(|t| {
            t.with(echo(
                "allowing",
                open().with_unknown_args(UnknownArgs::Allow),
            ))
        })
        .unwrap()
}

#[test]
fn unknown_arguments_are_treated_as_the_reported_policy_says_on_every_entry_path() {
    let tools = unknown_args_tools();
    let policy = |name: &str| tools.get(name).unwrap().definition().unknown_args();
    // What each reports: a schema as written decides, a policy set in code wins.
    assert_eq!(policy("open"), UnknownArgs::Allow);
    assert_eq!(policy("closed"), UnknownArgs::Reject);
    assert_eq!(policy("rejecting"), UnknownArgs::Reject);
    assert_eq!(policy("ignoring"), UnknownArgs::Ignore);
    assert_eq!(policy("allowing"), UnknownArgs::Allow);
    // What the model is shown says the same.
    let shown = |name: &str| {
        tools.get(name).unwrap().definition().parameters()["additionalProperties"].clone()
    };
    assert_eq!(shown("open"), Value::Null);
    assert_eq!(shown("closed"), json!(false));
    assert_eq!(shown("rejecting"), json!(false));
    assert_eq!(shown("ignoring"), Value::Null);

    // Calls recorded from models: an argument the schema does not have, and an empty key.
    for (told, sent) in [
        (
            "unknown argument `max_results`",
            json!({"query": "rust", "max_results": 5}),
        ),
        (
            "unknown argument `[\"\"]`",
            json!({"query": "rust", "": {}}),
        ),
    ] {
        for name in ["open", "closed", "rejecting", "ignoring", "allowing"] {
            for (path, result) in every_entry_path(&tools, name, &sent) {
                let received = serde_json::from_str::<Value>(&result.text());
                match policy(name) {
                    UnknownArgs::Reject => {
                        assert!(result.is_error, "{name}, {path}: {}", result.text());
                        assert!(
                            result.text().contains(told),
                            "{name}, {path}: {}",
                            result.text()
                        );
                    }
                    UnknownArgs::Ignore => {
                        assert!(!result.is_error, "{name}, {path}: {}", result.text());
                        assert_eq!(
                            received.unwrap(),
                            json!({"query": "rust"}),
                            "{name}, {path}"
                        );
                    }
                    UnknownArgs::Allow => {
                        assert!(!result.is_error, "{name}, {path}: {}", result.text());
                        assert_eq!(received.unwrap(), sent, "{name}, {path}");
                    }
                }
            }
        }
    }
}

/// A tool whose arguments coercion reads as something else: one value for an array, a number in
/// a string, an object in a string.
fn coercing_tool() -> Toolbox {
    let schema = json!({
        "type": "object",
        "properties": {
            "x": {"type": "array", "items": {"type": "string", "enum": ["sales", "costs"]}},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50},
            "filter": {
                "type": "object",
                "properties": {"n": {"type": "integer", "maximum": 5}},
                "required": ["n"],
            },
        },
    });
    let definition = ToolDefinition::new("report", "Report.", schema).unwrap();
    Toolbox::new()
        .with(DynamicTool::new(
            definition,
            |args: Map<String, Value>, (): &()| Ok::<_, String>(Value::Object(args)),
        ))
        .unwrap()
}

#[test]
fn feedback_quotes_what_the_model_sent_where_it_sent_it_on_every_entry_path() {
    let tools = coercing_tool();
    for (sent, summary, marked, never) in [
        (
            // Recorded from a model: one string where an array is expected, and not an allowed
            // value; it was read as `["data['sales']"]`, the problem found at `x[0]`.
            json!({"x": "data['sales']"}),
            r#"`x`: expected one of "sales" or "costs", found "data['sales']""#,
            r#""x": "data['sales']"  // <- expected one of "sales" or "costs", found "data['sales']""#,
            r#"["data['sales']"]"#,
        ),
        (
            json!({"limit": "500"}),
            r#"`limit`: expected an integer from 1 to 50, found "500""#,
            r#""limit": "500"  // <- expected an integer from 1 to 50, found "500""#,
            "found 500",
        ),
        (
            json!({"filter": "{\"n\": 9}"}),
            r#"`filter`: expected an integer at most 5 at `n` within it, found "{\"n\": 9}""#,
            r#""filter": "{\"n\": 9}"  // <- expected an integer at most 5 at `n` within it"#,
            "filter.n",
        ),
        (
            json!({"filter": "{}"}),
            "`filter`: expected a value with the required member `n` (an integer at most 5), found \"{}\"",
            r#""filter": "{}"  // <- expected a value with the required member `n`"#,
            "missing required argument",
        ),
    ] {
        for (path, result) in every_entry_path(&tools, "report", &sent) {
            let text = result.text();
            assert!(result.is_error, "{path}: {text}");
            assert!(text.contains(summary), "{path}: {text}");
            assert!(text.contains(marked), "{path}: {text}");
            assert!(!text.contains(never), "{path}: {text}");
            // The application's typed problems are placed where the message places them.
            let invalid = result.argument_error().and_then(|e| e.invalid()).unwrap();
            assert_eq!(invalid.arguments, sent, "{path}");
            assert_eq!(invalid.problems.len(), 1, "{path}");
        }
    }
}
