//! An MCP server's tools in a toolbox: each forwarded through an rmcp client, after the argument
//! pipeline.

mod connect;
mod handlers;
mod in_flight;
#[cfg(feature = "oauth")]
mod oauth;
mod tasks;

use std::fmt;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use crate::content::from_block;
use crate::telemetry::{Target, Traced, sent};
use rmcp::model::{
    CallToolRequestParams, CallToolResult, Implementation, ProtocolVersion, Tool as McpTool,
};
use rmcp::service::{RoleClient, RunningService};
use rmcp::{Peer, ServiceError};
use serde_json::Value;
use tokio::sync::Notify;

use toolwright_runtime::{
    Content, ContentPart, DynamicTool, Outcome, RegisterError, ToolDefinition, ToolOutput, Toolbox,
    dynamic::{ErasedTool, IntoTools, ToolAnnotations, erase},
    schema::SchemaError,
};

pub use self::connect::McpConnectError;
#[cfg(feature = "oauth")]
pub use self::oauth::{EnterpriseLogin, McpOAuth};

// Names the documentation links to.
#[cfg(doc)]
use toolwright_runtime::ToolResult;

/// toolwright's rmcp client handler: connect with it ([`McpClient::connect`], which agrees on a
/// protocol revision with the server) to hear when the server's tools change.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use toolwright::mcp::rmcp::transport::TokioChildProcess;
/// use toolwright::Toolbox;
/// use toolwright::mcp::{McpClient, McpTools, ToolboxExt as _};
///
/// let client = McpClient::new();
/// let changes = client.clone();
/// let command = tokio::process::Command::new("my-mcp-server");
/// let running = client.connect(TokioChildProcess::new(command)?).await?;
/// let mut tools = McpTools::of(&running).await?.prefixed("files_");
/// let mut toolbox = Toolbox::new().with_mcp_tools(tools.clone())?;
/// // Later, when the server says its tools changed:
/// changes.tools_changed().await;
/// toolbox.refresh_mcp_tools(&mut tools).await?;
/// # Ok(())
/// # }
/// ```
pub struct McpClient {
    changes: Arc<Changes>,
    info: Option<Implementation>,
    /// The protocol revisions offered, newest first.
    versions: Arc<[ProtocolVersion]>,
    /// The toolbox calls in flight through the tools listed with [`McpTools::of`], by the
    /// progress tokens of this connection's requests: each clone has its own (a client is
    /// cloned for each connection, and two connections' tokens may be the same).
    in_flight: Arc<in_flight::InFlight>,
    /// The revision agreed by [`McpClient::connect`], shared by the client's clones.
    agreed: Arc<Mutex<Option<ProtocolVersion>>>,
    handlers: handlers::Handlers,
}

impl Clone for McpClient {
    fn clone(&self) -> Self {
        McpClient {
            changes: Arc::clone(&self.changes),
            info: self.info.clone(),
            versions: Arc::clone(&self.versions),
            in_flight: Arc::default(),
            agreed: Arc::clone(&self.agreed),
            handlers: self.handlers.clone(),
        }
    }
}

#[derive(Default)]
struct Changes {
    seen: AtomicU64,
    notify: Notify,
}

impl fmt::Debug for McpClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpClient")
            .field("tool_list_changes", &self.tool_list_changes())
            .field("protocol_versions", &self.versions)
            .field("protocol_version", &self.protocol_version())
            .finish_non_exhaustive()
    }
}

impl Default for McpClient {
    fn default() -> Self {
        McpClient {
            changes: Arc::default(),
            info: None,
            versions: connect::every_known().into(),
            in_flight: Arc::default(),
            agreed: Arc::default(),
            handlers: handlers::Handlers::default(),
        }
    }
}

impl McpClient {
    /// A client that names itself `toolwright` in `initialize` and speaks every protocol revision
    /// rmcp knows.
    pub fn new() -> Self {
        McpClient::default()
    }

    /// A client that names itself `name` `version` in `initialize`.
    #[must_use]
    pub fn named(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.info = Some(Implementation::new(name, version));
        self
    }

    /// A client that speaks only these protocol revisions (in any order; the newest is offered
    /// first): [`connect`](Self::connect) agrees on the newest the server speaks too and refuses a
    /// server that answers with another. Every revision rmcp knows by default.
    ///
    /// ```
    /// use toolwright::mcp::McpClient;
    /// use toolwright::mcp::rmcp::model::ProtocolVersion;
    ///
    /// let client = McpClient::new()
    ///     .with_protocol_versions([ProtocolVersion::V_2025_06_18, ProtocolVersion::V_2025_11_25]);
    /// assert_eq!(
    ///     client.protocol_versions(),
    ///     [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2025_06_18]
    /// );
    /// ```
    #[must_use]
    pub fn with_protocol_versions(
        mut self,
        versions: impl IntoIterator<Item = ProtocolVersion>,
    ) -> Self {
        let mut versions: Vec<ProtocolVersion> = versions.into_iter().collect();
        // Revisions are dates: their text orders them.
        versions.sort_by(|a, b| b.as_str().cmp(a.as_str()));
        versions.dedup();
        self.versions = versions.into();
        self
    }

    /// The protocol revisions this client offers, newest first.
    pub fn protocol_versions(&self) -> &[ProtocolVersion] {
        &self.versions
    }

    /// The protocol revision agreed with the server by [`connect`](Self::connect); `None` before.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.agreed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// How many `notifications/tools/list_changed` the server has sent.
    pub fn tool_list_changes(&self) -> u64 {
        self.changes.seen.load(Ordering::Acquire)
    }

    /// Completes at the server's next `notifications/tools/list_changed`.
    pub fn tools_changed(&self) -> impl Future<Output = ()> + Send + '_ {
        self.changes.notify.notified()
    }
}

/// Why an MCP server's tools could not be listed or registered.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpToolsError {
    /// The server did not answer `tools/list`.
    #[error("the MCP server's tools could not be listed: {0}")]
    List(#[from] ServiceError),
    /// A tool could not be registered (its name taken, say).
    #[error(transparent)]
    Register(#[from] RegisterError),
}

/// Why a call forwarded to an MCP server failed: the typed error of the call's result
/// ([`ToolResult::tool_error`]), for the application; the model
/// reads its `Display`.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum McpCallError {
    /// The server answered with `isError: true`: the tool failed, or refused the arguments.
    #[error("{message}")]
    Tool {
        /// The result's text.
        message: String,
        /// The result's `structuredContent`, if it had one.
        structured: Option<Value>,
    },
    /// No answer came: the connection broke, or the server sent a JSON-RPC error.
    #[error("the MCP server did not answer: {0}")]
    Service(String),
    /// The server refused the call for its authorization (HTTP `401`, or `403
    /// insufficient_scope` where the call needs more scopes) and the client could not, or may
    /// not, authorize again (with the `oauth` feature, `McpClient::connect_http` does so
    /// itself before it gives up).
    #[error("the MCP server refused the call for its authorization: {message}")]
    Unauthorized {
        /// The refusal's `WWW-Authenticate` challenge.
        challenge: String,
        /// What went wrong.
        message: String,
    },
}

/// The tools an MCP server lists, ready to register in a toolbox
/// ([`ToolboxExt::with_mcp_tools`], [`Toolbox::register_all`]): each is a tool whose schema is the
/// server's `inputSchema`, whose calls go through the argument pipeline (repair, coercion,
/// validation against that schema, feedback to the model) before they are forwarded to the
/// server, and whose result is the server's content (text, images; other blocks as their JSON
/// text), its `isError`, and its `structuredContent` as the native value.
///
/// A tool whose `inputSchema` toolwright cannot take (not an object schema) is left out and
/// named in [`skipped`](Self::skipped).
#[derive(Clone)]
pub struct McpTools {
    peer: Peer<RoleClient>,
    /// The calls in flight of the client the tools were listed through ([`McpTools::of`]).
    in_flight: Option<Arc<in_flight::InFlight>>,
    prefix: String,
    /// Whether the tools go deferred ([`McpTools::deferred`]).
    deferred: bool,
    keep: Option<Keep>,
    tools: Vec<Remote>,
    skipped: Vec<(String, SchemaError)>,
}

/// Which server-side names to keep.
type Keep = Arc<dyn Fn(&str) -> bool + Send + Sync>;

#[derive(Clone)]
struct Remote {
    /// The tool's name on the server.
    name: String,
    definition: ToolDefinition,
}

impl fmt::Debug for McpTools {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpTools")
            .field("prefix", &self.prefix)
            .field("tools", &self.names().collect::<Vec<_>>())
            .field("skipped", &self.skipped)
            .finish_non_exhaustive()
    }
}

impl McpTools {
    /// Lists the tools of the server at the other end of `peer` (every page of `tools/list`).
    ///
    /// # Errors
    /// When the server does not answer.
    pub async fn list(peer: &Peer<RoleClient>) -> Result<McpTools, McpToolsError> {
        let mut tools = McpTools {
            peer: peer.clone(),
            in_flight: None,
            prefix: String::new(),
            deferred: false,
            keep: None,
            tools: Vec::new(),
            skipped: Vec::new(),
        };
        tools.fetch().await?;
        Ok(tools)
    }

    /// Lists the tools of the server `running` (toolwright's client) is connected to, as
    /// [`list`](Self::list) does; a call of one of them also carries the progress the server
    /// reports for it to the toolbox call's `CallInfo`, and on
    /// to whoever runs the toolbox (a provider's stream, an MCP server of toolwright's own); a
    /// toolbox call dropped before its answer is cancelled on the server. (The server's log
    /// messages name no call: they reach [`McpClient::on_log`] and `tracing`.)
    ///
    /// # Errors
    /// When the server does not answer.
    pub async fn of(
        running: &RunningService<RoleClient, McpClient>,
    ) -> Result<McpTools, McpToolsError> {
        let mut tools = McpTools::list(running.peer()).await?;
        tools.in_flight = Some(Arc::clone(&running.service().in_flight));
        Ok(tools)
    }

    /// Registers the tools under `prefix` + their names, to keep two servers' tools apart. The
    /// server is still called by each tool's own name.
    #[must_use]
    pub fn prefixed(mut self, prefix: &str) -> Self {
        prefix.clone_into(&mut self.prefix);
        self
    }

    /// Defers the tools in the toolbox they join: with its tool search on
    /// ([`Toolbox::with_tool_search`]), a request sends them only once a search finds them, so a
    /// server of many tools costs a request only its search tool.
    #[must_use]
    pub fn deferred(mut self) -> Self {
        self.deferred = true;
        self
    }

    /// Keeps only the tools whose server-side names `keep` accepts (now and at every refresh).
    #[must_use]
    pub fn retain(mut self, keep: impl Fn(&str) -> bool + Send + Sync + 'static) -> Self {
        self.tools.retain(|tool| keep(&tool.name));
        self.keep = Some(Arc::new(keep));
        self
    }

    /// The names the tools are registered under.
    pub fn names(&self) -> impl ExactSizeIterator<Item = String> + '_ {
        self.tools
            .iter()
            .map(|tool| format!("{}{}", self.prefix, tool.name))
    }

    /// How many tools there are.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether the server lists no tools (that toolwright could take).
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The tools left out, by their server-side names, with why.
    pub fn skipped(&self) -> &[(String, SchemaError)] {
        &self.skipped
    }

    /// The rmcp peer the calls go through.
    pub fn peer(&self) -> &Peer<RoleClient> {
        &self.peer
    }

    async fn fetch(&mut self) -> Result<(), McpToolsError> {
        let version = self
            .peer
            .peer_info()
            .map(|server| server.protocol_version.to_string());
        let traced = Traced::client("tools/list", Target::None, version);
        let listed = sent(traced, self.peer.list_all_tools(), |_| false).await?;
        self.tools.clear();
        self.skipped.clear();
        for tool in listed {
            if self.keep.as_ref().is_some_and(|keep| !keep(&tool.name)) {
                continue;
            }
            match definition(&tool) {
                Ok(definition) => self.tools.push(Remote {
                    name: tool.name.into_owned(),
                    definition,
                }),
                Err(error) => {
                    tracing::warn!(tool = %tool.name, %error, "an MCP server's tool was left out");
                    self.skipped.push((tool.name.into_owned(), error));
                }
            }
        }
        Ok(())
    }
}

/// A toolwright definition of an MCP tool: its schemas, description, title and annotations.
fn definition(tool: &McpTool) -> Result<ToolDefinition, SchemaError> {
    let description = tool.description.as_deref().unwrap_or_default();
    let mut definition = ToolDefinition::new(
        tool.name.to_string(),
        description,
        Value::Object(tool.input_schema.as_ref().clone()),
    )?;
    if let Some(output) = &tool.output_schema {
        definition = definition.with_output_schema(Some(Value::Object(output.as_ref().clone())));
    }
    let title = tool
        .title
        .clone()
        .or_else(|| tool.annotations.as_ref().and_then(|a| a.title.clone()));
    if let Some(title) = title {
        definition = definition.with_display_text(title);
    }
    if let Some(annotations) = &tool.annotations
        && let Ok(annotations) =
            serde_json::to_value(annotations).and_then(serde_json::from_value::<ToolAnnotations>)
    {
        definition = definition.with_annotations(annotations);
    }
    Ok(definition)
}

impl<C: ?Sized + Sync + 'static> IntoTools<C> for McpTools {
    fn into_tools(self) -> Vec<Arc<dyn ErasedTool<C>>> {
        let McpTools {
            peer,
            in_flight,
            prefix,
            deferred,
            tools,
            ..
        } = self;
        tools
            .into_iter()
            .map(|remote| {
                let definition = if prefix.is_empty() {
                    remote.definition
                } else {
                    let name = format!("{prefix}{}", remote.name);
                    remote.definition.with_name(name)
                };
                let definition = if deferred {
                    definition.with_deferred(true)
                } else {
                    definition
                };
                erase(forwarded(
                    definition,
                    remote.name,
                    peer.clone(),
                    in_flight.clone(),
                ))
            })
            .collect()
    }
}

/// One MCP server's tool, as a toolbox's: a [`DynamicTool`] (the whole argument pipeline
/// against the server's `inputSchema`, like any tool built at run time) whose body calls the
/// server's tool by its own name.
fn forwarded<C: ?Sized + Sync + 'static>(
    definition: ToolDefinition,
    remote: String,
    peer: Peer<RoleClient>,
    in_flight: Option<Arc<in_flight::InFlight>>,
) -> DynamicTool<C> {
    DynamicTool::new_async_with_info(definition, move |args, _ctx: &C, info| {
        #[cfg_attr(
            not(feature = "otel"),
            expect(unused_mut, reason = "the trace context goes in `_meta`")
        )]
        let mut params = CallToolRequestParams::new(remote.clone()).with_arguments(args);
        let (peer, in_flight) = (peer.clone(), in_flight.clone());
        let version = peer
            .peer_info()
            .map(|server| server.protocol_version.to_string());
        let traced = Traced::client("tools/call", Target::Tool(&remote), version);
        #[cfg(feature = "otel")]
        if !traced.span.is_disabled() {
            let meta = params.meta.get_or_insert_with(Default::default);
            crate::telemetry::send_context(&traced.span, &mut meta.0);
        }
        async move {
            let request = async {
                match &in_flight {
                    Some(in_flight) => in_flight.call(&peer, params, info).await,
                    None => in_flight::call(&peer, params).await,
                }
            };
            match sent(traced, request, |result| result.is_error == Some(true)).await {
                Ok(result) => outcome(result),
                Err(error) => {
                    let error = call_error(&error);
                    Outcome::Error {
                        message: error.to_string(),
                        error: Arc::new(error),
                    }
                }
            }
        }
    })
}

/// Why a forwarded call got no answer; with the `oauth` feature (rmcp's HTTP client transport),
/// a refusal for the call's authorization is told apart, with its challenge.
fn call_error(error: &ServiceError) -> McpCallError {
    #[cfg(feature = "oauth")]
    if let Some(challenge) = error.auth_challenge() {
        return McpCallError::Unauthorized {
            challenge: challenge.to_owned(),
            message: error.to_string(),
        };
    }
    McpCallError::Service(error.to_string())
}

/// The outcome of a call from the server's result.
fn outcome(result: CallToolResult) -> Outcome {
    let mut content: Content = result.content.into_iter().map(from_block).collect();
    if content.is_empty()
        && let Some(structured) = &result.structured_content
    {
        content.push(ContentPart::text(structured.to_string()));
    }
    if result.is_error == Some(true) {
        let error = McpCallError::Tool {
            message: content.text(),
            structured: result.structured_content,
        };
        return Outcome::Error {
            message: error.to_string(),
            error: Arc::new(error),
        };
    }
    let mut output = ToolOutput::parts(content);
    // The result's `_meta` (a task's id among it: `io.modelcontextprotocol/related-task`).
    if let Some(meta) = result.meta {
        output = output.with_option("_meta", serde_json::Value::Object(meta.0));
    }
    Outcome::Output(match result.structured_content {
        Some(structured) => output.with_native(structured),
        None => output,
    })
}

/// What a [`Toolbox`] does with an MCP server's tools: register them, and list them again when
/// the server says they changed. (An extension trait: the toolbox is `toolwright`'s, the MCP
/// side this crate's. Import it with `use toolwright::mcp::ToolboxExt as _;`.)
pub trait ToolboxExt: Sized {
    /// Registers an MCP server's tools ([`McpTools`]), builder style: all of them, or none.
    /// The same as [`Toolbox::with_all`].
    ///
    /// # Errors
    /// As [`Toolbox::register_all`].
    fn with_mcp_tools(self, tools: McpTools) -> Result<Self, RegisterError>;

    /// Lists the server's tools again and registers the new list in place of `tools` (all of it,
    /// or, when some name is taken, none of it, and the old list stays); `tools` becomes the new
    /// list. Call it when the server sends `notifications/tools/list_changed`
    /// ([`McpClient::tools_changed`]).
    ///
    /// The new tools are new registrations: approval rules added for the old ones
    /// ([`Toolbox::needs_approval_if`]) go with them, and the tools come after the toolbox's
    /// others. When the new list cannot be registered, the old tools are put back the same way.
    ///
    /// # Errors
    /// When the server does not answer, or a new tool's name is taken; the toolbox is then as it
    /// was.
    fn refresh_mcp_tools(
        &mut self,
        tools: &mut McpTools,
    ) -> impl Future<Output = Result<(), McpToolsError>> + Send;
}

impl<C: ?Sized + Sync + 'static> ToolboxExt for Toolbox<C> {
    fn with_mcp_tools(self, tools: McpTools) -> Result<Self, RegisterError> {
        self.with_all(tools)
    }

    async fn refresh_mcp_tools(&mut self, tools: &mut McpTools) -> Result<(), McpToolsError> {
        let mut fresh = tools.clone();
        fresh.fetch().await?;
        let old: Vec<String> = tools.names().collect();
        let removed: Vec<_> = old.iter().filter_map(|name| self.remove(name)).collect();
        if let Err(error) = self.register_all(fresh.clone()) {
            for tool in removed {
                // The old tools' names were free a moment ago.
                let _ = self.register_dyn(tool);
            }
            return Err(error.into());
        }
        *tools = fresh;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::McpClient;
    use std::sync::Arc;

    #[test]
    fn a_clone_shares_what_it_hears_but_keeps_its_own_calls_in_flight() {
        let client = McpClient::new();
        let clone = client.clone();
        assert!(Arc::ptr_eq(&client.changes, &clone.changes));
        assert!(Arc::ptr_eq(&client.agreed, &clone.agreed));
        assert!(!Arc::ptr_eq(&client.in_flight, &clone.in_flight));
    }
}
