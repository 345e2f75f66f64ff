//! The HTTP client that authorizes when the server refuses a request, and sends it again.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use futures_core::Stream;
use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::auth::{AuthClient, AuthorizationManager};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use sse_stream::Sse;
use tokio::sync::Mutex;

use super::McpOAuth;

/// rmcp's authorized HTTP client (tokens attached, refreshed once when rejected), which
/// authorizes anew when the server still refuses a request, and sends it again.
#[derive(Clone)]
pub(super) struct Authorizing {
    url: Arc<str>,
    oauth: McpOAuth,
    state: Arc<Mutex<Authorized>>,
}

/// The client of the latest authorization, and how many there were.
struct Authorized {
    client: AuthClient<reqwest::Client>,
    generation: u64,
}

type HttpError = StreamableHttpError<reqwest::Error>;
type SseStream = Pin<Box<dyn Stream<Item = Result<Sse, SseError>> + Send>>;

impl Authorizing {
    /// Authorizes with `oauth` for the server at `url`, starting with the tokens `manager` has.
    pub(super) fn new(url: &str, oauth: McpOAuth, manager: AuthorizationManager) -> Self {
        Authorizing {
            url: url.into(),
            oauth,
            state: Arc::new(Mutex::new(Authorized {
                client: AuthClient::new(reqwest::Client::default(), manager),
                generation: 0,
            })),
        }
    }

    /// Runs `call` with the latest authorized client; when the server answers `401` (after rmcp's
    /// own refresh) or `403 insufficient_scope`, authorizes with its challenge and runs it again.
    /// A `401` after an authorization this request made, or more step-ups than allowed, is the
    /// answer.
    async fn send<T, F, Fut>(&self, call: F) -> Result<T, HttpError>
    where
        F: Fn(AuthClient<reqwest::Client>) -> Fut,
        Fut: Future<Output = Result<T, HttpError>>,
    {
        let mut authorized = false;
        let mut step_ups = 0;
        loop {
            let (client, generation) = {
                let state = self.state.lock().await;
                (state.client.clone(), state.generation)
            };
            let error = match call(client).await {
                Ok(answer) => return Ok(answer),
                Err(error) => error,
            };
            let challenge = match &error {
                StreamableHttpError::AuthRequired(refusal) if !authorized => {
                    refusal.www_authenticate_header.clone()
                }
                StreamableHttpError::InsufficientScope(refusal)
                    if step_ups < self.oauth.step_ups =>
                {
                    step_ups += 1;
                    refusal.www_authenticate_header.clone()
                }
                _ => return Err(error),
            };
            authorized = true;
            let mut state = self.state.lock().await;
            // Another request may have authorized while this one waited: its token is tried.
            if state.generation == generation {
                tracing::debug!(server = %self.url, "the MCP server asks for authorization");
                let manager = self.oauth.authorize(&self.url, &challenge).await?;
                state.client = AuthClient::new(reqwest::Client::default(), manager);
                state.generation += 1;
            }
        }
    }
}

impl StreamableHttpClient for Authorizing {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        self.send(|client| {
            let (uri, message, session_id) = (uri.clone(), message.clone(), session_id.clone());
            let (auth_header, custom_headers) = (auth_header.clone(), custom_headers.clone());
            async move {
                client
                    .post_message(uri, message, session_id, auth_header, custom_headers)
                    .await
            }
        })
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        self.send(|client| {
            let (uri, message, session_id) = (uri.clone(), message.clone(), session_id.clone());
            let (auth_header, custom_headers) = (auth_header.clone(), custom_headers.clone());
            async move {
                client
                    .post_message_with_max_sse_event_size(
                        uri,
                        message,
                        session_id,
                        auth_header,
                        custom_headers,
                        max_sse_event_size,
                    )
                    .await
            }
        })
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        self.send(|client| {
            let (uri, message, session_id) = (uri.clone(), message.clone(), session_id.clone());
            let (auth_header, custom_headers) = (auth_header.clone(), custom_headers.clone());
            async move {
                client
                    .post_message_with_response_limits(
                        uri,
                        message,
                        session_id,
                        auth_header,
                        custom_headers,
                        limits,
                    )
                    .await
            }
        })
        .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), HttpError> {
        self.send(|client| {
            let (uri, session_id) = (uri.clone(), session_id.clone());
            let (auth_header, custom_headers) = (auth_header.clone(), custom_headers.clone());
            async move {
                client
                    .delete_session(uri, session_id, auth_header, custom_headers)
                    .await
            }
        })
        .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<SseStream, HttpError> {
        self.send(|client| {
            let (uri, session_id, last_event_id) =
                (uri.clone(), session_id.clone(), last_event_id.clone());
            let (auth_header, custom_headers) = (auth_header.clone(), custom_headers.clone());
            async move {
                client
                    .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
                    .await
            }
        })
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<SseStream, HttpError> {
        self.send(|client| {
            let (uri, session_id, last_event_id) =
                (uri.clone(), session_id.clone(), last_event_id.clone());
            let (auth_header, custom_headers) = (auth_header.clone(), custom_headers.clone());
            async move {
                client
                    .get_stream_with_max_sse_event_size(
                        uri,
                        session_id,
                        last_event_id,
                        auth_header,
                        custom_headers,
                        max_sse_event_size,
                    )
                    .await
            }
        })
        .await
    }
}
