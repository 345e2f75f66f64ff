//! `#[tool]` fns through the public API: definitions, dispatch, argument feedback, injection,
//! custom parsers, panics.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolwright::args::ProblemKind;
use toolwright::{
    CallInfo, ContentPart, Interrupt, RegisterError, ResultDetail, Tool, ToolCall, ToolOutput,
    Toolbox, args::ArgumentError, exec::Decision, tool,
};

#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

type MaybeUnit = Option<Unit>;

#[derive(Debug, PartialEq, Serialize, JsonSchema)]
struct Weather {
    city: String,
    temperature: i32,
}

/// Get the current weather for a city.
///
/// # Arguments
///
/// * `city` - City name, e.g. "Paris".
/// * `unit` - Temperature unit; celsius when omitted.
#[tool(read_only, display = "Weather", tags = ["weather"])]
fn get_weather(city: String, unit: MaybeUnit) -> Weather {
    let temperature = if unit == Some(Unit::Fahrenheit) {
        70
    } else {
        21
    };
    Weather { city, temperature }
}

/// Read a file.
#[tool(name = "read_file")]
fn read(
    /// The file's path.
    #[tool(rename = "path")]
    file: String,
    /// How many bytes at most.
    #[tool(default = 1024)]
    max_bytes: u64,
    #[tool(description = "Follow symbolic links.", default)] follow: bool,
) -> String {
    format!("{file}:{max_bytes}:{follow}")
}

/// Count words, forgiving unknown arguments.
#[tool(unknown_args = "ignore")]
fn count_words(text: String) -> usize {
    text.split_whitespace().count()
}

/// Panics.
#[tool]
fn boom() -> u32 {
    panic!("secret: hunter2")
}

#[derive(Debug)]
struct Quota {
    remaining: u32,
}

impl std::fmt::Display for Quota {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "quota exceeded, {} left", self.remaining)
    }
}

/// Spend some quota.
#[tool]
fn spend(amount: u32) -> Result<u32, Quota> {
    if amount > 10 {
        Err(Quota { remaining: 10 })
    } else {
        Ok(10 - amount)
    }
}

/// Ask before deleting.
#[tool(destructive)]
fn delete_all(confirm_phrase: String) -> Interrupt {
    Interrupt::new("Delete everything?", json!({"phrase": confirm_phrase}))
}

/// Take a screenshot.
#[tool]
fn screenshot() -> ToolOutput {
    ToolOutput::parts(vec![
        ContentPart::text("here it is"),
        ContentPart::image("iVBORw0KGgo=", "image/png"),
    ])
    .with_option("cache_control", json!({"type": "ephemeral"}))
}

struct Session {
    user: String,
}

/// Who is asking.
#[tool]
async fn whoami(#[tool(context)] session: &Session, #[tool(call_info)] info: &CallInfo) -> Value {
    json!({"user": session.user, "call_id": info.call_id(), "tool": info.tool_name(), "index": info.index()})
}

fn parse_range(args: &Value) -> Result<<RangeSumTool as Tool>::Args, String> {
    // Accepts "from-to" text as well as the object form; owns validation outright.
    match args.get("range").and_then(Value::as_str) {
        Some(text) => {
            let (from, to) = text.split_once('-').ok_or("range must look like `1-10`")?;
            let from = from
                .trim()
                .parse()
                .map_err(|_| "range start must be a number")?;
            let to = to
                .trim()
                .parse()
                .map_err(|_| "range end must be a number")?;
            Ok(RangeArgs { from, to })
        }
        None => serde_json::from_value(args.clone()).map_err(|e| e.to_string()),
    }
}

type RangeArgs = <RangeSumTool as Tool>::Args;

/// Sum the integers in a range.
#[tool(parse_args = parse_range)]
fn range_sum(from: i64, to: i64) -> i64 {
    (from..=to).sum()
}

fn parse_limited(
    args: &Value,
    session: &Session,
) -> Result<<LimitedTool as Tool<Session>>::Args, String> {
    if session.user == "guest" {
        return Err("guests may not search".to_owned());
    }
    serde_json::from_value(args.clone()).map_err(|e| e.to_string())
}

/// Search, for signed-in users only.
#[tool(parse_args = parse_limited)]
fn limited(#[tool(context)] session: &Session, query: String) -> String {
    format!("{}:{query}", session.user)
}

fn toolbox() -> Toolbox<Session> {
    let mut tools = Toolbox::for_context();
    tools
        .register(GetWeatherTool)
        .and_then(|t| t.register(ReadTool))
        .and_then(|t| t.register(CountWordsTool))
        .and_then(|t| t.register(BoomTool))
        .and_then(|t| t.register(SpendTool))
        .and_then(|t| t.register(DeleteAllTool))
        .and_then(|t| t.register(ScreenshotTool))
        .and_then(|t| t.register(WhoamiTool))
        .and_then(|t| t.register(RangeSumTool))
        .and_then(|t| t.register(LimitedTool))
        .unwrap();
    tools
}

fn session() -> Session {
    Session { user: "ada".into() }
}

fn run(name: &str, arguments: impl Into<toolwright::Arguments>) -> toolwright::ToolResult {
    toolbox().execute_blocking(&ToolCall::new("call_1", name, arguments), &session())
}

#[test]
fn definitions_come_from_the_declaration() {
    let tools = toolbox();
    let names: Vec<&str> = tools.definitions().map(|d| d.name()).collect();
    assert_eq!(
        names,
        [
            "get_weather",
            "read_file",
            "count_words",
            "boom",
            "spend",
            "delete_all",
            "screenshot",
            "whoami",
            "range_sum",
            "limited"
        ]
    );

    let weather = tools.get("get_weather").unwrap().definition();
    assert_eq!(weather.description(), "Get the current weather for a city.");
    assert_eq!(weather.display_text(), Some("Weather"));
    assert_eq!(weather.tags(), ["weather"]);
    assert_eq!(weather.annotations().read_only, Some(true));
    assert_eq!(
        weather.required_param_names(),
        ["city"],
        "an aliased Option is optional"
    );
    assert_eq!(weather.accepted_param_names(), ["city", "unit"]);
    let params = weather.parameters();
    assert_eq!(params["type"], "object");
    assert_eq!(
        params["properties"]["city"]["description"],
        "City name, e.g. \"Paris\"."
    );
    assert_eq!(
        params["properties"]["unit"]["description"],
        "Temperature unit; celsius when omitted."
    );
    assert_eq!(params["additionalProperties"], false);
    assert!(params.get("$schema").is_none() && params.get("title").is_none());
    let output = weather.output_schema().expect("Weather has a schema");
    assert_eq!(output["properties"]["temperature"]["type"], "integer");

    let read = tools.get("read_file").unwrap().definition();
    assert_eq!(read.accepted_param_names(), ["path", "max_bytes", "follow"]);
    assert_eq!(read.required_param_names(), ["path"]);
    assert_eq!(
        read.parameters()["properties"]["follow"]["description"],
        "Follow symbolic links."
    );
    assert_eq!(
        read.parameters()["properties"]["path"]["description"],
        "The file's path."
    );

    let boom = tools.get("boom").unwrap().definition();
    assert_eq!(
        boom.parameters(),
        &json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
    );
    assert!(boom.accepted_param_names().is_empty());

    let ignoring = tools.get("count_words").unwrap().definition();
    assert!(ignoring.parameters().get("additionalProperties").is_none());
}

#[test]
fn valid_calls_run_with_text_or_object_arguments() {
    let result = run("get_weather", r#"{"city": "Paris", "unit": "fahrenheit"}"#);
    assert!(!result.is_error);
    assert_eq!(result.text(), r#"{"city":"Paris","temperature":70}"#);
    assert_eq!(
        result.native::<Weather>(),
        Some(&Weather {
            city: "Paris".into(),
            temperature: 70
        })
    );
    assert_eq!(result.call_id, "call_1");
    assert_eq!(result.tool_name, "get_weather");

    let result = run("get_weather", json!({"city": "Oslo"}));
    assert_eq!(result.text(), r#"{"city":"Oslo","temperature":21}"#);
}

#[test]
fn defaults_and_renames_apply() {
    assert_eq!(
        run("read_file", r#"{"path": "a.txt"}"#).text(),
        "a.txt:1024:false"
    );
    assert_eq!(
        run(
            "read_file",
            json!({"path": "a.txt", "max_bytes": 5, "follow": true})
        )
        .text(),
        "a.txt:5:true"
    );
}

#[test]
fn empty_and_null_arguments_act_as_an_empty_object() {
    for arguments in [json!(""), json!(null), json!({})] {
        let arguments: toolwright::Arguments = serde_json::from_value(arguments).unwrap();
        let result = run("screenshot", arguments.clone());
        assert!(!result.is_error, "{arguments:?}: {}", result.text());
    }
    let result = run("get_weather", "");
    assert!(result.is_error);
    assert!(
        result.text().contains("missing required argument `city`"),
        "{}",
        result.text()
    );
}

#[test]
fn misspelled_arguments_get_their_close_match_and_the_full_picture() {
    let result = run("read_file", r#"{"file_path": "a.txt"}"#);
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        "invalid arguments for tool `read_file`: 2 problems: unknown argument `file_path` (did you \
         mean `path`?); missing required argument `path` (a string).
Your arguments, with each problem marked:
{
  \"file_path\": \"a.txt\"  // <- unknown argument: did you mean `path`?
  // \"path\": missing, required: a string
}
Required arguments: `path`. Accepted arguments: `path` (a string), `max_bytes` (an integer at \
         least 0), `follow` (a boolean)."
    );
    let Some(invalid) = result.argument_error().and_then(ArgumentError::invalid) else {
        panic!("{result:?}")
    };
    assert_eq!(invalid.missing().collect::<Vec<_>>(), ["path"]);
    assert_eq!(invalid.unknown().collect::<Vec<_>>(), ["file_path"]);
    let unknown = invalid
        .problems
        .iter()
        .find(|p| p.kind == ProblemKind::Unknown)
        .unwrap();
    assert_eq!(unknown.suggestions, ["path"]);
}

#[test]
fn wrong_types_name_the_path_and_the_expected_type() {
    let result = run("read_file", r#"{"path": "a", "max_bytes": "lots"}"#);
    assert!(
        result.text().starts_with(
            "invalid arguments for tool `read_file`: `max_bytes`: expected an integer at least 0, \
             found \"lots\".\n"
        ),
        "{}",
        result.text()
    );
    let result = run("get_weather", r#"{"city": "Rome", "unit": "kelvin"}"#);
    assert!(
        result.text().contains(
            "\"unit\": \"kelvin\"  // <- expected one of \"celsius\" or \"fahrenheit\", found \"kelvin\""
        ),
        "{}",
        result.text()
    );
    assert!(!result.text().contains("line"));
    assert!(!result.text().contains("u64"), "no Rust type names");
}

#[test]
fn unknown_arguments_are_rejected_unless_the_tool_ignores_them() {
    let result = run("spend", r#"{"amount": 1, "currency": "EUR"}"#);
    assert!(result.is_error);
    assert!(
        result.text().contains("unknown argument `currency`"),
        "{}",
        result.text()
    );

    let result = run(
        "count_words",
        r#"{"text": "one two three", "language": "en"}"#,
    );
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(result.text(), "3");
}

#[test]
fn broken_json_and_non_objects_are_explained() {
    // Broken JSON is repaired, and the repair recorded.
    let result = run("spend", r#"{"amount": 1,}"#);
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(result.text(), "9");
    let fixes = result.fixes().expect("the repair is recorded");
    assert_eq!(
        fixes.repairs[0].kind,
        toolwright::args::RepairKind::TrailingComma
    );
    // Output cut off is not run by a tool that changes the world (issue 28): closing it may
    // have changed what the model meant, and the model is told where it stopped.
    let result = run("spend", r#"{"amount": 1"#);
    assert!(result.is_error);
    assert!(
        matches!(
            result.argument_error(),
            Some(toolwright::args::ArgumentError::CutOff { offset: 12, .. })
        ),
        "{}",
        result.text()
    );
    // What cannot be understood is an error that says where.
    let result = run("spend", r#"{"amount": @}"#);
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        "invalid arguments for tool `spend`: the arguments are not valid JSON (expected a value, \
         found `@` at line 1, column 12); send one JSON object of named arguments"
    );
    let result = run("spend", "[1]");
    assert_eq!(
        result.argument_error(),
        Some(&ArgumentError::NotAnObject { found: "an array" })
    );
}

#[test]
fn unknown_tools_name_the_close_ones() {
    let result = run("get_wether", "{}");
    assert!(result.is_error);
    assert!(
        result.text().starts_with(
            "unknown tool `get_wether` (did you mean `get_weather`?). Available tools: "
        )
    );
    let ResultDetail::UnknownTool { suggestions } = &result.detail else {
        panic!("{result:?}")
    };
    assert_eq!(&**suggestions, ["get_weather"]);
}

#[test]
fn tool_errors_reach_the_model_as_text_and_the_application_typed() {
    let result = run("spend", r#"{"amount": 50}"#);
    assert!(result.is_error);
    assert_eq!(result.text(), "quota exceeded, 10 left");
    assert_eq!(result.tool_error::<Quota>().map(|q| q.remaining), Some(10));
    // A clone shares the typed error.
    assert_eq!(
        result.clone().tool_error::<Quota>().map(|q| q.remaining),
        Some(10)
    );
    assert_eq!(run("spend", r#"{"amount": 4}"#).native::<u32>(), Some(&6));
}

#[test]
fn panics_become_error_results_without_leaking_the_message() {
    let tools = toolbox();
    let result = tools.execute_blocking(&ToolCall::new("c1", "boom", ""), &session());
    assert!(result.is_error);
    assert!(!result.text().contains("hunter2"), "{}", result.text());
    assert_eq!(result.panic_message(), Some("secret: hunter2"));
    // A clone holds the payload's message.
    assert_eq!(result.clone().panic_message(), Some("secret: hunter2"));
    // The toolbox keeps working.
    let next = tools.execute_blocking(
        &ToolCall::new("c2", "spend", r#"{"amount": 1}"#),
        &session(),
    );
    assert_eq!(next.text(), "9");

    let tools = toolbox().expose_panic_messages(true);
    let result = tools.execute_blocking(&ToolCall::new("c3", "boom", ""), &session());
    assert!(result.text().contains("hunter2"), "{}", result.text());
}

#[test]
fn explicit_outputs_and_interrupts_pass_through() {
    let result = run("screenshot", "");
    assert_eq!(result.content.len(), 2);
    assert_eq!(
        result.content[1],
        ContentPart::image("iVBORw0KGgo=", "image/png")
    );
    assert_eq!(
        result.option("cache_control"),
        Some(&json!({"type": "ephemeral"}))
    );

    let result = run("delete_all", r#"{"confirm_phrase": "yes"}"#);
    assert!(!result.is_error);
    let interrupt = result.interrupt().expect("an interrupt");
    assert_eq!(interrupt.message, "Delete everything?");
    assert_eq!(interrupt.data, json!({"phrase": "yes"}));
}

#[test]
fn context_and_call_info_are_injected() {
    let tools = toolbox();
    let call = ToolCall::new("call_9", "whoami", "").with_index(3);
    let result = tools.execute_blocking(
        &call,
        &Session {
            user: "grace".into(),
        },
    );
    assert_eq!(
        serde_json::from_str::<Value>(&result.text()).unwrap(),
        json!({"user": "grace", "call_id": "call_9", "tool": "whoami", "index": 3})
    );
}

#[test]
fn custom_parsers_own_validation_and_may_run_twice() {
    assert_eq!(run("range_sum", r#"{"range": "1-4"}"#).text(), "10");
    assert_eq!(run("range_sum", r#"{"from": 2, "to": 3}"#).text(), "5");
    let result = run("range_sum", r#"{"range": "1..4"}"#);
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        "invalid arguments for tool `range_sum`: range must look like `1-10`"
    );

    let tools = toolbox();
    let call = ToolCall::new("c1", "range_sum", r#"{"range": "3-5"}"#);
    for _ in 0..2 {
        let parsed = tools.parse_arguments(&call, &session()).unwrap();
        let args = parsed.downcast::<RangeArgs>().unwrap();
        assert_eq!((args.from, args.to), (3, 5));
    }

    let guest = Session {
        user: "guest".into(),
    };
    let result =
        tools.execute_blocking(&ToolCall::new("c2", "limited", r#"{"query": "x"}"#), &guest);
    assert_eq!(
        result.text(),
        "invalid arguments for tool `limited`: guests may not search"
    );
    let result = tools.execute_blocking(
        &ToolCall::new("c3", "limited", r#"{"query": "x"}"#),
        &session(),
    );
    assert_eq!(result.text(), "ada:x");
}

#[test]
fn parse_arguments_reports_what_execution_would() {
    let tools = toolbox();
    let err = tools
        .parse_arguments(&ToolCall::new("c1", "read_file", "{}"), &session())
        .unwrap_err();
    assert!(err.is_error);
    assert!(matches!(err.detail, ResultDetail::Arguments(_)));
    let err = tools
        .parse_arguments(&ToolCall::new("c2", "nope", "{}"), &session())
        .unwrap_err();
    assert!(matches!(err.detail, ResultDetail::UnknownTool { .. }));
}

#[test]
fn duplicate_names_are_refused() {
    let mut tools = Toolbox::new();
    tools.register(SpendTool).unwrap();
    assert_eq!(
        tools.register(SpendTool).err(),
        Some(RegisterError::DuplicateName("spend".into()))
    );
    assert_eq!(tools.len(), 1);
}

#[test]
fn keyword_parameters_keep_their_plain_name() {
    /// Filter by kind.
    #[tool]
    fn filter(r#type: String, r#in: Vec<String>) -> usize {
        r#in.iter().filter(|item| **item == r#type).count()
    }

    let tools = Toolbox::new().with(FilterTool).unwrap();
    let def = tools.get("filter").unwrap().definition();
    assert_eq!(def.accepted_param_names(), ["type", "in"]);
    let call = ToolCall::new("c1", "filter", r#"{"type": "a", "in": ["a", "b", "a"]}"#);
    assert_eq!(tools.execute_blocking(&call, &()).text(), "2");
}

#[test]
fn tools_stay_plain_fns() {
    assert_eq!(
        get_weather("Paris".into(), None),
        Weather {
            city: "Paris".into(),
            temperature: 21
        }
    );
    assert_eq!(read("f".into(), 1, false), "f:1:false");
    assert!(spend(11).is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn async_tools_run_on_tokio() {
    /// Wait, then answer.
    #[tool]
    async fn slow_echo(text: String, ms: u64) -> String {
        tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
        text
    }

    let tools = Toolbox::new().with(SlowEchoTool).unwrap();
    let call = ToolCall::new("c1", "slow_echo", r#"{"text": "later", "ms": 20}"#);
    let result = tools.execute(&call, &()).await;
    assert_eq!(result.text(), "later");
    // The execution future is Send: it can be spawned.
    let tools = std::sync::Arc::new(tools);
    let handle = tokio::spawn({
        let tools = tools.clone();
        async move {
            tools
                .execute(
                    &ToolCall::new("c2", "slow_echo", r#"{"text": "spawned", "ms": 1}"#),
                    &(),
                )
                .await
        }
    });
    assert_eq!(handle.await.unwrap().text(), "spawned");
}

/// `#[tool(default = Some(..))]` on an `Option`: left out or `null` (under the default policy,
/// where `null` for an optional argument means "not given"), the default; `null` is `None` only
/// when the toolbox takes `null` as a value.
#[test]
fn a_default_on_an_option_applies_to_null_unless_null_is_a_value() {
    /// Page through results.
    #[tool]
    fn page(
        /// Items per page.
        #[tool(default = Some(5))]
        size: Option<u32>,
    ) -> String {
        format!("{size:?}")
    }

    let tools = Toolbox::new().with(PageTool).unwrap();
    let call = |arguments: &str| {
        let result = tools.execute_blocking(&ToolCall::new("c1", "page", arguments), &());
        result.text().to_owned()
    };
    assert_eq!(call("{}"), "Some(5)");
    assert_eq!(call(r#"{"size": null}"#), "Some(5)");
    assert_eq!(call(r#"{"size": 3}"#), "Some(3)");

    let tools = Toolbox::new()
        .with_argument_policy(toolwright::args::ArgumentPolicy::new().null_as_absent(false))
        .with(PageTool)
        .unwrap();
    let result = tools.execute_blocking(&ToolCall::new("c1", "page", r#"{"size": null}"#), &());
    assert_eq!(result.text(), "None");
    let result = tools.execute_blocking(&ToolCall::new("c1", "page", "{}"), &());
    assert_eq!(result.text(), "Some(5)");
}

/// Several tools at once: a tuple of handles; every name clash reported together, within the set
/// and with the toolbox; nothing registered when anything is refused.
#[test]
fn many_tools_register_in_one_call_and_every_clash_is_told() {
    /// One.
    #[tool]
    fn one() -> u8 {
        1
    }
    /// Two.
    #[tool]
    fn two() -> u8 {
        2
    }
    /// Three.
    #[tool]
    fn three() -> u8 {
        3
    }

    let tools = Toolbox::new().with_all((OneTool, TwoTool)).unwrap();
    assert_eq!(tools.len(), 2);
    let call = ToolCall::new("c1", "two", "{}");
    assert_eq!(tools.execute_blocking(&call, &()).text(), "2");

    let mut tools = tools;
    let refused = tools
        .register_all((ThreeTool, OneTool, TwoTool, ThreeTool))
        .unwrap_err();
    assert_eq!(
        refused,
        RegisterError::Several(vec![
            RegisterError::DuplicateName("one".into()),
            RegisterError::DuplicateName("two".into()),
            RegisterError::DuplicateName("three".into()),
        ])
    );
    assert_eq!(
        refused.to_string(),
        "3 of the tools could not be registered: a tool named `one` is already registered; a \
         tool named `two` is already registered; a tool named `three` is already registered"
    );
    // All or nothing: `three` is not in, and the toolbox works as before.
    assert_eq!(tools.len(), 2);
    assert!(tools.get("three").is_none());
    assert_eq!(tools.execute_blocking(&call, &()).text(), "2");
    tools.register_all((ThreeTool,)).unwrap();
    let call = ToolCall::new("c2", "three", "{}");
    assert_eq!(tools.execute_blocking(&call, &()).text(), "3");
}

/// A batch's held calls resolved in place, by call id: approved ones run, rejected ones tell the
/// model why, undecided ones stay held, and every other result stays where it was.
#[test]
fn a_batchs_interrupts_are_resolved_in_place_in_call_order() {
    /// Look a thing up.
    #[tool(read_only)]
    fn look(thing: String) -> String {
        format!("found {thing}")
    }
    /// Remove a thing, once a person agrees.
    #[tool(needs_approval, destructive)]
    fn remove(thing: String) -> String {
        format!("removed {thing}")
    }

    let tools = Toolbox::new().with_all((LookTool, RemoveTool)).unwrap();
    let calls = [
        ToolCall::new("c1", "look", r#"{"thing": "a"}"#),
        ToolCall::new("c2", "remove", r#"{"thing": "b"}"#),
        ToolCall::new("c3", "remove", r#"{"thing": "c"}"#),
        ToolCall::new("c4", "look", r#"{"thing": "d"}"#),
        ToolCall::new("c5", "remove", r#"{"thing": "e"}"#),
    ];
    let mut results = tools.execute_all_blocking(&calls, &());
    let held: Vec<&str> = results
        .iter()
        .filter(|r| r.is_interrupt())
        .map(|r| r.call_id.as_str())
        .collect();
    assert_eq!(held, ["c2", "c3", "c5"]);

    let mut asked = Vec::new();
    tools.resolve_interrupts_blocking(&calls, &mut results, &(), |call, interrupt| {
        asked.push((call.call_id.to_string(), interrupt.data.clone()));
        match call.call_id.as_str() {
            "c2" => Some(Decision::Approve),
            "c3" => Some(Decision::Reject("keep c".into())),
            _ => None,
        }
    });
    assert_eq!(
        asked,
        [
            ("c2".to_owned(), json!({"thing": "b"})),
            ("c3".to_owned(), json!({"thing": "c"})),
            ("c5".to_owned(), json!({"thing": "e"})),
        ]
    );
    let ids: Vec<&str> = results.iter().map(|r| r.call_id.as_str()).collect();
    assert_eq!(ids, ["c1", "c2", "c3", "c4", "c5"]);
    assert_eq!(results[0].text(), "found a");
    assert_eq!(results[1].text(), "removed b");
    assert!(results[2].is_error);
    assert!(
        results[2].text().contains("keep c"),
        "{}",
        results[2].text()
    );
    assert!(matches!(results[2].detail, ResultDetail::Rejected { .. }));
    assert_eq!(results[3].text(), "found d");
    assert!(results[4].is_interrupt());
}

/// Wait on tokio's timer.
#[tool]
async fn nap() -> &'static str {
    tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    "rested"
}

#[test]
fn a_tool_that_needs_tokio_run_without_it_says_so() {
    let tools = Toolbox::new().with(NapTool).unwrap();
    // `execute_blocking` runs the call on toolwright's own executor: no tokio runtime.
    let result = tools.execute_blocking(&ToolCall::new("1", "nap", "{}"), &());
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        "tool `nap` failed unexpectedly (it needs a tokio runtime, which is not running); this is not a problem with the arguments"
    );
    let panic = result.panic_message().unwrap();
    assert!(panic.contains("Tokio 1.x"), "{panic}");
    assert!(panic.contains("the README's Features section"), "{panic}");

    // Inside a runtime it runs.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let result = runtime.block_on(tools.execute(&ToolCall::new("2", "nap", "{}"), &()));
    assert_eq!(result.text(), "rested");
}

#[test]
fn results_clone_sharing_their_native_value_and_error() {
    let tools = Toolbox::new().with(GetWeatherTool).unwrap();
    let call = ToolCall::new("1", "get_weather", r#"{"city": "Paris"}"#);
    let result = tools.execute_blocking(&call, &());
    let copy = result.clone();
    assert_eq!(copy.text(), result.text());
    assert_eq!(copy.call_id, "1");
    let (a, b) = (
        result.native::<Weather>().unwrap(),
        copy.native::<Weather>().unwrap(),
    );
    assert!(std::ptr::eq(a, b), "the native value is shared, not copied");

    // Errors, argument errors and the rest of the detail come along.
    let wrong = tools.execute_blocking(&ToolCall::new("2", "get_weather", "{}"), &());
    let copy = wrong.clone();
    assert!(copy.is_error);
    assert_eq!(copy.argument_error(), wrong.argument_error());
    assert_eq!(copy.text(), wrong.text());
}
