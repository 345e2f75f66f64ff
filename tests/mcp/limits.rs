//! The HTTP service's limits and faults through the real HTTP stack (hyper on a loopback port,
//! reqwest and raw TCP clients): each limit hit and answered with its status and a JSON-RPC
//! error, a disconnect cancelling its call, a shutdown draining.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::Duration;

use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::Notify;
use toolwright::mcp::{HttpLimits, McpServer, ShutdownHandle};
use toolwright::{CallInfo, Toolbox, tool};

/// A call held open until released or cancelled, by its key.
#[derive(Default)]
struct Hold {
    started: Notify,
    release: Notify,
    cancelled: AtomicBool,
}

static HOLDS: LazyLock<Mutex<HashMap<String, Arc<Hold>>>> = LazyLock::new(Mutex::default);

fn hold(key: &str) -> Arc<Hold> {
    Arc::clone(HOLDS.lock().unwrap().entry(key.to_owned()).or_default())
}

/// Wait until released (or cancelled).
#[tool(read_only, concurrent)]
async fn wait(key: String, #[tool(call_info)] info: &CallInfo) -> String {
    let hold = hold(&key);
    hold.started.notify_one();
    tokio::select! {
        () = hold.release.notified() => "released".to_owned(),
        () = info.cancelled() => {
            hold.cancelled.store(true, Ordering::SeqCst);
            "cancelled".to_owned()
        }
    }
}

/// Add two integers.
#[tool(read_only)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Always panics.
#[tool(read_only)]
fn explode() -> String {
    panic!("boom")
}

/// The server under `limits` on a loopback port: its address and shutdown handle.
async fn serve(stateful: bool, limits: HttpLimits) -> (SocketAddr, ShutdownHandle) {
    let toolbox = Toolbox::new()
        .with_all((WaitTool, AddTool, ExplodeTool))
        .unwrap();
    let server = McpServer::new(Arc::new(toolbox), ()).unwrap();
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(stateful)
        .with_json_response(!stateful);
    let service = server.http_service_limited(config, limits);
    let shutdown = service.shutdown_handle();
    let address = crate::http::serve(service).await;
    (address, shutdown)
}

/// `future`'s output, or a failure after ten seconds: a limit that does not answer fails the
/// test rather than hanging it.
async fn within<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(10), future)
        .await
        .expect("an answer within ten seconds")
}

/// A POST on a connection of its own, for the tests that break HTTP's rules or go away:
/// `headers` (each ending in CRLF) after the usual ones, `length` announced, `sent` sent.
async fn raw_post(
    address: SocketAddr,
    headers: &str,
    length: usize,
    sent: &str,
) -> tokio::net::TcpStream {
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\nmcp-protocol-version: 2025-06-18\r\n\
         {headers}content-length: {length}\r\n\r\n{sent}"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream
}

fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn call(id: u64, name: &str, arguments: Value) -> Value {
    request(
        id,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    )
}

async fn post(address: SocketAddr, body: &Value, session: Option<&str>) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(format!("http://{address}/mcp"))
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2025-06-18")
        .body(body.to_string());
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    request.send().await.unwrap()
}

/// The status and the JSON-RPC error message of a refusal.
async fn refusal(response: reqwest::Response) -> (u16, String) {
    let status = response.status().as_u16();
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["jsonrpc"], "2.0", "{body}");
    assert_eq!(body["error"]["code"], -32000, "{body}");
    (
        status,
        body["error"]["message"].as_str().unwrap().to_owned(),
    )
}

#[tokio::test]
async fn bodies_over_the_limit_are_refused_with_413_announced_or_not() {
    let (address, _) = serve(false, HttpLimits::new().max_body(1024)).await;
    let big = call(1, "add", json!({"a": 1, "b": 2, "pad": "x".repeat(2000)}));
    let (status, message) = refusal(post(address, &big, None).await).await;
    assert_eq!(
        (status, message.as_str()),
        (413, "the request body is over 1024 bytes")
    );
    // Sent in chunks without a length: refused once the limit is passed.
    let chunks = futures_stream(big.to_string().into_bytes());
    let response = reqwest::Client::new()
        .post(format!("http://{address}/mcp"))
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(reqwest::Body::wrap_stream(chunks))
        .send()
        .await
        .unwrap();
    assert_eq!(refusal(response).await.0, 413);
    // Under the limit the same server answers.
    let response = post(address, &call(2, "add", json!({"a": 1, "b": 2})), None).await;
    assert_eq!(response.status(), 200);
}

/// `bytes` as a stream of 100-byte chunks.
fn futures_stream(
    bytes: Vec<u8>,
) -> impl futures_util::Stream<Item = Result<Vec<u8>, std::io::Error>> + Send + 'static {
    let chunks: Vec<Vec<u8>> = bytes.chunks(100).map(<[u8]>::to_vec).collect();
    futures_util::stream::iter(chunks.into_iter().map(Ok))
}

#[tokio::test]
async fn a_body_that_trickles_in_is_cut_off_with_408() {
    let (address, _) = serve(
        false,
        HttpLimits::new().body_timeout(Duration::from_millis(300)),
    )
    .await;
    // 200 bytes announced, 10 sent.
    let mut stream = raw_post(address, "", 200, r#"{"jsonrpc""#).await;
    // One byte now and then, never the whole body.
    let started = std::time::Instant::now();
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        tokio::select! {
            read = stream.read(&mut buffer) => {
                let read = read.unwrap();
                if read == 0 {
                    break;
                }
                answer.extend_from_slice(&buffer[..read]);
                if answer.windows(4).any(|w| w == b"\r\n\r\n") && answer.ends_with(b"}}") {
                    break;
                }
            }
            () = tokio::time::sleep(Duration::from_millis(100)) => {
                let _ = stream.write_all(b" ").await;
            }
        }
        assert!(started.elapsed() < Duration::from_secs(10), "no answer");
    }
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("did not arrive within 0.3 s"), "{answer}");
}

#[tokio::test]
async fn requests_past_the_places_and_the_queue_get_429() {
    let (address, _) = serve(false, HttpLimits::new().max_in_flight(1).max_queued(1)).await;
    let first = hold("places-1");
    let held = tokio::spawn(async move {
        post(address, &call(1, "wait", json!({"key": "places-1"})), None).await
    });
    within(first.started.notified()).await;
    // The one place is taken: the next request waits in the queue of one...
    let queued =
        tokio::spawn(
            async move { post(address, &call(2, "add", json!({"a": 1, "b": 2})), None).await },
        );
    tokio::time::sleep(Duration::from_millis(200)).await;
    // ...and the one after is refused.
    let response = post(address, &call(3, "add", json!({"a": 1, "b": 2})), None).await;
    assert_eq!(response.headers()["retry-after"], "1");
    let (status, message) = refusal(response).await;
    assert_eq!(status, 429);
    assert!(
        message.contains("most requests (1) and 1 more wait"),
        "{message}"
    );
    // Released, the held call and the queued one both answer.
    first.release.notify_one();
    assert_eq!(within(held).await.unwrap().status(), 200);
    let queued = within(queued).await.unwrap();
    assert_eq!(queued.status(), 200);
    let body: Value = queued.json().await.unwrap();
    assert_eq!(body["result"]["content"][0]["text"], "3");
}

/// A stateful session: its id.
async fn initialize(address: SocketAddr) -> Result<String, (u16, String)> {
    let body = request(
        1,
        "initialize",
        json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"},
        }),
    );
    let response = post(address, &body, None).await;
    if response.status() != 200 {
        return Err(refusal(response).await);
    }
    let id = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let _ = response.bytes().await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let _ = post(address, &initialized, Some(&id)).await;
    Ok(id)
}

#[tokio::test]
async fn sessions_their_requests_and_their_streams_are_bounded() {
    let limits = HttpLimits::new()
        .max_sessions(1)
        .max_in_flight_per_session(1)
        .max_streams_per_session(1);
    let (address, _) = serve(true, limits).await;
    let session = initialize(address).await.unwrap();
    // A second session is refused while the first lives.
    let (status, message) = initialize(address).await.unwrap_err();
    assert_eq!(status, 429);
    assert!(message.contains("most sessions (1)"), "{message}");

    // One request of the session at a time.
    let first = hold("session-1");
    let id = session.clone();
    let held = tokio::spawn(async move {
        let response = post(
            address,
            &call(2, "wait", json!({"key": "session-1"})),
            Some(&id),
        )
        .await;
        let status = response.status();
        let _ = response.bytes().await;
        status
    });
    within(first.started.notified()).await;
    let (status, message) = refusal(
        post(
            address,
            &call(3, "add", json!({"a": 1, "b": 2})),
            Some(&session),
        )
        .await,
    )
    .await;
    assert_eq!(status, 429);
    assert!(message.contains("most requests in flight (1)"), "{message}");
    first.release.notify_one();
    assert_eq!(within(held).await.unwrap(), 200);

    // One open stream of the session at a time.
    let client = reqwest::Client::new();
    let open = || {
        client
            .get(format!("http://{address}/mcp"))
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-06-18")
            .send()
    };
    let stream = open().await.unwrap();
    assert_eq!(stream.status(), 200);
    let (status, message) = refusal(open().await.unwrap()).await;
    assert_eq!(status, 429);
    assert!(message.contains("most open streams (1)"), "{message}");
    drop(stream);
}

#[tokio::test]
async fn a_client_that_goes_away_has_its_call_cancelled() {
    for stateful in [false, true] {
        let (address, _) = serve(stateful, HttpLimits::new()).await;
        let session = if stateful {
            format!("mcp-session-id: {}\r\n", initialize(address).await.unwrap())
        } else {
            String::new()
        };
        let key = format!("gone-{stateful}");
        let gone = hold(&key);
        let body = call(7, "wait", json!({"key": key})).to_string();
        let stream = raw_post(address, &session, body.len(), &body).await;
        within(gone.started.notified()).await;
        drop(stream);
        within(async {
            while !gone.cancelled.load(Ordering::SeqCst) {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await;
    }
}

#[tokio::test]
async fn a_shutdown_drains_then_cancels_and_refuses_new_requests() {
    let (address, shutdown) = serve(false, HttpLimits::new()).await;
    // One call that finishes within the grace period, one that never would.
    let quick = hold("drain-quick");
    let stuck = hold("drain-stuck");
    let finishing = tokio::spawn(async move {
        post(
            address,
            &call(1, "wait", json!({"key": "drain-quick"})),
            None,
        )
        .await
    });
    let hanging = tokio::spawn(async move {
        post(
            address,
            &call(2, "wait", json!({"key": "drain-stuck"})),
            None,
        )
        .await
    });
    within(quick.started.notified()).await;
    within(stuck.started.notified()).await;
    let release = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        quick.release.notify_one();
    });
    let draining = {
        let shutdown = shutdown.clone();
        tokio::spawn(async move { shutdown.shutdown(Duration::from_millis(800)).await })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(shutdown.is_closing());
    // New requests are refused while it drains.
    let (status, message) =
        refusal(post(address, &call(3, "add", json!({"a": 1, "b": 2})), None).await).await;
    assert_eq!(
        (status, message.as_str()),
        (503, "the server is shutting down")
    );
    release.await.unwrap();
    let drained = within(draining).await.unwrap();
    assert_eq!((drained.finished, drained.cancelled), (1, 1));
    // The call that finished has its result; the one cancelled, an error answer.
    let body: Value = within(finishing).await.unwrap().json().await.unwrap();
    assert_eq!(body["result"]["content"][0]["text"], "released");
    let body: Value = within(hanging).await.unwrap().json().await.unwrap();
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|message| message.contains("shutting down")),
        "{body}"
    );
    assert!(stuck.cancelled.load(Ordering::SeqCst));
}

#[tokio::test]
async fn a_tool_that_hangs_or_panics_affects_only_its_own_call() {
    let (address, _) = serve(false, HttpLimits::new()).await;
    let stuck = hold("alone-stuck");
    let hanging = tokio::spawn(async move {
        post(
            address,
            &call(1, "wait", json!({"key": "alone-stuck"})),
            None,
        )
        .await
    });
    within(stuck.started.notified()).await;
    let body: Value = within(post(address, &call(2, "explode", json!({})), None))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(body["result"]["isError"], true, "{body}");
    let body: Value = within(post(
        address,
        &call(3, "add", json!({"a": 2, "b": 3})),
        None,
    ))
    .await
    .json()
    .await
    .unwrap();
    assert_eq!(body["result"]["content"][0]["text"], "5", "{body}");
    stuck.release.notify_one();
    assert_eq!(within(hanging).await.unwrap().status(), 200);
}

#[tokio::test]
async fn an_idle_session_is_closed_and_makes_room_for_another() {
    let limits = HttpLimits::new()
        .max_sessions(1)
        .session_idle(Duration::from_millis(300));
    let (address, _) = serve(true, limits).await;
    let session = initialize(address).await.unwrap();
    assert_eq!(initialize(address).await.unwrap_err().0, 429);
    tokio::time::sleep(Duration::from_millis(900)).await;
    // Idle past its time, the session is gone (rmcp answers `404` for an unknown session)...
    let response = post(
        address,
        &call(2, "add", json!({"a": 1, "b": 2})),
        Some(&session),
    )
    .await;
    assert_eq!(response.status(), 404);
    // ...and a new one may open.
    within(initialize(address)).await.unwrap();
}

#[tokio::test]
async fn requests_queued_when_a_shutdown_begins_are_refused() {
    let (address, shutdown) = serve(false, HttpLimits::new().max_in_flight(1).max_queued(4)).await;
    let first = hold("queued-1");
    let held = tokio::spawn(async move {
        post(address, &call(1, "wait", json!({"key": "queued-1"})), None).await
    });
    within(first.started.notified()).await;
    let queued =
        tokio::spawn(
            async move { post(address, &call(2, "add", json!({"a": 1, "b": 2})), None).await },
        );
    tokio::time::sleep(Duration::from_millis(200)).await;
    let draining = tokio::spawn(async move { shutdown.shutdown(Duration::from_secs(5)).await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    first.release.notify_one();
    assert_eq!(within(held).await.unwrap().status(), 200);
    let (status, message) = refusal(within(queued).await.unwrap()).await;
    assert_eq!(
        (status, message.as_str()),
        (503, "the server is shutting down")
    );
    let drained = within(draining).await.unwrap();
    assert_eq!((drained.finished, drained.cancelled), (1, 0));
}

#[tokio::test]
async fn a_queued_request_whose_client_goes_away_leaves_its_place_in_the_queue() {
    let (address, _) = serve(false, HttpLimits::new().max_in_flight(1).max_queued(1)).await;
    let first = hold("queue-gone-1");
    let held = tokio::spawn(async move {
        post(
            address,
            &call(1, "wait", json!({"key": "queue-gone-1"})),
            None,
        )
        .await
    });
    within(first.started.notified()).await;
    // Queued, then gone, several times over: each leaves the queue as it came.
    for n in 0..3 {
        let body = call(10 + n, "add", json!({"a": 1, "b": 2})).to_string();
        let stream = raw_post(address, "", body.len(), &body).await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        drop(stream);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The queue of one is free again: a request waits in it, and is answered once the place is.
    let queued =
        tokio::spawn(
            async move { post(address, &call(2, "add", json!({"a": 1, "b": 2})), None).await },
        );
    tokio::time::sleep(Duration::from_millis(200)).await;
    first.release.notify_one();
    assert_eq!(within(held).await.unwrap().status(), 200);
    assert_eq!(within(queued).await.unwrap().status(), 200);
}
