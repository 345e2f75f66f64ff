//! What the application answers a server with: elicitation, sampling, roots; and where the
//! server's log messages and progress go. The rmcp `ClientHandler` toolwright's client is.
#![expect(
    deprecated,
    reason = "sampling, roots and logging are deprecated from revision 2026-07-28 on (SEP-2577); \
              servers before it use them"
)]

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use rmcp::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability, ErrorData,
    FormElicitationCapability, Implementation, LoggingLevel, LoggingMessageNotificationParam,
    ProgressNotificationParam, Root, RootsCapabilities, SamplingCapability,
    UrlElicitationCapability,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient};
use serde_json::{Map, Value};

use super::McpClient;

/// A boxed answer to a server's request.
type Answer<T> = Pin<Box<dyn Future<Output = T> + Send>>;
type Elicit = dyn Fn(ElicitRequestParams) -> Answer<ElicitResult> + Send + Sync;
type Sample = dyn Fn(CreateMessageRequestParams) -> Answer<Result<CreateMessageResult, ErrorData>>
    + Send
    + Sync;
type OnLog = dyn Fn(&LoggingMessageNotificationParam) + Send + Sync;
type OnProgress = dyn Fn(&ProgressNotificationParam) + Send + Sync;

/// The application's handlers; each one set declares its capability.
#[derive(Clone, Default)]
pub(super) struct Handlers {
    elicit: Option<Arc<Elicit>>,
    sample: Option<Arc<Sample>>,
    roots: Option<Arc<[Root]>>,
    log: Option<Arc<OnLog>>,
    progress: Option<Arc<OnProgress>>,
}

impl McpClient {
    /// Answers the server's elicitation requests (`elicitation/create`, form and URL mode) with
    /// `answer`, and declares the `elicitation` capability (both modes): the application asks its
    /// user. When it accepts a form, a field it left out that the form's schema gives a
    /// `default` is sent with that default (SEP-1034), so `ElicitResult::new(Accept)` with no
    /// content accepts every default. Without it, every request is declined.
    ///
    /// ```
    /// use toolwright::mcp::McpClient;
    /// use toolwright::mcp::rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
    ///
    /// let client = McpClient::new().on_elicitation(|request| async move {
    ///     match request {
    ///         // Here the application shows the form to its user.
    ///         ElicitRequestParams::FormElicitationParams { .. } => {
    ///             ElicitResult::new(ElicitationAction::Accept)
    ///         }
    ///         // Here it would open the URL for its user.
    ///         _ => ElicitResult::new(ElicitationAction::Decline),
    ///     }
    /// });
    /// ```
    #[must_use]
    pub fn on_elicitation<F, Fut>(mut self, answer: F) -> Self
    where
        F: Fn(ElicitRequestParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ElicitResult> + Send + 'static,
    {
        self.handlers.elicit = Some(Arc::new(move |request| Box::pin(answer(request))));
        self
    }

    /// Answers the server's sampling requests (`sampling/createMessage`) with `answer` (the
    /// application routes them to its model), and declares the `sampling` capability.
    /// Without it, the server is told the method is not supported.
    #[must_use]
    pub fn on_sampling<F, Fut>(mut self, answer: F) -> Self
    where
        F: Fn(CreateMessageRequestParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CreateMessageResult, ErrorData>> + Send + 'static,
    {
        self.handlers.sample = Some(Arc::new(move |request| Box::pin(answer(request))));
        self
    }

    /// The roots the client offers (`roots/list`, revisions before 2026-07-28, which dropped
    /// them: SEP-2577), and the `roots` capability declared.
    #[must_use]
    pub fn with_roots(mut self, roots: impl IntoIterator<Item = Root>) -> Self {
        self.handlers.roots = Some(roots.into_iter().collect());
        self
    }

    /// Calls `listener` with each log message the server sends (`notifications/message`). Every
    /// message is also a `tracing` event (target `toolwright_mcp::client`) at the level closest to
    /// the server's, with or without a listener.
    #[must_use]
    pub fn on_log(
        mut self,
        listener: impl Fn(&LoggingMessageNotificationParam) + Send + Sync + 'static,
    ) -> Self {
        self.handlers.log = Some(Arc::new(listener));
        self
    }

    /// Calls `listener` with each progress notification the server sends
    /// (`notifications/progress`); each is also a `tracing` debug event.
    #[must_use]
    pub fn on_progress(
        mut self,
        listener: impl Fn(&ProgressNotificationParam) + Send + Sync + 'static,
    ) -> Self {
        self.handlers.progress = Some(Arc::new(listener));
        self
    }

    /// The capabilities the handlers set declare.
    fn capabilities(&self) -> ClientCapabilities {
        let mut capabilities = ClientCapabilities::default();
        if self.handlers.elicit.is_some() {
            let mut elicitation = ElicitationCapability::default();
            elicitation.form = Some(FormElicitationCapability::default());
            elicitation.url = Some(UrlElicitationCapability::default());
            capabilities.elicitation = Some(elicitation);
        }
        if self.handlers.sample.is_some() {
            capabilities.sampling = Some(SamplingCapability::default());
        }
        if self.handlers.roots.is_some() {
            capabilities.roots = Some(RootsCapabilities::default());
        }
        // A tool that answers with a task is followed to its end (`in_flight`'s `finish`).
        capabilities
            .extensions
            .get_or_insert_with(Default::default)
            .insert(
                rmcp::model::TASKS_EXTENSION_ID.to_owned(),
                serde_json::Map::default(),
            );
        capabilities
    }
}

impl ClientHandler for McpClient {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changes.seen.fetch_add(1, Ordering::AcqRel);
        self.changes.notify.notify_waiters();
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let Some(elicit) = &self.handlers.elicit else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        let schema = match &request {
            ElicitRequestParams::FormElicitationParams {
                requested_schema, ..
            } => serde_json::to_value(requested_schema).ok(),
            _ => None,
        };
        let mut answer = elicit(request).await;
        if answer.action == ElicitationAction::Accept
            && let Some(schema) = &schema
        {
            answer.content = Some(with_defaults(answer.content.take(), schema));
        }
        Ok(answer)
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        match &self.handlers.sample {
            Some(sample) => sample(params).await,
            None => Err(ErrorData::method_not_found::<
                rmcp::model::CreateMessageRequestMethod,
            >()),
        }
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ListRootsResult, ErrorData> {
        let roots = self.handlers.roots.as_deref().unwrap_or_default();
        Ok(rmcp::model::ListRootsResult::new(roots.to_vec()))
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let logger = params.logger.as_deref().unwrap_or_default();
        let data = &params.data;
        match params.level {
            LoggingLevel::Debug => tracing::debug!(logger, %data, "MCP server log"),
            LoggingLevel::Info | LoggingLevel::Notice => {
                tracing::info!(logger, %data, "MCP server log");
            }
            LoggingLevel::Warning => tracing::warn!(logger, %data, "MCP server log"),
            _ => tracing::error!(logger, %data, level = ?params.level, "MCP server log"),
        }
        if let Some(log) = &self.handlers.log {
            log(&params);
        }
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        tracing::debug!(
            token = ?params.progress_token,
            progress = params.progress,
            total = ?params.total,
            message = params.message.as_deref().unwrap_or_default(),
            "MCP server progress"
        );
        if let Some(progress) = &self.handlers.progress {
            progress(&params);
        }
        self.in_flight.progress(params);
    }

    fn get_info(&self) -> ClientConfig {
        let info = self
            .info
            .clone()
            .unwrap_or_else(|| Implementation::new("toolwright", env!("CARGO_PKG_VERSION")));
        let mut config = ClientConfig::new(self.capabilities(), info);
        // What `initialize` offers: the newest revision offered that has it (a client of
        // 2026-07-28 on alone never sends `initialize`).
        if let Some(version) =
            super::connect::with_initialize(&self.versions).or_else(|| self.versions.first())
        {
            config.protocol_version = version.clone();
        }
        config
    }
}

/// An accepted form's content with the schema's defaults for the fields it left out (SEP-1034).
/// Content that is not an object is the application's answer as it wrote it.
fn with_defaults(content: Option<Value>, schema: &Value) -> Value {
    let mut content = match content {
        None => Value::Object(Map::new()),
        Some(content) => content,
    };
    if let (Value::Object(fields), Some(Value::Object(properties))) =
        (&mut content, schema.get("properties"))
    {
        for (name, property) in properties {
            if let Some(default) = property.get("default")
                && !fields.contains_key(name)
            {
                fields.insert(name.clone(), default.clone());
            }
        }
    }
    content
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_accepted_form_gets_the_defaults_of_the_fields_left_out_and_keeps_its_own() {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "verified": {"type": "boolean", "default": true},
            "note": {"type": "string"}
        }});
        assert_eq!(
            with_defaults(Some(json!({"age": 41})), &schema),
            json!({"name": "John Doe", "age": 41, "verified": true})
        );
        assert_eq!(
            with_defaults(None, &schema),
            json!({"name": "John Doe", "age": 30, "verified": true})
        );
        // Not an object: left as the application wrote it.
        assert_eq!(with_defaults(Some(json!(7)), &schema), json!(7));
    }
}
