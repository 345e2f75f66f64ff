//! A load check of the MCP server over Streamable HTTP (issue 17): `clients` concurrent rmcp
//! clients, each making `calls` tool calls, every answer checked; prints throughput and latency
//! percentiles. Not a criterion bench: `benches/mcp_load.sh` starts the server (one process, or
//! two replicas on one port) and runs this against it.
//!
//! ```text
//! cargo bench -p toolwright-benches --bench mcp_load -- --url http://127.0.0.1:8000/mcp --clients 50 --calls 200 [--token TOKEN]
//! ```

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
}

fn options() -> Option<Options> {
    let mut options = Options {
        url: String::new(),
        clients: 50,
        calls: 200,
        fresh_connections: false,
        token: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--url" => options.url = args.next()?,
            "--clients" => options.clients = args.next()?.parse().ok()?,
            "--calls" => options.calls = args.next()?.parse().ok()?,
            "--fresh-connections" => options.fresh_connections = true,
            "--token" => options.token = Some(args.next()?),
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
        let arguments = if n % 2 == 0 {
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

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss
    )]
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at.min(sorted.len() - 1)]
}

fn main() {
    let Some(options) = options() else {
        eprintln!("mcp_load needs a server: run benches/mcp_load.sh (see BENCHMARKS.md)");
        return;
    };
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
