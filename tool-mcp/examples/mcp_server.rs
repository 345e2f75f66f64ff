//! The demo toolbox as an MCP server (through rmcp: the toolwright-mcp crate, which toolwright's `mcp` feature re-exports as `toolwright::mcp`).
//!
//! ```text
//! cargo run --example mcp_server                                    # stdio (the default)
//! cargo run --example mcp_server -- --http 127.0.0.1:8000            # stateless
//! cargo run --example mcp_server -- --http 127.0.0.1:8000 --stateful
//! cargo run --example mcp_server -- --http 127.0.0.1:8000 --task-store redis://127.0.0.1:6379
//! ```
//!
//! The demo's `sleep` runs as a task (the MCP tasks extension) for a client that declares the
//! extension: its call answers at once with a task handle, and `tasks/get` gives its result.
//! Tasks live in this process's memory, or with `--task-store redis://HOST:PORT` in Redis,
//! where any replica sharing the server answers for any task, and a task whose replica died
//! fails once its lease (10 s) runs out.
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
//!
//! Serving on a network (HTTP only; stdio's process boundary is its trust boundary):
//!
//! ```text
//! cargo run --example mcp_server -- --http 0.0.0.0:8000 \
//!     --token reader-secret= --token writer-secret=write \
//!     --resource-url https://mcp.example.com/mcp --authorization-server https://auth.example.com \
//!     --allowed-host mcp.example.com --max-body 1048576
//! ```
//!
//! - `--token TOKEN=SCOPE[,SCOPE...]` (repeatable): a bearer token and the scopes it grants, a
//!   static table for trying it out (an application plugs in its own validator: see
//!   `toolwright_mcp::Authorization`). With tokens, every request needs one of them (`401`
//!   otherwise), and every demo tool not marked read-only needs the scope `write`: a token
//!   without it neither sees nor can call them. Without `--token` the server serves everyone, as
//!   before, and says so on stderr when bound to an address other than loopback.
//! - `--resource-url URL`: the server's URL as clients reach it, named in the Protected Resource
//!   Metadata (`/.well-known/oauth-protected-resource`) and in `WWW-Authenticate`; by default
//!   `http://ADDR/mcp` with the address it listens on.
//! - `--authorization-server URL` (repeatable): the issuers the metadata lists.
//! - `--require-scope SCOPE` (repeatable, with `--token`): a scope every request needs: a token
//!   without it gets `403` with `error="insufficient_scope"` naming it (a client asks for it
//!   then: step-up).
//! - `--allowed-host HOST` (repeatable): `Host` headers accepted besides none (default:
//!   loopback names only, rmcp's guard against DNS rebinding).
//! - `--max-body BYTES`: the largest request body taken (`413` beyond it; default 4 MiB). The
//!   other limits are `toolwright_mcp::HttpLimits`'s defaults; headers must arrive within 10 s.
//!
//! Ctrl-C (or SIGTERM) stops taking connections and requests, gives calls in flight 10 s to
//! finish, answers the rest with an error, and exits.
//!
//! Built with OpenTelemetry (`cargo build --features mcp,otel --example mcp_server`), it exports
//! its traces and metrics over OTLP/HTTP (protobuf) whenever `OTEL_EXPORTER_OTLP_ENDPOINT` is
//! set, honouring the standard `OTEL_*` variables (`OTEL_SERVICE_NAME`,
//! `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_BSP_SCHEDULE_DELAY`, `OTEL_METRIC_EXPORT_INTERVAL`, ...), and
//! flushes them when it stops (Ctrl-C, SIGTERM, or stdin closed); a request that carries a W3C
//! `traceparent` (in `params._meta`, or in the HTTP headers) continues the caller's trace.

#[path = "../../examples/demo/mod.rs"]
mod demo;

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use toolwright::exec::Caller;
use toolwright::tasks::{MemoryStore, RedisStore, TaskRule, TaskStore};
use toolwright::{CallInfo, tool};
use toolwright_mcp::{Authorization, HttpBody, HttpLimits, InvalidToken, McpServer, Protected};

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

#[derive(Default)]
struct Options {
    http: Option<String>,
    stateful: bool,
    reuse_port: bool,
    /// Bearer tokens and the scopes each grants.
    tokens: Vec<(String, Vec<String>)>,
    resource_url: Option<String>,
    authorization_servers: Vec<String>,
    /// Scopes every request needs.
    required_scopes: Vec<String>,
    allowed_hosts: Vec<String>,
    max_body: Option<usize>,
    /// Where tasks live: `redis://HOST:PORT`, else this process's memory.
    task_store: Option<String>,
}

const USAGE: &str = "usage: mcp_server [--task-store redis://HOST:PORT] [--stdio | --http ADDR \
    [--stateful] [--reuse-port] [--token TOKEN=SCOPE[,SCOPE...]]... [--resource-url URL] \
    [--authorization-server URL]... [--require-scope SCOPE]... [--allowed-host HOST]... \
    [--max-body BYTES]]";

fn options() -> Result<Options, String> {
    let mut options = Options::default();
    let mut args = std::env::args().skip(1);
    let value = |args: &mut std::iter::Skip<std::env::Args>, flag: &str, what: &str| {
        args.next()
            .ok_or_else(|| format!("{flag} needs {what}; {USAGE}"))
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--stdio" => options.http = None,
            "--http" => options.http = Some(value(&mut args, "--http", "an address")?),
            "--stateful" => options.stateful = true,
            "--task-store" => {
                let url = value(&mut args, "--task-store", "a Redis URL")?;
                if !url.starts_with("redis://") && !url.starts_with("rediss://") {
                    return Err(format!(
                        "--task-store needs a Redis URL (redis://HOST:PORT), not `{url}`; {USAGE}"
                    ));
                }
                options.task_store = Some(url);
            }
            "--reuse-port" => options.reuse_port = true,
            "--token" => {
                let entry = value(&mut args, "--token", "TOKEN=SCOPE[,SCOPE...]")?;
                let (token, scopes) = entry.split_once('=').unwrap_or((&entry, ""));
                if token.is_empty() {
                    return Err(format!("--token needs a token before `=`; {USAGE}"));
                }
                let scopes = scopes
                    .split(',')
                    .filter(|scope| !scope.is_empty())
                    .map(str::to_owned)
                    .collect();
                options.tokens.push((token.to_owned(), scopes));
            }
            "--resource-url" => {
                options.resource_url = Some(value(&mut args, "--resource-url", "a URL")?);
            }
            "--authorization-server" => options.authorization_servers.push(value(
                &mut args,
                "--authorization-server",
                "a URL",
            )?),
            "--require-scope" => {
                options
                    .required_scopes
                    .push(value(&mut args, "--require-scope", "a scope")?);
            }
            "--allowed-host" => {
                options
                    .allowed_hosts
                    .push(value(&mut args, "--allowed-host", "a host")?);
            }
            "--max-body" => {
                let bytes = value(&mut args, "--max-body", "a number of bytes")?;
                options.max_body = Some(bytes.parse().map_err(|_| {
                    format!("--max-body needs a number of bytes, not `{bytes}`; {USAGE}")
                })?);
            }
            other => return Err(format!("unknown option `{other}`; {USAGE}")),
        }
    }
    if options.tokens.is_empty() && !options.required_scopes.is_empty() {
        return Err(format!(
            "--require-scope needs bearer tokens (--token); {USAGE}"
        ));
    }
    if options.http.is_none()
        && (!options.tokens.is_empty()
            || options.resource_url.is_some()
            || !options.authorization_servers.is_empty()
            || !options.allowed_hosts.is_empty()
            || options.max_body.is_some())
    {
        return Err(format!(
            "--token, --resource-url, --authorization-server, --allowed-host and --max-body are \
             for HTTP serving (--http ADDR); {USAGE}"
        ));
    }
    Ok(options)
}

/// Whether two byte strings are equal, in a time that does not depend on where they differ.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |diff, (x, y)| diff | (x ^ y)) == 0
}

/// The static token table as an authorization for `resource`: each token stands for a caller
/// named after its place in the table (never after the token), with its scopes.
fn authorization(options: &Options, resource: String) -> Authorization {
    let tokens: Arc<Vec<(String, Caller)>> = Arc::new(
        options
            .tokens
            .iter()
            .enumerate()
            .map(|(at, (token, scopes))| {
                let caller = Caller::new(format!("token-{}", at + 1)).with_scopes(scopes.clone());
                (token.clone(), caller)
            })
            .collect(),
    );
    let mut scopes: Vec<String> = vec!["write".to_owned()];
    for (_, granted) in &options.tokens {
        for scope in granted.iter().chain(&options.required_scopes) {
            if !scopes.contains(scope) {
                scopes.push(scope.clone());
            }
        }
    }
    let mut auth = Authorization::new(resource, move |token: String| {
        let tokens = Arc::clone(&tokens);
        async move {
            // Every entry compared, so that the time taken says nothing of the tokens.
            let mut found = None;
            for (known, caller) in tokens.iter() {
                if same_secret(known.as_bytes(), token.as_bytes()) {
                    found = Some(caller.clone());
                }
            }
            found.ok_or_else(|| InvalidToken::new("the token is not one of this server's"))
        }
    })
    .scopes_supported(scopes)
    .require_scopes(options.required_scopes.iter().cloned())
    .resource_name("toolwright demo");
    for server in &options.authorization_servers {
        auth = auth.authorization_server(server.clone());
    }
    auth
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
    #[cfg(feature = "otel")]
    let telemetry = match otel::Telemetry::from_env() {
        Ok(telemetry) => telemetry,
        Err(error) => {
            eprintln!("mcp_server: OpenTelemetry: {error}");
            return ExitCode::FAILURE;
        }
    };
    let served = Box::pin(serve(options)).await;
    // Whatever ended the server, what was traced goes out before the process does.
    #[cfg(feature = "otel")]
    if let Some(telemetry) = telemetry {
        telemetry.shutdown();
    }
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcp_server: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Ctrl-C, or SIGTERM where there are signals: how the server is told to stop.
async fn stop_signal() {
    #[cfg(unix)]
    {
        let mut terminate =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                .expect("a SIGTERM handler");
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
}

/// Traces and metrics over OTLP/HTTP, when `OTEL_EXPORTER_OTLP_ENDPOINT` says where.
#[cfg(feature = "otel")]
mod otel {
    use opentelemetry::trace::TracerProvider as _;
    use opentelemetry_sdk::Resource;
    use opentelemetry_sdk::metrics::SdkMeterProvider;
    use opentelemetry_sdk::propagation::TraceContextPropagator;
    use opentelemetry_sdk::trace::SdkTracerProvider;
    use tracing_subscriber::filter::{LevelFilter, Targets};
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;

    pub struct Telemetry {
        traces: SdkTracerProvider,
        metrics: SdkMeterProvider,
    }

    impl Telemetry {
        /// The exporters, set up as every OpenTelemetry SDK does from the `OTEL_*` variables;
        /// `None` without `OTEL_EXPORTER_OTLP_ENDPOINT`.
        pub fn from_env() -> Result<Option<Self>, Box<dyn std::error::Error>> {
            if std::env::var_os("OTEL_EXPORTER_OTLP_ENDPOINT").is_none() {
                return Ok(None);
            }
            // The service name from OTEL_SERVICE_NAME, else this one.
            let resource = Resource::builder()
                .with_service_name(
                    std::env::var("OTEL_SERVICE_NAME")
                        .unwrap_or_else(|_| "toolwright-mcp-server".to_owned()),
                )
                .build();
            let spans = opentelemetry_otlp::SpanExporter::builder()
                .with_http()
                .build()?;
            let traces = SdkTracerProvider::builder()
                .with_batch_exporter(spans)
                .with_resource(resource.clone())
                .build();
            let measurements = opentelemetry_otlp::MetricExporter::builder()
                .with_http()
                .build()?;
            let metrics = SdkMeterProvider::builder()
                .with_periodic_exporter(measurements)
                .with_resource(resource)
                .build();
            opentelemetry::global::set_meter_provider(metrics.clone());
            opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
            // toolwright's spans only: rmcp's and hyper's are not the calls' story.
            let targets = Targets::new()
                .with_target("toolwright_runtime", LevelFilter::INFO)
                .with_target("toolwright_mcp", LevelFilter::INFO);
            let layer = tracing_opentelemetry::layer()
                .with_tracer(traces.tracer("toolwright-mcp-server"))
                .with_filter(targets);
            tracing_subscriber::registry().with(layer).try_init()?;
            Ok(Some(Telemetry { traces, metrics }))
        }

        /// Sends what is batched, and stops the exporters.
        pub fn shutdown(self) {
            if let Err(error) = self.traces.shutdown() {
                eprintln!("mcp_server: flushing traces: {error}");
            }
            if let Err(error) = self.metrics.shutdown() {
                eprintln!("mcp_server: flushing metrics: {error}");
            }
        }
    }

    use tracing_subscriber::Layer as _;
}

/// Where tasks live: Redis with `--task-store`, else this process's memory.
async fn task_store(options: &Options) -> Result<Arc<dyn TaskStore>, String> {
    Ok(match &options.task_store {
        Some(url) => Arc::new(
            RedisStore::connect(url)
                .await
                .map_err(|error| format!("--task-store {url}: {error}"))?,
        ),
        None => Arc::new(MemoryStore::new()),
    })
}

async fn serve(options: Options) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let mut toolbox = demo::toolbox();
    toolbox.register(CountTool)?.register(CancelledCountsTool)?;
    if !options.tokens.is_empty() {
        // With tokens, a tool that may change something needs `write`.
        toolbox =
            toolbox.require_scopes(["write"], |tool| tool.annotations().read_only != Some(true));
    }
    let toolbox = Arc::new(toolbox);
    // `sleep` runs as a task for clients with the tasks extension: in Redis with
    // `--task-store`, where every replica sharing it answers for every task.
    let store = task_store(&options).await?;
    let server = McpServer::new(Arc::clone(&toolbox), demo::context())
        .map_err(|report| format!("{report:#}"))?
        .named("toolwright-demo", env!("CARGO_PKG_VERSION"))
        .tasks(store, TaskRule::none().tool("sleep"));
    let Some(address) = options.http.clone() else {
        return tokio::select! {
            ended = server.serve_stdio() => ended,
            () = stop_signal() => Ok(()),
        };
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
    let local = listener.local_addr()?;
    let service = server.http_service_limited(http_config(&options), http_limits(&options));
    let shutdown = service.shutdown_handle();
    let service = if options.tokens.is_empty() {
        if !local.ip().is_loopback() {
            eprintln!(
                "mcp_server: serving WITHOUT authentication on {local}: anyone who reaches this \
                 address can list and call every tool (give --token to require bearer tokens)"
            );
        }
        Either::Open(service)
    } else {
        let resource = options
            .resource_url
            .clone()
            .unwrap_or_else(|| format!("http://{local}/mcp"));
        let auth = authorization(&options, resource);
        eprintln!(
            "bearer tokens required ({} known); metadata at {}",
            options.tokens.len(),
            auth.metadata_url()
        );
        Either::Protected(auth.protect(service))
    };
    eprintln!(
        "listening on http://{local}/mcp ({})",
        if options.stateful {
            "stateful"
        } else {
            "stateless"
        }
    );
    // One signal listener for the whole loop, not one made and dropped at each connection.
    let mut stop = std::pin::pin!(stop_signal());
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => accepted?.0,
            () = &mut stop => break,
        };
        let service = TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let mut builder = auto::Builder::new(TokioExecutor::new());
            // A client that sends its headers a byte at a time is cut off (its body is the
            // limits' to bound).
            builder
                .http1()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT);
            let connection = builder
                .serve_connection(TokioIo::new(stream), service)
                .await;
            if let Err(error) = connection {
                eprintln!("connection ended: {error}");
            }
        });
    }
    // Stopped: no new connections; calls in flight get a grace period, the rest an error.
    eprintln!(
        "shutting down: calls in flight have {} s",
        SHUTDOWN_GRACE.as_secs()
    );
    let drained = shutdown.shutdown(SHUTDOWN_GRACE).await;
    eprintln!(
        "shut down: {} finished, {} cancelled",
        drained.finished, drained.cancelled
    );
    Ok(())
}

/// The Streamable HTTP transport's settings the options give.
fn http_config(options: &Options) -> StreamableHttpServerConfig {
    let mut config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(options.stateful)
        .with_json_response(!options.stateful);
    if !options.allowed_hosts.is_empty() {
        config = config.with_allowed_hosts(options.allowed_hosts.clone());
    }
    config
}

/// The HTTP limits the options give.
fn http_limits(options: &Options) -> HttpLimits {
    let mut limits = HttpLimits::new();
    if let Some(bytes) = options.max_body {
        limits = limits.max_body(bytes);
    }
    limits
}

/// How long a request's headers may take to arrive.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// How long calls in flight may go on after Ctrl-C or SIGTERM.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// The HTTP service, open or behind the token check.
#[derive(Clone)]
enum Either<S> {
    Open(S),
    Protected(Protected<S>),
}

impl<S> tower_service::Service<http::Request<hyper::body::Incoming>> for Either<S>
where
    S: tower_service::Service<
            http::Request<hyper::body::Incoming>,
            Response = http::Response<HttpBody>,
            Error = Infallible,
            Future = Pin<
                Box<dyn Future<Output = Result<http::Response<HttpBody>, Infallible>> + Send>,
            >,
        > + Clone
        + Send
        + 'static,
{
    type Response = http::Response<HttpBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        match self {
            Either::Open(service) => service.poll_ready(cx),
            Either::Protected(service) => service.poll_ready(cx),
        }
    }

    fn call(&mut self, request: http::Request<hyper::body::Incoming>) -> Self::Future {
        match self {
            // Boxed already (`Limited`'s future): not boxed a second time.
            Either::Open(service) => service.call(request),
            Either::Protected(service) => service.call(request),
        }
    }
}
