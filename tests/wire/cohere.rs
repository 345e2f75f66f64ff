//! Cohere's v2 chat over its recorded responses and streams (`tests/data/providers/`, copied from
//! vercel/ai and pydantic-ai): the tool plan as the turn's text, the assistant message carried
//! back whole and streamed, results as `tool` messages, the request's tool choice. With
//! `COHERE_OUT=<dir>`, what is built is written there for the official SDK's types
//! (`tests/python/check_cohere.py`).

use serde_json::{Value, json};
use toolwright::provider::{Assembler, Provider, ToolChoice, ToolRequest, Turn};
use toolwright::{
    Arguments, ContentPart, DynamicTool, ToolCall, ToolDefinition, ToolOutput, ToolResult, Toolbox,
};

use crate::data;

/// The recorded Cohere samples: (file under `providers/`, streamed): the manifest's, and the
/// turns with citations and reasoning.
fn samples() -> Vec<(String, bool)> {
    let mut samples: Vec<(String, bool)> = data::read("providers/manifest.jsonl")
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|row| row["format"].as_str().unwrap().starts_with("cohere_v2"))
        .map(|row| {
            (
                row["file"].as_str().unwrap().to_owned(),
                row["streamed"] == true,
            )
        })
        .collect();
    for (file, streamed) in [
        ("turns/cohere__cohere-citations.json", false),
        ("turns/cohere__cohere-citations.jsonl", true),
        ("turns/cohere__cohere-reasoning.json", false),
    ] {
        samples.push((file.to_owned(), streamed));
    }
    samples
}

fn read(file: &str) -> Turn {
    let body: Value = serde_json::from_str(&data::read(&format!("providers/{file}"))).unwrap();
    Provider::Cohere.read_response(&body).unwrap()
}

fn stream(file: &str) -> Turn {
    let mut stream = Assembler::new(Provider::Cohere);
    for line in data::read(&format!("providers/{file}")).lines() {
        stream.push_line(line).unwrap();
    }
    assert!(stream.is_ended(), "{file}: `message-end` ends the stream");
    stream.finish_turn()
}

/// A result for each call: a JSON object (a document), text, and an image (no place for one).
fn results(calls: &[ToolCall]) -> Vec<ToolResult> {
    calls
        .iter()
        .enumerate()
        .map(|(at, call)| {
            let output = match at % 3 {
                0 => ToolOutput::text(r#"{"temperature": 21, "unit": "C"}"#),
                1 => ToolOutput::text("Sunny."),
                _ => ToolOutput::parts(vec![ContentPart::image("aGk=", "image/png")]),
            };
            ToolResult::for_call(call, output)
        })
        .collect()
}

/// Writes what was built for the SDK check, when asked to.
fn keep(name: &str, value: &Value) {
    if let Ok(dir) = std::env::var("COHERE_OUT") {
        let path = std::path::Path::new(&dir).join(format!("cohere--{name}.json"));
        std::fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
    }
}

#[test]
fn the_tool_plan_is_the_turns_text_whole_and_streamed() {
    let whole = read("nonstream/vercel__ai/cohere__cohere-tool-call.json");
    assert!(whole.text.starts_with("I will use the weather tool"));
    assert_eq!(whole.stop_reason.as_deref(), Some("TOOL_CALL"));
    assert_eq!(whole.calls.len(), 2);
    let streamed = stream("streams/vercel__ai/cohere__cohere-tool-call.jsonl");
    assert_eq!(
        streamed.text,
        "I will use the weather tool to find the weather in San Francisco and the cityAttractions tool to find attractions in San Francisco."
    );
    assert_eq!(streamed.stop_reason.as_deref(), Some("TOOL_CALL"));
    let message = streamed.assistant_message().unwrap();
    assert_eq!(message["role"], "assistant");
    assert_eq!(message["tool_plan"], streamed.text.as_str());
    assert_eq!(
        message["tool_calls"][1]["function"]["name"],
        "cityAttractions"
    );
    let Arguments::Text(sent) = &streamed.calls[1].arguments else {
        panic!("Cohere streams its arguments as text")
    };
    assert_eq!(
        message["tool_calls"][1]["function"]["arguments"],
        sent.as_str()
    );
    // A whole response's message goes back as it came (what only a response has left out).
    let body: Value = serde_json::from_str(&data::read(
        "providers/nonstream/vercel__ai/cohere__cohere-tool-call.json",
    ))
    .unwrap();
    assert_eq!(whole.assistant_message().unwrap(), body["message"]);
}

#[test]
fn thinking_is_carried_back_and_is_not_the_text() {
    let turn = stream("streams/vercel__ai/cohere__cohere-reasoning.jsonl");
    assert!(turn.calls.is_empty());
    let message = turn.assistant_message().unwrap();
    let content = message["content"].as_array().unwrap();
    assert_eq!(content.len(), 2);
    assert_eq!(content[0]["type"], "thinking");
    assert!(
        content[0]["thinking"]
            .as_str()
            .unwrap()
            .starts_with("The user is")
    );
    assert_eq!(content[1]["type"], "text");
    assert_eq!(content[1]["text"], turn.text.as_str());
    assert!(!turn.text.is_empty() && !turn.text.contains("The user is"));
    assert_eq!(turn.stop_reason.as_deref(), Some("COMPLETE"));
}

#[test]
fn a_call_without_arguments_is_complete_with_its_text_as_sent() {
    let streamed = stream("streams/vercel__ai/cohere__cohere-empty-tool-call.jsonl");
    assert_eq!(streamed.calls[0].arguments, Arguments::Text(String::new()));
    assert_eq!(streamed.calls[0].status, toolwright::CallStatus::Complete);
    let whole = read("nonstream/vercel__ai/cohere__cohere-null-args.json");
    assert_eq!(whole.calls[0].arguments, Arguments::Text("null".into()));
}

#[test]
fn results_are_tool_messages_of_documents_and_text() {
    let tools = Toolbox::new();
    let turn = read("nonstream/vercel__ai/cohere__cohere-tool-call.json");
    let results = results(&turn.calls);
    let messages = tools
        .encode_results(Provider::Cohere, &turn.calls, &results)
        .unwrap();
    assert_eq!(
        messages,
        json!([
            {"role": "tool", "tool_call_id": "weather_dqgshstja6p9", "content": [
                {"type": "document", "document": {"data": {"temperature": 21, "unit": "C"}}},
            ]},
            {"role": "tool", "tool_call_id": "cityAttractions_dcxfx4myvx68", "content": [
                {"type": "text", "text": "Sunny."},
            ]},
        ])
    );
    // An image has no place in a tool message: it goes as the text that says what it was.
    let call = ToolCall::new("c", "snap", "{}");
    let image = ToolResult::for_call(
        &call,
        ToolOutput::parts(vec![ContentPart::image("aGk=", "image/png")]),
    );
    let message = tools
        .encode_result(Provider::Cohere, &call, &image)
        .unwrap();
    assert_eq!(message["content"][0]["type"], "text");
    assert!(
        message["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("image/png")
    );
}

#[test]
fn the_choice_is_required_or_none_and_a_named_tool_narrows_the_list() {
    let tool = |name: &'static str| {
        let def = ToolDefinition::new(name, "A tool.", json!({"type": "object"})).unwrap();
        DynamicTool::new(def, |_, _: &()| Value::Null)
    };
    let tools = Toolbox::new()
        .with(tool("weather"))
        .unwrap()
        .with(tool("time"))
        .unwrap();
    let fields = tools
        .request_fields(Provider::Cohere, ToolChoice::Auto)
        .unwrap();
    assert_eq!(fields.get("tool_choice"), None);
    assert_eq!(fields.get("tools").unwrap().as_array().unwrap().len(), 2);
    let fields = tools
        .request_fields(Provider::Cohere, ToolChoice::None)
        .unwrap();
    assert_eq!(fields.get("tool_choice"), Some(&json!("NONE")));
    let fields = tools
        .request_fields(Provider::Cohere, ToolChoice::tool("time"))
        .unwrap();
    assert_eq!(fields.get("tool_choice"), Some(&json!("REQUIRED")));
    assert_eq!(fields.get("tools").unwrap()[0]["function"]["name"], "time");
    assert_eq!(fields.get("tools").unwrap().as_array().unwrap().len(), 1);
    assert!(fields.narrowed());
    let one_at_a_time = ToolRequest::new(ToolChoice::Required).parallel_calls(false);
    assert!(
        tools
            .request_fields(Provider::Cohere, one_at_a_time)
            .is_err()
    );
}

/// Every recorded sample read, its assistant message and its results built: kept for the SDK
/// check, which also parses the recording itself with the SDK's response and event types.
#[test]
fn every_recorded_sample_gives_a_message_and_results() {
    let tools = Toolbox::new();
    let samples = samples();
    assert_eq!(samples.len(), 15);
    for (file, streamed) in samples {
        let turn = if streamed { stream(&file) } else { read(&file) };
        let message = turn.assistant_message().unwrap();
        let results = tools
            .encode_results(Provider::Cohere, &turn.calls, &results(&turn.calls))
            .unwrap();
        assert_eq!(
            results.as_array().unwrap().len(),
            turn.calls.len(),
            "{file}"
        );
        let name = file.rsplit('/').next().unwrap().split('.').next().unwrap();
        let kind = if streamed { "stream" } else { "response" };
        let name = name.trim_start_matches("cohere__");
        keep(
            &format!("{kind}-{name}"),
            &json!({
                "recorded": format!("tests/data/providers/{file}"),
                "streamed": streamed,
                "message": message,
                "results": results,
            }),
        );
    }
}

/// Citations, whole and streamed, go back with the message they cite; a whole answer's thinking
/// is carried back and is not the text.
#[test]
fn citations_and_thinking_are_carried_back() {
    let body: Value =
        serde_json::from_str(&data::read("providers/turns/cohere__cohere-citations.json")).unwrap();
    let whole = Provider::Cohere.read_response(&body).unwrap();
    assert_eq!(whole.assistant_message().unwrap(), body["message"]);
    assert!(whole.text.starts_with("The key benefits mentioned"));
    let streamed = stream("turns/cohere__cohere-citations.jsonl");
    let message = streamed.assistant_message().unwrap();
    assert_eq!(streamed.text, "The key benefits are automation of tasks.");
    assert_eq!(message["citations"][0]["text"], "automation of tasks");
    assert_eq!(message["citations"][0]["sources"][0]["id"], "doc:0");
    assert_eq!(message["content"][0]["text"], streamed.text.as_str());
    let body: Value =
        serde_json::from_str(&data::read("providers/turns/cohere__cohere-reasoning.json")).unwrap();
    let reasoning = Provider::Cohere.read_response(&body).unwrap();
    assert_eq!(reasoning.text, "2 + 2 = 4");
    assert_eq!(reasoning.assistant_message().unwrap(), body["message"]);
}

/// An event of a kind toolwright does not know is a warning, never silence, and the calls
/// beside it are read as ever.
#[test]
fn an_unknown_event_is_a_warning() {
    let mut stream = Assembler::new(Provider::Cohere);
    for event in [
        json!({"type": "message-start", "delta": {"message": {"role": "assistant"}}}),
        json!({"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls": {"id": "t1", "type": "function", "function": {"name": "time", "arguments": "{}"}}}}}),
        json!({"type": "tool-call-surprise", "index": 0}),
        json!({"type": "tool-call-end", "index": 0}),
        json!({"type": "message-end", "delta": {"finish_reason": "TOOL_CALL"}}),
    ] {
        stream.push(&event).unwrap();
    }
    assert_eq!(stream.warnings().len(), 1);
    assert_eq!(stream.warnings()[0].chunk(), Some(3));
    let turn = stream.finish_turn();
    assert_eq!(turn.calls[0].status, toolwright::CallStatus::Complete);
}
