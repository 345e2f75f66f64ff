//! An OpenAI-compatible server on a loopback port that answers `POST …/chat/completions` with
//! scripted replies, in order, and keeps every request it received: the model end of the agent
//! tests, over a real HTTP stack (hyper).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::service::service_fn;
use serde_json::{Value, json};

use crate::http as http_server;

/// One scripted answer.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A whole response body.
    Json(Value),
    /// A stream: each chunk a `data:` event, then `data: [DONE]`.
    Stream(Vec<Value>),
    /// Server-sent events exactly as written (a recorded stream's lines).
    Events(String),
    /// An error status with its body.
    Status(u16, Value),
}

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Received {
    pub path: String,
    pub authorization: Option<String>,
    pub body: Value,
}

/// The running server: its address and what it received.
#[derive(Clone)]
pub struct Replay {
    pub address: SocketAddr,
    received: Arc<Mutex<Vec<Received>>>,
}

impl Replay {
    /// `http://127.0.0.1:port/v1`, as `OPENAI_BASE_URL` takes it.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.address)
    }

    /// Every request so far, in order.
    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

/// Serves `replies` on a free loopback port until the test's runtime ends. A request past the
/// script gets a 500 naming it.
pub async fn start(replies: Vec<Reply>) -> Replay {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let received = Arc::new(Mutex::new(Vec::new()));
    let script = Arc::new(Mutex::new(replies.into_iter()));
    let replay = Replay {
        address,
        received: Arc::clone(&received),
    };
    let service = service_fn(move |request: http::Request<hyper::body::Incoming>| {
        let received = Arc::clone(&received);
        let script = Arc::clone(&script);
        async move {
            let path = request.uri().path().to_owned();
            let authorization = request
                .headers()
                .get(http::header::AUTHORIZATION)
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned);
            let bytes = request.into_body().collect().await.unwrap().to_bytes();
            let body = serde_json::from_slice(&bytes)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into()));
            received.lock().unwrap().push(Received {
                path: path.clone(),
                authorization,
                body,
            });
            let next = if path.ends_with("/chat/completions") {
                script.lock().unwrap().next()
            } else {
                None
            };
            Ok::<_, Infallible>(answer(next, &path))
        }
    });
    http_server::serve_hyper(listener, service);
    replay
}

fn answer(reply: Option<Reply>, path: &str) -> http::Response<Full<Bytes>> {
    let (status, kind, body) = match reply {
        Some(Reply::Json(body)) => (200, "application/json", body.to_string()),
        Some(Reply::Stream(chunks)) => {
            let mut events = String::new();
            for chunk in chunks {
                events.push_str(&format!("data: {chunk}\n\n"));
            }
            events.push_str("data: [DONE]\n\n");
            (200, "text/event-stream", events)
        }
        Some(Reply::Events(events)) => (200, "text/event-stream", events),
        Some(Reply::Status(status, body)) => (status, "application/json", body.to_string()),
        None => (
            500,
            "application/json",
            json!({"error": {"message": format!("no scripted reply left for {path}")}}).to_string(),
        ),
    };
    http::Response::builder()
        .status(status)
        .header(http::header::CONTENT_TYPE, kind)
        .body(Full::new(Bytes::from(body)))
        .unwrap()
}

/// A Chat Completions response whose message makes `calls` (`(id, name, arguments text)`).
pub fn calls_response(calls: &[(&str, &str, &str)]) -> Value {
    let tool_calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, arguments)| {
            json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
        })
        .collect();
    json!({
        "id": "chatcmpl-test", "object": "chat.completion", "created": 1_700_000_000, "model": "test-model",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "logprobs": null,
            "message": {"role": "assistant", "content": null, "tool_calls": tool_calls}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    })
}

/// A Chat Completions response that answers with `text` and no call.
pub fn text_response(text: &str) -> Value {
    json!({
        "id": "chatcmpl-test", "object": "chat.completion", "created": 1_700_000_000, "model": "test-model",
        "choices": [{"index": 0, "finish_reason": "stop", "logprobs": null,
            "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    })
}

/// The `tool` messages of a request, as `(tool_call_id, text)`.
pub fn tool_messages(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|message| message["role"] == "tool")
        .map(|message| {
            let text = match &message["content"] {
                Value::String(text) => text.clone(),
                Value::Array(parts) => parts
                    .iter()
                    .filter_map(|part| part["text"].as_str())
                    .collect(),
                other => other.to_string(),
            };
            (
                message["tool_call_id"].as_str().unwrap_or("").to_owned(),
                text,
            )
        })
        .collect()
}
