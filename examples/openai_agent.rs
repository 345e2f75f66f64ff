//! An agent loop against any OpenAI-compatible server (OpenAI, vLLM, llama.cpp's server, Ollama,
//! Groq, `OpenRouter`, ...): the prompt goes to `{OPENAI_BASE_URL}/chat/completions` with the demo
//! toolbox's tools and `"stream": true`; the calls are assembled as the chunks arrive, run as one
//! batch, and their results sent back, until the model answers without calls (at most 8 turns).
//!
//! ```text
//! OPENAI_BASE_URL=http://127.0.0.1:8080/v1 OPENAI_MODEL=qwen3 \
//!     cargo run --example openai_agent -- What is 2 + 3, and the weather in Paris?
//! ```
//!
//! Environment, as the official SDKs read it: `OPENAI_BASE_URL` (default
//! `https://api.openai.com/v1`), `OPENAI_API_KEY` (sent as a bearer token when set; a local
//! server may need none) and `OPENAI_MODEL` (required). Each step is printed on stdout as it
//! happens (`[turn] text ...` for what the model said beside its calls, `[turn] call name
//! arguments`, then `[turn] result name: text`), and last the model's final answer; what the
//! stream held that could not be read whole goes to stderr as `warning: ...`. Exit status: 0 with an answer; 1 for an HTTP or provider error, a stream that
//! cannot be read, or no answer after 8 turns (the message on stderr); 2 for a usage error.
//!
//! HTTP is reqwest's, behind this example only: toolwright itself reads and writes the JSON.

// The demo toolbox, shared with the facade's examples.
#[path = "demo/mod.rs"]
#[allow(dead_code)]
mod demo;

use std::process::ExitCode;

use futures_util::StreamExt;
use serde_json::{Value, json};
use toolwright::provider::{Provider, Turn};

/// Model turns before the loop gives up.
const MAX_TURNS: usize = 8;

#[tokio::main]
async fn main() -> ExitCode {
    let prompt = std::env::args().skip(1).collect::<Vec<_>>().join(" ");
    if prompt.trim().is_empty() {
        eprintln!("usage: cargo run --example openai_agent -- <prompt words>");
        eprintln!("environment: OPENAI_BASE_URL, OPENAI_MODEL, OPENAI_API_KEY");
        return ExitCode::from(2);
    }
    let Ok(model) = std::env::var("OPENAI_MODEL") else {
        eprintln!("error: set OPENAI_MODEL to the model the server should run");
        return ExitCode::from(2);
    };
    let base =
        std::env::var("OPENAI_BASE_URL").unwrap_or_else(|_| "https://api.openai.com/v1".to_owned());
    let key = std::env::var("OPENAI_API_KEY")
        .ok()
        .filter(|key| !key.is_empty());
    match run(&prompt, &base, &model, key.as_deref()).await {
        Ok(answer) => {
            println!("{answer}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The loop: the final answer, or what went wrong.
async fn run(prompt: &str, base: &str, model: &str, key: Option<&str>) -> Result<String, String> {
    let tools = demo::toolbox();
    let ctx = demo::context();
    let url = format!("{}/chat/completions", base.trim_end_matches('/'));
    let client = reqwest::Client::new();
    let tool_list = tools
        .tools_for(Provider::OpenAiChat)
        .map_err(|report| format!("the demo tools cannot be sent: {report}"))?
        .to_value();
    let mut messages = vec![json!({"role": "user", "content": prompt})];

    for turn_number in 1..=MAX_TURNS {
        let body = json!({
            "model": model,
            "messages": messages,
            "tools": tool_list,
            "stream": true,
        });
        let turn = stream_turn(&client, &url, key, &body, &tools).await?;
        // What the stream held that could not be read whole is said, not dropped.
        for warning in &turn.warnings {
            eprintln!("warning: {warning}");
        }
        let calls: Vec<_> = turn.local_calls().cloned().collect();
        if calls.is_empty() {
            return Ok(turn.text);
        }
        if !turn.text.trim().is_empty() {
            println!("[{turn_number}] text {}", turn.text.replace('\n', " "));
        }
        messages.push(
            turn.assistant_message()
                .map_err(|error| format!("the model's turn cannot be sent back: {error}"))?,
        );
        for call in &calls {
            println!(
                "[{turn_number}] call {} {}",
                call.name,
                arguments_text(call)
            );
        }
        let results = tools.execute_all(&calls, &ctx).await;
        for result in &results {
            println!(
                "[{turn_number}] result {}: {}",
                result.tool_name,
                result.text()
            );
        }
        let replies = tools
            .encode_results(Provider::OpenAiChat, &calls, &results)
            .map_err(|error| format!("the results cannot be sent: {error}"))?;
        messages.extend(replies.as_array().into_iter().flatten().cloned());
    }
    Err(format!(
        "no answer after {MAX_TURNS} turns: the model kept calling tools"
    ))
}

/// One streamed model turn, assembled as its chunks arrive.
async fn stream_turn(
    client: &reqwest::Client,
    url: &str,
    key: Option<&str>,
    body: &Value,
    tools: &toolwright::Toolbox<demo::DemoContext>,
) -> Result<Turn, String> {
    let mut request = client.post(url).json(body);
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    let response = request
        .send()
        .await
        .map_err(|error| format!("could not reach {url}: {}", chain(&error)))?;
    let status = response.status();
    if !status.is_success() {
        let text = response.text().await.unwrap_or_default();
        let message = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|body| body["error"]["message"].as_str().map(str::to_owned))
            .unwrap_or(text);
        return Err(format!("HTTP {status} from {url}: {message}"));
    }
    let mut assembler = tools.assembler(Provider::OpenAiChat);
    let mut pending = Vec::new();
    let mut bytes = response.bytes_stream();
    while let Some(chunk) = bytes.next().await {
        let chunk =
            chunk.map_err(|error| format!("the stream from {url} broke off: {}", chain(&error)))?;
        pending.extend_from_slice(&chunk);
        while let Some(end) = pending.iter().position(|&byte| byte == b'\n') {
            let line: Vec<u8> = pending.drain(..=end).collect();
            push_line(&mut assembler, &line)?;
        }
    }
    push_line(&mut assembler, &pending)?;
    Ok(assembler.finish_turn())
}

/// One line of the event stream into the assembler: a provider's error, or a line that is not
/// the format, ends the loop.
fn push_line(assembler: &mut toolwright::provider::Assembler, line: &[u8]) -> Result<(), String> {
    let line = std::str::from_utf8(line).map_err(|_| "the stream is not UTF-8".to_owned())?;
    assembler
        .push_line(line)
        .map_err(|error| format!("the provider's stream: {error}"))
}

/// A call's arguments as the model sent them, on one line.
fn arguments_text(call: &toolwright::ToolCall) -> String {
    match &call.arguments {
        toolwright::Arguments::Text(text) => text.replace('\n', " "),
        toolwright::Arguments::Json(value) => value.to_string(),
    }
}

/// An error with its causes (reqwest's own text leaves out why a request failed).
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
