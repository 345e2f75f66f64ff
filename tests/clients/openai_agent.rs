//! `examples/openai_agent.rs` run as a user runs it, against the scripted OpenAI-compatible
//! server on loopback: recorded streamed responses (the openai-python and Vercel AI SDK
//! recordings in `tests/data/providers`) and scripted ones; the requests the server receives
//! show the tools sent and every result returned under its call's id.

use std::process::Output;

use serde_json::{Value, json};
use toolwright::ToolCall;
use toolwright::provider::Provider;

use crate::data;
use crate::demo;
use crate::server::{self, Reply, tool_messages};
use crate::support::example;

/// A recorded stream (one chunk per line) as server-sent events.
fn recorded(file: &str) -> Reply {
    let text = data::read(&format!("providers/streams/{file}"));
    let mut events = String::new();
    for line in text.lines().filter(|line| !line.trim().is_empty()) {
        events.push_str(&format!("data: {line}\n\n"));
    }
    events.push_str("data: [DONE]\n\n");
    Reply::Events(events)
}

fn chunk(delta: Value, finish: Option<&str>) -> Value {
    json!({"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 1, "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
}

/// A streamed turn making `calls` (`(id, name, argument pieces)`), each piece its own chunk.
fn streamed_calls(calls: &[(&str, &str, &[&str])]) -> Reply {
    let mut chunks = vec![chunk(json!({"role": "assistant", "content": null}), None)];
    for (index, (id, name, pieces)) in calls.iter().enumerate() {
        chunks.push(chunk(
            json!({"tool_calls": [{"index": index, "id": id, "type": "function",
                "function": {"name": name, "arguments": ""}}]}),
            None,
        ));
        for piece in *pieces {
            chunks.push(chunk(
                json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}),
                None,
            ));
        }
    }
    chunks.push(chunk(json!({}), Some("tool_calls")));
    Reply::Stream(chunks)
}

fn streamed_text(pieces: &[&str]) -> Reply {
    let mut chunks = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    chunks.extend(
        pieces
            .iter()
            .map(|piece| chunk(json!({"content": piece}), None)),
    );
    chunks.push(chunk(json!({}), Some("stop")));
    Reply::Stream(chunks)
}

async fn run_agent(server: &server::Replay, prompt: &[&str], key: Option<&str>) -> Output {
    let binary = tokio::task::spawn_blocking(|| example("openai_agent"))
        .await
        .unwrap();
    let mut command = tokio::process::Command::new(binary);
    command
        .args(prompt)
        .env("OPENAI_BASE_URL", server.base_url())
        .env("OPENAI_MODEL", "test-model")
        .env_remove("OPENAI_API_KEY");
    if let Some(key) = key {
        command.env("OPENAI_API_KEY", key);
    }
    command.output().await.unwrap()
}

/// What the demo toolbox answers a call with.
fn answer(id: &str, name: &str, arguments: &str) -> (String, String) {
    let result =
        demo::toolbox().execute_blocking(&ToolCall::new(id, name, arguments), &demo::context());
    (id.to_owned(), result.text())
}

#[tokio::test]
async fn the_agent_loop_streams_runs_each_turns_calls_and_sends_every_result_back() {
    let server = server::start(vec![
        recorded("openai__openai-python/chat_stream_2018feb66ae1.jsonl"),
        recorded("vercel__ai/alibaba__alibaba-tool-call.jsonl"),
        streamed_calls(&[
            ("call_add", "add", &["{\"a\": 2,", " \"b\": 3}"]),
            // Broken JSON, in pieces: repaired when the call runs.
            ("call_broken", "add", &["{'a': 4, ", "'b': 5,}"]),
        ]),
        streamed_text(&["It is sunny", " in New York; 2 + 3 = 5 and 4 + 5 = 9."]),
    ])
    .await;
    let output = run_agent(&server, &["What", "is", "the", "weather?"], Some("sk-test")).await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert_eq!(
        stdout.lines().last(),
        Some("It is sunny in New York; 2 + 3 = 5 and 4 + 5 = 9."),
        "{stdout}"
    );
    assert!(
        stdout.contains("[1] call get_weather {\"city\":\"New York City\"}"),
        "{stdout}"
    );
    assert!(stdout.contains("[3] result add: 9"), "{stdout}");

    let received = server.received();
    assert_eq!(received.len(), 4, "{received:#?}");
    let tools = demo::toolbox()
        .tools_for(Provider::OpenAiChat)
        .unwrap()
        .to_value();
    for request in &received {
        assert_eq!(request.path, "/v1/chat/completions");
        assert_eq!(request.authorization.as_deref(), Some("Bearer sk-test"));
        assert_eq!(request.body["model"], "test-model");
        assert_eq!(request.body["stream"], true);
        assert_eq!(request.body["tools"], tools);
        assert_eq!(
            request.body["messages"][0],
            json!({"role": "user", "content": "What is the weather?"})
        );
    }
    // Each request carries every earlier result, under the id the model gave its call.
    let weather = answer(
        "call_4XzlGBLtUe9dy3GVNV4jhq7h",
        "get_weather",
        r#"{"city":"New York City"}"#,
    );
    let recorded_id = received[1].body["messages"][1]["tool_calls"][0]["id"].clone();
    assert_eq!(recorded_id, json!(weather.0), "{:#}", received[1].body);
    assert_eq!(
        tool_messages(&received[1].body),
        std::slice::from_ref(&weather)
    );
    // A tool the toolbox does not have is answered, by name, with the close matches.
    let unknown = answer(
        "call_eee11723464a4b9eb8cee71d",
        "weather",
        r#"{"location": "San Francisco"}"#,
    );
    assert!(unknown.1.contains("get_weather"), "{}", unknown.1);
    assert_eq!(
        tool_messages(&received[2].body),
        [weather.clone(), unknown.clone()]
    );
    assert_eq!(
        tool_messages(&received[3].body),
        [
            weather,
            unknown,
            ("call_add".to_owned(), "5".to_owned()),
            ("call_broken".to_owned(), "9".to_owned())
        ]
    );
}

#[tokio::test]
async fn http_and_provider_errors_end_the_loop_with_status_1_and_a_clear_message() {
    let server = server::start(vec![Reply::Status(
        401,
        json!({"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}),
    )])
    .await;
    let output = run_agent(&server, &["hi"], None).await;
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("HTTP 401") && stderr.contains("Incorrect API key provided"),
        "{stderr}"
    );
    // No key in the environment: no Authorization header.
    assert_eq!(server.received()[0].authorization, None);

    let server = server::start(vec![Reply::Events(
        "data: {\"error\": {\"message\": \"The server is overloaded\", \"type\": \"server_error\"}}\n\n"
            .to_owned(),
    )])
    .await;
    let output = run_agent(&server, &["hi"], None).await;
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("The server is overloaded"), "{stderr}");
}

#[tokio::test]
async fn a_model_that_keeps_calling_is_stopped_after_8_turns() {
    let replies = (0..9)
        .map(|turn| streamed_calls(&[(&*format!("call_{turn}"), "add", &["{\"a\": 1, \"b\": 1}"])]))
        .collect();
    let server = server::start(replies).await;
    let output = run_agent(&server, &["loop"], None).await;
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no answer after 8 turns"), "{stderr}");
    assert_eq!(server.received().len(), 8);
}

#[tokio::test]
async fn text_beside_calls_is_printed_and_what_the_stream_could_not_read_is_warned_of() {
    let mut turn = vec![
        chunk(json!({"role": "assistant", "content": "Let me add."}), None),
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                "function": {"name": "add", "arguments": "{\"a\": 1, \"b\": 2}"}}]}),
            None,
        ),
    ];
    // A finish reason that is not text: the call still runs, and the oddity is reported.
    let mut odd = chunk(json!({}), None);
    odd["choices"][0]["finish_reason"] = json!(7);
    turn.push(odd);
    let server = server::start(vec![Reply::Stream(turn), streamed_text(&["3"])]).await;
    let output = run_agent(&server, &["add"], None).await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("[1] text Let me add.\n[1] call add"),
        "{stdout}"
    );
    assert!(stdout.contains("[1] result add: 3"), "{stdout}");
    assert!(
        stderr.contains("warning:") && stderr.contains("finish_reason"),
        "{stderr}"
    );
}
