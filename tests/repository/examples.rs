//! The examples are interfaces (the README's first command, and `dispatch`, which external checks
//! drive line by line): run them as a user would and check what they print.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};

use crate::data;
use crate::demo;
use crate::support;
use crate::support::example;

/// Starts an example with `args`, its stdin, stdout and stderr piped.
fn spawn(name: &str, args: &[&str]) -> Child {
    Command::new(example(name))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Runs an example with `args`, `input` on its stdin; its stdout and stderr, after checking it
/// succeeded.
fn run(name: &str, args: &[&str], input: &[u8]) -> (String, String) {
    let mut child = spawn(name, args);
    child.stdin.take().unwrap().write_all(input).unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(output.status.success(), "{name} {args:?}: {stderr}");
    (String::from_utf8(output.stdout).unwrap(), stderr)
}

/// What `dispatch` prints for `input`, as text.
fn dispatch_raw(input: &[u8]) -> String {
    run("dispatch", &[], input).0
}

fn dispatch(input: &str) -> Vec<Value> {
    dispatch_raw(input.as_bytes())
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn line(call_id: &str, name: &str, is_error: bool, content: &str) -> Value {
    json!({"call_id": call_id, "name": name, "is_error": is_error, "content": content})
}

#[test]
fn dispatch_answers_each_line_in_order() {
    let input = r#"{"id":"c1","name":"add","arguments":"{\"a\":2,\"b\":3}"}
{"id":"c2","name":"get_weather","arguments":{"city":"Paris"}}
{"id":"c3","name":"get_weather","arguments":{"city":"Paris","unit":"fahrenheit"}}
{"id":"c4","name":"divide","arguments":{"a":1,"b":0}}
{"id":"c5","name":"divide","arguments":"{\"a\":6,\"b\":3}"}
{"id":"c6","name":"set_tags","arguments":{"tags":["a","b","c"]}}
{"id":"c7","name":"update_preferences","arguments":{"unique_code":"x","data":{"auto_complete_email":true,"items_per_page":10}}}
{"id":"c8","name":"search","arguments":{"query":"rust","limit":5}}
{"id":"c9","name":"whoami","arguments":""}
{"id":"c10","name":"explode","arguments":null}
{"id":"c11","name":"create_invoice","arguments":{"vendor_name":"ACME","total_amount":"12 EUR"}}

{"id":"c12","name":"add","arguments":{"a":2}}
not a call
{"id":"c13","name":"get_wether","arguments":{}}
"#;
    let lines = dispatch(input);
    assert_eq!(lines.len(), 14, "{lines:#?}");
    assert_eq!(lines[0], line("c1", "add", false, "5"));
    assert_eq!(
        lines[1],
        line(
            "c2",
            "get_weather",
            false,
            r#"{"city":"Paris","unit":"celsius","temperature":21}"#
        )
    );
    assert_eq!(
        lines[2],
        line(
            "c3",
            "get_weather",
            false,
            r#"{"city":"Paris","unit":"fahrenheit","temperature":70}"#
        )
    );
    assert_eq!(lines[3], line("c4", "divide", true, "division by zero"));
    assert_eq!(lines[4], line("c5", "divide", false, "2.0"));
    assert_eq!(lines[5], line("c6", "set_tags", false, "3"));
    let stored: Value = serde_json::from_str(lines[6]["content"].as_str().unwrap()).unwrap();
    assert_eq!(
        stored,
        json!({"auto_complete_email": true, "items_per_page": 10})
    );
    assert_eq!(
        lines[7],
        line("c8", "search", false, r#"{"query":"rust","limit":5}"#)
    );
    assert_eq!(
        lines[8],
        line(
            "c9",
            "whoami",
            false,
            r#"{"user_id":"u-42","call_id":"c9"}"#
        )
    );
    assert_eq!(lines[9]["is_error"], true);
    assert!(
        !lines[9]["content"].as_str().unwrap().contains("secret"),
        "{}",
        lines[9]
    );
    assert_eq!(lines[10], line("c11", "create_invoice", false, "SUCCESS"));
    assert_eq!(lines[11]["is_error"], true);
    assert!(
        lines[11]["content"]
            .as_str()
            .unwrap()
            .contains("missing required argument `b`")
    );
    assert_eq!(lines[12]["call_id"], Value::Null);
    assert_eq!(lines[12]["is_error"], true);
    assert_eq!(lines[13]["is_error"], true);
    assert!(
        lines[13]["content"]
            .as_str()
            .unwrap()
            .contains("did you mean `get_weather`?")
    );
}

/// What `repair` prints for `input`, one JSON value per line.
fn repair(input: &str) -> Vec<Value> {
    run("repair", &[], input.as_bytes())
        .0
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn repair_answers_each_line_with_the_value_and_its_repairs_or_an_error() {
    let input = r#"{"input": "{a: 1,}"}
{"input": "{\"a\": [1, 2.5, null]}"}

{"input": "```json\n{\"city\": 'Paris', \"days\": [1, 2\n```"}
{"input": "no json here"}
not a line of the format
{"input": "{\"a\": @}"}
"#;
    let lines = repair(input);
    assert_eq!(lines.len(), 6, "{lines:#?}");
    assert_eq!(
        lines[0],
        json!({"ok": true, "value": {"a": 1}, "repairs": [
            {"kind": "unquoted_key", "offset": 1},
            {"kind": "trailing_comma", "offset": 5},
        ]})
    );
    assert_eq!(
        lines[1],
        json!({"ok": true, "value": {"a": [1, 2.5, null]}, "repairs": []})
    );
    assert_eq!(lines[2]["ok"], true);
    assert_eq!(lines[2]["value"], json!({"city": "Paris", "days": [1, 2]}));
    let kinds: Vec<&str> = lines[2]["repairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "code_fence",
            "unclosed_object",
            "non_standard_quotes",
            "unclosed_array",
            "code_fence"
        ]
    );
    for (i, reason) in [
        (3, "found no JSON value"),
        (4, "not a JSON object"),
        (5, "at byte 6"),
    ] {
        assert_eq!(lines[i]["ok"], false, "{}", lines[i]);
        let error = lines[i]["error"].as_str().unwrap();
        assert!(error.contains(reason), "{error}");
    }
}

/// Issue 3's checks: the whole pipeline runs behind `dispatch`.
#[test]
fn dispatch_takes_what_the_model_meant_and_explains_the_rest() {
    let input = r#"{"id":"r1","name":"add","arguments":{"a":"2","b":3}}
{"id":"r2","name":"add","arguments":"```json {\"a\":2,\"b\":3,} ```"}
{"id":"r3","name":"search","arguments":{"query":"rust","limit":0}}
{"id":"r4","name":"update_preferences","arguments":{"unique_code":"u1","data":"{\"items_per_page\": 20}"}}
{"id":"r5","name":"add","arguments":"{\"a\": 2, \"b\": 3"}
{"id":"r6","name":"search","arguments":{"qurey":"rust","limit":"500"}}
"#;
    let lines = dispatch(input);
    assert_eq!(lines[0], line("r1", "add", false, "5"));
    assert_eq!(lines[1], line("r2", "add", false, "5"));
    assert_eq!(lines[2]["is_error"], true);
    let search = lines[2]["content"].as_str().unwrap();
    assert!(
        search.contains("`limit`: expected an integer from 1 to 50, found 0"),
        "{search}"
    );
    assert_eq!(
        lines[3],
        line(
            "r4",
            "update_preferences",
            false,
            r#"{"items_per_page":20}"#
        )
    );
    assert_eq!(lines[4], line("r5", "add", false, "5"));
    // Several problems, one message: the misspelling, the missing argument, the range.
    let all = lines[5]["content"].as_str().unwrap();
    for expected in [
        "3 problems",
        "unknown argument `qurey` (did you mean `query`?)",
        "missing required argument `query` (a string)",
        // What the model sent, a string, not the number it was read as (issue 42).
        "\"limit\": \"500\"  // <- expected an integer from 1 to 50, found \"500\"",
    ] {
        assert!(all.contains(expected), "{expected:?} not in:\n{all}");
    }
}

/// Issue 28: arguments that ended early run a read-only tool (`add`) but never one that changes
/// the world (`create_invoice`, `set_tags`): the model is told where they stopped.
#[test]
fn dispatch_refuses_cut_off_arguments_to_a_tool_that_changes_the_world() {
    let input = r#"{"id":"k1","name":"add","arguments":"{\"a\": 2, \"b\": 3"}
{"id":"k2","name":"create_invoice","arguments":"{\"vendor_name\": \"ACME\", \"total_amount\": \"120.5"}
{"id":"k3","name":"set_tags","arguments":"{\"tags\": [\"a\", \"b\""}
{"id":"k4","name":"create_invoice","arguments":"{\"vendor_name\": \"ACME\", \"total_amount\": \"120.50 EUR\"}"}
"#;
    let lines = dispatch(input);
    assert_eq!(lines[0], line("k1", "add", false, "5"));
    for (at, column) in [(1, 47), (2, 19)] {
        assert_eq!(lines[at]["is_error"], true, "{}", lines[at]);
        let content = lines[at]["content"].as_str().unwrap();
        assert!(
            content.contains(&format!(
                "the arguments stopped early, at line 1, column {column}"
            )) && content.contains("so the tool was not run")
                && content.contains("Send the whole call again"),
            "{content}"
        );
    }
    // The same call sent whole runs.
    assert_eq!(lines[3], line("k4", "create_invoice", false, "SUCCESS"));
}

#[test]
fn dispatch_answers_broken_lines_without_stopping() {
    let input = b"{\"id\":\"c1\",\"arguments\":{}}\n\xff\xfe not utf-8\n[1,2]\n{\"id\":7,\"name\":\"add\",\"arguments\":{\"a\":1,\"b\":2}}\n";
    let lines: Vec<Value> = dispatch_raw(input)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 4, "{lines:#?}");
    assert_eq!(
        lines[0]["call_id"], "c1",
        "the id of a call without a name is kept"
    );
    assert_eq!(lines[0]["is_error"], true);
    assert!(
        lines[0]["content"]
            .as_str()
            .unwrap()
            .contains("no tool name")
    );
    assert_eq!(lines[1]["is_error"], true);
    assert_eq!(lines[2]["is_error"], true);
    assert_eq!(
        lines[3],
        line("7", "add", false, "3"),
        "numeric ids are kept as text"
    );
}

#[test]
fn dispatch_output_keeps_the_documented_key_order() {
    assert_eq!(
        dispatch_raw(br#"{"id":"c1","name":"add","arguments":{"a":1,"b":1}}"#),
        "{\"call_id\":\"c1\",\"name\":\"add\",\"is_error\":false,\"content\":\"2\"}\n"
    );
}

#[test]
fn quickstart_runs_offline_and_shows_what_the_model_sees() {
    let output = Command::new(example("quickstart")).output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8(output.stdout).unwrap();
    for expected in [
        "get_weather: Get the current weather for a city.",
        "unknown argument `cty` (did you mean `city`?)",
        "`data.items_per_page`: expected an integer at least 0, or null, found \"ten\"",
        "unknown tool `get_wether` (did you mean `get_weather`?)",
        "tool `explode` failed unexpectedly",
        "model sees [ok]: SUCCESS",
        "application keeps: Invoice",
    ] {
        assert!(
            text.contains(expected),
            "quickstart output lacks {expected:?}:\n{text}"
        );
    }
}

#[test]
fn providers_prints_each_form_as_its_snapshot() {
    let binary = example("providers");
    for form in [
        "openai",
        "openai-strict",
        "openai-responses",
        "anthropic",
        "anthropic-strict",
        "gemini",
        "gemini-json-schema",
        "mcp",
        "cohere",
        "bedrock",
    ] {
        let output = Command::new(&binary).arg(form).output().unwrap();
        assert!(
            output.status.success(),
            "{form}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let printed: Value = serde_json::from_slice(&output.stdout).unwrap();
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("snapshots/providers")
            .join(format!("{form}.json"));
        let snapshot = data::read_file(&path);
        assert_eq!(
            printed,
            serde_json::from_str::<Value>(&snapshot).unwrap(),
            "{form}"
        );
    }
    let unknown = Command::new(&binary).arg("mistral").output().unwrap();
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("openai-strict"));
}

/// `providers <form> --tool-choice <mode>`: the request's tool fields, what the table in
/// `toolwright::provider`'s documentation says each mode becomes.
#[test]
fn providers_prints_the_request_fields_of_each_tool_choice() {
    let binary = example("providers");
    let all = demo::toolbox().len();
    let chat_named = json!({"type": "function", "function": {"name": "add"}});
    let chat_allowed = |mode: &str| {
        json!({"type": "allowed_tools", "allowed_tools": {"mode": mode, "tools": [
            {"type": "function", "function": {"name": "add"}},
            {"type": "function", "function": {"name": "divide"}},
        ]}})
    };
    let responses_allowed = |mode: &str| {
        json!({"type": "allowed_tools", "mode": mode, "tools": [
            {"type": "function", "name": "add"}, {"type": "function", "name": "divide"},
        ]})
    };
    let gemini = |config: Value| json!({"functionCallingConfig": config});
    // (form, mode, field, value, number of tools sent)
    let cases = [
        ("openai", "auto", "tool_choice", json!("auto"), all),
        ("openai", "none", "tool_choice", json!("none"), all),
        ("openai", "required", "tool_choice", json!("required"), all),
        ("openai-strict", "tool:add", "tool_choice", chat_named, all),
        (
            "openai",
            "allowed:add,divide",
            "tool_choice",
            chat_allowed("auto"),
            all,
        ),
        (
            "openai",
            "required:add,divide",
            "tool_choice",
            chat_allowed("required"),
            all,
        ),
        (
            "openai-responses",
            "auto",
            "tool_choice",
            json!("auto"),
            all,
        ),
        (
            "openai-responses",
            "none",
            "tool_choice",
            json!("none"),
            all,
        ),
        (
            "openai-responses",
            "required",
            "tool_choice",
            json!("required"),
            all,
        ),
        (
            "openai-responses",
            "tool:add",
            "tool_choice",
            json!({"type": "function", "name": "add"}),
            all,
        ),
        (
            "openai-responses",
            "allowed:add,divide",
            "tool_choice",
            responses_allowed("auto"),
            all,
        ),
        (
            "openai-responses",
            "required:add,divide",
            "tool_choice",
            responses_allowed("required"),
            all,
        ),
        (
            "anthropic",
            "auto",
            "tool_choice",
            json!({"type": "auto"}),
            all,
        ),
        (
            "anthropic",
            "none",
            "tool_choice",
            json!({"type": "none"}),
            all,
        ),
        (
            "anthropic",
            "required",
            "tool_choice",
            json!({"type": "any"}),
            all,
        ),
        (
            "anthropic-strict",
            "tool:add",
            "tool_choice",
            json!({"type": "tool", "name": "add"}),
            all,
        ),
        (
            "anthropic",
            "allowed:add,divide",
            "tool_choice",
            json!({"type": "auto"}),
            2,
        ),
        (
            "anthropic",
            "required:add,divide",
            "tool_choice",
            json!({"type": "any"}),
            2,
        ),
        (
            "gemini",
            "auto",
            "toolConfig",
            gemini(json!({"mode": "AUTO"})),
            all,
        ),
        (
            "gemini",
            "none",
            "toolConfig",
            gemini(json!({"mode": "NONE"})),
            all,
        ),
        (
            "gemini",
            "required",
            "toolConfig",
            gemini(json!({"mode": "ANY"})),
            all,
        ),
        (
            "gemini-json-schema",
            "tool:add",
            "toolConfig",
            gemini(json!({"mode": "ANY", "allowedFunctionNames": ["add"]})),
            all,
        ),
        (
            "gemini",
            "allowed:add,divide",
            "toolConfig",
            gemini(json!({"mode": "VALIDATED", "allowedFunctionNames": ["add", "divide"]})),
            all,
        ),
        (
            "gemini",
            "required:add,divide",
            "toolConfig",
            gemini(json!({"mode": "ANY", "allowedFunctionNames": ["add", "divide"]})),
            all,
        ),
    ];
    for (form, mode, field, value, count) in cases {
        let output = Command::new(&binary)
            .args([form, "--tool-choice", mode])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{form} {mode}: {stderr}");
        let printed: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(printed[field], value, "{form} {mode}");
        let tools = &printed["tools"];
        let sent = tools[0]["functionDeclarations"]
            .as_array()
            .unwrap_or_else(|| tools.as_array().unwrap())
            .len();
        assert_eq!(sent, count, "{form} {mode}");
        assert_eq!(
            printed.as_object().unwrap().len(),
            2,
            "{form} {mode}: {printed}"
        );
    }

    // Cohere says `REQUIRED` or `NONE` (auto is the field left out) and narrows a named tool or
    // a subset; Bedrock's `toolConfig` holds the tools and the choice, auto left unsaid.
    for (form, mode, choice, count) in [
        ("cohere", "auto", Value::Null, all),
        ("cohere", "none", json!("NONE"), all),
        ("cohere", "required", json!("REQUIRED"), all),
        ("cohere", "tool:add", json!("REQUIRED"), 1),
        ("cohere", "allowed:add,divide", Value::Null, 2),
        ("cohere", "required:add,divide", json!("REQUIRED"), 2),
        ("bedrock", "auto", Value::Null, all),
        ("bedrock", "required", json!({"any": {}}), all),
        ("bedrock", "tool:add", json!({"tool": {"name": "add"}}), all),
        ("bedrock", "allowed:add,divide", Value::Null, 2),
        ("bedrock", "required:add,divide", json!({"any": {}}), 2),
    ] {
        let (stdout, stderr) = run("providers", &[form, "--tool-choice", mode], b"");
        let printed: Value = serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{stderr}"));
        let (said, tools) = if form == "cohere" {
            (&printed["tool_choice"], &printed["tools"])
        } else {
            let config = &printed["toolConfig"];
            assert_eq!(printed.as_object().unwrap().len(), 1, "{printed}");
            (&config["toolChoice"], &config["tools"])
        };
        assert_eq!(*said, choice, "{form} {mode}");
        assert_eq!(tools.as_array().unwrap().len(), count, "{form} {mode}");
    }

    // Parallel calls, and a subset narrowed where asked.
    let (stdout, _) = run(
        "providers",
        &[
            "openai",
            "--tool-choice",
            "required:add,divide",
            "--parallel-calls",
            "false",
            "--narrow-tools",
        ],
        b"",
    );
    let printed: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(printed["tool_choice"], "required");
    assert_eq!(printed["parallel_tool_calls"], false);
    assert_eq!(printed["tools"].as_array().unwrap().len(), 2);

    // What a provider cannot take is refused (1); a bad argument is a usage error (2).
    for (args, code, says) in [
        (&["mcp", "--tool-choice", "auto"][..], 1, "MCP"),
        (
            &["openai", "--tool-choice", "tool:add_numbers"],
            1,
            "did you mean `add`",
        ),
        (
            &[
                "gemini",
                "--tool-choice",
                "auto",
                "--parallel-calls",
                "false",
            ],
            1,
            "parallel",
        ),
        (&["bedrock", "--tool-choice", "none"][..], 1, "none"),
        (
            &[
                "cohere",
                "--tool-choice",
                "auto",
                "--parallel-calls",
                "false",
            ],
            1,
            "parallel",
        ),
        (
            &["openai", "--tool-choice", "maybe"],
            2,
            "expected auto, none",
        ),
        (&["openai", "--tool-choice"], 2, "needs a value"),
        (
            &["openai", "--parallel-calls", "false"],
            2,
            "go with --tool-choice",
        ),
        (
            &["openai", "--tool-choice", "auto", "--parallel-calls", "no"],
            2,
            "true or false",
        ),
    ] {
        let output = Command::new(&binary).args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?}");
    }
}

/// What `assemble` prints for a stream, and its stderr.
fn assemble(provider: &str, input: &[u8]) -> (Vec<Value>, String) {
    let (stdout, stderr) = run("assemble", &[provider], input);
    let calls = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    (calls, stderr)
}

#[test]
fn assemble_prints_each_call_of_a_recorded_stream() {
    let manifest = data::read("providers/manifest.jsonl");
    let mut streams = 0;
    for row in manifest.lines() {
        let row: Value = serde_json::from_str(row).unwrap();
        let provider = match row["format"].as_str().unwrap() {
            "openai_chat_stream" => "openai",
            "openai_responses_stream" => "openai-responses",
            "anthropic_stream" => "anthropic",
            "gemini_stream" => "gemini",
            "cohere_v2_stream" => "cohere",
            "bedrock_converse_stream" => "bedrock",
            _ => continue,
        };
        let input = std::fs::read(data::path(&format!(
            "providers/{}",
            row["file"].as_str().unwrap()
        )))
        .unwrap();
        let (calls, stderr) = assemble(provider, &input);
        let sample = row["sample_id"].as_str().unwrap();
        // Only the recorder's two unparsed lines are reported, each with its line number.
        assert_eq!(
            stderr.lines().count(),
            if row["contains_malformed_chunk_lines"] == true {
                2
            } else {
                0
            },
            "{sample}: {stderr}"
        );
        assert!(stderr.lines().all(|l| l.starts_with("line ")), "{stderr}");
        let expected = row["expected_tool_calls"].as_array().unwrap();
        if sample.contains("reasoning-encrypted-content") {
            // Three responses in one stream; see tests/data/providers/README.md.
            assert_eq!(calls.len(), 3, "{sample}");
        } else {
            // Calls an Anthropic `message_start` carries whole come after the manifest's (which
            // leaves them out; see tests/wire.rs).
            let whole = support::whole_in_message_start(&String::from_utf8_lossy(&input)).len();
            assert_eq!(calls.len(), expected.len() + whole, "{sample}");
            for (call, expected) in calls.iter().zip(expected) {
                let keys: Vec<&str> = call
                    .as_object()
                    .unwrap()
                    .keys()
                    .map(String::as_str)
                    .collect();
                assert_eq!(keys, ["id", "name", "arguments", "status"]);
                assert_eq!(call["name"], expected["name"], "{sample}");
                if !expected["id"].is_null() {
                    assert_eq!(call["id"], expected["id"], "{sample}");
                }
                let sent = match &call["arguments"] {
                    Value::String(text) => {
                        serde_json::from_str(text).unwrap_or(call["arguments"].clone())
                    }
                    other => other.clone(),
                };
                let want = match (&expected["arguments"], &expected["input"]) {
                    (Value::String(text), _) => {
                        serde_json::from_str(text).unwrap_or(expected["arguments"].clone())
                    }
                    (_, input) => input.clone(),
                };
                assert_eq!(sent, want, "{sample}");
                // Not JSON is cut off, but for Cohere's `""` for a call without arguments.
                let status =
                    if expected["arguments_json_valid"] == false && expected["arguments"] != "" {
                        "incomplete"
                    } else {
                        "complete"
                    };
                assert_eq!(call["status"], status, "{sample}");
            }
        }
        streams += 1;
    }
    assert_eq!(streams, 66);
}

#[test]
fn assemble_takes_sse_framing_and_refuses_an_unknown_provider() {
    let input = b"event: message_start\n\
data: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"content\":[]}}\n\
\n\
: keep-alive\n\
data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"add\",\"input\":{}}}\n\
data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\\\": 1\"}}\n\
data: not json\n\
data: [DONE]\n";
    let (calls, stderr) = assemble("anthropic", input);
    assert_eq!(
        calls,
        [json!({"id": "t1", "name": "add", "arguments": "{\"a\": 1", "status": "incomplete"})]
    );
    assert!(stderr.starts_with("line 7: chunk 4: not JSON"), "{stderr}");
    let status = Command::new(example("assemble"))
        .arg("mistral")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(2));
}

fn dispatch_batch(input: &str) -> Vec<Value> {
    run("dispatch", &["--batch"], input.as_bytes())
        .0
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn dispatch_runs_a_batch_and_answers_in_input_order() {
    // The first sleep finishes last; the lines still come in input order.
    let input = r#"{"id": "s1", "name": "sleep", "arguments": {"ms": 80}}
{"id": "s2", "name": "sleep", "arguments": "{\"ms\": 1}"}
not a call
{"id": "a1", "name": "add", "arguments": {"a": 2, "b": "3"}}
{"id": "t1", "name": "set_tags", "arguments": {"tags": ["x"]}}

{"id": "u1", "name": "sleeep", "arguments": {"ms": 1}}
{"id": "b1", "name": "sleep", "arguments": {"ms": -1}}
{"id": "e1", "name": "explode", "arguments": {}}
"#;
    let lines = dispatch_batch(input);
    let ids: Vec<&Value> = lines.iter().map(|l| &l["call_id"]).collect();
    assert_eq!(
        ids,
        [
            &json!("s1"),
            &json!("s2"),
            &Value::Null,
            &json!("a1"),
            &json!("t1"),
            &json!("u1"),
            &json!("b1"),
            &json!("e1"),
        ]
    );
    assert_eq!(lines[0], line("s1", "sleep", false, "80"));
    assert_eq!(lines[1], line("s2", "sleep", false, "1"));
    assert_eq!(lines[3], line("a1", "add", false, "5"));
    // Each line is what the same call gets on its own.
    assert_eq!(lines, dispatch(input));
}

#[test]
fn twenty_sleeps_in_one_batch_share_the_time() {
    let input: String = (0..20)
        .map(|i| {
            format!("{{\"id\": \"s{i}\", \"name\": \"sleep\", \"arguments\": {{\"ms\": 300}}}}\n")
        })
        .collect();
    let lines = dispatch_batch(&input);
    assert_eq!(lines.len(), 20);
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(line["call_id"], format!("s{i}"));
        assert_eq!(line["content"], "300");
    }
    // Not a timing assertion (machines here are shared): the batch started at most the default
    // limit of sleeps at once, and more than one, as the demo's `sleep` is safe to run
    // concurrently. The benchmark `batch` measures the time.
    let tools = demo::toolbox();
    assert!(tools.get("sleep").unwrap().definition().is_concurrent());
}

#[test]
fn dispatch_refuses_an_unknown_option() {
    let status = Command::new(example("dispatch"))
        .arg("--fast")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(2));
}

#[test]
fn agent_loop_runs_a_scripted_conversation_to_its_end() {
    let (out, _) = run("agent_loop", &[], b"");
    // The scripted model refuses a conversation whose calls lack results, so getting to the end
    // means every turn was answered in full.
    assert!(out.ends_with("done after 4 turns (end_turn)\n"), "{out}");
    for expected in [
        // The recorded call's parameter names are not the demo's: the error says which are.
        "get_weather {\"location\":\"San Francisco, CA\",\"units\":\"f\"} -> error: invalid arguments for tool `get_weather`: 3 problems: unknown argument `location`; unknown argument `units` (did you mean `unit`?); missing required argument `city` (a string).",
        // ... and the model's next try works.
        "get_weather {\"city\":\"San Francisco\",\"unit\":\"fahrenheit\"} -> ok: {\"city\":\"San Francisco\",\"unit\":\"fahrenheit\",\"temperature\":70}",
        "turn 2: 6 calls in one batch, done in ",
        "fetch_report {\"region\":\"emea\"} -> error: the call of `fetch_report` did not finish within 150ms and was stopped; it may or may not have taken effect",
        "sleep {\"ms\":250} -> ok: 250",
        "send_invoice {\"vendor_name\":\"Acme\",\"total_amount\":\"120.50 EUR\"} -> waits for approval: `send_invoice` needs approval to run with {\"vendor_name\":\"Acme\",\"total_amount\":\"120.50 EUR\"}",
        "  approved (from the script)\n  send_invoice -> ok: invoice for 120.50 EUR sent to Acme",
        // Coerced before anyone is asked: the person sees the number the tool will get.
        "purge_drafts {\"older_than_days\":\"30\"} -> waits for approval: `purge_drafts` needs approval to run with {\"older_than_days\":30}",
        "  purge_drafts -> error: the user rejected this call of `purge_drafts`: keep the drafts until the audit is done",
    ] {
        assert!(out.contains(expected), "{expected:?} not in:\n{out}");
    }
}

#[test]
fn dispatch_bounds_and_escapes_what_it_echoes() {
    let long = "n".repeat(100_000);
    let input = format!(
        "{}\n{}\n{}\n",
        json!({"id": "c1", "name": long, "arguments": "{}"}),
        json!({"id": "c2", "name": "ad\u{1b}[2Jd\r\n", "arguments": "{}"}),
        json!({"id": "c3", "name": "add", "arguments": "{\"a\": NaN, \"b\": 1}"}),
    );
    let lines = dispatch(&input);
    assert_eq!(lines.len(), 3);
    let text = |at: usize| lines[at]["content"].as_str().unwrap().to_owned();
    assert!(text(0).len() < 600, "{}", text(0).len());
    assert!(text(0).starts_with(&format!(
        "unknown tool `{}…` (100000 characters)",
        "n".repeat(64)
    )));
    assert!(
        text(1).starts_with(r"unknown tool `ad\u001b[2Jd\r\n`."),
        "{}",
        text(1)
    );
    assert!(!text(1).contains(['\u{1b}', '\r']));
    assert_eq!(
        text(2),
        "invalid arguments for tool `add`: the arguments are not valid JSON (`NaN` is not a number \
         JSON can hold at line 1, column 7); send one JSON object of named arguments"
    );
}

/// Every example ends quietly, and with success, when the reader of its output goes away
/// (`providers openai | head`): no panic, no error message about the pipe.
#[test]
fn examples_end_quietly_on_a_closed_pipe() {
    let cases: [(&str, &[&str], &[u8]); 7] = [
        ("quickstart", &[], b""),
        ("providers", &["openai"], b""),
        (
            "dispatch",
            &[],
            b"{\"id\":\"c1\",\"name\":\"add\",\"arguments\":\"{\\\"a\\\":2,\\\"b\\\":3}\"}\n",
        ),
        ("repair", &[], b"{\"a\": 1,}\n"),
        (
            "assemble",
            &["openai"],
            b"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"function\":{\"name\":\"add\",\"arguments\":\"{}\"}}]}}]}\n",
        ),
        ("agent_loop", &[], b""),
        ("app", &[], b""),
    ];
    for (name, args, input) in cases {
        let mut child = spawn(name, args);
        // The reader is gone before the example writes a line.
        drop(child.stdout.take());
        let mut stdin = child.stdin.take().unwrap();
        // The example may be gone before it reads its input: that is its business.
        let _ = stdin.write_all(input);
        drop(stdin);
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{name}: {stderr}");
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
        assert!(
            !stderr.to_lowercase().contains("broken pipe"),
            "{name}: {stderr}"
        );
    }
}

/// The example application (`examples/app/`): a `#[toolset]` service and a free tool, one
/// OpenAI and one Anthropic turn from provider-shaped responses, approvals resolved in place.
#[test]
fn the_example_application_runs_an_openai_and_an_anthropic_turn() {
    let (stdout, stderr) = run("app", &[], b"");
    let events: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let of = |kind: &str| -> Vec<&Value> { events.iter().filter(|e| e["event"] == kind).collect() };

    let tools = of("tools");
    assert_eq!(tools[0]["names"].as_array().unwrap().len(), 12, "{stdout}");
    assert_eq!(
        tools[0]["strict_lint_errors"],
        json!(["restock /properties/quantities"])
    );
    assert_eq!(
        tools[0]["revenue"],
        "Deprecated since 0.3.0: `find_orders` gives each order's total. The total of every order, in euro cents."
    );

    // The model's slips taken as meant: "5" for a number, a Python-ish object, "5" in a map.
    let fixed: Vec<(&str, u64, u64)> = of("fixed")
        .iter()
        .map(|e| {
            (
                e["call_id"].as_str().unwrap(),
                e["repairs"].as_u64().unwrap(),
                e["coercions"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        fixed,
        [
            ("call_find", 0, 1),
            ("call_policy", 3, 0),
            ("toolu_03Restock", 0, 1)
        ]
    );

    // One cancellation approved (open order), one rejected (shipped), in call order.
    let decisions: Vec<(&str, bool)> = of("decision")
        .iter()
        .map(|e| {
            (
                e["call_id"].as_str().unwrap(),
                e["approved"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        decisions,
        [("call_cancel_open", true), ("call_cancel_shipped", false)]
    );

    let results = of("results");
    let openai = results[0]["message"].as_array().unwrap();
    let ids: Vec<&str> = openai
        .iter()
        .map(|m| m["tool_call_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "call_find",
            "call_create",
            "call_create_bad",
            "call_cancel_open",
            "call_cancel_shipped",
            "call_policy",
            "call_missing"
        ]
    );
    let content = |i: usize| openai[i]["content"].as_str().unwrap();
    assert!(
        content(1).contains(r#""total_cents":4900"#),
        "{}",
        content(1)
    );
    assert!(
        content(2).starts_with("invalid arguments for tool `create_order`: 3 problems: `order.customer.email`: expected a string that is an email address"),
        "{}",
        content(2)
    );
    assert!(content(2).contains(
        r#"`order.delivery.kind`: expected one of "pickup" or "courier", found "drone""#
    ));
    assert_eq!(
        content(3),
        "order 1002 of Alan Turing cancelled: the customer asked to cancel"
    );
    assert!(
        content(4).contains("the order has shipped"),
        "{}",
        content(4)
    );
    assert!(content(5).starts_with("Returns are accepted within 30 days"));
    assert_eq!(content(6), "no order 9999; `find_orders` lists the orders");

    let anthropic = &results[1]["message"];
    assert_eq!(anthropic["role"], "user");
    let blocks = anthropic["content"].as_array().unwrap();
    assert_eq!(blocks.len(), 9);
    let block = |id: &str| blocks.iter().find(|b| b["tool_use_id"] == id).unwrap();
    assert_eq!(block("toolu_01Search")["content"], "[1003]");
    assert_eq!(
        block("toolu_03Restock")["content"],
        r#"{"CAP-03":5,"MUG-01":46}"#
    );
    assert_eq!(block("toolu_04Rate")["content"], "1.08");
    assert_eq!(block("toolu_05Status")["is_error"], true);
    assert!(
        block("toolu_05Status")["content"]
            .as_str()
            .unwrap()
            .contains(r#"found "delivered""#)
    );
    assert_eq!(
        block("toolu_06Export")["content"],
        "exports/orders.csv: 3 orders"
    );
    assert_eq!(block("toolu_07Revenue")["content"], "6100");
    assert_eq!(block("toolu_08Who")["content"], "ops@shop.example");
    assert_eq!(block("toolu_09Escape")["is_error"], true);

    let orders = &of("orders")[0]["orders"];
    assert_eq!(orders[1]["status"], "cancelled");
    assert_eq!(orders[2]["customer"], "Ada Lovelace");
    assert!(stderr.is_empty(), "{stderr}");
}

/// `tool_search DEFS.jsonl [--k N]`: one JSON array of names a line of stdin, best first.
#[test]
fn tool_search_answers_each_line_with_the_best_tools_in_rank_order() {
    let dir = std::env::temp_dir().join(format!("tool_search-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let defs = dir.join("defs.jsonl");
    std::fs::write(
        &defs,
        [
            r#"{"name": "get_weather", "description": "The current weather in a city.", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}"#,
            "",
            r#"{"name": "send_email", "description": "Send an email to a recipient.", "parameters": {"type": "object", "properties": {"to": {"type": "string", "description": "Recipient address"}}}}"#,
            r#"{"name": "weather_alerts", "description": "Severe weather alerts for a region."}"#,
        ]
        .join("\n"),
    )
    .unwrap();
    let path = defs.to_str().unwrap();
    let input = "what's the weather in Oslo?\nemail my boss\n\nzebra crossing\n";
    let (out, _) = run("tool_search", &[path], input.as_bytes());
    assert_eq!(
        out,
        "[\"get_weather\",\"weather_alerts\"]\n[\"send_email\"]\n[]\n[]\n"
    );
    let (out, _) = run("tool_search", &[path, "--k", "1"], b"weather\n");
    assert_eq!(out, "[\"get_weather\"]\n");

    // A bad command line is exit code 2; a bad definitions file, 1, naming the line.
    for args in [
        &[][..],
        &[path, "--k", "0"],
        &[path, "--k"],
        &[path, "extra"],
    ] {
        let output = spawn("tool_search", args).wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&output.stderr).contains("usage: tool_search"));
    }
    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, "{\"name\": \"ok\"}\n{\"description\": \"no name\"}\n").unwrap();
    let output = spawn("tool_search", &[bad.to_str().unwrap()])
        .wait_with_output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("line 2"),
        "{output:?}"
    );
    let missing = spawn("tool_search", &["/nonexistent/defs.jsonl"])
        .wait_with_output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));
    std::fs::remove_dir_all(&dir).unwrap();
}
