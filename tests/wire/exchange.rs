//! Provider wire formats over real recorded payloads (`tests/data/providers/`, their sources
//! named in the README there): every response read,
//! every stream assembled to the expected calls, and round trips through the demo toolbox.

use crate::demo;

use crate::data;
use crate::support;

use serde_json::{Value, json};
use toolwright::provider::{Assembler, Provider, Turn};
use toolwright::{Arguments, CallKind, CallStatus, ToolCall, ToolResult};

/// One recorded sample of the manifest.
struct Sample {
    id: String,
    format: String,
    file: String,
    expected: Vec<Value>,
    notes: Vec<String>,
    malformed_lines: bool,
}

fn samples() -> Vec<Sample> {
    let manifest = data::read("providers/manifest.jsonl");
    manifest
        .lines()
        .map(|line| {
            let row: Value = serde_json::from_str(line).unwrap();
            Sample {
                id: row["sample_id"].as_str().unwrap().to_owned(),
                format: row["format"].as_str().unwrap().to_owned(),
                file: row["file"].as_str().unwrap().to_owned(),
                expected: row["expected_tool_calls"].as_array().unwrap().clone(),
                notes: row["assembly_notes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|n| n.as_str().unwrap().to_owned())
                    .collect(),
                malformed_lines: row["contains_malformed_chunk_lines"] == true,
            }
        })
        .collect()
}

fn provider(format: &str) -> Provider {
    match format.trim_end_matches("_stream") {
        "openai_chat" => Provider::OpenAiChat,
        "openai_responses" => Provider::OpenAiResponses,
        "anthropic_message" | "anthropic" => Provider::Anthropic,
        "gemini" => Provider::Gemini,
        "cohere_v2" => Provider::Cohere,
        "bedrock_converse" => Provider::Bedrock,
        other => panic!("unexpected format {other}"),
    }
}

fn is_stream(sample: &Sample) -> bool {
    sample.format.ends_with("_stream")
}

fn text(sample: &Sample) -> String {
    data::read(&format!("providers/{}", sample.file))
}

/// Assembles a recorded stream line by line; the numbers of the lines refused.
fn assemble(sample: &Sample) -> (Turn, Vec<usize>) {
    let mut stream = Assembler::new(provider(&sample.format));
    let mut refused = Vec::new();
    for (number, line) in text(sample).lines().enumerate() {
        if let Err(error) = stream.push_line(line) {
            assert_eq!(error.chunk(), Some(number + 1), "{}: {error}", sample.id);
            refused.push(number + 1);
        }
    }
    (stream.finish_turn(), refused)
}

/// The manifest's calls for two Responses streams that hold three responses each list the
/// third response's call twice and leave out the second's (its assembler keyed calls by
/// `output_index` across responses). The streams themselves say otherwise: three
/// `response.output_item.done` events with three distinct call ids, which
/// `responses_streams_agree_with_their_done_items` checks for every Responses stream.
const MANIFEST_DUPLICATES: [&str; 2] = [
    "vercel__ai:streams:azure__azure-reasoning-encrypted-content.1",
    "vercel__ai:streams:openai__responses__openai-reasoning-encrypted-content.1",
];

/// The calls the manifest lists: every call, but for the Responses API and Gemini, whose
/// provider-run and built-in calls (web search, code execution, tool search, ...) it leaves
/// out; those are checked in `provider_run_and_built_in_calls_are_surfaced`.
fn manifest_calls<'a>(sample: &Sample, turn: &'a Turn) -> Vec<&'a ToolCall> {
    if sample.format.starts_with("anthropic") {
        turn.calls.iter().collect()
    } else {
        turn.local_calls().collect()
    }
}

/// Checks one call against the manifest's.
fn check_call(sample: &Sample, call: &ToolCall, expected: &Value) {
    let context = format!("{} call {}", sample.id, call.call_id);
    support::check_recorded_call(call, expected, &sample.notes, &context);
}

#[test]
fn every_recorded_response_is_read() {
    let mut read = 0;
    for sample in samples().iter().filter(|s| !is_stream(s)) {
        let body: Value = serde_json::from_str(&text(sample)).unwrap();
        let turn = provider(&sample.format)
            .read_response(&body)
            .unwrap_or_else(|e| panic!("{}: {e}", sample.id));
        let calls = manifest_calls(sample, &turn);
        assert_eq!(calls.len(), sample.expected.len(), "{}", sample.id);
        for (call, expected) in calls.iter().zip(&sample.expected) {
            check_call(sample, call, expected);
            assert_eq!(call.status, CallStatus::Complete, "{}", sample.id);
        }
        read += 1;
    }
    assert_eq!(
        read, 102,
        "the manifest's non-streamed samples of the six formats"
    );
}

/// The `tool_use` blocks an Anthropic stream's `message_start` events carry whole.
fn whole_in_message_start(sample: &Sample) -> Vec<Value> {
    if sample.format == "anthropic_stream" {
        support::whole_in_message_start(&text(sample))
    } else {
        Vec::new()
    }
}

#[test]
fn every_recorded_stream_is_assembled() {
    let mut assembled = 0;
    for sample in samples().iter().filter(|s| is_stream(s)) {
        let (turn, refused) = assemble(sample);
        let calls = manifest_calls(sample, &turn);
        // The two lines the recorder could not parse are reported, nothing else.
        if sample.malformed_lines {
            let lines: Vec<usize> = text(sample)
                .lines()
                .enumerate()
                .filter(|(_, line)| line.contains("_unparsed_line"))
                .map(|(at, _)| at + 1)
                .collect();
            assert_eq!(refused, lines, "{}", sample.id);
            assert_eq!(lines.len(), 2);
        } else {
            assert_eq!(refused, Vec::<usize>::new(), "{}", sample.id);
        }
        if !MANIFEST_DUPLICATES.contains(&sample.id.as_str()) {
            // The manifest leaves out the calls an Anthropic `message_start` carries whole in
            // `message.content` (programmatic tool calling's follow-ups); the official SDK's
            // accumulator starts each message from that content, so they come after the
            // manifest's, one message after another.
            let whole = whole_in_message_start(sample);
            assert_eq!(
                calls.len(),
                sample.expected.len() + whole.len(),
                "{}",
                sample.id
            );
            for (call, expected) in calls.iter().zip(&sample.expected) {
                check_call(sample, call, expected);
            }
            for (call, block) in calls[sample.expected.len()..].iter().zip(&whole) {
                assert_eq!(call.call_id.as_str(), block["id"], "{}", sample.id);
                assert_eq!(call.name, block["name"], "{}", sample.id);
                assert_eq!(call.arguments, Arguments::Json(block["input"].clone()));
                assert_eq!(call.status, CallStatus::Complete, "{}", sample.id);
            }
        }
        // A call is complete exactly when its block ended; the two cut-off calls (a stream
        // ended by `max_tokens`, a message abandoned for another) are the manifest's two
        // calls whose arguments are not JSON and not empty (Cohere ends the block of a call
        // without arguments with none sent: `""`).
        for (call, expected) in calls.iter().zip(&sample.expected) {
            let cut_off = expected["arguments_json_valid"] == false && expected["arguments"] != "";
            let status = if cut_off {
                CallStatus::Incomplete
            } else {
                CallStatus::Complete
            };
            assert_eq!(call.status, status, "{} {}", sample.id, call.call_id);
        }
        assembled += 1;
    }
    assert_eq!(
        assembled, 66,
        "the manifest's streamed samples of the six formats"
    );
}

#[test]
fn responses_streams_agree_with_their_done_items() {
    for sample in samples()
        .iter()
        .filter(|s| s.format == "openai_responses_stream")
    {
        let done: Vec<Value> = text(sample)
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|event| {
                event["type"] == "response.output_item.done"
                    && event["item"]["type"] == "function_call"
            })
            .map(|event| event["item"].clone())
            .collect();
        let (turn, _) = assemble(sample);
        let calls: Vec<&ToolCall> = turn.local_calls().collect();
        assert_eq!(calls.len(), done.len(), "{}", sample.id);
        for (call, item) in calls.iter().zip(&done) {
            assert_eq!(call.call_id, item["call_id"].as_str().unwrap());
            assert_eq!(call.name, item["name"].as_str().unwrap());
            assert_eq!(
                call.arguments,
                Arguments::Text(item["arguments"].as_str().unwrap().to_owned())
            );
            // The result must reference `call_id`; the item id is kept beside it.
            assert_eq!(call.metadata["item_id"], item["id"]);
        }
    }
}

/// Every recorded call goes through the demo toolbox and back: one encoded result per call the
/// application runs, in call order, each carrying its call's id.
#[test]
fn every_recorded_turn_round_trips() {
    let tools = demo::toolbox();
    let ctx = demo::context();
    for sample in samples() {
        let provider = provider(&sample.format);
        let turn = if is_stream(&sample) {
            assemble(&sample).0
        } else {
            let body: Value = serde_json::from_str(&text(&sample)).unwrap();
            tools.read_response(provider, &body).unwrap()
        };
        let local: Vec<&ToolCall> = turn.local_calls().collect();
        let results: Vec<ToolResult> = local
            .iter()
            .rev() // in any order: encoding restores the call order
            .map(|call| tools.execute_blocking(call, &ctx))
            .collect();
        let encoded = tools
            .encode_results(provider, &turn.calls, &results)
            .unwrap_or_else(|e| panic!("{}: {e}", sample.id));
        let ids: Vec<Value> = match provider {
            Provider::OpenAiChat | Provider::Cohere => items(&encoded)
                .iter()
                .map(|m| m["tool_call_id"].clone())
                .collect(),
            Provider::OpenAiResponses => items(&encoded)
                .iter()
                .map(|i| i["call_id"].clone())
                .collect(),
            Provider::Anthropic => items(&encoded["content"])
                .iter()
                .map(|b| b["tool_use_id"].clone())
                .collect(),
            Provider::Bedrock => items(&encoded["content"])
                .iter()
                .map(|b| b["toolResult"]["toolUseId"].clone())
                .collect(),
            Provider::Gemini => items(&encoded["parts"])
                .iter()
                .map(|p| p["functionResponse"]["name"].clone())
                .collect(),
            _ => unreachable!(),
        };
        let expected: Vec<Value> = local
            .iter()
            .map(|call| match provider {
                // Gemini pairs by name and order; its calls here carry no ids.
                Provider::Gemini => Value::from(call.name.as_str()),
                _ => Value::from(call.call_id.as_str()),
            })
            .collect();
        assert_eq!(ids, expected, "{}", sample.id);
    }
}

fn items(value: &Value) -> &Vec<Value> {
    value.as_array().expect("an array")
}

/// A recorded response of each provider, its calls pointed at the demo's `add`: the tool runs
/// and its result goes back in exactly the provider's shape.
#[test]
fn a_recorded_response_of_each_provider_round_trips_through_the_demo() {
    let tools = demo::toolbox();
    let ctx = demo::context();
    let args = json!({"a": 2, "b": 3});
    let cases = [
        (
            "nonstream/vercel__ai/alibaba__alibaba-tool-call.json",
            Provider::OpenAiChat,
        ),
        (
            "nonstream/vercel__ai/azure__azure-tool-call.1.json",
            Provider::OpenAiResponses,
        ),
        (
            "nonstream/vercel__ai/anthropic__anthropic-json-other-tool.1.json",
            Provider::Anthropic,
        ),
        (
            "nonstream/vercel__ai/google__google-tool-call-gemini3.json",
            Provider::Gemini,
        ),
    ];
    for (file, provider) in cases {
        let mut body: Value =
            serde_json::from_str(&data::read(&format!("providers/{file}"))).unwrap();
        let call = match provider {
            Provider::OpenAiChat => {
                let f = &mut body["choices"][0]["message"]["tool_calls"][0]["function"];
                f["name"] = json!("add");
                f["arguments"] = json!(args.to_string());
                body["choices"][0]["message"]["tool_calls"][0]["id"].clone()
            }
            Provider::OpenAiResponses => {
                let item = &mut body["output"][0];
                item["name"] = json!("add");
                item["arguments"] = json!(args.to_string());
                item["call_id"].clone()
            }
            Provider::Anthropic => {
                let block = &mut body["content"][0];
                block["name"] = json!("add");
                block["input"] = args.clone();
                block["id"].clone()
            }
            _ => {
                let part = &mut body["candidates"][0]["content"]["parts"][0]["functionCall"];
                part["name"] = json!("add");
                part["args"] = args.clone();
                Value::Null
            }
        };
        let turn = tools.read_response(provider, &body).unwrap();
        assert_eq!(turn.calls.len(), 1);
        let results: Vec<ToolResult> = turn
            .calls
            .iter()
            .map(|call| tools.execute_blocking(call, &ctx))
            .collect();
        assert!(!results[0].is_error, "{}", results[0].text());
        let encoded = tools
            .encode_results(provider, &turn.calls, &results)
            .unwrap();
        let expected = match provider {
            Provider::OpenAiChat => json!([{"role": "tool", "tool_call_id": call, "content": "5"}]),
            Provider::OpenAiResponses => {
                json!([{"type": "function_call_output", "call_id": call, "output": "5"}])
            }
            Provider::Anthropic => json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": call, "content": "5"},
            ]}),
            // No id was sent, so none goes back; `response` is always an object.
            _ => json!({"role": "user", "parts": [
                {"functionResponse": {"name": "add", "response": {"output": 5}}},
            ]}),
        };
        assert_eq!(encoded, expected, "{provider}");
    }
}

#[test]
fn a_response_without_calls_yields_none_and_its_text() {
    let turn = Provider::OpenAiChat
        .read_response(
            &json!({"choices": [{"message": {"role": "assistant", "content": "Hi."},
            "finish_reason": "stop"}]}),
        )
        .unwrap();
    assert!(turn.calls.is_empty());
    assert_eq!(turn.text, "Hi.");
    assert_eq!(turn.stop_reason.as_deref(), Some("stop"));
    let turn = Provider::Gemini
        .read_response(&json!({"candidates": [{"content": {"parts": [
            {"text": "thinking", "thought": true}, {"text": "Hello"}]}}]}))
        .unwrap();
    assert!(turn.calls.is_empty());
    assert_eq!(turn.text, "Hello");
}

#[test]
fn malformed_responses_name_the_path() {
    let cases = [
        (Provider::OpenAiChat, json!({"id": "x"}), "/choices"),
        (
            Provider::OpenAiChat,
            json!({"choices": [{"message": {"tool_calls": [{"id": "c", "function": {"arguments": "{}"}}]}}]}),
            "/choices/0/message/tool_calls/0/function/name",
        ),
        (
            Provider::OpenAiResponses,
            json!({"output": [{"type": "function_call", "name": "f", "arguments": "{}"}]}),
            "/output/0/call_id",
        ),
        (
            Provider::Anthropic,
            json!({"content": [{"type": "tool_use", "id": "t", "name": 3}]}),
            "/content/0/name",
        ),
        (
            Provider::Gemini,
            json!({"candidates": [{"content": {"parts": [{"functionCall": {"args": {}}}]}}]}),
            "/candidates/0/content/parts/0/functionCall/name",
        ),
        (
            Provider::Mcp,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            "/method",
        ),
        (Provider::Anthropic, json!([1]), ""),
    ];
    for (provider, body, path) in cases {
        let error = provider.read_response(&body).unwrap_err();
        assert_eq!(error.path(), path, "{provider}: {error}");
    }
    let error = Provider::Anthropic
        .read_response(&json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}))
        .unwrap_err();
    assert!(error.to_string().contains("Overloaded"), "{error}");
}

#[test]
fn mcp_requests_are_read_with_their_id() {
    let turn = Provider::Mcp
        .read_response(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}))
        .unwrap();
    assert_eq!(turn.calls[0].call_id, "7");
    assert_eq!(
        turn.calls[0].arguments,
        Arguments::Json(json!({"a": 1, "b": 2}))
    );
    let turn = Provider::Mcp
        .read_response(&json!({"name": "whoami"}))
        .unwrap();
    assert!(turn.calls[0].id_generated);
    assert_eq!(turn.calls[0].arguments_as_map().len(), 0);
}

fn lines(stream: &mut Assembler, lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .filter_map(|line| stream.push(line).err().map(|e| e.to_string()))
        .collect()
}

#[test]
fn openai_chat_deltas_are_matched_by_id_then_index_then_latest() {
    let mut stream = Assembler::new(Provider::OpenAiChat);
    let chunk = |calls: Value| json!({"choices": [{"index": 0, "delta": {"tool_calls": calls}}]});
    let errors = lines(
        &mut stream,
        &[
            // Two calls interleaved, by index; the name comes once, `""` later does not
            // overwrite it.
            chunk(json!([{"index": 0, "id": "a", "function": {"name": "add", "arguments": ""}}])),
            chunk(
                json!([{"index": 1, "id": "b", "function": {"name": "divide", "arguments": "{\"a\":"}}]),
            ),
            chunk(json!([{"index": 0, "function": {"name": "", "arguments": "{\"a\":"}}])),
            chunk(json!([{"index": 1, "function": {"arguments": "1,\"b\":2}"}}])),
            chunk(json!([{"index": 0, "id": "a", "function": {"arguments": "2,\"b\":3}"}}])),
            // A server that sends every call at index 0, with its own id: another call.
            chunk(
                json!([{"index": 0, "id": "c", "function": {"name": "set_tags", "arguments": "{\"tags\""}}]),
            ),
            // No index, no id: the latest call.
            chunk(json!([{"function": {"arguments": ": []}"}}])),
            json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
            json!({"choices": [], "usage": {"total_tokens": 3}}),
        ],
    );
    assert_eq!(errors, Vec::<String>::new());
    let calls = stream.finish();
    let got: Vec<(&str, &str, Arguments, usize)> = calls
        .iter()
        .map(|c| {
            (
                c.call_id.as_str(),
                c.name.as_str(),
                c.arguments.clone(),
                c.index,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("a", "add", Arguments::from("{\"a\":2,\"b\":3}"), 0),
            ("c", "set_tags", Arguments::from("{\"tags\": []}"), 0),
            ("b", "divide", Arguments::from("{\"a\":1,\"b\":2}"), 1),
        ]
    );
    assert!(calls.iter().all(|c| c.status == CallStatus::Complete));
}

#[test]
fn contradictions_and_strays_are_errors_that_lose_nothing() {
    let mut stream = Assembler::new(Provider::OpenAiChat);
    let chunk = |calls: Value| json!({"choices": [{"index": 0, "delta": {"tool_calls": calls}}]});
    let errors = lines(
        &mut stream,
        &[
            chunk(json!([{"index": 0, "id": "a", "function": {"name": "add", "arguments": "{"}}])),
            chunk(json!([{"index": 0, "function": {"name": "divide", "arguments": "}"}}])),
            json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
            chunk(json!([{"index": 0, "function": {"arguments": " "}}])),
            json!({"object": "chat.completion.chunk"}),
        ],
    );
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert!(errors[0].starts_with("chunk 2: ") && errors[0].contains("`divide`"));
    assert!(errors[1].starts_with("chunk 4: ") && errors[1].contains("after its choice finished"));
    assert!(errors[2].starts_with("chunk 5: "));
    let calls = stream.finish();
    assert_eq!(calls.len(), 1);
    assert_eq!(
        (calls[0].name.as_str(), &calls[0].arguments),
        ("add", &Arguments::from("{} "))
    );
}

#[test]
fn a_stream_cut_short_yields_incomplete_calls_the_lenient_parser_can_read() {
    let mut stream = Assembler::new(Provider::Anthropic);
    let errors = lines(
        &mut stream,
        &[
            json!({"type": "message_start", "message": {"id": "m", "content": []}}),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "On it."}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "content_block_start", "index": 1, "content_block":
                {"type": "tool_use", "id": "toolu_1", "name": "search", "input": {}}}),
            json!({"type": "content_block_delta", "index": 1, "delta":
                {"type": "input_json_delta", "partial_json": "{\"query\": \"rust\", \"limit\": 5, \"q"}}),
        ],
    );
    assert!(errors.is_empty());
    let partial: Vec<_> = stream.calls().collect();
    assert!(!partial[0].is_complete());
    assert_eq!(
        partial[0].preview(),
        json!({"query": "rust", "limit": 5})
            .as_object()
            .unwrap()
            .clone()
    );
    assert_eq!(stream.text(), "On it.");
    let calls = stream.finish();
    assert_eq!(calls[0].status, CallStatus::Incomplete);
    assert_eq!(
        calls[0].arguments,
        Arguments::from("{\"query\": \"rust\", \"limit\": 5, \"q")
    );
    assert_eq!(calls[0].arguments_as_map()["limit"], 5);
}

#[test]
fn anthropic_deltas_for_unknown_blocks_are_reported_with_their_content() {
    let mut stream = Assembler::new(Provider::Anthropic);
    let errors = lines(
        &mut stream,
        &[
            json!({"type": "content_block_delta", "index": 3, "delta":
                {"type": "input_json_delta", "partial_json": "{\"kept\": 1"}}),
            json!({"type": "content_block_stop", "index": 4}),
            json!({"index": 0}),
        ],
    );
    assert_eq!(errors.len(), 3);
    assert!(
        errors[0].contains("block 3") && errors[0].contains("kept"),
        "{}",
        errors[0]
    );
    assert!(errors[2].contains("`type` is missing"));
}

#[test]
fn responses_final_arguments_win_and_the_deltas_are_kept() {
    let mut stream = Assembler::new(Provider::OpenAiResponses);
    let errors = lines(
        &mut stream,
        &[
            json!({"type": "response.output_item.added", "output_index": 0, "item":
                {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "add", "arguments": ""}}),
            json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0, "delta": "{\"a\":1"}),
            json!({"type": "response.function_call_arguments.done", "item_id": "fc_1", "output_index": 0, "arguments": "{\"a\":1,\"b\":2}"}),
            json!({"type": "response.output_item.done", "output_index": 0, "item":
                {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "add",
                 "arguments": "{\"a\":1,\"b\":2}", "status": "completed"}}),
            json!({"type": "response.function_call_arguments.delta", "item_id": "fc_9", "delta": "x"}),
        ],
    );
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[0].starts_with("chunk 3: ") && errors[0].contains("differ"));
    assert!(errors[1].starts_with("chunk 5: ") && errors[1].contains("fc_9"));
    let calls = stream.finish();
    assert_eq!(calls[0].arguments, Arguments::from("{\"a\":1,\"b\":2}"));
    assert_eq!(calls[0].metadata["streamed_arguments"], "{\"a\":1");
    assert_eq!(calls[0].status, CallStatus::Complete);
}

#[test]
fn gemini_ids_are_made_up_stably_and_not_sent_back() {
    let body = json!({"responseId": "r1", "candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "add", "args": {"a": 1, "b": 2}}},
        {"functionCall": {"name": "add", "args": {"a": 3, "b": 4}, "id": "fc-7"}},
    ]}}]});
    let first = Provider::Gemini.read_response(&body).unwrap();
    let again = Provider::Gemini.read_response(&body).unwrap();
    assert_eq!(first, again);
    let mut stream = Assembler::new(Provider::Gemini);
    stream.push(&body).unwrap();
    // No `finishReason`: the stream has not said it ended, but both calls were whole.
    assert!(!stream.is_ended());
    let streamed = stream.finish();
    assert_eq!(
        first.calls.iter().map(|c| &c.call_id).collect::<Vec<_>>(),
        streamed.iter().map(|c| &c.call_id).collect::<Vec<_>>()
    );
    assert!(first.calls[0].id_generated && !first.calls[1].id_generated);

    let tools = demo::toolbox();
    let results: Vec<ToolResult> = first
        .calls
        .iter()
        .map(|call| tools.execute_blocking(call, &demo::context()))
        .collect();
    let encoded = tools
        .encode_results(Provider::Gemini, &first.calls, &results)
        .unwrap();
    assert_eq!(
        encoded,
        json!({"role": "user", "parts": [
            {"functionResponse": {"name": "add", "response": {"output": 3}}},
            {"functionResponse": {"name": "add", "id": "fc-7", "response": {"output": 7}}},
        ]})
    );
}

#[test]
fn gemini_partial_args_build_the_arguments_by_path() {
    let part = |function_call: Value| json!({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": function_call}]}}]});
    let mut stream = Assembler::new(Provider::Gemini);
    let errors = lines(
        &mut stream,
        &[
            part(json!({"name": "update_preferences", "willContinue": true})),
            part(
                json!({"partialArgs": [{"jsonPath": "$.unique_code", "stringValue": "ab", "willContinue": true}], "willContinue": true}),
            ),
            part(
                json!({"partialArgs": [{"jsonPath": "$.unique_code", "stringValue": "c"}], "willContinue": true}),
            ),
            part(
                json!({"partialArgs": [{"jsonPath": "$.data.items_per_page", "numberValue": 20},
                {"jsonPath": "$.data.auto_complete_email", "boolValue": true}], "willContinue": true}),
            ),
            part(
                json!({"partialArgs": [{"jsonPath": "$.tags[1]", "stringValue": "x"}], "willContinue": true}),
            ),
            part(json!({})),
        ],
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].starts_with("chunk 5: ") && errors[0].contains("skipping elements"));
    let calls = stream.finish();
    assert_eq!(calls[0].status, CallStatus::Complete);
    assert_eq!(
        calls[0].arguments,
        Arguments::Json(
            json!({"unique_code": "abc", "data": {"items_per_page": 20, "auto_complete_email": true}, "tags": []})
        )
    );
}

#[test]
fn results_are_encoded_in_call_order_or_refused() {
    let tools = demo::toolbox();
    let ctx = demo::context();
    let calls = vec![
        ToolCall::new("c1", "add", r#"{"a": 1, "b": 1}"#),
        ToolCall::new("c2", "divide", r#"{"a": 1, "b": 0}"#).with_index(1),
    ];
    let results: Vec<ToolResult> = calls
        .iter()
        .map(|c| tools.execute_blocking(c, &ctx))
        .collect();
    let anthropic = tools
        .encode_results(Provider::Anthropic, &calls, &results)
        .unwrap();
    assert_eq!(
        anthropic,
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "c1", "content": "2"},
            {"type": "tool_result", "tool_use_id": "c2", "content": "division by zero", "is_error": true},
        ]})
    );
    let gemini = tools
        .encode_results(Provider::Gemini, &calls, &results)
        .unwrap();
    assert_eq!(
        gemini["parts"][1]["functionResponse"]["response"],
        json!({"error": "division by zero"})
    );
    let mcp = tools
        .encode_results(Provider::Mcp, &calls, &results)
        .unwrap();
    assert_eq!(
        mcp,
        json!([
            // `add` declares an integer output: structured since MCP 2026-07-28 (SEP-2106).
            {"content": [{"type": "text", "text": "2"}], "structuredContent": 2, "isError": false},
            {"content": [{"type": "text", "text": "division by zero"}], "isError": true},
        ])
    );

    // A missing result, a stray one, and one answering another call are refused.
    let error = tools
        .encode_results(Provider::OpenAiChat, &calls, &results[..1])
        .unwrap_err();
    assert!(
        error.to_string().contains("`c2` (divide) has no result"),
        "{error}"
    );
    let error = tools
        .encode_results(Provider::OpenAiChat, &calls[..1], &results)
        .unwrap_err();
    assert!(error.to_string().contains("belongs to no call"), "{error}");
    let error = tools
        .encode_result(Provider::OpenAiChat, &calls[0], &results[1])
        .unwrap_err();
    assert!(error.to_string().contains("not `c1`"), "{error}");
}

#[test]
fn server_calls_get_no_result_and_interrupts_are_not_sent() {
    let tools = demo::toolbox();
    let turn = tools
        .read_response(
            Provider::Anthropic,
            &json!({"content": [
                {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {"query": "x"}},
                {"type": "web_search_tool_result", "tool_use_id": "srv_1", "content": []},
                {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 1, "b": 2}},
            ]}),
        )
        .unwrap();
    assert_eq!(turn.calls.len(), 2);
    assert_eq!(turn.calls[0].kind, CallKind::Server);
    assert_eq!(turn.local_calls().count(), 1);
    let results = vec![tools.execute_blocking(&turn.calls[1], &demo::context())];
    let encoded = tools
        .encode_results(Provider::Anthropic, &turn.calls, &results)
        .unwrap();
    assert_eq!(encoded["content"].as_array().unwrap().len(), 1);
    assert!(
        tools
            .encode_result(Provider::Anthropic, &turn.calls[0], &results[0])
            .is_err()
    );
    // A batch run over every call of the turn: the toolbox refuses to run the provider's own
    // call, and that refusal takes no place in the message.
    let all = tools.execute_all_blocking(&turn.calls, &demo::context());
    assert!(matches!(
        all[0].detail,
        toolwright::ResultDetail::NotLocal {
            kind: CallKind::Server
        }
    ));
    assert_eq!(
        tools
            .encode_results(Provider::Anthropic, &turn.calls, &all)
            .unwrap(),
        encoded
    );
}

#[test]
fn images_and_options_go_where_each_provider_takes_them() {
    use serde_json::Map;
    use toolwright::{ContentPart, DynamicTool, ToolDefinition, ToolOutput, Toolbox};

    let def = ToolDefinition::new("chart", "Draw a chart.", json!({})).unwrap();
    let chart = DynamicTool::new(def, |_: Map<String, Value>, _: &()| {
        ToolOutput::parts(vec![
            ContentPart::text("a chart:"),
            ContentPart::image("iVBORw0KGgo=", "image/png"),
        ])
        .with_option("cache_control", json!({"type": "ephemeral"}))
        .with_option("scheduling", json!("WHEN_IDLE"))
    });
    let tools = Toolbox::new().with(chart).unwrap();
    let call = ToolCall::new("c1", "chart", "{}");
    let result = tools.execute_blocking(&call, &());
    let encode = |provider| tools.encode_result(provider, &call, &result).unwrap();
    assert_eq!(
        encode(Provider::Anthropic),
        json!({"type": "tool_result", "tool_use_id": "c1", "content": [
            {"type": "text", "text": "a chart:"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
        ], "cache_control": {"type": "ephemeral"}})
    );
    assert_eq!(
        encode(Provider::OpenAiResponses),
        json!({"type": "function_call_output", "call_id": "c1", "output": [
            {"type": "input_text", "text": "a chart:"},
            {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="},
        ]})
    );
    assert_eq!(
        encode(Provider::Gemini),
        json!({"functionResponse": {"name": "chart", "id": "c1", "response": {"output": "a chart:"},
            "parts": [{"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}],
            "scheduling": "WHEN_IDLE"}})
    );
    assert_eq!(
        encode(Provider::Mcp),
        json!({"content": [
            {"type": "text", "text": "a chart:"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
        ], "isError": false})
    );
    let chat = encode(Provider::OpenAiChat);
    assert_eq!(chat["role"], "tool");
    assert_eq!(
        chat["content"],
        "a chart:\n[an image (image/png) was left out: tool messages carry text only]"
    );
}

#[test]
fn audio_resources_and_links_go_where_each_provider_takes_them_and_as_text_elsewhere() {
    use serde_json::Map;
    use toolwright::exec::ResourceContents;
    use toolwright::{ContentPart, DynamicTool, ToolDefinition, ToolOutput, Toolbox};

    let def = ToolDefinition::new("fetch", "Fetch things.", json!({})).unwrap();
    let fetch = DynamicTool::new(def, |_: Map<String, Value>, _: &()| {
        ToolOutput::parts(vec![
            ContentPart::audio("UklGRg==", "audio/wav"),
            ContentPart::resource(ResourceContents::text(
                "notes://1",
                Some("text/plain"),
                "first note",
            )),
            ContentPart::resource(ResourceContents::blob(
                "notes://2",
                Some("application/octet-stream"),
                "AAE=",
            )),
            ContentPart::resource_link("notes://3", "third note"),
        ])
    });
    let tools = Toolbox::new().with(fetch).unwrap();
    let call = ToolCall::new("c1", "fetch", "{}");
    let result = tools.execute_blocking(&call, &());
    let encode = |provider| tools.encode_result(provider, &call, &result).unwrap();
    let audio =
        "[an audio clip (audio/wav) was left out: this provider's tool results carry no audio]";
    let text = "[resource notes://1 (text/plain)]\nfirst note";
    let blob = "[a resource notes://2 (application/octet-stream, binary) was left out: this provider's tool results carry no such data]";
    let link = "[resource link: third note <notes://3>]";
    // MCP carries every kind as its own block.
    assert_eq!(
        encode(Provider::Mcp),
        json!({"content": [
            {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
            {"type": "resource", "resource": {"uri": "notes://1", "mimeType": "text/plain", "text": "first note"}},
            {"type": "resource", "resource": {"uri": "notes://2", "mimeType": "application/octet-stream", "blob": "AAE="}},
            {"type": "resource_link", "uri": "notes://3", "name": "third note"},
        ], "isError": false})
    );
    // Anthropic: a text resource as a plain-text document; the rest as their text.
    assert_eq!(
        encode(Provider::Anthropic)["content"],
        json!([
            {"type": "text", "text": audio},
            {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "first note"}, "title": "notes://1"},
            {"type": "text", "text": blob},
            {"type": "text", "text": link},
        ])
    );
    // The text-only channels: every part there as its text, none dropped.
    assert_eq!(
        encode(Provider::OpenAiChat)["content"],
        json!([audio, text, blob, link].join("\n"))
    );
    assert_eq!(
        encode(Provider::OpenAiResponses)["output"],
        json!([
            {"type": "input_text", "text": audio},
            {"type": "input_text", "text": text},
            {"type": "input_text", "text": blob},
            {"type": "input_text", "text": link},
        ])
    );
    assert_eq!(
        encode(Provider::Gemini)["functionResponse"]["response"],
        json!({"output": ([audio, text, blob, link].join("\n"))})
    );
    // Content parts written with serde read back the same.
    let parts = result.content.clone().into_vec();
    let written = serde_json::to_value(&parts).unwrap();
    assert_eq!(written[1]["resource"]["mime_type"], "text/plain");
    assert_eq!(written[3]["type"], "resource_link");
    let read: Vec<ContentPart> = serde_json::from_value(written).unwrap();
    assert_eq!(read, parts);
}

#[test]
fn mcp_results_carry_structured_content_when_the_tool_has_an_output_schema() {
    let tools = demo::toolbox();
    let call = ToolCall::new("1", "get_weather", r#"{"city": "Paris"}"#);
    let result = tools.execute_blocking(&call, &demo::context());
    let encoded = tools.encode_result(Provider::Mcp, &call, &result).unwrap();
    assert_eq!(
        encoded["structuredContent"],
        json!({"city": "Paris", "unit": "celsius", "temperature": 21})
    );
    // Since protocol revision 2026-07-28 (SEP-2106) an output of any JSON type is structured
    // (rmcp drops it for clients on older revisions, which keep the text).
    let call = ToolCall::new("2", "add", r#"{"a": 1, "b": 2}"#);
    let result = tools.execute_blocking(&call, &demo::context());
    let encoded = tools.encode_result(Provider::Mcp, &call, &result).unwrap();
    assert_eq!(encoded["structuredContent"], json!(3));
    // A string's text is its value: no structured copy, and no output schema in the MCP form.
    let call = ToolCall::new("3", "explode", "{}");
    let result = tools.execute_blocking(&call, &demo::context());
    let encoded = tools.encode_result(Provider::Mcp, &call, &result).unwrap();
    assert!(encoded.get("structuredContent").is_none());
    let form = tools
        .tools_for(toolwright::provider::Provider::Mcp)
        .unwrap();
    let form = serde_json::to_value(&form).unwrap();
    let explode = form["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "explode");
    assert!(explode.unwrap().get("outputSchema").is_none());
    // An error result has none either.
    let call = ToolCall::new("4", "divide", r#"{"a": 1, "b": 0}"#);
    let result = tools.execute_blocking(&call, &demo::context());
    let encoded = tools.encode_result(Provider::Mcp, &call, &result).unwrap();
    assert!(encoded.get("structuredContent").is_none());
}

#[test]
fn names_a_provider_refuses_are_sent_as_stand_ins_and_mapped_back() {
    use serde_json::Map;
    use toolwright::{
        DynamicTool, ToolDefinition, Toolbox,
        provider::Provider,
        schema::{Form, Rule, Severity},
    };

    let def = ToolDefinition::new("files.read", "Read a file.", json!({})).unwrap();
    let read = DynamicTool::new(def, |_: Map<String, Value>, _: &()| json!("contents"));
    let tools = Toolbox::new().with(read).unwrap();
    let list = tools.tools_for(Provider::OpenAiChat).unwrap();
    assert_eq!(list.to_value()[0]["function"]["name"], "files_read");
    let note = tools.lint([Form::new(Provider::OpenAiChat)]);
    assert!(note.is_clean());
    assert!(
        note.lints()
            .iter()
            .any(|l| l.rule == Rule::Name && l.severity == Severity::Note)
    );
    // MCP and Gemini take the dot.
    assert_eq!(
        tools.tools_for(Provider::Mcp).unwrap().to_value()["tools"][0]["name"],
        "files.read"
    );

    let body = json!({"choices": [{"message": {"tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "files_read", "arguments": "{}"}},
    ]}}]});
    let turn = tools.read_response(Provider::OpenAiChat, &body).unwrap();
    assert_eq!(turn.calls[0].name, "files.read");
    let result = tools.execute_blocking(&turn.calls[0], &());
    assert_eq!(result.text(), "contents");
    // Untouched without the toolbox.
    assert_eq!(
        Provider::OpenAiChat.read_response(&body).unwrap().calls[0].name,
        "files_read"
    );

    let mut stream = tools.assembler(Provider::Anthropic);
    stream
        .push(
            &json!({"type": "content_block_start", "index": 0, "content_block":
            {"type": "tool_use", "id": "t1", "name": "files_read", "input": {}}}),
        )
        .unwrap();
    assert_eq!(stream.finish()[0].name, "files.read");

    // Two tools sent under one name cannot be told apart: an error.
    let def = ToolDefinition::new("files_read", "Read a file too.", json!({})).unwrap();
    let clash = DynamicTool::new(def, |_: Map<String, Value>, _: &()| json!(""));
    let tools = tools.with(clash).unwrap();
    let errors = tools.tools_for(Provider::OpenAiChat).unwrap_err();
    assert!(
        errors
            .errors()
            .any(|l| l.message.contains("like the tool `files.read`"))
    );
    assert!(tools.tools_for(Provider::Gemini).is_ok());
}

#[test]
fn interrupts_are_not_sent_as_results() {
    use serde_json::Map;
    use toolwright::{DynamicTool, Interrupt, ToolDefinition, Toolbox};

    let def = ToolDefinition::new("pay", "Pay an invoice.", json!({})).unwrap();
    let pay = DynamicTool::new(def, |_: Map<String, Value>, _: &()| {
        Interrupt::new("Pay 12 EUR?", json!({}))
    });
    let tools = Toolbox::new().with(pay).unwrap();
    let call = ToolCall::new("c1", "pay", "{}");
    let result = tools.execute_blocking(&call, &());
    let error = tools
        .encode_results(Provider::OpenAiChat, std::slice::from_ref(&call), &[result])
        .unwrap_err();
    assert!(error.to_string().contains("paused for review"), "{error}");
}

#[test]
fn calls_missing_a_field_in_a_stream_are_still_assembled() {
    // An OpenAI-compatible server with a string index: reported, matched by id.
    let mut stream = Assembler::new(Provider::OpenAiChat);
    let errors = lines(
        &mut stream,
        &[
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": "x", "id": "a", "function": {"name": "add", "arguments": "{\"a\": 1"}}]}}]}),
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [
                {"id": "a", "function": {"arguments": ", \"b\": 2}"}}]}, "finish_reason": "tool_calls"}]}),
        ],
    );
    assert_eq!(errors.len(), 1);
    assert!(errors[0].contains("/index"), "{}", errors[0]);
    let calls = stream.finish();
    assert_eq!(calls[0].arguments, Arguments::from("{\"a\": 1, \"b\": 2}"));

    // An Anthropic block without a name: reported, its input kept.
    let mut stream = Assembler::new(Provider::Anthropic);
    let errors = lines(
        &mut stream,
        &[
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t1", "input": {}}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"q\": 1}"}}),
            json!({"type": "content_block_stop", "index": 0}),
        ],
    );
    assert_eq!(errors.len(), 1);
    assert!(errors[0].contains("without `name`"), "{}", errors[0]);
    let calls = stream.finish();
    assert_eq!(
        (calls[0].call_id.as_str(), &calls[0].arguments),
        ("t1", &Arguments::from("{\"q\": 1}"))
    );

    // A Responses item that says its call id only when done: no error at all.
    let mut stream = Assembler::new(Provider::OpenAiResponses);
    let errors = lines(
        &mut stream,
        &[
            json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call", "id": "fc_1"}}),
            json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "delta": "{}"}),
            json!({"type": "response.output_item.done", "output_index": 0, "item":
                {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "whoami", "arguments": "{}"}}),
        ],
    );
    assert!(errors.is_empty(), "{errors:?}");
    let calls = stream.finish();
    assert_eq!(
        (calls[0].call_id.as_str(), calls[0].name.as_str()),
        ("call_1", "whoami")
    );
    assert_eq!(calls[0].status, CallStatus::Complete);
}

/// MCP's round trip: a `tools/call` request (as the MCP specification shapes it) to the demo's
/// tool and back as the `CallToolResult` for the response with the request's id.
#[test]
fn an_mcp_request_round_trips_through_the_demo() {
    let tools = demo::toolbox();
    let request = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "get_weather", "arguments": {"city": "Oslo", "unit": "fahrenheit"}}});
    let turn = tools.read_response(Provider::Mcp, &request).unwrap();
    let results: Vec<ToolResult> = turn
        .calls
        .iter()
        .map(|call| tools.execute_blocking(call, &demo::context()))
        .collect();
    let encoded = tools
        .encode_results(Provider::Mcp, &turn.calls, &results)
        .unwrap();
    assert_eq!(turn.calls[0].call_id, "4");
    assert_eq!(
        encoded,
        json!([{
            "content": [{"type": "text", "text": "{\"city\":\"Oslo\",\"unit\":\"fahrenheit\",\"temperature\":70}"}],
            "structuredContent": {"city": "Oslo", "unit": "fahrenheit", "temperature": 70},
            "isError": false,
        }])
    );
}

/// A chat completion in the legacy form (`function_call`, before `tool_calls`), whole and
/// streamed: one call, its id made up, its result a `function` message that names it.
#[test]
fn legacy_function_calls_give_one_call_whole_and_streamed() {
    let tools = demo::toolbox();
    let body = json!({"choices": [{"index": 0, "finish_reason": "function_call", "message": {
        "role": "assistant", "content": null,
        "function_call": {"name": "add", "arguments": "{\"a\": 2, \"b\": 3}"},
    }}]});
    let whole = tools.read_response(Provider::OpenAiChat, &body).unwrap();
    assert_eq!(whole.calls.len(), 1);
    let call = &whole.calls[0];
    assert_eq!((call.name.as_str(), call.index), ("add", 0));
    assert_eq!(
        call.arguments,
        Arguments::Text(r#"{"a": 2, "b": 3}"#.into())
    );
    assert!(call.id_generated);
    assert_eq!(call.metadata["legacy_function_call"], true);
    assert_eq!(whole.stop_reason.as_deref(), Some("function_call"));

    let mut stream = tools.assembler(Provider::OpenAiChat);
    for chunk in [
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "function_call": {"name": "add", "arguments": ""}}}]}),
        json!({"choices": [{"index": 0, "delta": {"function_call": {"arguments": "{\"a\": 2,"}}}]}),
        json!({"choices": [{"index": 0, "delta": {"function_call": {"arguments": " \"b\": 3}"}}}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "function_call"}]}),
    ] {
        stream.push(&chunk).unwrap();
    }
    let streamed = stream.finish_turn();
    assert_eq!(streamed, whole);
    assert_eq!(streamed.calls[0].status, CallStatus::Complete);

    let context = demo::DemoContext {
        user_id: "u1".into(),
    };
    let results = tools.execute_all_blocking(&whole.calls, &context);
    assert_eq!(results[0].text(), "5");
    let messages = tools
        .encode_results(Provider::OpenAiChat, &whole.calls, &results)
        .unwrap();
    assert_eq!(
        messages,
        json!([{"role": "function", "name": "add", "content": "5"}])
    );
    // The mark counts only on a call without an id of its own: one with the provider's id is
    // answered by a `tool` message, whatever its metadata says.
    let mut marked = whole.calls[0].clone();
    marked.call_id = "call_abc".into();
    marked.id_generated = false;
    let mut result = results[0].clone();
    result.call_id = "call_abc".into();
    assert_eq!(
        tools
            .encode_result(Provider::OpenAiChat, &marked, &result)
            .unwrap(),
        json!({"role": "tool", "tool_call_id": "call_abc", "content": "5"})
    );
    // Other providers pair results by an id the legacy call never had.
    let error = tools
        .encode_results(Provider::Anthropic, &whole.calls, &results)
        .unwrap_err();
    assert!(error.message().contains("without an id"), "{error}");

    // A second name in the stream is reported, and the first kept.
    let mut stream = Assembler::new(Provider::OpenAiChat);
    stream
        .push(&json!({"choices": [{"index": 0, "delta": {"function_call": {"name": "add", "arguments": "{}"}}}]}))
        .unwrap();
    let error = stream
        .push(&json!({"choices": [{"index": 0, "delta": {"function_call": {"name": "sub"}}}]}))
        .unwrap_err();
    assert_eq!(error.path(), "/choices/0/delta/function_call/name");
    assert_eq!(stream.finish()[0].name, "add");
}

/// A response with several answers (`n` > 1, `candidateCount` > 1) is read one answer at a time,
/// the same answer whole and streamed, choice 0 unless the caller picks another.
#[test]
fn a_chosen_answer_is_read_the_same_whole_and_streamed() {
    let chat_body = json!({"choices": [
        {"index": 0, "finish_reason": "tool_calls", "message": {"content": "zero", "tool_calls": [
            {"id": "c0", "type": "function", "function": {"name": "add", "arguments": "{\"a\":1,\"b\":1}"}},
        ]}},
        {"index": 1, "finish_reason": "tool_calls", "message": {"content": "one", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "add", "arguments": "{\"a\":2,\"b\":2}"}},
            {"id": "c2", "type": "function", "function": {"name": "add", "arguments": "{\"a\":3,\"b\":3}"}},
        ]}},
    ]});
    let chat_chunks = [
        json!({"choices": [
            {"index": 1, "delta": {"content": "one", "tool_calls": [{"index": 0, "id": "c1", "function": {"name": "add", "arguments": "{\"a\":2,"}}]}},
            {"index": 0, "delta": {"content": "zero", "tool_calls": [{"index": 0, "id": "c0", "function": {"name": "add", "arguments": "{\"a\":1,\"b\":1}"}}]}},
        ]}),
        json!({"choices": [{"index": 1, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "\"b\":2}"}}]}}]}),
        json!({"choices": [{"index": 1, "delta": {"tool_calls": [{"index": 1, "id": "c2", "function": {"name": "add", "arguments": "{\"a\":3,\"b\":3}"}}]}}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
        json!({"choices": [{"index": 1, "delta": {}, "finish_reason": "tool_calls"}]}),
    ];
    let gemini_body = json!({"responseId": "r", "candidates": [
        {"index": 0, "finishReason": "STOP", "content": {"role": "model", "parts": [
            {"text": "zero"}, {"functionCall": {"name": "add", "args": {"a": 1, "b": 1}}},
        ]}},
        {"index": 1, "finishReason": "STOP", "content": {"role": "model", "parts": [
            {"text": "one"}, {"functionCall": {"name": "add", "args": {"a": 2, "b": 2}}},
            {"functionCall": {"name": "add", "args": {"a": 3, "b": 3}}},
        ]}},
    ]});
    let gemini_chunks = [json!({"responseId": "r", "candidates": [
        {"index": 1, "content": {"role": "model", "parts": [
            {"text": "one"}, {"functionCall": {"name": "add", "args": {"a": 2, "b": 2}}},
            {"functionCall": {"name": "add", "args": {"a": 3, "b": 3}}},
        ]}, "finishReason": "STOP"},
        {"index": 0, "content": {"role": "model", "parts": [
            {"text": "zero"}, {"functionCall": {"name": "add", "args": {"a": 1, "b": 1}}},
        ]}, "finishReason": "STOP"},
    ]})];
    for (provider, body, chunks) in [
        (Provider::OpenAiChat, &chat_body, &chat_chunks[..]),
        (Provider::Gemini, &gemini_body, &gemini_chunks[..]),
    ] {
        for choice in 0..2 {
            let whole = provider.read_choice(body, choice).unwrap();
            let mut stream = Assembler::new(provider).choice(choice);
            for chunk in chunks {
                stream.push(chunk).unwrap();
            }
            let streamed = stream.finish_turn();
            assert_eq!(whole.calls.len(), choice + 1, "{provider} choice {choice}");
            assert_eq!(whole.text, ["zero", "one"][choice]);
            let arguments = |turn: &Turn| -> Vec<Value> {
                turn.calls
                    .iter()
                    .map(|call| Value::Object(call.arguments_as_map()))
                    .collect()
            };
            assert_eq!(
                arguments(&streamed),
                arguments(&whole),
                "{provider} {choice}"
            );
            let ids = |turn: &Turn| -> Vec<String> {
                turn.calls.iter().map(|c| c.call_id.to_string()).collect()
            };
            assert_eq!(ids(&streamed), ids(&whole), "{provider} {choice}");
            assert_eq!(streamed.text, whole.text);
            assert_eq!(streamed.stop_reason, whole.stop_reason);
            assert!(
                streamed
                    .calls
                    .iter()
                    .all(|c| c.status == CallStatus::Complete)
            );
        }
        assert_eq!(
            provider.read_response(body).unwrap(),
            provider.read_choice(body, 0).unwrap()
        );
        let error = provider.read_choice(body, 2).unwrap_err();
        assert!(error.message().contains("numbered 0, 1"), "{error}");
    }

    // Providers with one answer per response have no other choice to read.
    let anthropic = json!({"content": [], "stop_reason": "end_turn"});
    assert!(Provider::Anthropic.read_choice(&anthropic, 0).is_ok());
    let error = Provider::Anthropic.read_choice(&anthropic, 1).unwrap_err();
    assert!(error.message().contains("one answer"), "{error}");
    let mut stream = Assembler::new(Provider::OpenAiResponses).choice(1);
    let error = stream
        .push(&json!({"type": "response.created", "response": {}}))
        .unwrap_err();
    assert_eq!(error.chunk(), Some(1));
    assert!(error.message().contains("one answer"), "{error}");
}
