//! A load check of the MCP server over Streamable HTTP (issue 17): `clients` concurrent rmcp
//! clients, each making `calls` tool calls, every answer checked; prints throughput and latency
//! percentiles. Not a criterion bench: `benches/mcp_load.sh` starts the server (one process, or
//! two replicas on one port) and runs this against it.
//!
//! ```text
//! cargo bench -p toolwright-benches --bench mcp_load -- --url http://127.0.0.1:8000/mcp --clients 50 --calls 200 [--token TOKEN] [--numbers-only]
//! cargo bench -p toolwright-benches --bench mcp_load -- --url URL --flood no-token|big-body --requests 10000 [--token TOKEN]
//! ```
//!
//! `--flood` sends requests a protected or limited server must refuse (issue 30): `no-token`, a
//! `tools/call` without credentials (`401` expected), or `big-body`, a 64 KiB body over a server
//! run with `--max-body 16384` (`413` expected); 32 at a time, every status checked.

#[path = "common/percentile.rs"]
mod percentile;

use percentile::percentile;
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};

struct Options {
    url: String,
    clients: usize,
    calls: usize,
    /// A new connection per call, so that replicas behind one port share every client's calls.
    fresh_connections: bool,
    /// A bearer token sent with every request (a server run with `--token`).
    token: Option<String>,
    /// Every call's numbers as numbers (a server without coercion, bare rmcp, takes no text).
    numbers_only: bool,
    /// Requests the server must refuse, instead of calls: `no-token` or `big-body`.
    flood: Option<String>,
    requests: usize,
}

fn options() -> Option<Options> {
    let mut options = Options {
        url: String::new(),
        clients: 50,
        calls: 200,
        fresh_connections: false,
        token: None,
        numbers_only: false,
        flood: None,
        requests: 10_000,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--url" => options.url = args.next()?,
            "--clients" => options.clients = args.next()?.parse().ok()?,
            "--calls" => options.calls = args.next()?.parse().ok()?,
            "--fresh-connections" => options.fresh_connections = true,
            "--token" => options.token = Some(args.next()?),
            "--numbers-only" => options.numbers_only = true,
            "--flood" => options.flood = Some(args.next()?),
            "--requests" => options.requests = args.next()?.parse().ok()?,
            // cargo bench passes `--bench`.
            _ => {}
        }
    }
    (!options.url.is_empty()).then_some(options)
}

/// One client's run: its latencies, or the first wrong answer.
async fn client(
    url: String,
    id: usize,
    calls: usize,
    fresh_connections: bool,
    token: Option<String>,
    numbers_only: bool,
) -> Result<Vec<Duration>, String> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    if let Some(token) = token {
        config = config.auth_header(token);
    }
    let transport = if fresh_connections {
        let http = reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .build()
            .map_err(|e| e.to_string())?;
        StreamableHttpClientTransport::with_client(http, config)
    } else {
        StreamableHttpClientTransport::from_config(config)
    };
    let service = ()
        .serve(transport)
        .await
        .map_err(|e| format!("client {id}: could not connect: {e}"))?;
    let mut latencies = Vec::with_capacity(calls);
    for n in 0..calls {
        let (a, b) = (
            i64::try_from(id).unwrap_or(0),
            i64::try_from(n).unwrap_or(0),
        );
        // Every other call sends its numbers as text: the coercion path too.
        let arguments = if numbers_only || n % 2 == 0 {
            json!({"a": a, "b": b})
        } else {
            json!({"a": a.to_string(), "b": b.to_string()})
        };
        let Value::Object(arguments): Value = arguments else {
            unreachable!()
        };
        let started = Instant::now();
        let result = service
            .call_tool(CallToolRequestParams::new("add").with_arguments(arguments))
            .await
            .map_err(|e| format!("client {id}, call {n}: {e}"))?;
        latencies.push(started.elapsed());
        let text: String = result
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect();
        if result.is_error == Some(true) || text != (a + b).to_string() {
            return Err(format!("client {id}, call {n}: wrong answer {text:?}"));
        }
    }
    let _ = service.cancel().await;
    Ok(latencies)
}

/// Sends `options.requests` requests the server must refuse, 32 at a time, and checks each
/// status; exits non-zero on any other answer.
fn flood(options: &Options, kind: &str) {
    let (expected, body) = match kind {
        "no-token" => (
            401,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": "add", "arguments": {"a": 1, "b": 2}}})
            .to_string()
            .into_bytes(),
        ),
        "big-body" => (413, vec![b' '; 64 * 1024]),
        other => {
            eprintln!("unknown flood `{other}`: no-token or big-body");
            std::process::exit(2);
        }
    };
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let started = Instant::now();
    let wrong = runtime.block_on(async {
        let client = reqwest::Client::new();
        let gate = std::sync::Arc::new(tokio::sync::Semaphore::new(32));
        let mut tasks = Vec::with_capacity(options.requests);
        for _ in 0..options.requests {
            let permit = std::sync::Arc::clone(&gate).acquire_owned().await;
            let mut request = client
                .post(&options.url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .body(body.clone());
            if kind == "big-body"
                && let Some(token) = &options.token
            {
                request = request.bearer_auth(token);
            }
            tasks.push(tokio::spawn(async move {
                let status = request.send().await.map(|r| r.status().as_u16());
                drop(permit);
                status
            }));
        }
        let (mut wrong, mut cut_off) = (0usize, 0usize);
        for task in tasks {
            match task.await {
                Ok(Ok(status)) if status == expected => {}
                // The server answered before the body was all sent, and closed the connection:
                // the client sees its write fail instead of the answer. Refused either way.
                Ok(Err(error))
                    if kind == "big-body" && error.is_request() && cut_while_sending(&error) =>
                {
                    cut_off += 1;
                }
                other => {
                    if wrong == 0 {
                        eprintln!("unexpected answer: {other:?}");
                    }
                    wrong += 1;
                }
            }
        }
        (wrong, cut_off)
    });
    let (wrong, cut_off) = wrong;
    println!(
        "{} {kind} requests: {} answered {expected}{}, in {:.2} s",
        options.requests,
        options.requests - wrong - cut_off,
        if cut_off > 0 {
            format!(", {cut_off} cut off while still sending the body")
        } else {
            String::new()
        },
        started.elapsed().as_secs_f64()
    );
    if wrong > 0 {
        std::process::exit(1);
    }
}

/// Whether a request failed because the server closed the connection while its body was still
/// being written (a write that broke, or an answer cut off with the connection).
fn cut_while_sending(error: &reqwest::Error) -> bool {
    let chain = format!("{error:?}");
    ["BrokenPipe", "ConnectionReset", "IncompleteMessage"]
        .iter()
        .any(|kind| chain.contains(kind))
}

fn main() {
    let Some(options) = options() else {
        eprintln!("mcp_load needs a server: run benches/mcp_load.sh (see BENCHMARKS.md)");
        return;
    };
    if let Some(kind) = &options.flood {
        flood(&options, kind);
        return;
    }
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let started = Instant::now();
    let results = runtime.block_on(async {
        let tasks: Vec<_> = (0..options.clients)
            .map(|id| {
                tokio::spawn(client(
                    options.url.clone(),
                    id,
                    options.calls,
                    options.fresh_connections,
                    options.token.clone(),
                    options.numbers_only,
                ))
            })
            .collect();
        let mut results = Vec::new();
        for task in tasks {
            results.push(task.await.map_err(|e| e.to_string()).and_then(|r| r));
        }
        results
    });
    let elapsed = started.elapsed();
    let mut latencies = Vec::new();
    let mut failed = false;
    for result in results {
        match result {
            Ok(mut run) => latencies.append(&mut run),
            Err(error) => {
                eprintln!("{error}");
                failed = true;
            }
        }
    }
    latencies.sort();
    let expected = options.clients * options.calls;
    #[allow(clippy::cast_precision_loss)]
    let throughput = latencies.len() as f64 / elapsed.as_secs_f64();
    if latencies.is_empty() {
        eprintln!("no call succeeded");
        std::process::exit(1);
    }
    println!(
        "{} clients x {} calls{}: {}/{} correct in {:.2} s, {:.0} calls/s, latency p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        options.clients,
        options.calls,
        if options.fresh_connections {
            ", a connection per call"
        } else {
            ""
        },
        latencies.len(),
        expected,
        elapsed.as_secs_f64(),
        throughput,
        percentile(&latencies, 0.5).as_secs_f64() * 1e3,
        percentile(&latencies, 0.99).as_secs_f64() * 1e3,
        latencies[latencies.len() - 1].as_secs_f64() * 1e3,
    );
    if failed || latencies.len() != expected {
        std::process::exit(1);
    }
}
