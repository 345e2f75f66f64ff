//! A toolbox as an MCP server: rmcp's [`ServerHandler`] over an `Arc<Toolbox<C>>`.

/// A list or read result with the server's cache hints (`$hints`, an `Option<CacheHints>`) set
/// when the application gave some: rmcp's result types share the setters, not a trait.
macro_rules! hinted {
    ($hints:expr, $result:expr) => {
        match $hints {
            Some(hints) => $result
                .with_ttl_ms(u64::try_from(hints.ttl.as_millis()).unwrap_or(u64::MAX))
                .with_cache_scope(hints.scope),
            None => $result,
        }
    };
}

mod answers;
mod ask;
mod auth;
mod call;
mod delegate;
mod handler;
mod limited;
mod limits;
mod offer;
mod offering;
mod requests;
mod returns;
mod running;
mod session;
mod sessions;
mod tasks;

pub use self::ask::{AskClient, AskError};
pub use self::auth::{Authorization, HttpBody, InvalidToken, Protected};
pub use self::limited::{Drained, Limited, ShutdownHandle};
pub(crate) use self::limited::{RequestGone, SESSION_ID};
pub use self::limits::{
    DEFAULT_BODY_TIMEOUT, DEFAULT_MAX_BODY, DEFAULT_MAX_IN_FLIGHT,
    DEFAULT_MAX_IN_FLIGHT_PER_SESSION, DEFAULT_MAX_QUEUED, DEFAULT_MAX_SESSIONS,
    DEFAULT_MAX_STREAMS_PER_SESSION, DEFAULT_SESSION_IDLE, HttpLimits,
};
pub use self::offer::{
    Prompt, PromptArguments, ReadResult, Resource, ResourceRead, ResourceTemplate,
};
pub use self::returns::{IntoContents, IntoPrompt};
pub use self::session::DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION;
pub use self::sessions::{Sessions, SseStream, SseStreamError};

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use rmcp::model::{CacheScope, Implementation, ServerCapabilities, ServerConfig, Tool as McpTool};
use rmcp::service::{RequestContext, RoleServer, RunningService, ServerInitializeError};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{Peer, ServiceExt};

use serde_json::Value;
use toolwright_runtime::__mcp::{is_deferred, search_entry, stand_ins};
use toolwright_runtime::provider::Provider;
use toolwright_runtime::{
    RegisterError, Toolbox,
    exec::Caller,
    schema::{Form, Lint, LintReport, Rule, Severity},
    search::ToolSearch,
    tasks::{TaskRule, TaskStore, Tasks},
};

// Names the documentation links to.
#[cfg(doc)]
use rmcp::ServerHandler;
#[cfg(doc)]
use toolwright_runtime::CallInfo;

/// How many tools one `tools/list` page holds, unless set with [`McpServer::page_size`].
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// How long a cancelled call may go on winding down (its [`CallInfo`] says it
/// is cancelled) before it is dropped.
const CANCEL_GRACE: Duration = Duration::from_secs(5);

type ContextFn<C> = dyn Fn(&RequestContext<RoleServer>) -> C + Send + Sync;

/// Cache hints of list and read results (protocol revision 2026-07-28, SEP-2549): how long a
/// client may keep them, and who may share them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheHints {
    /// How long a result stays fresh.
    pub ttl: Duration,
    /// Who may cache it: every user (`Public`), or only the requesting user's client.
    pub scope: CacheScope,
}

/// A [`Toolbox`] served over MCP: an rmcp [`ServerHandler`] whose `tools/list` is the toolbox's
/// MCP form and whose `tools/call` runs through the same dispatch as every provider's calls.
///
/// - `tools/list`: every tool in registration order, [`page_size`](Self::page_size) to a page,
///   with `inputSchema`, `outputSchema`, `title` and `annotations`.
/// - `tools/call`: arguments go through the argument pipeline (repair, coercion, validation);
///   bad arguments and tool errors are results with `isError: true` and the feedback text, which
///   the model reads. An unknown tool is a JSON-RPC error (`-32602`) naming the close matches. A
///   tool with an output schema also gets `structuredContent`. Panics become error results.
/// - `notifications/cancelled` cancels the call: its [`CallInfo`] reports
///   `is_cancelled` (and `cancelled()` completes), and a body still running five seconds later
///   is dropped. No response is sent.
/// - A tool's [`CallInfo::report_progress`] reaches the client as `notifications/progress` when
///   the request carried a progress token, and its [`CallInfo::log`] as `notifications/message`
///   at the client's level: all before the call's result.
/// - A call that needs approval asks the client's user through MCP elicitation (on the session
///   before revision 2026-07-28, through MRTR from it on: [`AskClient`](crate::AskClient)), and
///   runs only when they approve; a client that cannot be asked gets an error saying the call
///   needs approval, at once.
/// - Resources, resource templates and prompts ([`with_resource`](Self::with_resource),
///   [`with_prompt`](Self::with_prompt)), completion and `logging/setLevel`, or an application's
///   own handler for them ([`with_handler`](Self::with_handler)).
/// - Invalid calls spend the retry budget of their conversation: the session's, else the
///   authenticated caller's, else the request's own.
/// - [`set_toolbox`](Self::set_toolbox) swaps the tools of a running server and sends
///   `notifications/tools/list_changed` to every connected client that listens.
///
/// Clones share everything (rmcp makes one per session).
///
/// ```
/// use std::sync::Arc;
/// use toolwright::mcp::McpServer;
/// use toolwright::{Toolbox, tool};
///
/// /// Add two numbers.
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// let toolbox = Arc::new(Toolbox::new().with(AddTool).unwrap());
/// let server = McpServer::new(toolbox, ()).unwrap().named("calculator", "1.0.0");
/// // server.serve(rmcp::transport::stdio()).await?.waiting().await?;
/// # let _ = server;
/// ```
pub struct McpServer<C> {
    shared: Arc<Shared<C>>,
    /// This connection's state (a fresh one for each client served: [`Self::for_connection`]).
    session: Arc<session::Session>,
    /// What `initialize` answers but the capabilities (the server's name and version, its
    /// instructions), made once and shared by every connection's server (one for each
    /// stateless request), which fills in the capabilities of the moment.
    init: Arc<ServerConfig>,
    page_size: usize,
    handler: Option<Arc<dyn delegate::Delegate>>,
    cache_hints: Option<CacheHints>,
    max_subscriptions: usize,
    /// Tools run as tasks, with the clients that support them (`McpServer::tasks`).
    tasks: Option<Tasks<C>>,
    /// The Streamable HTTP sessions of the service this server was made for, to close a call's
    /// stream ([`SseStream`]).
    sessions: Option<Arc<Sessions>>,
}

impl<C> Clone for McpServer<C> {
    fn clone(&self) -> Self {
        McpServer {
            shared: Arc::clone(&self.shared),
            session: Arc::clone(&self.session),
            init: Arc::clone(&self.init),
            page_size: self.page_size,
            handler: self.handler.clone(),
            cache_hints: self.cache_hints,
            max_subscriptions: self.max_subscriptions,
            tasks: self.tasks.clone(),
            sessions: self.sessions.clone(),
        }
    }
}

impl<C> std::fmt::Debug for McpServer<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("info", &self.init.server_info)
            .field(
                "tools",
                &self
                    .shared
                    .listing
                    .read()
                    .map_or(0, |listing| listing.tools.len()),
            )
            .field("page_size", &self.page_size)
            .finish_non_exhaustive()
    }
}

struct Shared<C> {
    listing: RwLock<Arc<Listing<C>>>,
    context: Box<ContextFn<C>>,
    /// Clients to tell when the tools, prompts or resources change: sessions that initialized
    /// (up to protocol 2025-11-25), and `subscriptions/listen` streams (2026-07-28).
    listeners: Mutex<Vec<Listener>>,
    /// Resources, resource templates and prompts.
    offers: RwLock<Arc<offer::Offers>>,
    /// Authenticated callers' conversations, for requests without a session.
    callers: session::Callers,
}

enum Listener {
    Session(Peer<RoleServer>, Arc<session::Session>),
    Subscription(rmcp::service::SubscriptionSink),
}

/// What changed, for the clients that listen.
#[derive(Debug, Clone)]
enum Change {
    Tools,
    Prompts,
    Resources,
    Resource(String),
}

/// One version of the served tools: the toolbox, its `tools/list` entries, and the names calls
/// may use for tools sent under a stand-in.
struct Listing<C> {
    toolbox: Arc<Toolbox<C>>,
    tools: Vec<McpTool>,
    /// Each entry's tool by its name in the toolbox (an entry may be sent under a stand-in).
    names: Vec<String>,
    /// With tool search on: each entry's tool is deferred (listed once a session found it),
    /// and the search tool's entry.
    deferred: Vec<bool>,
    search: Option<McpTool>,
    stand_ins: HashMap<String, String>,
}

impl<C: Send + Sync + 'static> Listing<C> {
    fn new(toolbox: Arc<Toolbox<C>>) -> Result<Self, LintReport> {
        let form = toolbox.tools_for(Provider::Mcp)?;
        let mut tools = Vec::with_capacity(form.entries().len());
        let names = toolbox
            .definitions()
            .map(|definition| definition.name().to_owned())
            .collect();
        let mut report = LintReport::default();
        let mut read = |tool: &str, entry: &Value| -> Option<McpTool> {
            serde_json::from_value::<McpTool>(entry.clone())
                .map_err(|error| {
                    report.extend([Lint {
                        tool: tool.to_owned(),
                        form: Form::new(Provider::Mcp),
                        path: String::new(),
                        rule: Rule::Keyword("tool".into()),
                        severity: Severity::Error,
                        message: format!("the tool's MCP entry is not an MCP tool: {error}"),
                        fix: "report this as a bug of toolwright".to_owned(),
                    }]);
                })
                .ok()
        };
        for (entry, definition) in form.entries().iter().zip(toolbox.definitions()) {
            tools.extend(read(definition.name(), entry));
        }
        let search = search_entry(&toolbox).and_then(|entry| read("(the search tool)", entry));
        let deferred = toolbox
            .definitions()
            .map(|definition| search.is_some() && is_deferred(&toolbox, definition.name()))
            .collect();
        if !report.is_clean() {
            return Err(report);
        }
        let stand_ins = stand_ins(&toolbox, Provider::Mcp).into_iter().collect();
        drop(form);
        Ok(Listing {
            toolbox,
            tools,
            names,
            deferred,
            search,
            stand_ins,
        })
    }
}

impl<C: Send + Sync + 'static> McpServer<C> {
    /// Serves `toolbox`, every call getting a clone of `context` (an `Arc<App>` is cheap to
    /// clone; `()` for a toolbox without one).
    ///
    /// # Errors
    /// The toolbox's MCP lint errors (a name MCP refuses, say).
    pub fn new(toolbox: Arc<Toolbox<C>>, context: C) -> Result<Self, LintReport>
    where
        C: Clone,
    {
        Self::with_context(toolbox, move |_| context.clone())
    }

    /// Serves `toolbox`, each call getting the context `context` makes from rmcp's request
    /// context: its `extensions` hold the HTTP request's parts (`http::request::Parts`) on
    /// Streamable HTTP, its `meta` the request's `_meta`, its `peer` the session.
    ///
    /// # Errors
    /// The toolbox's MCP lint errors (a name MCP refuses, say).
    pub fn with_context(
        toolbox: Arc<Toolbox<C>>,
        context: impl Fn(&RequestContext<RoleServer>) -> C + Send + Sync + 'static,
    ) -> Result<Self, LintReport> {
        Ok(McpServer {
            shared: Arc::new(Shared {
                listing: RwLock::new(Arc::new(Listing::new(toolbox)?)),
                context: Box::new(context),
                listeners: Mutex::new(Vec::new()),
                offers: RwLock::new(Arc::new(offer::Offers::default())),
                callers: session::Callers::default(),
            }),
            session: Arc::new(session::Session::new()),
            init: Arc::new(
                ServerConfig::new(ServerCapabilities::default())
                    .with_server_info(Implementation::new("toolwright", env!("CARGO_PKG_VERSION"))),
            ),
            page_size: DEFAULT_PAGE_SIZE,
            handler: None,
            cache_hints: None,
            max_subscriptions: DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION,
            tasks: None,
            sessions: None,
        })
    }

    /// The name and version the server gives in `initialize` (by default `toolwright` and its
    /// version).
    #[must_use]
    pub fn named(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.init).server_info = Implementation::new(name, version);
        self
    }

    /// Instructions for the client's model, sent in `initialize`.
    #[must_use]
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.init).instructions = Some(instructions.into());
        self
    }

    /// How many tools one `tools/list` page holds (at least 1; 100 by default).
    #[must_use]
    pub fn page_size(mut self, tools: usize) -> Self {
        self.page_size = tools.max(1);
        self
    }

    /// Lists only the pinned tools and a search tool (`search_tools`): the tools `search`
    /// defers wait until a session's search finds them ([`ToolSearch`]). A
    /// search's result holds the found tools' `tools/list` entries, and the session gets
    /// `notifications/tools/list_changed`, after which its `tools/list` holds them too (clients
    /// refetch on it, and the model sees each tool with its own schema and annotations; a
    /// client that does not still has the schemas in the result, and a call of a deferred tool
    /// by its name runs whether listed or not). The same as serving a toolbox with
    /// [`Toolbox::with_tool_search`] on; a toolbox already searching keeps its own setting.
    ///
    /// # Errors
    /// A tool of the toolbox has the search tool's name.
    pub fn tool_search(self, search: ToolSearch) -> Result<Self, RegisterError> {
        let listing = self.listing();
        if listing.toolbox.tool_search().is_some() {
            return Ok(self);
        }
        let toolbox = Arc::new((*listing.toolbox).clone().with_tool_search(search)?);
        let listing = Listing::new(toolbox).map_err(RegisterError::Lint)?;
        *self
            .shared
            .listing
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Arc::new(listing);
        Ok(self)
    }

    /// Serves the MCP tasks extension (`io.modelcontextprotocol/tasks`): a call of a tool that
    /// runs as a task (marked `#[tool(task)]`, or one `rule` names), from a client that declares
    /// the extension, answers at once with a task handle, its body running in the background
    /// with the toolbox's whole pipeline; `tasks/get`, `tasks/update` (answers to its approval
    /// question) and `tasks/cancel` read, answer and cancel it, and the client that started it
    /// hears `notifications/tasks` while its session lasts. Tasks live in `store`: a
    /// `MemoryStore` for one process, a
    /// `RedisStore` (feature `redis`) for replicas behind a load balancer, where any replica
    /// answers for any task. A client without the extension gets the synchronous answer, as
    /// before. Tasks run on the toolbox served now; [`with_tasks`](Self::with_tasks) takes
    /// tasks set up in full (lease, time to live, poll interval).
    #[must_use]
    pub fn tasks(self, store: Arc<dyn TaskStore>, rule: TaskRule) -> Self {
        let tasks = Tasks::new(self.toolbox(), store).rule(rule);
        self.with_tasks(tasks)
    }

    /// [`tasks`](Self::tasks) with `tasks` as made (on the toolbox it was made with).
    #[must_use]
    pub fn with_tasks(mut self, tasks: Tasks<C>) -> Self {
        self.tasks = Some(tasks);
        self
    }

    /// The toolbox served now.
    pub fn toolbox(&self) -> Arc<Toolbox<C>> {
        Arc::clone(&self.listing().toolbox)
    }

    /// Serves `toolbox` from now on (calls already running finish on the old one) and sends
    /// `notifications/tools/list_changed` to every client that listens; returns how many were
    /// told. Clients whose connection closed are forgotten.
    ///
    /// # Errors
    /// The new toolbox's MCP lint errors; the old one is kept.
    pub async fn set_toolbox(&self, toolbox: Arc<Toolbox<C>>) -> Result<usize, LintReport> {
        let listing = Arc::new(Listing::new(toolbox)?);
        *self
            .shared
            .listing
            .write()
            .unwrap_or_else(PoisonError::into_inner) = listing;
        Ok(self.notify(&Change::Tools).await)
    }

    /// Serves one client over `transport` (`rmcp::transport::stdio()`, a child's pipes, any
    /// rmcp transport) until it leaves: `.waiting().await` on the result.
    ///
    /// # Errors
    /// When the client's `initialize` fails.
    pub async fn serve<T, E, A>(
        self,
        transport: T,
    ) -> Result<RunningService<RoleServer, Self>, ServerInitializeError>
    where
        T: rmcp::transport::IntoTransport<RoleServer, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        ServiceExt::serve(self.for_connection(), transport).await
    }

    /// Serves one client on this process's stdin and stdout until it leaves.
    ///
    /// # Errors
    /// When the client's `initialize` fails or the pipes break.
    pub async fn serve_stdio(self) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        self.serve(rmcp::transport::stdio())
            .await?
            .waiting()
            .await?;
        Ok(())
    }

    /// The Streamable HTTP endpoint (a tower `Service` of HTTP requests; mount it at `/mcp` with
    /// hyper, axum or any tower server), under the default [`HttpLimits`].
    ///
    /// Stateless (`stateful: false`) answers every request on its own: no session lives on the
    /// server, so replicas sit behind any HTTP load balancer with no shared state. Stateful keeps
    /// a session per client (`Mcp-Session-Id`) for clients on protocol revisions before
    /// 2026-07-28, which also get `notifications/tools/list_changed` on their session's stream.
    ///
    /// Only loopback `Host` headers are accepted (rmcp's guard against DNS rebinding); pass a
    /// config of your own to [`http_service_with`](Self::http_service_with) to serve other
    /// hosts. Anyone who reaches the port may call every tool: to serve beyond this machine, put
    /// it behind an [`Authorization`](crate::Authorization).
    pub fn http_service(&self, stateful: bool) -> Limited<StreamableHttpService<Self, Sessions>> {
        let config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(stateful)
            .with_json_response(!stateful);
        self.http_service_with(config)
    }

    /// [`http_service`](Self::http_service) under a config of your own (allowed hosts and
    /// origins, keep-alive, a cancellation token to shut it down).
    pub fn http_service_with(
        &self,
        config: StreamableHttpServerConfig,
    ) -> Limited<StreamableHttpService<Self, Sessions>> {
        self.http_service_limited(config, HttpLimits::default())
    }

    /// [`http_service_with`](Self::http_service_with) under limits of your own: body size and
    /// arrival time, requests in flight in total and per session, live sessions and their idle
    /// time, streams per session.
    pub fn http_service_limited(
        &self,
        config: StreamableHttpServerConfig,
        limits: HttpLimits,
    ) -> Limited<StreamableHttpService<Self, Sessions>> {
        let stateful = config.legacy_session_mode;
        let config = config.with_max_request_body_bytes(limits.max_body);
        let mut sessions = LocalSessionManager::default();
        sessions.session_config.keep_alive = Some(limits.session_idle);
        sessions.session_config.sse_retry = config.sse_retry;
        let local = Arc::new(sessions);
        let sessions = Arc::new(Sessions::new(Arc::clone(&local)));
        let server = McpServer {
            sessions: Some(Arc::clone(&sessions)),
            ..self.clone()
        };
        // rmcp makes a server for each session (stateful) or request (stateless): each gets
        // state of its own.
        let service = StreamableHttpService::new(
            move || Ok(server.for_connection()),
            Arc::clone(&sessions),
            config,
        );
        Limited::new(service, limits, stateful.then_some(local))
    }

    fn listing(&self) -> Arc<Listing<C>> {
        Arc::clone(
            &self
                .shared
                .listing
                .read()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    fn listen_to(&self, listener: Listener) {
        let mut listeners = self
            .shared
            .listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        listeners.retain(|listener| match listener {
            Listener::Session(peer, _) => !peer.is_transport_closed(),
            Listener::Subscription(_) => true,
        });
        listeners.push(listener);
    }

    fn forget_subscription(&self, id: &rmcp::model::RequestId) {
        self.shared
            .listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|listener| match listener {
                Listener::Subscription(sink) => sink.id() != id,
                Listener::Session(..) => true,
            });
    }
}

/// Who a request is made for: the [`Caller`] an authenticating layer in front of the HTTP
/// service put in the request's extensions (see [`Authorization`](crate::Authorization)); `None`
/// on stdio and for HTTP served without one.
pub(crate) fn caller_of(context: &RequestContext<RoleServer>) -> Option<Caller> {
    context
        .extensions
        .get::<http::request::Parts>()?
        .extensions
        .get::<Caller>()
        .cloned()
}
