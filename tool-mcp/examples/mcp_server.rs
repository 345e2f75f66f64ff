//! The demo toolbox as an MCP server (through rmcp: the toolwright-mcp crate, which toolwright's `mcp` feature re-exports as `toolwright::mcp`).
//!
//! ```text
//! cargo run --example mcp_server                                    # stdio (the default)
//! cargo run --example mcp_server -- --http 127.0.0.1:8000            # stateless
//! cargo run --example mcp_server -- --http 127.0.0.1:8000 --stateful
//! ```
//!
//! Over HTTP the Streamable HTTP endpoint answers at every path (`http://ADDR/mcp` by convention);
//! the address it listens on is printed to stderr (`--http 127.0.0.1:0` picks a free port).
//! Stateless, every request stands alone, so replicas behind any load balancer need no shared
//! state; `--reuse-port` lets several processes listen on one port (Linux spreads the
//! connections), which is how the load check runs two replicas.
//!
//! Besides the demo toolbox's tools it serves `count`, which reports progress at every step and
//! stops when the call is cancelled, and `cancelled_counts`, how many `count` calls saw their
//! cancellation: the MCP checks use them.

#[path = "../../examples/demo/mod.rs"]
mod demo;

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use toolwright::{CallInfo, tool};
use toolwright_mcp::McpServer;

static CANCELLED: AtomicU64 = AtomicU64::new(0);

/// Count from 1 to `to`, one step every `step_ms` milliseconds, reporting progress at each;
/// returns the last step reached (less than `to` when cancelled).
#[tool(read_only)]
async fn count(
    /// Where to stop (at most 100 000).
    #[schemars(range(min = 1, max = 100_000))]
    to: u32,
    /// Milliseconds per step (at most 10 000).
    #[schemars(range(max = 10_000))]
    step_ms: Option<u64>,
    #[tool(call_info)] info: &CallInfo,
) -> u32 {
    let step = Duration::from_millis(step_ms.unwrap_or(10));
    for at in 1..=to {
        info.report_progress(f64::from(at), Some(f64::from(to)), Some("counting"));
        // Each step waits for the time to pass or for the call to be cancelled.
        let cancelled = tokio::select! {
            () = tokio::time::sleep(step) => false,
            () = info.cancelled() => true,
        };
        if cancelled || info.is_cancelled() {
            CANCELLED.fetch_add(1, Ordering::SeqCst);
            return at;
        }
    }
    to
}

/// How many `count` calls saw their cancellation.
#[tool(read_only)]
fn cancelled_counts() -> u64 {
    CANCELLED.load(Ordering::SeqCst)
}

struct Options {
    http: Option<String>,
    stateful: bool,
    reuse_port: bool,
}

fn options() -> Result<Options, String> {
    let usage = "usage: mcp_server [--stdio | --http ADDR [--stateful] [--reuse-port]]";
    let mut options = Options {
        http: None,
        stateful: false,
        reuse_port: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--stdio" => options.http = None,
            "--http" => {
                options.http = Some(
                    args.next()
                        .ok_or_else(|| format!("--http needs an address; {usage}"))?,
                );
            }
            "--stateful" => options.stateful = true,
            "--reuse-port" => options.reuse_port = true,
            other => return Err(format!("unknown option `{other}`; {usage}")),
        }
    }
    Ok(options)
}

#[tokio::main]
async fn main() -> ExitCode {
    let options = match options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    match serve(options).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcp_server: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(options: Options) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let mut toolbox = demo::toolbox();
    toolbox.register(CountTool)?.register(CancelledCountsTool)?;
    let server = McpServer::new(Arc::new(toolbox), demo::context())
        .map_err(|report| format!("{report:#}"))?
        .named("toolwright-demo", env!("CARGO_PKG_VERSION"));
    let Some(address) = options.http else {
        return server.serve_stdio().await;
    };
    let address: SocketAddr = address.parse()?;
    let socket = if address.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    if options.reuse_port {
        socket.set_reuseport(true)?;
    }
    socket.bind(address)?;
    let listener = socket.listen(1024)?;
    let service = server.http_service(options.stateful);
    eprintln!(
        "listening on http://{}/mcp ({})",
        listener.local_addr()?,
        if options.stateful {
            "stateful"
        } else {
            "stateless"
        }
    );
    loop {
        let (stream, _) = listener.accept().await?;
        let service = TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let connection = auto::Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(stream), service)
                .await;
            if let Err(error) = connection {
                eprintln!("connection ended: {error}");
            }
        });
    }
}
