//! AWS Bedrock's Converse API over its recorded responses and streams (`tests/data/providers/`,
//! copied from vercel/ai and pydantic-ai) and events built from the service model's shapes:
//! reasoning carried back, results as `toolResult` blocks, the tool choice, and AWS's binary
//! event stream framing. With `BEDROCK_OUT=<dir>`, the requests built from each recording, and
//! each recorded stream framed as the service frames it, are written there for botocore
//! (`tests/python/check_bedrock.py`: its validator takes every request, its parser every
//! response, its own decoder every frame).

use serde_json::{Value, json};
use toolwright::provider::{Assembler, EventStreamDecoder, Provider, ToolChoice, Turn};
use toolwright::{
    Arguments, CallKind, CallStatus, ContentPart, DynamicTool, ToolCall, ToolDefinition,
    ToolOutput, ToolResult, Toolbox,
};

use crate::data;

/// One event stream frame, as the service writes it: string headers, a JSON payload.
pub fn frame(headers: &[(&str, &str)], payload: &[u8]) -> Vec<u8> {
    let mut head = Vec::new();
    for (name, value) in headers {
        head.push(u8::try_from(name.len()).unwrap());
        head.extend_from_slice(name.as_bytes());
        head.push(7);
        head.extend_from_slice(&u16::try_from(value.len()).unwrap().to_be_bytes());
        head.extend_from_slice(value.as_bytes());
    }
    let total = u32::try_from(16 + head.len() + payload.len()).unwrap();
    let mut out = total.to_be_bytes().to_vec();
    out.extend_from_slice(&u32::try_from(head.len()).unwrap().to_be_bytes());
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_be_bytes());
    out.extend_from_slice(&head);
    out.extend_from_slice(payload);
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_be_bytes());
    out
}

/// An event (`{"contentBlockDelta": {..}}`) framed as the service frames it.
fn event_frame(event: &Value) -> Vec<u8> {
    let (kind, payload) = event.as_object().unwrap().iter().next().unwrap();
    frame(
        &[
            (":event-type", kind),
            (":content-type", "application/json"),
            (":message-type", "event"),
        ],
        serde_json::to_string(payload).unwrap().as_bytes(),
    )
}

/// The recorded Bedrock samples: (file under `providers/`, streamed): the manifest's, and the
/// turns with reasoning.
fn samples() -> Vec<(String, bool)> {
    let mut samples: Vec<(String, bool)> = data::read("providers/manifest.jsonl")
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|row| row["format"].as_str().unwrap().starts_with("bedrock"))
        .map(|row| {
            (
                row["file"].as_str().unwrap().to_owned(),
                row["streamed"] == true,
            )
        })
        .collect();
    for (file, streamed) in [
        ("turns/bedrock__amazon-bedrock-reasoning.json", false),
        ("turns/bedrock__amazon-bedrock-redacted-content.json", false),
        ("turns/bedrock__bedrock-reasoning.jsonl", true),
    ] {
        samples.push((file.to_owned(), streamed));
    }
    samples
}

fn events(file: &str) -> Vec<Value> {
    data::read(&format!("providers/{file}"))
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn assemble(events: &[Value]) -> Turn {
    let mut stream = Assembler::new(Provider::Bedrock);
    for event in events {
        stream.push(event).unwrap();
    }
    stream.finish_turn()
}

/// The turn of a stream whose bytes come through the decoder in pieces of `size` bytes.
fn assemble_bytes(bytes: &[u8], size: usize) -> Turn {
    let mut decoder = EventStreamDecoder::new();
    let mut stream = Assembler::new(Provider::Bedrock);
    for piece in bytes.chunks(size) {
        for event in decoder.push(piece).unwrap() {
            stream.push(&event).unwrap();
        }
    }
    decoder.finish().unwrap();
    stream.finish_turn()
}

#[test]
fn every_recorded_stream_reads_the_same_through_its_binary_frames() {
    let mut streams = 0;
    for (file, streamed) in samples() {
        if !streamed {
            continue;
        }
        let events = events(&file);
        let json = assemble(&events);
        let bytes: Vec<u8> = events.iter().flat_map(event_frame).collect();
        // Whole, one byte at a time, and in pieces that split frames anywhere.
        for size in [bytes.len(), 1, 7, 64] {
            let framed = assemble_bytes(&bytes, size);
            assert_eq!(framed.calls, json.calls, "{file} in pieces of {size}");
            assert_eq!(framed.text, json.text, "{file}");
            assert_eq!(framed.stop_reason, json.stop_reason, "{file}");
        }
        if let Ok(dir) = std::env::var("BEDROCK_OUT") {
            let name = file.rsplit('/').next().unwrap().trim_end_matches(".jsonl");
            let path = std::path::Path::new(&dir).join(format!("{name}.eventstream"));
            std::fs::write(path, &bytes).unwrap();
        }
        streams += 1;
    }
    assert_eq!(streams, 11);
}

#[test]
fn broken_frames_are_errors_that_name_the_frame() {
    let first = event_frame(&json!({"messageStart": {"role": "assistant"}}));
    let second = event_frame(&json!({"contentBlockStop": {"contentBlockIndex": 0}}));
    // The frame's checksum.
    let mut bad = second.clone();
    let last = bad.len() - 5;
    bad[last] ^= 1;
    let mut decoder = EventStreamDecoder::new();
    assert_eq!(decoder.push(&first).unwrap().len(), 1);
    let error = decoder.push(&bad).unwrap_err();
    assert_eq!(error.frame(), 2);
    assert!(error.message().contains("checksum"), "{error}");
    // Broken framing stays broken: nothing after it can be trusted.
    assert_eq!(decoder.push(&first).unwrap_err(), error);
    // The prelude's checksum.
    let mut bad = first.clone();
    bad[9] ^= 1;
    let error = EventStreamDecoder::new().push(&bad).unwrap_err();
    assert!(error.message().contains("prelude"), "{error}");
    // A length past what the format allows, its prelude's checksum right.
    let mut huge = (64u32 << 20).to_be_bytes().to_vec();
    huge.extend_from_slice(&0u32.to_be_bytes());
    let crc = crc32fast::hash(&huge);
    huge.extend_from_slice(&crc.to_be_bytes());
    let error = EventStreamDecoder::new().push(&huge).unwrap_err();
    assert!(error.message().contains("out of bounds"), "{error}");
    // A body cut off inside a frame.
    let mut decoder = EventStreamDecoder::new();
    assert!(decoder.push(&first[..first.len() - 3]).unwrap().is_empty());
    let error = decoder.finish().unwrap_err();
    assert!(error.message().contains("never completed"), "{error}");
    // A payload that is not JSON.
    let error = EventStreamDecoder::new()
        .push(&frame(
            &[(":message-type", "event"), (":event-type", "metadata")],
            b"{nope",
        ))
        .unwrap_err();
    assert!(error.message().contains("not JSON"), "{error}");
}

#[test]
fn an_exception_frame_is_the_streams_error() {
    let bytes = frame(
        &[
            (":message-type", "exception"),
            (":exception-type", "throttlingException"),
            (":content-type", "application/json"),
        ],
        br#"{"message":"Too many requests, please wait before trying again."}"#,
    );
    let events = EventStreamDecoder::new().push(&bytes).unwrap();
    let mut stream = Assembler::new(Provider::Bedrock);
    let error = stream.push(&events[0]).unwrap_err();
    assert!(error.to_string().contains("throttlingException"), "{error}");
    assert!(error.to_string().contains("Too many requests"), "{error}");
    // An initial response carries no event.
    let initial = frame(
        &[
            (":message-type", "event"),
            (":event-type", "initial-response"),
        ],
        b"{}",
    );
    assert!(EventStreamDecoder::new().push(&initial).unwrap().is_empty());
}

/// Reasoning as the service streams it (`reasoningContent` deltas of text, then the
/// signature), and a call: the assistant message carries both back, the reasoning signed.
#[test]
fn reasoning_goes_back_with_its_signature_whole_and_streamed() {
    let streamed = assemble(&[
        json!({"messageStart": {"role": "assistant"}}),
        json!({"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "The user wants "}}}}),
        json!({"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "the weather."}}}}),
        json!({"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "EqoBCkgIARABGAIiQL"}}}}),
        json!({"contentBlockStop": {"contentBlockIndex": 0}}),
        json!({"contentBlockStart": {"contentBlockIndex": 1, "start": {"toolUse": {"toolUseId": "tooluse_1", "name": "get_weather"}}}}),
        json!({"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"toolUse": {"input": "{\"city\": \"Par"}}}}),
        json!({"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"toolUse": {"input": "is\"}"}}}}),
        json!({"contentBlockStop": {"contentBlockIndex": 1}}),
        json!({"messageStop": {"stopReason": "tool_use"}}),
        json!({"metadata": {"usage": {"inputTokens": 10, "outputTokens": 20, "totalTokens": 30}}}),
    ]);
    let content = json!([
        {"reasoningContent": {"reasoningText": {"text": "The user wants the weather.", "signature": "EqoBCkgIARABGAIiQL"}}},
        {"toolUse": {"toolUseId": "tooluse_1", "name": "get_weather", "input": {"city": "Paris"}}},
    ]);
    assert_eq!(
        streamed.assistant_message().unwrap(),
        json!({"role": "assistant", "content": content})
    );
    assert_eq!(streamed.text, "");
    assert_eq!(streamed.calls[0].status, CallStatus::Complete);
    let whole = Provider::Bedrock
        .read_response(&json!({
            "output": {"message": {"role": "assistant", "content": content}},
            "stopReason": "tool_use",
        }))
        .unwrap();
    assert_eq!(
        whole.assistant_message().unwrap(),
        streamed.assistant_message().unwrap()
    );
    assert_eq!(
        whole.calls[0].arguments,
        Arguments::Json(json!({"city": "Paris"}))
    );
    assert_eq!(whole.calls[0].index, 1);
    // A tool the service runs is its own kind, with its result.
    let server = Provider::Bedrock
        .read_response(&json!({"output": {"message": {"role": "assistant", "content": [
            {"toolUse": {"toolUseId": "srv_1", "name": "nova_grounding", "input": {}, "type": "server_tool_use"}},
            {"toolResult": {"toolUseId": "srv_1", "content": [{"text": "found"}]}},
        ]}}, "stopReason": "end_turn"}))
        .unwrap();
    assert_eq!(server.calls[0].kind, CallKind::Server);
    assert_eq!(
        server.calls[0].metadata["result"]["toolResult"]["toolUseId"],
        "srv_1"
    );
}

#[test]
fn results_are_tool_result_blocks_of_json_text_and_images() {
    let calls = [
        ToolCall::new("t1", "lookup", "{}"),
        ToolCall::new("t2", "chart", "{}"),
        ToolCall::new("t3", "fail", "{}"),
    ];
    let results = [
        ToolResult::for_call(&calls[0], ToolOutput::text(r#"{"temperature": 21}"#)),
        ToolResult::for_call(
            &calls[1],
            ToolOutput::parts(vec![
                ContentPart::text("a chart:"),
                ContentPart::image("iVBORw0KGgo=", "image/png"),
            ]),
        ),
        ToolResult::for_call(&calls[2], ToolOutput::error("the service is down")),
    ];
    let message = Toolbox::new()
        .encode_results(Provider::Bedrock, &calls, &results)
        .unwrap();
    assert_eq!(
        message,
        json!({"role": "user", "content": [
            {"toolResult": {"toolUseId": "t1", "content": [{"json": {"temperature": 21}}]}},
            {"toolResult": {"toolUseId": "t2", "content": [
                {"text": "a chart:"},
                {"image": {"format": "png", "source": {"bytes": "iVBORw0KGgo="}}},
            ]}},
            {"toolResult": {"toolUseId": "t3", "content": [{"text": "the service is down"}], "status": "error"}},
        ]})
    );
}

#[test]
fn the_choice_is_auto_any_or_a_tool_and_none_is_refused() {
    let def = ToolDefinition::new("weather", "", json!({"type": "object"})).unwrap();
    let tools = Toolbox::new()
        .with(DynamicTool::new(def, |_, _: &()| Value::Null))
        .unwrap();
    let fields = tools
        .request_fields(Provider::Bedrock, ToolChoice::Auto)
        .unwrap();
    // An empty description is left out: Bedrock refuses it.
    assert_eq!(
        fields.to_value(),
        json!({"toolConfig": {"tools": [{"toolSpec": {"name": "weather", "inputSchema": {"json": {"type": "object", "properties": {}}}}}]}})
    );
    let fields = tools
        .request_fields(Provider::Bedrock, ToolChoice::tool("weather"))
        .unwrap();
    assert_eq!(
        fields.get("toolConfig").unwrap()["toolChoice"],
        json!({"tool": {"name": "weather"}})
    );
    let error = tools
        .request_fields(Provider::Bedrock, ToolChoice::None)
        .unwrap_err();
    assert!(error.to_string().contains("none"), "{error}");
}

/// Every recording read, and the next request built from it (the user's question, the
/// assistant turn, the results): kept for botocore's validator and parser.
#[test]
fn every_recorded_sample_gives_a_request_botocore_can_check() {
    let tools = Toolbox::new();
    let samples = samples();
    assert_eq!(samples.len(), 28);
    for (file, streamed) in samples {
        let turn = if streamed {
            assemble(&events(&file))
        } else {
            let body: Value =
                serde_json::from_str(&data::read(&format!("providers/{file}"))).unwrap();
            Provider::Bedrock.read_response(&body).unwrap()
        };
        let results: Vec<ToolResult> = turn
            .calls
            .iter()
            .enumerate()
            .map(|(at, call)| {
                let output = match at % 3 {
                    0 => ToolOutput::text(r#"{"ok": true}"#),
                    1 => ToolOutput::parts(vec![ContentPart::image("iVBORw0KGgo=", "image/png")]),
                    _ => ToolOutput::error("failed"),
                };
                ToolResult::for_call(call, output)
            })
            .collect();
        let mut messages = vec![
            json!({"role": "user", "content": [{"text": "Go."}]}),
            turn.assistant_message().unwrap(),
        ];
        if !turn.calls.is_empty() {
            messages.push(
                tools
                    .encode_results(Provider::Bedrock, &turn.calls, &results)
                    .unwrap(),
            );
        }
        if let Ok(dir) = std::env::var("BEDROCK_OUT") {
            let name = file.rsplit('/').next().unwrap();
            let name = name.trim_end_matches(".jsonl").trim_end_matches(".json");
            let kind = if streamed { "stream" } else { "response" };
            let path = std::path::Path::new(&dir).join(format!("bedrock--{kind}-{name}.json"));
            let value = json!({
                "recorded": format!("tests/data/providers/{file}"),
                "streamed": streamed,
                "request": {"modelId": "anthropic.claude-sonnet-4", "messages": messages},
            });
            std::fs::write(path, serde_json::to_string_pretty(&value).unwrap()).unwrap();
        }
    }
}

/// The next request takes a block's one member, and no `toolUse.type` but `server_tool_use`
/// (the service sends `tool_use`, which its model's enum lacks); the turn keeps what came.
#[test]
fn the_assistant_turn_is_written_as_a_request_takes_it() {
    let body: Value = serde_json::from_str(&data::read(
        "providers/nonstream/pydantic__pydantic-ai/test_tool_choice_matrix_required-bedrock_0.json",
    ))
    .unwrap();
    let turn = Provider::Bedrock.read_response(&body).unwrap();
    assert_eq!(turn.content[0]["toolUse"]["type"], "tool_use");
    let message = turn.assistant_message().unwrap();
    let tool_use = &message["content"][0]["toolUse"];
    assert_eq!(tool_use.get("type"), None);
    assert_eq!(
        tool_use["toolUseId"],
        body["output"]["message"]["content"][0]["toolUse"]["toolUseId"]
    );
    let mock = Provider::Bedrock
        .read_response(
            &json!({"output": {"message": {"role": "assistant", "content": [
                {"type": "text", "text": "Sure."},
            ]}}}),
        )
        .unwrap();
    assert_eq!(
        mock.assistant_message().unwrap()["content"],
        json!([{"text": "Sure."}])
    );
}

/// Recorded reasoning, whole and streamed, and redacted reasoning: carried back as the service
/// sent it, the signature joined to its text.
#[test]
fn recorded_reasoning_is_carried_back_signed() {
    let body: Value = serde_json::from_str(&data::read(
        "providers/turns/bedrock__amazon-bedrock-reasoning.json",
    ))
    .unwrap();
    let whole = Provider::Bedrock.read_response(&body).unwrap();
    assert_eq!(
        whole.assistant_message().unwrap(),
        body["output"]["message"]
    );
    assert!(whole.text.starts_with("There are **3** r's"));
    let streamed = assemble(&events("turns/bedrock__bedrock-reasoning.jsonl"));
    let message = streamed.assistant_message().unwrap();
    let reasoning = &message["content"][0]["reasoningContent"]["reasoningText"];
    assert_eq!(
        reasoning["text"],
        "Let me count the r's in \"strawberry\":\n\ns-t-r-a-w-b-e-r-r-y\n\nr appears at positions 3, 8, and 9.\n\nSo there are 3 r's."
    );
    assert!(
        reasoning["signature"]
            .as_str()
            .unwrap()
            .starts_with("Ep0CCkgICxAB")
    );
    assert_eq!(message["content"][1]["text"], streamed.text.as_str());
    assert_eq!(streamed.stop_reason.as_deref(), Some("end_turn"));
    let body: Value = serde_json::from_str(&data::read(
        "providers/turns/bedrock__amazon-bedrock-redacted-content.json",
    ))
    .unwrap();
    let redacted = Provider::Bedrock.read_response(&body).unwrap();
    assert_eq!(
        redacted.assistant_message().unwrap(),
        body["output"]["message"]
    );
    assert_eq!(redacted.calls[0].name, "json");
}

/// A frame the service really sent: a model stream error, read by the decoder (checksums and
/// all) and reported by the assembler as the error it is.
#[test]
fn a_recorded_exception_frame_is_decoded_and_reported() {
    use base64::Engine as _;
    let text =
        data::read("providers/turns/bedrock__model-stream-error-exception.eventstream.base64.txt");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text.trim())
        .unwrap();
    let mut decoder = EventStreamDecoder::new();
    let events = decoder.push(&bytes).unwrap();
    decoder.finish().unwrap();
    assert_eq!(
        events,
        [json!({"modelStreamErrorException": {
            "message": "Model Stream Error",
            "originalStatusCode": 500,
            "originalMessage": "The model stream failed.",
        }})]
    );
    let error = Assembler::new(Provider::Bedrock)
        .push(&events[0])
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("modelStreamErrorException: Model Stream Error"),
        "{error}"
    );
}

/// A `toolUse.type` of an odd shape is reported and costs the call nothing, whole and streamed.
#[test]
fn an_odd_tool_use_type_costs_the_call_nothing() {
    let whole = Provider::Bedrock
        .read_response(
            &json!({"output": {"message": {"role": "assistant", "content": [
            {"toolUse": {"toolUseId": "t1", "name": "add", "input": {"a": 1}, "type": 7}},
        ]}}, "stopReason": "tool_use"}),
        )
        .unwrap();
    assert_eq!(whole.calls[0].kind, CallKind::Function);
    assert_eq!(whole.warnings.len(), 1);
    assert_eq!(
        whole.warnings[0].path(),
        "/output/message/content/0/toolUse/type"
    );
    let mut stream = Assembler::new(Provider::Bedrock);
    stream
        .push(&json!({"contentBlockStart": {"contentBlockIndex": 0, "start": {"toolUse": {"toolUseId": "t1", "name": "add", "type": ["x"]}}}}))
        .unwrap();
    stream
        .push(&json!({"contentBlockStop": {"contentBlockIndex": 0}}))
        .unwrap();
    assert_eq!(stream.warnings().len(), 1);
    let calls = stream.finish();
    assert_eq!(calls[0].name, "add");
    assert_eq!(calls[0].status, CallStatus::Complete);
}
