//! Bare rmcp serving `add`, the yardstick of the MCP cost check (issue 43): the same tool as the
//! demo's (`a + b`, two integers), written with rmcp's own `#[tool]` macros as an rmcp user
//! writes it, served over stateless Streamable HTTP with the same rmcp configuration
//! `McpServer::http_service(false)` uses, on connections hyper sets up as `examples/mcp_server`
//! does (a 10 s header read timeout). Not a criterion bench: `benches/mcp_cost.sh` starts it
//! and loads it with `benches/mcp_load.rs`, interleaved with toolwright's server.
//!
//! ```text
//! cargo bench -p toolwright-benches --bench mcp_bare -- --http 127.0.0.1:8000
//! ```
//!
//! It prints `listening on http://ADDR/mcp` to stderr once it takes connections.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};

/// The arguments of `add`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct AddArgs {
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
}

#[derive(Clone)]
struct Bare {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Bare {
    fn new() -> Self {
        Bare {
            tool_router: Self::tool_router(),
        }
    }

    /// Add two integers.
    #[tool(description = "Add two integers.")]
    fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> Result<String, String> {
        a.checked_add(b)
            .map(|sum| sum.to_string())
            .ok_or_else(|| "the sum does not fit in 64 bits".to_owned())
    }
}

// The router the server holds (`#[tool_handler]` alone builds one at every request).
#[tool_handler(router = self.tool_router)]
impl ServerHandler for Bare {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// How long a request's headers may take to arrive (as in `examples/mcp_server`).
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let mut address = String::from("127.0.0.1:8000");
    while let Some(arg) = args.next() {
        if arg == "--http"
            && let Some(value) = args.next()
        {
            address = value;
        }
    }
    let address: SocketAddr = address.parse().expect("an address to listen on");
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true);
    // The router built once and cloned for each request (rmcp makes a server per stateless
    // request): building it per request, as `|| Ok(Bare::new())` would, costs more than the
    // call itself.
    let bare = Bare::new();
    let service = StreamableHttpService::new(
        move || Ok(bare.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .expect("the address is free");
    eprintln!(
        "listening on http://{}/mcp (bare rmcp, stateless)",
        listener.local_addr().expect("a bound address")
    );
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let service = TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let mut builder = auto::Builder::new(TokioExecutor::new());
            // The connections set up as `examples/mcp_server` sets up its own (a client that
            // sends its headers a byte at a time is cut off): the ratio then measures what
            // toolwright adds, not how the two programs configure hyper (this timer alone is
            // about 2k instructions a connection).
            builder
                .http1()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT);
            let _ = builder
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
