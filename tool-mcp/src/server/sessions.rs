//! Streamable HTTP sessions: rmcp's local session manager, noting which SSE stream each
//! request's response goes on, so that a call can close its stream and have the client resume
//! by polling (SEP-1699).

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{ClientJsonRpcMessage, ClientRequest, RequestId, ServerJsonRpcMessage};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::WorkerTransport;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, LocalSessionWorker,
};
use rmcp::transport::streamable_http_server::session::{RestoreOutcome, SessionManager};
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionId};
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;

/// rmcp's [`LocalSessionManager`], which keeps each request's stream by a number of its own:
/// this one also notes the number of each request's stream by the request's id.
pub struct Sessions {
    pub(crate) local: Arc<LocalSessionManager>,
    streams: Mutex<HashMap<(SessionId, RequestId), u64>>,
}

impl fmt::Debug for Sessions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sessions").finish_non_exhaustive()
    }
}

impl Sessions {
    pub(crate) fn new(local: Arc<LocalSessionManager>) -> Self {
        Sessions {
            local,
            streams: Mutex::new(HashMap::new()),
        }
    }

    fn streams(&self) -> std::sync::MutexGuard<'_, HashMap<(SessionId, RequestId), u64>> {
        self.streams.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Forgets the stream of a request that has been answered.
    pub(crate) fn answered(&self, session: &SessionId, request: &RequestId) {
        self.streams()
            .remove(&(Arc::clone(session), request.clone()));
    }
}

impl SessionManager for Sessions {
    type Error = LocalSessionManagerError;
    type Transport = WorkerTransport<LocalSessionWorker>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        self.local.create_session().await
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.local.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.local.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.streams().retain(|(session, _), _| session != id);
        self.local.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        // As rmcp's manager does it, noting the stream's number by the request's id.
        let handle = self
            .local
            .sessions
            .read()
            .await
            .get(id)
            .cloned()
            .ok_or_else(|| LocalSessionManagerError::SessionNotFound(Arc::clone(id)))?;
        let receiver = handle.establish_request_wise_channel().await?;
        let stream = receiver.http_request_id;
        // Only a call's stream can be closed by its handler (`SseStream`), and the call forgets
        // it when answered: other requests' streams are not noted, so nothing piles up.
        if let (ClientJsonRpcMessage::Request(request), Some(stream)) = (&message, stream)
            && matches!(request.request, ClientRequest::CallToolRequest(_))
        {
            self.streams()
                .insert((Arc::clone(id), request.id.clone()), stream);
        }
        handle.push_message(message, stream).await?;
        Ok(ReceiverStream::new(receiver.inner))
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.local.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.local.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.local.resume(id, last_event_id).await
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        self.local.restore_session(id).await
    }

    fn event_store(
        &self,
    ) -> Option<Arc<dyn rmcp::transport::streamable_http_server::session::EventStore>> {
        self.local.event_store()
    }
}

/// The SSE stream a call's response goes on, over Streamable HTTP with a session: closing it
/// lets the client resume by polling (SEP-1699), reconnecting after the `retry` the server
/// sends with `Last-Event-ID`, and getting what the call sent meanwhile, its result included.
///
/// An [`McpServer`](crate::McpServer) puts it in each request's context for the context maker
/// of [`with_context`](crate::McpServer::with_context) to hand to tools:
/// `SseStream::of(&request_context)`. A request on stdio, or over HTTP without a session, has
/// none.
#[derive(Clone)]
pub struct SseStream {
    sessions: Arc<Sessions>,
    session: SessionId,
    request: RequestId,
}

impl fmt::Debug for SseStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SseStream")
            .field("session", &self.session)
            .field("request", &self.request)
            .finish_non_exhaustive()
    }
}

/// Why a stream could not be closed: it already was, or its session ended.
#[derive(Debug, thiserror::Error)]
#[error("the call's SSE stream could not be closed: {0}")]
pub struct SseStreamError(String);

impl SseStream {
    pub(crate) fn new(sessions: Arc<Sessions>, session: SessionId, request: RequestId) -> Self {
        SseStream {
            sessions,
            session,
            request,
        }
    }

    /// Forgets the stream: its request has been answered.
    pub(crate) fn answered(&self, sessions: &Sessions) {
        sessions.answered(&self.session, &self.request);
    }

    /// The stream of the request `context` serves, when it has one.
    pub fn of(context: &RequestContext<RoleServer>) -> Option<Self> {
        context.extensions.get::<SseStream>().cloned()
    }

    /// Closes the stream: the client reconnects after `retry` (sent to it first, as the SSE
    /// `retry` field; without it, the client's own delay) and gets the rest of the call's
    /// messages and its result on the stream it resumes.
    ///
    /// # Errors
    /// When the stream was closed already, or its session ended.
    pub async fn close(&self, retry: Option<Duration>) -> Result<(), SseStreamError> {
        let stream = self
            .sessions
            .streams()
            .get(&(Arc::clone(&self.session), self.request.clone()))
            .copied()
            .ok_or_else(|| SseStreamError("it is not open".to_owned()))?;
        let handle = self
            .sessions
            .local
            .sessions
            .read()
            .await
            .get(&self.session)
            .cloned()
            .ok_or_else(|| SseStreamError("its session has ended".to_owned()))?;
        handle
            .close_sse_stream(stream, retry)
            .await
            .map_err(|error| SseStreamError(error.to_string()))
    }
}
