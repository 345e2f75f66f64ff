//! Hostile and unusual input through the public API: every limit holds on every entry path
//! (arguments as text and as values, provider bodies, streams, MCP, hook rewrites), nothing
//! aborts the process, and what is echoed back to the model is bounded.

use crate::entry::RewriteTo;
use serde_json::{Map, Value, json};
use toolwright::args::{ArgumentPolicy, CoercionKind, JsonLimits, RepairKind};
use toolwright::provider::Provider;
use toolwright::{
    Arguments, DynamicTool, ToolCall, ToolDefinition, ToolResult, Toolbox,
    args::ArgumentError,
    exec::{Before, Hook},
    tool,
};

/// Echo a note.
#[tool]
fn note(
    /// The note.
    text: String,
    /// Anything else.
    extra: Option<Value>,
) -> String {
    let _ = extra;
    text
}

/// A tool whose arguments are any JSON map.
fn free() -> DynamicTool {
    let def = ToolDefinition::new("free", "Take anything.", json!({"type": "object"})).unwrap();
    DynamicTool::new(def, |args: Map<String, Value>, _: &()| json!(args.len()))
}

fn tools() -> Toolbox {
    Toolbox::new().with(NoteTool).unwrap().with(free()).unwrap()
}

/// `levels` nested one-member objects around a string, built without recursion (`json!` would
/// copy its members recursively).
fn nested(levels: usize) -> Value {
    let mut value = Value::from("deep");
    for _ in 0..levels {
        value = Value::Object(Map::from_iter([("text".to_owned(), value)]));
    }
    value
}

/// Runs `f` on a thread with a large stack (a deep value is built and dropped there, as an
/// application would on its main thread), handing it a tokio runtime whose workers have a
/// small one: anything toolwright does recursively on a worker overflows there.
fn with_small_workers(f: impl FnOnce(&tokio::runtime::Runtime) + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .thread_stack_size(512 << 10)
                .enable_all()
                .build()
                .unwrap();
            f(&runtime);
        })
        .unwrap()
        .join()
        .unwrap();
}

/// Executes each call on a worker, and checks its result is the depth error.
fn assert_too_deep(runtime: &tokio::runtime::Runtime, calls: Vec<ToolCall>) {
    let results: Vec<ToolResult> = runtime.block_on(async {
        tokio::spawn(async move {
            let tools = tools();
            let mut results = Vec::new();
            for call in &calls {
                results.push(tools.execute(call, &()).await);
            }
            // The calls hold the application's deep values: dropping them (serde_json's drop
            // recurses) is the application's business, not toolwright's, so they are leaked.
            calls.into_iter().for_each(std::mem::forget);
            results
        })
        .await
        .unwrap()
    });
    for result in results {
        assert!(result.is_error, "{}", result.text());
        assert!(
            result.text().contains(
                "the arguments nest deeper than the limit of 128 levels of objects and arrays"
            ),
            "{}",
            result.text()
        );
        assert!(matches!(
            result.argument_error(),
            Some(ArgumentError::TooDeep { limit: 128 })
        ));
    }
}

#[test]
fn deep_values_get_the_depth_error_on_a_small_stack() {
    with_small_workers(|runtime| {
        let deep = nested(20_000);
        // The last: one level past the limit, below the arguments object.
        let just_past = Value::Object(Map::from_iter([
            ("text".to_owned(), Value::from("x")),
            ("extra".to_owned(), nested(128)),
        ]));
        let calls = vec![
            ToolCall::new("c1", "note", deep.clone()),
            ToolCall::new("c2", "free", deep.clone()),
            ToolCall::new("c3", "note", just_past),
        ];
        assert_too_deep(runtime, calls);
        drop(deep);
    });
}

#[test]
fn text_and_value_stop_at_the_same_depth_with_the_same_error() {
    let tools = tools();
    for levels in [128, 129] {
        let value = nested(levels);
        let text = value.to_string();
        for call in [
            ToolCall::new("c", "free", value.clone()),
            ToolCall::new("c", "free", text),
        ] {
            let result = tools.execute_blocking(&call, &());
            if levels == 128 {
                assert_eq!(result.text(), "1", "{levels}");
            } else {
                assert_eq!(
                    result.text(),
                    "invalid arguments for tool `free`: the arguments nest deeper than the limit \
                     of 128 levels of objects and arrays; send a flatter JSON object of named \
                     arguments"
                );
            }
        }
    }
    // The same without repair: the strict parser's own limit is reported the same way.
    let strict = tools
        .clone()
        .with_argument_policy(ArgumentPolicy::new().repair(false));
    let call = ToolCall::new("c", "free", nested(300).to_string());
    assert!(matches!(
        strict.execute_blocking(&call, &()).argument_error(),
        Some(ArgumentError::TooDeep { limit: 128 })
    ));
}

#[test]
fn provider_bodies_and_mcp_keep_deep_calls_and_refuse_them() {
    with_small_workers(|runtime| {
        let deep = nested(20_000);
        let bodies = [
            (
                Provider::Anthropic,
                json!({"content": [{"type": "tool_use", "id": "toolu_1", "name": "note", "input": {}}]}),
                "/content/0/input",
            ),
            (
                Provider::Gemini,
                json!({"candidates": [{"content": {"parts": [{"functionCall": {"id": "g1", "name": "note", "args": {}}}]}}]}),
                "/candidates/0/content/parts/0/functionCall/args",
            ),
            (
                Provider::OpenAiChat,
                json!({"choices": [{"message": {"tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "note", "arguments": {}}}]}}]}),
                "/choices/0/message/tool_calls/0/function/arguments",
            ),
            (
                Provider::Mcp,
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "note", "arguments": {}}}),
                "/params/arguments",
            ),
            // The legacy Chat form.
            (
                Provider::OpenAiChat,
                json!({"choices": [{"message": {"function_call": {"name": "note", "arguments": {}}}}]}),
                "/choices/0/message/function_call/arguments",
            ),
        ];
        let mut calls = Vec::new();
        for (provider, mut body, at) in bodies {
            *body.pointer_mut(at).unwrap() = deep.clone();
            // Read on a small stack: the reader copies the arguments without recursion.
            let turn = runtime.block_on(async move {
                tokio::spawn(async move {
                    let mut turn = tools().read_response(provider, &body);
                    std::mem::forget(body);
                    // The turn's content (its blocks, kept for the next request) holds the
                    // deep value too, and is dropped here, on the small stack, without
                    // recursion; the calls go on to the application.
                    if let Ok(turn) = &mut turn {
                        let content = std::mem::take(&mut turn.content);
                        assert!(provider == Provider::Mcp || !content.is_empty());
                        drop(content);
                    }
                    turn
                })
                .await
                .unwrap()
            });
            let turn = turn.unwrap_or_else(|e| panic!("{provider:?}: {e}"));
            assert_eq!(turn.calls.len(), 1, "{provider:?}");
            assert_eq!(turn.calls[0].name, "note");
            calls.extend(turn.calls);
        }
        assert_too_deep(runtime, calls);
        drop(deep);
    });
}

#[test]
fn streamed_deep_calls_are_kept_and_refused() {
    with_small_workers(|runtime| {
        let mut start = json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "tool_use", "id": "toolu_1", "name": "note", "input": {}}});
        start["content_block"]["input"] = nested(20_000);
        let calls = runtime.block_on(async move {
            tokio::spawn(async move {
                let mut stream = tools().assembler(Provider::Anthropic);
                stream.push(&start).unwrap();
                stream
                    .push(&json!({"type": "content_block_stop", "index": 0}))
                    .unwrap();
                std::mem::forget(start);
                stream.finish()
            })
            .await
            .unwrap()
        });
        assert_eq!(calls.len(), 1);
        assert_too_deep(runtime, calls);
        // OpenAI Chat deltas whose arguments are a JSON value (some servers send one), in the
        // `tool_calls` and the legacy `function_call` forms.
        for (delta, at) in [
            (
                json!({"tool_calls": [{"index": 0, "id": "call_1", "function": {"name": "note", "arguments": {}}}]}),
                "/tool_calls/0/function/arguments",
            ),
            (
                json!({"function_call": {"name": "note", "arguments": {}}}),
                "/function_call/arguments",
            ),
        ] {
            let mut chunk = json!({"choices": [{"index": 0, "delta": delta}]});
            *chunk["choices"][0]["delta"].pointer_mut(at).unwrap() = nested(20_000);
            let calls = runtime.block_on(async move {
                tokio::spawn(async move {
                    let mut stream = tools().assembler(Provider::OpenAiChat);
                    stream.push(&chunk).unwrap();
                    stream
                        .push(&json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}))
                        .unwrap();
                    std::mem::forget(chunk);
                    stream.finish()
                })
                .await
                .unwrap()
            });
            assert_eq!(calls.len(), 1, "{at}");
            assert_too_deep(runtime, calls);
        }
    });
    // Gemini builds arguments by path: a path deeper than the limit is refused as it comes.
    let mut stream = tools().assembler(Provider::Gemini);
    let path = format!("${}", ".a".repeat(10_000));
    let error = stream
        .push(
            &json!({"candidates": [{"content": {"parts": [{"functionCall": {
            "name": "free", "partialArgs": [{"jsonPath": path, "numberValue": 1}]}}]}}]}),
        )
        .unwrap_err();
    assert!(error.to_string().contains("more than 128 steps"), "{error}");
    assert_eq!(stream.finish().len(), 1, "the call is kept");
}

/// Rewrites every call's arguments to `self.0` levels of nesting.
struct Rewrite(usize);

impl<C: ?Sized> Hook<C> for Rewrite {
    fn before(&self, _: &ToolDefinition, _: &ToolCall, _: &C) -> Before {
        Before::Rewrite(Arguments::Json(nested(self.0)))
    }
}

#[test]
fn a_hook_rewriting_to_a_deep_value_gets_the_depth_error() {
    with_small_workers(|runtime| {
        // What toolwright does with the rewritten value (check it, drop it) must not recurse.
        let tools = tools().with_hook(Rewrite(50_000));
        let result = runtime.block_on(async move {
            tokio::spawn(async move {
                let call = ToolCall::new("c", "note", r#"{"text": "hi"}"#);
                tools.execute(&call, &()).await
            })
            .await
            .unwrap()
        });
        assert!(matches!(
            result.argument_error(),
            Some(ArgumentError::TooDeep { limit: 128 })
        ));
    });
}

#[test]
fn one_size_limit_for_text_and_values_with_a_message_that_says_too_large() {
    let tools = tools();
    // Valid JSON over 8 MiB: too large, not "not valid".
    let big = "x".repeat(9 << 20);
    let text = json!({ "text": big }).to_string();
    let result = tools.execute_blocking(&ToolCall::new("c", "note", text.clone()), &());
    assert_eq!(
        result.text(),
        format!(
            "invalid arguments for tool `note`: the arguments are too large: {} bytes, more than \
             the limit of 8388608 bytes; send a smaller JSON object of named arguments",
            text.len()
        )
    );
    // The same as an object: the length of its JSON text.
    let value = json!({ "text": big });
    let result = tools.execute_blocking(&ToolCall::new("c", "note", value), &());
    assert!(matches!(
        result.argument_error(),
        Some(ArgumentError::TooLarge { size, limit: 8_388_608 }) if *size == text.len()
    ));
    // Configurable on the toolbox, for both forms.
    let small = tools.with_argument_policy(ArgumentPolicy::new().limits(JsonLimits {
        max_len: 32,
        ..JsonLimits::default()
    }));
    let short = json!({"text": "0123456789"});
    let long = json!({"text": "0123456789012345678901234567890"});
    for arguments in [Arguments::Json(short.clone()), short.to_string().into()] {
        let result = small.execute_blocking(&ToolCall::new("c", "note", arguments), &());
        assert_eq!(result.text(), "0123456789");
    }
    for arguments in [Arguments::Json(long.clone()), long.to_string().into()] {
        let result = small.execute_blocking(&ToolCall::new("c", "note", arguments), &());
        assert!(
            matches!(
                result.argument_error(),
                Some(ArgumentError::TooLarge {
                    size: 42,
                    limit: 32
                })
            ),
            "{}",
            result.text()
        );
    }
}

/// Counts the e-mails sent.
static SENT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Send an e-mail.
#[tool]
fn send_email(
    /// To whom.
    to: String,
) -> String {
    SENT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    format!("sent to {to}")
}

/// Panics after every call, then (as a second hook) counts what it sees.
struct PanicsAfter;

impl<C: ?Sized> Hook<C> for PanicsAfter {
    fn after(&self, _: &ToolDefinition, _: &ToolCall, _: &C, result: &mut ToolResult) {
        result.set_display_text("audited");
        panic!("audit log unreachable");
    }
}

struct SeesAfter(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl<C: ?Sized> Hook<C> for SeesAfter {
    fn after(&self, _: &ToolDefinition, _: &ToolCall, _: &C, _: &mut ToolResult) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

#[test]
fn an_after_hook_that_panics_keeps_what_the_tool_did() {
    let seen = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let tools = Toolbox::new()
        .with(SendEmailTool)
        .unwrap()
        .with_hook(PanicsAfter)
        .with_hook(SeesAfter(seen.clone()));
    let call = ToolCall::new("c1", "send_email", r#"{"to": "ann@example.com"}"#);
    let before = SENT.load(std::sync::atomic::Ordering::SeqCst);
    for result in [
        tools.execute_blocking(&call, &()),
        futures_executor::block_on(tools.execute_all(std::slice::from_ref(&call), &())).remove(0),
    ] {
        // The tool ran, and the model is told so: not "failed unexpectedly", which would
        // invite it to send the e-mail again.
        assert!(!result.is_error, "{}", result.text());
        assert_eq!(result.text(), "sent to ann@example.com");
        assert_eq!(
            result.native::<String>().map(String::as_str),
            Some("sent to ann@example.com")
        );
        assert_eq!(result.display_text(), Some("audited"));
        let failures = result.hook_failures();
        assert_eq!(failures.len(), 1);
        assert_eq!(failures[0].hook, 0);
        assert_eq!(
            failures[0].message.as_deref(),
            Some("audit log unreachable")
        );
    }
    assert_eq!(SENT.load(std::sync::atomic::Ordering::SeqCst) - before, 2);
    // The hooks after it still ran.
    assert_eq!(seen.load(std::sync::atomic::Ordering::SeqCst), 2);
}

/// Take numbers of every width.
#[tool]
fn widths(
    /// A signed 64-bit integer.
    big: Option<i64>,
    /// A signed 32-bit integer.
    mid: Option<i32>,
    /// An unsigned 8-bit integer.
    small: Option<u8>,
    /// An unsigned 32-bit integer.
    count: Option<u32>,
    /// A float.
    ratio: Option<f64>,
) -> String {
    format!("{big:?} {mid:?} {small:?} {count:?} {ratio:?}")
}

fn widths_text(arguments: &str) -> String {
    let tools = Toolbox::new().with(WidthsTool).unwrap();
    tools
        .execute_blocking(&ToolCall::new("c", "widths", arguments), &())
        .text()
}

/// The first line of the message for the model (the problem summary).
fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

#[test]
fn out_of_range_integers_are_refused_on_both_edges_with_their_range() {
    // A 64-bit integer's range is the machine's, and not spelled out.
    let i64_range = "an integer, or null";
    for (arguments, found) in [
        (r#"{"big": -9223372036854775809}"#, "-9.223372036854776e+18"),
        (r#"{"big": -9223372036854776000}"#, "-9.223372036854776e+18"),
        (r#"{"big": 9223372036854775808}"#, "9223372036854775808"),
    ] {
        assert_eq!(
            first_line(&widths_text(arguments)),
            format!(
                "invalid arguments for tool `widths`: `big`: expected {i64_range}, found {found}."
            ),
            "{arguments}"
        );
    }
    // The edges themselves are taken.
    assert_eq!(
        widths_text(r#"{"big": -9223372036854775808}"#),
        "Some(-9223372036854775808) None None None None"
    );
    assert_eq!(
        widths_text(r#"{"big": 9223372036854775807}"#),
        "Some(9223372036854775807) None None None None"
    );
    // The range is said, and each problem once.
    for (arguments, message) in [
        (
            r#"{"mid": 3000000000}"#,
            "`mid`: expected an integer from -2147483648 to 2147483647, or null, found 3000000000.",
        ),
        (
            r#"{"small": 256}"#,
            "`small`: expected an integer from 0 to 255, or null, found 256.",
        ),
        (
            r#"{"count": -1}"#,
            "`count`: expected an integer at least 0, or null, found -1.",
        ),
    ] {
        assert_eq!(
            first_line(&widths_text(arguments)),
            format!("invalid arguments for tool `widths`: {message}")
        );
    }
}

#[test]
fn numbers_json_cannot_hold_are_shown_as_sent() {
    for token in ["1e400", "-1e400", "NaN", "Infinity", "-Infinity"] {
        let text = widths_text(&format!(r#"{{"ratio": {token}}}"#));
        assert_eq!(
            text,
            format!(
                "invalid arguments for tool `widths`: the arguments are not valid JSON (`{token}` \
                 is not a number JSON can hold at line 1, column 11); send one JSON object of \
                 named arguments"
            )
        );
    }
}

#[test]
fn a_key_sent_twice_is_recorded_and_the_later_value_wins() {
    let tools = Toolbox::new().with(WidthsTool).unwrap();
    for arguments in [
        r#"{"small": 500, "small": 5}"#,
        r#"{'small': 500, small: 5}"#,
    ] {
        let result = tools.execute_blocking(&ToolCall::new("c", "widths", arguments), &());
        assert_eq!(result.text(), "None None Some(5) None None", "{arguments}");
        let repairs = &result.fixes().unwrap().repairs;
        let duplicate = repairs
            .iter()
            .find(|repair| repair.kind == RepairKind::DuplicateKey)
            .unwrap_or_else(|| panic!("{arguments}: {repairs:?}"));
        assert_eq!(
            &arguments[duplicate.offset..][..7],
            if arguments.starts_with("{'") {
                "small: "
            } else {
                "\"small\""
            }
        );
    }
    // Whichever order they come in: the later one decides, and it is recorded either way.
    let result = tools.execute_blocking(
        &ToolCall::new("c", "widths", r#"{"small": 5, "small": 500}"#),
        &(),
    );
    assert!(result.is_error);
    assert!(result.fixes().is_some_and(|fixes| {
        fixes
            .repairs
            .iter()
            .any(|r| r.kind == RepairKind::DuplicateKey)
    }));
    // Strict reading refuses to guess.
    let strict = Toolbox::new()
        .with(WidthsTool)
        .unwrap()
        .with_argument_policy(ArgumentPolicy::new().repair(false));
    let result = strict.execute_blocking(
        &ToolCall::new("c", "widths", r#"{"small": 500, "small": 5}"#),
        &(),
    );
    assert_eq!(
        result.text(),
        "invalid arguments for tool `widths`: the arguments are not valid JSON (a key appears \
         twice in one object, so which value is meant is unclear at line 1, column 16); send one \
         JSON object of named arguments"
    );
}

#[test]
fn arguments_sent_as_one_json_string_are_decoded_and_recorded() {
    let tools = Toolbox::new().with(WidthsTool).unwrap();
    for arguments in [
        Arguments::Text(r#""{\"small\": 2}""#.to_owned()),
        Arguments::Json(json!("{\"small\": 2}")),
    ] {
        let result = tools.execute_blocking(&ToolCall::new("c", "widths", arguments), &());
        assert_eq!(result.text(), "None None Some(2) None None");
        let coercions = &result.fixes().unwrap().coercions;
        assert_eq!(coercions.len(), 1);
        assert_eq!(coercions[0].kind, CoercionKind::StringToJson);
        assert!(coercions[0].path.is_root());
    }
}

/// Count distinct tags.
#[tool]
fn distinct(
    /// Tags, each once.
    tags: std::collections::BTreeSet<String>,
) -> usize {
    tags.len()
}

/// Sum numbers.
#[tool]
fn sum(
    /// The numbers.
    values: Vec<i64>,
) -> i64 {
    values.iter().sum()
}

#[test]
fn large_valid_arrays_within_the_size_limit_are_checked_to_the_end() {
    // 250,000 distinct items with `uniqueItems`: checked in linear time, and taken.
    let tags: Vec<String> = (0..250_000).map(|i| format!("t{i}")).collect();
    let tools = Toolbox::new()
        .with(DistinctTool)
        .unwrap()
        .with(SumTool)
        .unwrap();
    // Through the slow path (a stringified number elsewhere is not needed: the dynamic check
    // is the one that counted work).
    let free = ToolDefinition::new(
        "unique",
        "Distinct tags.",
        json!({"type": "object", "properties": {"tags": {"type": "array", "uniqueItems": true, "items": {"type": "string"}}}}),
    )
    .unwrap();
    let tools = tools
        .with(DynamicTool::new(
            free,
            |args: Map<String, Value>, _: &()| json!(args["tags"].as_array().map_or(0, Vec::len)),
        ))
        .unwrap();
    let arguments = json!({ "tags": tags });
    for name in ["distinct", "unique"] {
        let result = tools.execute_blocking(&ToolCall::new("c", name, arguments.clone()), &());
        assert_eq!(result.text(), "250000", "{name}");
    }
    // One repeated item among them is found, and named.
    let mut repeated = tags.clone();
    repeated.push("t7".to_owned());
    let result = tools.execute_blocking(
        &ToolCall::new("c", "unique", json!({ "tags": repeated })),
        &(),
    );
    assert!(
        first_line(&result.text()).contains("found a repeated item at [250000]: \"t7\""),
        "{}",
        first_line(&result.text())
    );
    // 200,000 values each coerced ("7" for 7): all of them, with no budget message.
    let strings: Vec<String> = (0..200_000).map(|i| (i % 10).to_string()).collect();
    let result = tools.execute_blocking(
        &ToolCall::new("c", "sum", json!({ "values": strings })),
        &(),
    );
    assert_eq!(result.text(), "900000");
    assert_eq!(result.fixes().unwrap().coercions.len(), 200_000);
}

/// Pushes each chunk, collecting the errors, and finishes.
fn assemble(provider: Provider, chunks: &[Value]) -> (Vec<ToolCall>, Vec<String>) {
    let mut stream = toolwright::provider::Assembler::new(provider);
    let errors = chunks
        .iter()
        .filter_map(|chunk| stream.push(chunk).err().map(|e| e.to_string()))
        .collect();
    (stream.finish(), errors)
}

#[test]
fn an_openai_call_started_with_a_bad_name_is_kept_and_reported() {
    let (calls, errors) = assemble(
        Provider::OpenAiChat,
        &[
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_1", "function": {"name": 5, "arguments": "{\"a\""}}]}}]}),
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": ": 1}"}}]}}]}),
            json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
        ],
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("chunk 1"), "{errors:?}");
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].call_id, "call_1");
    assert_eq!(
        calls[0].arguments,
        Arguments::Text(r#"{"a": 1}"#.to_owned())
    );
}

fn block_start(index: usize, id: &str, name: &str, input: Value) -> Value {
    json!({"type": "content_block_start", "index": index,
        "content_block": {"type": "tool_use", "id": id, "name": name, "input": input}})
}

fn input_delta(index: usize, partial: &str) -> Value {
    json!({"type": "content_block_delta", "index": index,
        "delta": {"type": "input_json_delta", "partial_json": partial}})
}

fn block_stop(index: usize) -> Value {
    json!({"type": "content_block_stop", "index": index})
}

#[test]
fn anthropic_blocks_started_twice_at_one_index_stay_apart() {
    let (calls, errors) = assemble(
        Provider::Anthropic,
        &[
            json!({"type": "message_start", "message": {"content": []}}),
            block_start(0, "toolu_1", "note", json!({})),
            input_delta(0, r#"{"text": "one"}"#),
            block_start(0, "toolu_2", "note", json!({})),
            input_delta(0, r#"{"text": "two"}"#),
            block_stop(0),
        ],
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("chunk 4") && errors[0].contains("started again"),
        "{errors:?}"
    );
    let got: Vec<(&str, &Arguments)> = calls
        .iter()
        .map(|c| (c.call_id.as_str(), &c.arguments))
        .collect();
    assert_eq!(
        got,
        [
            ("toolu_1", &Arguments::Text(r#"{"text": "one"}"#.to_owned())),
            ("toolu_2", &Arguments::Text(r#"{"text": "two"}"#.to_owned())),
        ]
    );
    // The first never got its stop.
    assert_eq!(calls[0].status, toolwright::CallStatus::Incomplete);
    assert_eq!(calls[1].status, toolwright::CallStatus::Complete);
}

#[test]
fn an_anthropic_start_with_input_then_deltas_keeps_both() {
    let (calls, errors) = assemble(
        Provider::Anthropic,
        &[
            block_start(0, "toolu_1", "note", json!({"text": "from the start"})),
            input_delta(0, r#"{"text": "streamed"}"#),
            block_stop(0),
        ],
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("start_input"), "{errors:?}");
    assert_eq!(
        calls[0].arguments,
        Arguments::Text(r#"{"text": "streamed"}"#.to_owned())
    );
    assert_eq!(
        calls[0].metadata["start_input"],
        json!({"text": "from the start"})
    );
    // An empty start, as Anthropic sends it, is no news.
    let (_, errors) = assemble(
        Provider::Anthropic,
        &[
            block_start(0, "toolu_1", "note", json!({})),
            input_delta(0, "{}"),
            block_stop(0),
        ],
    );
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn anthropic_calls_whole_in_message_start_are_read() {
    // Programmatic tool calling: the follow-up response's stream starts with the blocks so far.
    let (calls, errors) = assemble(
        Provider::Anthropic,
        &[
            json!({"type": "message_start", "message": {"id": "msg_2", "role": "assistant", "content": [
                {"type": "text", "text": "Running it."},
                {"type": "tool_use", "id": "toolu_9", "name": "note", "input": {"text": "whole"}},
            ]}}),
            block_start(2, "toolu_10", "note", json!({})),
            input_delta(2, r#"{"text": "streamed"}"#),
            block_stop(2),
            json!({"type": "message_stop"}),
        ],
    );
    assert!(errors.is_empty(), "{errors:?}");
    let got: Vec<(&str, toolwright::CallStatus)> = calls
        .iter()
        .map(|c| (c.call_id.as_str(), c.status))
        .collect();
    assert_eq!(
        got,
        [
            ("toolu_9", toolwright::CallStatus::Complete),
            ("toolu_10", toolwright::CallStatus::Complete)
        ]
    );
    assert_eq!(
        calls[0].arguments,
        Arguments::Json(json!({"text": "whole"}))
    );
}

#[test]
fn made_up_ids_are_reported_marked_and_never_sent_as_the_providers() {
    // A Responses call added without `call_id`, and never given one.
    let (calls, errors) = assemble(
        Provider::OpenAiResponses,
        &[
            json!({"type": "response.output_item.added", "output_index": 0,
                "item": {"type": "function_call", "id": "fc_1", "name": "note", "arguments": ""}}),
            json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0, "delta": "{\"text\": \"x\"}"}),
            json!({"type": "response.output_item.done", "output_index": 0,
                "item": {"type": "function_call", "id": "fc_1", "name": "note", "arguments": "{\"text\": \"x\"}"}}),
        ],
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("chunk 3") && errors[0].contains("without a `call_id`"),
        "{errors:?}"
    );
    assert!(calls[0].id_generated);
    // An OpenAI Chat body without an id.
    let body = json!({"choices": [{"message": {"role": "assistant", "tool_calls": [
        {"type": "function", "function": {"name": "note", "arguments": "{\"text\": \"x\"}"}}]}}]});
    let turn = Provider::OpenAiChat.read_response(&body).unwrap();
    assert!(turn.calls[0].id_generated);
    let tools = tools();
    for (provider, call) in [
        (Provider::OpenAiResponses, &calls[0]),
        (Provider::OpenAiChat, &turn.calls[0]),
    ] {
        let result = tools.execute_blocking(call, &());
        let error = tools.encode_result(provider, call, &result).unwrap_err();
        assert!(
            error.to_string().contains("was made up for it on intake"),
            "{error}"
        );
    }
}

#[test]
fn two_calls_under_one_id_are_refused_not_swapped() {
    let tools = tools();
    let calls = [
        ToolCall::new("same", "note", r#"{"text": "first"}"#),
        ToolCall::new("same", "note", r#"{"text": "second"}"#).with_index(1),
    ];
    let mut results: Vec<ToolResult> = calls
        .iter()
        .map(|c| tools.execute_blocking(c, &()))
        .collect();
    results.reverse();
    for provider in [Provider::OpenAiChat, Provider::Anthropic, Provider::Gemini] {
        let error = tools
            .encode_results(provider, &calls, &results)
            .unwrap_err();
        assert!(
            error
                .to_string()
                .contains("calls 0 and 1 share the id `same`"),
            "{error}"
        );
    }
}

#[test]
fn gemini_paths_take_rfc_9535_quoted_names() {
    let (calls, errors) = assemble(
        Provider::Gemini,
        &[
            json!({"candidates": [{"content": {"parts": [{"functionCall": {"name": "free", "partialArgs": [
                {"jsonPath": r"$['it\'s']", "stringValue": "quote"},
                {"jsonPath": r"$['back\\slash']", "numberValue": 1},
                {"jsonPath": r#"$["dq\"key"].inner[0]"#, "boolValue": true},
            ]}}]}}]}),
        ],
    );
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(
        calls[0].arguments,
        Arguments::Json(json!({"it's": "quote", "back\\slash": 1, "dq\"key": {"inner": [true]}}))
    );
}

#[test]
fn echoed_names_keys_and_ids_are_bounded_and_escaped() {
    let tools = tools();
    // A 5 MB tool name: the result text stays small, and says how long the name was.
    let name = "x".repeat(5_000_000);
    let result = tools.execute_blocking(&ToolCall::new("c", name.as_str(), "{}"), &());
    assert!(result.text().len() < 500, "{}", result.text().len());
    assert!(
        result.text().contains("(5000000 characters)"),
        "{}",
        result.text()
    );
    // A 5 MB unknown key (within the size limit), echoed in the summary and the annotated
    // arguments: bounded.
    let key = "k".repeat(5_000_000);
    let arguments = json!({ "text": "hi", key.as_str(): 1 });
    let result = tools.execute_blocking(&ToolCall::new("c", "note", arguments), &());
    assert!(result.is_error);
    assert!(result.text().len() < 2_000, "{}", result.text().len());
    assert!(
        result.text().contains("(5000000 characters)"),
        "{}",
        result.text()
    );
    // Control characters in a name are shown escaped, not raw.
    let result = tools.execute_blocking(&ToolCall::new("c", "no\u{0}te\u{1b}[2J\r\n", "{}"), &());
    let text = result.text();
    assert!(
        text.starts_with(r"unknown tool `no\u0000te\u001b[2J\r\n`"),
        "{text}"
    );
    assert!(
        !text.contains('\u{0}') && !text.contains('\u{1b}') && !text.contains('\r'),
        "{text}"
    );
}

/// Released at the end of the test that holds its bodies forever.
static RELEASE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Wait for a lock that is never released.
#[tool(blocking, concurrent, timeout = "50ms")]
fn stuck() -> String {
    while !RELEASE.load(std::sync::atomic::Ordering::SeqCst) {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    "released".to_owned()
}

#[test]
fn a_blocking_body_that_never_returns_times_out_and_never_holds_up_shutdown() {
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let results = runtime.block_on(async {
            let tools = Toolbox::new()
                .with(StuckTool)
                .unwrap()
                .with(NoteTool)
                .unwrap();
            let calls = [
                ToolCall::new("c1", "stuck", "{}"),
                ToolCall::new("c2", "note", r#"{"text": "after"}"#).with_index(1),
            ];
            tools.execute_all(&calls, &()).await
        });
        // As `#[tokio::main]` does when main returns: the runtime is dropped.
        drop(runtime);
        done.send(results).unwrap();
    });
    let results = finished
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("the runtime's shutdown waited for a body that never returns");
    assert!(matches!(
        results[0].detail,
        toolwright::ResultDetail::TimedOut { .. }
    ));
    assert_eq!(results[1].text(), "after");
    RELEASE.store(true, std::sync::atomic::Ordering::SeqCst);
}

#[test]
fn a_toolbox_timeout_over_a_sync_body_decides_when_it_returns_late() {
    let def = ToolDefinition::new("slow", "Take a while.", json!({"type": "object"})).unwrap();
    let slow = DynamicTool::new(def, |_: Map<String, Value>, _: &()| {
        std::thread::sleep(std::time::Duration::from_millis(120));
        "done".to_owned()
    });
    let tools = Toolbox::new()
        .with(slow)
        .unwrap()
        .with(NoteTool)
        .unwrap()
        .with_timeout(std::time::Duration::from_millis(30));
    let calls = [
        ToolCall::new("c1", "slow", "{}"),
        ToolCall::new("c2", "note", r#"{"text": "next"}"#).with_index(1),
    ];
    let results = futures_executor::block_on(tools.execute_all(&calls, &()));
    assert!(
        matches!(results[0].detail, toolwright::ResultDetail::TimedOut { after } if after.as_millis() == 30),
        "{:?}",
        results[0].detail
    );
    assert!(
        results[0].text().contains("did not finish within 30ms"),
        "{}",
        results[0].text()
    );
    assert_eq!(results[1].text(), "next");
}

#[test]
fn the_size_limit_holds_on_readers_streams_and_hook_rewrites() {
    let small = |tools: Toolbox| {
        tools.with_argument_policy(ArgumentPolicy::new().limits(JsonLimits {
            max_len: 32,
            ..JsonLimits::default()
        }))
    };
    let long = json!({"text": "0123456789012345678901234567890"});
    let assert_too_large = |tools: &Toolbox, call: &ToolCall| {
        let result = tools.execute_blocking(call, &());
        assert!(
            matches!(
                result.argument_error(),
                Some(ArgumentError::TooLarge {
                    size: 42,
                    limit: 32
                })
            ),
            "{}: {}",
            call.call_id,
            result.text()
        );
    };
    let tools = small(tools());
    let mut calls = Vec::new();
    for (provider, body) in [
        (
            Provider::Anthropic,
            json!({"content": [{"type": "tool_use", "id": "anthropic", "name": "note", "input": long}]}),
        ),
        (
            Provider::Mcp,
            json!({"jsonrpc": "2.0", "id": "mcp", "method": "tools/call", "params": {"name": "note", "arguments": long}}),
        ),
        (
            Provider::OpenAiChat,
            json!({"choices": [{"message": {"tool_calls": [{"id": "openai", "type": "function",
                "function": {"name": "note", "arguments": long.to_string()}}]}}]}),
        ),
    ] {
        calls.extend(tools.read_response(provider, &body).unwrap().calls);
    }
    let (streamed, errors) = assemble(
        Provider::Anthropic,
        &[
            block_start(0, "stream", "note", json!({})),
            input_delta(0, &long.to_string()),
            block_stop(0),
        ],
    );
    assert!(errors.is_empty(), "{errors:?}");
    calls.extend(streamed);
    assert_eq!(calls.len(), 4);
    for call in &calls {
        assert_too_large(&tools, call);
    }
    // A hook's rewrite is held to the same limit.
    let hooked = small(tools.clone()).with_hook(RewriteTo(long.clone()));
    assert_too_large(
        &hooked,
        &ToolCall::new("hooked", "note", r#"{"text": "hi"}"#),
    );
}
