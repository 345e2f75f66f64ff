//! async-openai's types: the demo toolbox's tool lists, the recorded OpenAI responses and
//! streams read through async-openai's types, and results written as its request messages.
//! Each against toolwright's own readers and writers on the same JSON.

use std::process::Command;

use serde_json::{Value, json};
use toolwright::async_openai::types::chat::{
    ChatCompletionRequestMessage, CreateChatCompletionResponse, CreateChatCompletionStreamResponse,
};
use toolwright::async_openai::types::responses::{InputItem, Response, ResponseStreamEvent};
use toolwright::async_openai::{AssemblerExt, ToolboxExt};
use toolwright::provider::Provider;
use toolwright::{ToolCall, Toolbox};

use crate::data;
use crate::demo;
use crate::support::example;

/// What `examples/providers <form>` prints, as JSON.
fn providers(form: &str) -> Value {
    let output = Command::new(example("providers"))
        .arg(form)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn the_demo_toolbox_as_async_openai_tools_is_what_examples_providers_prints() {
    let plain = demo::toolbox();
    let chat = serde_json::to_value(plain.chat_tools().unwrap()).unwrap();
    assert_eq!(chat, providers("openai"));
    let strict = demo::toolbox().with_strict(true);
    let chat = serde_json::to_value(strict.chat_tools().unwrap()).unwrap();
    assert_eq!(chat, providers("openai-strict"));
    let responses = serde_json::to_value(plain.responses_tools().unwrap()).unwrap();
    assert_eq!(responses, providers("openai-responses"));
}

/// The calls in the order read, as the fields the provider sent.
fn seen(calls: &[ToolCall]) -> Vec<Value> {
    calls
        .iter()
        .map(|call| {
            json!([
                call.call_id,
                call.name,
                call.arguments,
                call.index,
                format!("{:?}", call.kind)
            ])
        })
        .collect()
}

/// The manifest's rows of a format.
fn rows(format: &str) -> Vec<Value> {
    data::read("providers/manifest.jsonl")
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|row| row["format"] == format)
        .collect()
}

/// Reads every recorded body of `format` both ways: async-openai's type then toolwright's reader,
/// and toolwright's reader on the body as recorded. Returns how many async-openai's type took,
/// and the names of those it did not.
fn compare_bodies<T: serde::de::DeserializeOwned>(
    format: &str,
    provider: Provider,
    read: impl Fn(&Toolbox, &T) -> Vec<ToolCall>,
) -> (usize, Vec<String>) {
    let tools = Toolbox::new();
    let (mut typed, mut untyped) = (0, Vec::new());
    for row in rows(format) {
        let file = row["file"].as_str().unwrap();
        let body: Value = serde_json::from_str(&data::read(&format!("providers/{file}"))).unwrap();
        let Ok(parsed) = serde_json::from_value::<T>(body.clone()) else {
            untyped.push(file.to_owned());
            continue;
        };
        let expected = tools.read_response(provider, &body).unwrap().calls;
        assert!(
            !expected.is_empty() || row["expected_tool_calls"] == json!([]),
            "{file}"
        );
        assert_eq!(seen(&read(&tools, &parsed)), seen(&expected), "{file}");
        typed += 1;
    }
    eprintln!("{format}: {typed} read through async-openai's types; refused by them: {untyped:?}");
    (typed, untyped)
}

/// The same for streams: every line through async-openai's chunk or event type, then the
/// assembler; against the assembler fed the lines as recorded.
fn compare_streams<T: serde::de::DeserializeOwned>(
    format: &str,
    provider: Provider,
    push: impl Fn(&mut toolwright::provider::Assembler, &T),
) -> (usize, Vec<String>) {
    let tools = Toolbox::new();
    let (mut typed, mut untyped) = (0, Vec::new());
    'streams: for row in rows(format) {
        let file = row["file"].as_str().unwrap();
        let text = data::read(&format!("providers/{file}"));
        let mut ours = tools.assembler(provider);
        let mut theirs = tools.assembler(provider);
        let mut chunks = Vec::new();
        for line in text.lines().filter(|line| !line.trim().is_empty()) {
            let Ok(value) = serde_json::from_str::<Value>(line) else {
                // A malformed line the recording keeps: neither side gets it.
                continue;
            };
            let Ok(parsed) = serde_json::from_value::<T>(value.clone()) else {
                untyped.push(file.to_owned());
                continue 'streams;
            };
            chunks.push((value, parsed));
        }
        for (value, parsed) in &chunks {
            ours.push(value).unwrap();
            push(&mut theirs, parsed);
        }
        assert_eq!(seen(&theirs.finish()), seen(&ours.finish()), "{file}");
        typed += 1;
    }
    eprintln!("{format}: {typed} read through async-openai's types; refused by them: {untyped:?}");
    (typed, untyped)
}

#[test]
fn recorded_chat_completions_read_through_async_openai_give_the_same_calls() {
    let (typed, untyped) = compare_bodies::<CreateChatCompletionResponse>(
        "openai_chat",
        Provider::OpenAiChat,
        |tools, response| tools.read_chat_completion(response).unwrap().calls,
    );
    // Vendors' OpenAI-compatible bodies that async-openai's strict types refuse (a missing
    // `created` or `object`, say) are theirs to read; the rest must agree call for call.
    // Measured: 20 of 33 (Groq's and Mistral's bodies are refused by async-openai 0.43).
    assert!(
        typed >= 20,
        "{typed} typed; refused by async-openai: {untyped:?}"
    );
    let (typed, untyped) = compare_streams::<CreateChatCompletionStreamResponse>(
        "openai_chat_stream",
        Provider::OpenAiChat,
        |assembler, chunk| assembler.push_chat_chunk(chunk).unwrap(),
    );
    // Measured: 11 of 12.
    assert!(
        typed >= 11,
        "{typed} typed; refused by async-openai: {untyped:?}"
    );
}

#[test]
fn recorded_responses_read_through_async_openai_give_the_same_calls() {
    let (typed, untyped) = compare_bodies::<Response>(
        "openai_responses",
        Provider::OpenAiResponses,
        |tools, response| tools.read_responses_output(response).unwrap().calls,
    );
    // Measured: all 13.
    assert!(
        typed >= 13,
        "{typed} typed; refused by async-openai: {untyped:?}"
    );
    let (typed, untyped) = compare_streams::<ResponseStreamEvent>(
        "openai_responses_stream",
        Provider::OpenAiResponses,
        |assembler, event| assembler.push_responses_event(event).unwrap(),
    );
    // Measured: 9 of 10.
    assert!(
        typed >= 9,
        "{typed} typed; refused by async-openai: {untyped:?}"
    );
}

#[test]
fn results_written_as_async_openai_messages_round_trip() {
    let tools = demo::toolbox();
    let calls = vec![
        ToolCall::new("call_1", "add", r#"{"a": 2, "b": 3}"#),
        ToolCall::new("call_2", "get_weather", r#"{"city": "Paris"}"#).with_index(1),
        ToolCall::new("call_3", "divide", r#"{"a": 1, "b": 0}"#).with_index(2),
    ];
    let results: Vec<_> = calls
        .iter()
        .map(|call| tools.execute_blocking(call, &demo::context()))
        .collect();

    let messages = tools.chat_tool_messages(&calls, &results).unwrap();
    let wire = tools
        .encode_results(Provider::OpenAiChat, &calls, &results)
        .unwrap();
    assert_eq!(serde_json::to_value(&messages).unwrap(), wire);
    assert!(matches!(messages[0], ChatCompletionRequestMessage::Tool(_)));
    let back: Vec<ChatCompletionRequestMessage> = serde_json::from_value(wire).unwrap();
    assert_eq!(back, messages);

    let items = tools.responses_input_items(&calls, &results).unwrap();
    let wire = tools
        .encode_results(Provider::OpenAiResponses, &calls, &results)
        .unwrap();
    assert_eq!(serde_json::to_value(&items).unwrap(), wire);
    let back: Vec<InputItem> = serde_json::from_value(wire).unwrap();
    assert_eq!(
        serde_json::to_value(back).unwrap(),
        serde_json::to_value(&items).unwrap()
    );

    // Results that do not pair with the calls are an error, not messages.
    assert!(tools.chat_tool_messages(&calls[..2], &results).is_err());
}
