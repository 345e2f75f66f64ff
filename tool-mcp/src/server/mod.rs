//! A toolbox as an MCP server: rmcp's [`ServerHandler`] over an `Arc<Toolbox<C>>`.

mod answers;
mod ask;
mod auth;
mod call;
mod delegate;
mod limited;
mod limits;
mod offer;
mod requests;
mod session;
mod sessions;

pub use self::ask::{AskClient, AskError};
pub use self::auth::{Authorization, HttpBody, InvalidToken, Protected};
pub(crate) use self::limited::RequestGone;
pub use self::limited::{Drained, Limited, ShutdownHandle};
pub use self::limits::{
    DEFAULT_BODY_TIMEOUT, DEFAULT_MAX_BODY, DEFAULT_MAX_IN_FLIGHT,
    DEFAULT_MAX_IN_FLIGHT_PER_SESSION, DEFAULT_MAX_QUEUED, DEFAULT_MAX_SESSIONS,
    DEFAULT_MAX_STREAMS_PER_SESSION, DEFAULT_SESSION_IDLE, HttpLimits,
};
pub use self::offer::{
    Prompt, PromptArguments, ReadResult, Resource, ResourceRead, ResourceTemplate,
};
pub use self::session::DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION;
pub use self::sessions::{Sessions, SseStream, SseStreamError};

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

#[expect(
    deprecated,
    reason = "logging is deprecated from revision 2026-07-28 on (SEP-2577); clients before it set the level"
)]
use rmcp::model::SetLevelRequestParams;
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult,
    ErrorData, GetPromptRequestParams, GetPromptResponse, Implementation, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ResourceUpdatedNotificationParam,
    ServerCapabilities, ServerConfig, ServerNotification, SubscribeRequestParams,
    SubscriptionFilter, Tool as McpTool, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, RoleServer, RunningService, ServerInitializeError};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{Peer, ServerHandler, ServiceExt};

use toolwright_runtime::__mcp::{EchoName, stand_ins};
use toolwright_runtime::provider::Provider;
use toolwright_runtime::{
    Toolbox,
    exec::Caller,
    schema::{Form, Lint, LintReport, Rule, Severity},
};

// Names the documentation links to.
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
/// - A tool's [`CallInfo::report_progress`] reaches the client
///   as `notifications/progress` when the request carried a progress token.
/// - A call that needs approval asks the client's user through MCP elicitation when the client
///   offers it (form mode, on a session), and runs only when they approve; otherwise the result
///   is an error saying the call needs approval.
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
    info: Implementation,
    instructions: Option<String>,
    page_size: usize,
    handler: Option<Arc<dyn delegate::Delegate>>,
    cache_hints: Option<CacheHints>,
    max_subscriptions: usize,
    /// The Streamable HTTP sessions of the service this server was made for, to close a call's
    /// stream ([`SseStream`]).
    sessions: Option<Arc<Sessions>>,
}

impl<C> Clone for McpServer<C> {
    fn clone(&self) -> Self {
        McpServer {
            shared: Arc::clone(&self.shared),
            session: Arc::clone(&self.session),
            info: self.info.clone(),
            instructions: self.instructions.clone(),
            page_size: self.page_size,
            handler: self.handler.clone(),
            cache_hints: self.cache_hints,
            max_subscriptions: self.max_subscriptions,
            sessions: self.sessions.clone(),
        }
    }
}

impl<C> std::fmt::Debug for McpServer<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("info", &self.info)
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
        for (entry, definition) in form.entries().iter().zip(toolbox.definitions()) {
            match serde_json::from_value::<McpTool>((*entry).clone()) {
                Ok(tool) => tools.push(tool),
                Err(error) => report.extend([Lint {
                    tool: definition.name().to_owned(),
                    form: Form::new(Provider::Mcp),
                    path: String::new(),
                    rule: Rule::Keyword("tool".into()),
                    severity: Severity::Error,
                    message: format!("the tool's MCP entry is not an MCP tool: {error}"),
                    fix: "report this as a bug of toolwright".to_owned(),
                }]),
            }
        }
        if !report.is_clean() {
            return Err(report);
        }
        let stand_ins = stand_ins(&toolbox, Provider::Mcp).into_iter().collect();
        drop(form);
        Ok(Listing {
            toolbox,
            tools,
            names,
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
            info: Implementation::new("toolwright", env!("CARGO_PKG_VERSION")),
            instructions: None,
            page_size: DEFAULT_PAGE_SIZE,
            handler: None,
            cache_hints: None,
            max_subscriptions: DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION,
            sessions: None,
        })
    }

    /// The name and version the server gives in `initialize` (by default `toolwright` and its
    /// version).
    #[must_use]
    pub fn named(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.info = Implementation::new(name, version);
        self
    }

    /// Instructions for the client's model, sent in `initialize`.
    #[must_use]
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// How many tools one `tools/list` page holds (at least 1; 100 by default).
    #[must_use]
    pub fn page_size(mut self, tools: usize) -> Self {
        self.page_size = tools.max(1);
        self
    }

    /// Offers `resource` too (builder style; [`add_resource`](Self::add_resource) on a running
    /// server). Declare at least one resource or template before serving for the server to
    /// announce the `resources` capability.
    #[must_use]
    pub fn with_resource(self, resource: Resource) -> Self {
        self.change_offers(|offers| offers.resources.push(resource));
        self
    }

    /// Offers the resources `template` matches too.
    #[must_use]
    pub fn with_resource_template(self, template: ResourceTemplate) -> Self {
        self.change_offers(|offers| offers.templates.push(template));
        self
    }

    /// Offers `prompt` too (builder style; [`add_prompt`](Self::add_prompt) on a running
    /// server).
    #[must_use]
    pub fn with_prompt(self, prompt: Prompt) -> Self {
        self.change_offers(|offers| offers.prompts.push(prompt));
        self
    }

    /// Serves what `handler` offers beside the tools: for each of resources, prompts,
    /// completion and logging that its `get_info` announces, its methods answer instead of the
    /// resources and prompts declared here (an application's own rmcp handler, for the parts it
    /// writes itself). Tools are always the toolbox's.
    #[must_use]
    pub fn with_handler(mut self, handler: impl ServerHandler) -> Self {
        self.handler = Some(Arc::new(handler));
        self
    }

    /// Cache hints for list and read results (protocol revision 2026-07-28). Without them rmcp
    /// sends the most careful ones: stale at once, private.
    #[must_use]
    pub fn cache_hints(mut self, hints: CacheHints) -> Self {
        self.cache_hints = Some(hints);
        self
    }

    /// How many resources one session may subscribe to at once (256 by default): one more is
    /// refused with `-32602`, naming the limit.
    #[must_use]
    pub fn max_subscriptions(mut self, subscriptions: usize) -> Self {
        self.max_subscriptions = subscriptions;
        self
    }

    /// Offers `resource` from now on (replacing one at the same URI) and sends
    /// `notifications/resources/list_changed` to every client that listens; returns how many
    /// were told.
    pub async fn add_resource(&self, resource: Resource) -> usize {
        self.change_offers(|offers| {
            offers
                .resources
                .retain(|known| known.uri() != resource.uri());
            offers.resources.push(resource);
        });
        self.notify(&Change::Resources).await
    }

    /// Stops offering the resource at `uri` and tells the clients that listen; returns how
    /// many were told (none when there was no such resource).
    pub async fn remove_resource(&self, uri: &str) -> usize {
        let mut removed = false;
        self.change_offers(|offers| {
            let before = offers.resources.len();
            offers.resources.retain(|known| known.uri() != uri);
            removed = offers.resources.len() != before;
        });
        if removed {
            self.notify(&Change::Resources).await
        } else {
            0
        }
    }

    /// Offers `prompt` from now on (replacing one of the same name) and sends
    /// `notifications/prompts/list_changed` to every client that listens; returns how many were
    /// told.
    pub async fn add_prompt(&self, prompt: Prompt) -> usize {
        self.change_offers(|offers| {
            offers.prompts.retain(|known| known.name() != prompt.name());
            offers.prompts.push(prompt);
        });
        self.notify(&Change::Prompts).await
    }

    /// Says the resource at `uri` changed: every client subscribed to it gets
    /// `notifications/resources/updated`. Returns how many were told.
    pub async fn resource_updated(&self, uri: &str) -> usize {
        self.notify(&Change::Resource(uri.to_owned())).await
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

    /// Tells every client that listens for `change`; forgets those whose connection closed.
    /// Returns how many were told.
    async fn notify(&self, change: &Change) -> usize {
        let listeners = std::mem::take(
            &mut *self
                .shared
                .listeners
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        let mut kept = Vec::with_capacity(listeners.len());
        let mut told = 0;
        for listener in listeners {
            let notification = match change {
                Change::Tools => ServerNotification::ToolListChangedNotification(
                    rmcp::model::ToolListChangedNotification::default(),
                ),
                Change::Prompts => ServerNotification::PromptListChangedNotification(
                    rmcp::model::PromptListChangedNotification::default(),
                ),
                Change::Resources => ServerNotification::ResourceListChangedNotification(
                    rmcp::model::ResourceListChangedNotification::default(),
                ),
                Change::Resource(uri) => ServerNotification::ResourceUpdatedNotification(
                    rmcp::model::ResourceUpdatedNotification::new(
                        ResourceUpdatedNotificationParam::new(uri.clone()),
                    ),
                ),
            };
            let keep = match &listener {
                Listener::Session(peer, session) => {
                    if peer.is_transport_closed() {
                        false
                    } else if matches!(change, Change::Resource(uri) if !session.subscribed(uri)) {
                        true
                    } else {
                        let sent = peer.send_notification(notification).await.is_ok();
                        told += usize::from(sent);
                        sent
                    }
                }
                Listener::Subscription(sink) => match sink.send(notification).await {
                    Ok(()) => {
                        told += 1;
                        true
                    }
                    // Not what this stream asked for: it stays for what it did.
                    Err(
                        rmcp::service::SubscriptionSendError::NotificationNotAccepted(_)
                        | rmcp::service::SubscriptionSendError::UnsupportedNotification(_),
                    ) => true,
                    Err(_) => false,
                },
            };
            if keep {
                kept.push(listener);
            }
        }
        self.shared
            .listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend(kept);
        told
    }

    fn change_offers(&self, change: impl FnOnce(&mut offer::Offers)) {
        let mut offers = self
            .shared
            .offers
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        change(Arc::make_mut(&mut offers));
    }

    fn offers(&self) -> Arc<offer::Offers> {
        Arc::clone(
            &self
                .shared
                .offers
                .read()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    /// The same server for a new connection: what the server offers shared, the connection's
    /// own state (log level, subscriptions, retry budget) fresh.
    fn for_connection(&self) -> Self {
        McpServer {
            session: Arc::new(session::Session::new()),
            ..self.clone()
        }
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

impl<C: Send + Sync + 'static> ServerHandler for McpServer<C> {
    #[expect(
        deprecated,
        reason = "logging is deprecated from revision 2026-07-28 on (SEP-2577); clients before it use it"
    )]
    fn get_info(&self) -> ServerConfig {
        let offers = self.offers();
        let handler = self.handler.as_ref().map(|handler| handler.capabilities());
        let mut capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_logging()
            .build();
        capabilities.resources = match &handler {
            Some(theirs) if theirs.resources.is_some() => theirs.resources.clone(),
            _ => offers.has_resources().then(|| {
                let mut resources = rmcp::model::ResourcesCapability::default();
                resources.subscribe = Some(true);
                resources.list_changed = Some(true);
                resources
            }),
        };
        capabilities.prompts = match &handler {
            Some(theirs) if theirs.prompts.is_some() => theirs.prompts.clone(),
            _ => (!offers.prompts.is_empty()).then(|| {
                let mut prompts = rmcp::model::PromptsCapability::default();
                prompts.list_changed = Some(true);
                prompts
            }),
        };
        capabilities.completions = match &handler {
            Some(theirs) if theirs.completions.is_some() => theirs.completions.clone(),
            _ => offers.has_completions().then(Default::default),
        };
        let mut config = ServerConfig::new(capabilities).with_server_info(self.info.clone());
        if let Some(instructions) = &self.instructions {
            config = config.with_instructions(instructions.clone());
        }
        config
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let listing = self.listing();
        // A caller sees only the tools it may call.
        let visible: Vec<&McpTool> = match caller_of(&context) {
            None => listing.tools.iter().collect(),
            Some(caller) => listing
                .tools
                .iter()
                .zip(&listing.names)
                .filter(|(_, name)| listing.toolbox.may_call(&caller, name))
                .map(|(tool, _)| tool)
                .collect(),
        };
        let start = match request.and_then(|request| request.cursor) {
            None => 0,
            Some(cursor) => cursor
                .parse::<usize>()
                .ok()
                .filter(|at| *at <= visible.len())
                .ok_or_else(|| {
                    ErrorData::invalid_params(
                        format!(
                            "invalid cursor {}: use the `nextCursor` of the page before",
                            EchoName(&cursor)
                        ),
                        None,
                    )
                })?,
        };
        let end = start.saturating_add(self.page_size).min(visible.len());
        let mut page = ListToolsResult::with_all_items(
            visible[start..end]
                .iter()
                .map(|&tool| tool.clone())
                .collect(),
        );
        if end < visible.len() {
            page.next_cursor = Some(end.to_string());
        }
        Ok(page)
    }

    fn get_tool(&self, name: &str) -> Option<McpTool> {
        // `name` is the name the client calls: the one in the list. rmcp asks outside a
        // request context (to check `Mcp-Param-*` headers against the tool's schema); the
        // caller comes from the authorization layer's task-local, so that a tool the caller may
        // not call is as absent here as in `tools/list`.
        let listing = self.listing();
        let (tool, toolbox_name) = listing
            .tools
            .iter()
            .zip(&listing.names)
            .find(|(tool, _)| tool.name == name)?;
        let hidden = auth::CALLER
            .try_with(|caller| !listing.toolbox.may_call(caller, toolbox_name))
            .unwrap_or(false);
        (!hidden).then(|| tool.clone())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.call(request, context).await
    }

    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        self.listen_to(Listener::Session(context.peer, Arc::clone(&self.session)));
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.answer_list_resources(request, context).await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.answer_list_resource_templates(request, context).await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.answer_read_resource(request, context).await
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.answer_subscribe(request, context).await
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.answer_unsubscribe(request, context).await
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.answer_list_prompts(request, context).await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.answer_get_prompt(request, context).await
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.answer_complete(request, context).await
    }

    #[expect(
        deprecated,
        reason = "logging is deprecated from revision 2026-07-28 on (SEP-2577); clients before it set the level"
    )]
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.answer_set_level(request, context).await
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let offers = self.offers();
        let mut accepted = SubscriptionFilter::builder().tools_list_changed();
        if !offers.prompts.is_empty() {
            accepted = accepted.prompts_list_changed();
        }
        if offers.has_resources() {
            accepted = accepted.resources_list_changed();
        }
        let mut accepted = accepted.build();
        // Each resource asked for that exists, up to the subscription limit.
        if offers.has_resources() {
            accepted.resource_subscriptions =
                requested.resource_subscriptions.as_ref().map(|uris| {
                    uris.iter()
                        .filter(|uri| offers.knows(uri))
                        .take(self.max_subscriptions)
                        .cloned()
                        .collect()
                });
        }
        Some(accepted)
    }

    async fn listen(&self, context: rmcp::service::SubscriptionContext) -> Result<(), ErrorData> {
        let sink = context.sink().clone();
        let id = sink.id().clone();
        self.listen_to(Listener::Subscription(sink));
        context.cancelled().await;
        self.forget_subscription(&id);
        Ok(())
    }
}
