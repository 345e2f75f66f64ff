//! OAuth 2.1 for a client of a Streamable HTTP server, as the MCP specification's authorization
//! part describes it, through rmcp's `auth`: the `oauth` feature.
//!
//! The flow is rmcp's (protected resource metadata from the `WWW-Authenticate` challenge or the
//! well-known URLs, authorization server metadata by RFC 8414 or `OpenID Connect` discovery, a
//! pre-registered client, else a client ID metadata document, else dynamic registration, PKCE,
//! resource indicators, the refresh of an expired token); what is the application's is here:
//! the browser step, where its credentials are kept, and when to ask again.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use futures_core::Stream;
use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::auth::{
    AuthClient, AuthError, AuthorizationCallback, AuthorizationManager, AuthorizationRequest,
    CredentialStore, InMemoryCredentialStore, OAuthState,
};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpClientTransportConfig, StreamableHttpError,
    StreamableHttpPostResponse, StreamableHttpResponseLimits,
};
use sse_stream::Sse;
use tokio::sync::Mutex;

use super::McpClient;
use super::connect::McpConnectError;

/// The browser step: the authorization URL in, the URL the authorization server redirected to
/// out (or why not).
type Browse =
    dyn Fn(String) -> Pin<Box<dyn Future<Output = Result<String, String>> + Send>> + Send + Sync;

/// Puts the application's credential store into a manager.
type Store = dyn Fn(&mut AuthorizationManager) + Send + Sync;

/// How a client authorizes with an MCP server that asks for OAuth ([`McpClient::connect_http`]):
/// where the authorization server sends the user back, the browser step (the application opens
/// the URL and hands back the redirect), who the client is, and where tokens are kept (in memory
/// by default, shared by this value's clones: a second connection reuses the first's tokens).
///
/// ```
/// use toolwright::mcp::McpOAuth;
///
/// let oauth = McpOAuth::new("http://127.0.0.1:8765/callback", |url| async move {
///     // Here the application opens `url` in a browser and waits at its redirect URI for the
///     // authorization server to send the user back; it returns the URL it was sent to.
///     Err::<String, _>(format!("open {url} and paste the redirect here"))
/// })
/// .with_client_name("my agent")
/// .with_scopes(["files:read"]);
/// # drop(oauth);
/// ```
#[derive(Clone)]
pub struct McpOAuth {
    redirect_uri: String,
    browse: Arc<Browse>,
    /// The client credentials grant (no user) instead of the authorization code's.
    machine: bool,
    /// Enterprise-managed authorization (an ID token exchanged) instead of either.
    enterprise: Option<Arc<EnterpriseLogin>>,
    client_name: Option<String>,
    client_metadata_url: Option<String>,
    client: Option<(String, Option<String>)>,
    scopes: Vec<String>,
    store: Arc<Store>,
    step_ups: u32,
}

impl fmt::Debug for McpOAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // No secret: the client secret is only said to be there.
        f.debug_struct("McpOAuth")
            .field("redirect_uri", &self.redirect_uri)
            .field("client_name", &self.client_name)
            .field("client_metadata_url", &self.client_metadata_url)
            .field(
                "client_id",
                &self.client.as_ref().map(|(id, _)| id.as_str()),
            )
            .field("scopes", &self.scopes)
            .field("step_ups", &self.step_ups)
            .finish_non_exhaustive()
    }
}

impl McpOAuth {
    /// Authorization that sends the user back to `redirect_uri`, with `browse` as the browser
    /// step: it receives the authorization URL and returns the URL the user was redirected to
    /// (with its `code` and `state`), or why it could not.
    pub fn new<F, Fut>(redirect_uri: impl Into<String>, browse: F) -> Self
    where
        F: Fn(String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, String>> + Send + 'static,
    {
        let store = InMemoryCredentialStore::new();
        McpOAuth {
            redirect_uri: redirect_uri.into(),
            browse: Arc::new(move |url| Box::pin(browse(url))),
            machine: false,
            enterprise: None,
            client_name: None,
            client_metadata_url: None,
            client: None,
            scopes: Vec::new(),
            store: Arc::new(move |manager| manager.set_credential_store(store.clone())),
            step_ups: 2,
        }
    }

    /// Authorization with no user (the client credentials grant, SEP-1046): the client,
    /// registered with the authorization server beforehand, asks for a token with its ID and
    /// secret (`client_secret_basic` where the server takes it or names no method, else
    /// `client_secret_post`), for the server's resource and the scopes it names, and asks again
    /// when the server refuses the token. For agents that act for themselves, not for a person.
    ///
    /// ```
    /// use toolwright::mcp::McpOAuth;
    ///
    /// let oauth = McpOAuth::client_credentials("reports-agent", "its-secret").with_scopes(["reports"]);
    /// # drop(oauth);
    /// ```
    pub fn client_credentials(id: impl Into<String>, secret: impl Into<String>) -> Self {
        McpOAuth {
            machine: true,
            ..McpOAuth::new(String::new(), |_| async {
                Err::<String, _>("the client credentials grant has no browser step".to_owned())
            })
        }
        .with_client(id, Some(secret.into()))
    }

    /// Enterprise-managed authorization (SEP-990, "cross-app access"): no browser step, the
    /// user's sign-in to their enterprise identity provider stands for it. The ID token it
    /// issued the application is exchanged there for an ID-JAG (RFC 8693 token exchange) and
    /// that at the server's authorization server for an access token (the RFC 7523 JWT bearer
    /// grant), through rmcp's `auth-enterprise-managed`; both clients are registered
    /// beforehand. An expired ID token is the application's to renew (a new `McpOAuth`).
    pub fn enterprise(login: EnterpriseLogin) -> Self {
        McpOAuth {
            enterprise: Some(Arc::new(login)),
            ..McpOAuth::new(String::new(), |_| async {
                Err::<String, _>("enterprise-managed authorization has no browser step".to_owned())
            })
        }
    }

    /// The client's name when it registers itself (dynamic registration).
    #[must_use]
    pub fn with_client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = Some(name.into());
        self
    }

    /// The URL of the client's ID metadata document (an HTTPS URL that is its `client_id`), used
    /// where the authorization server supports such documents.
    #[must_use]
    pub fn with_client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// A client registered with the authorization server beforehand: its ID, and its secret for
    /// a confidential client. It takes priority over every other way of naming the client.
    #[must_use]
    pub fn with_client(mut self, id: impl Into<String>, secret: Option<String>) -> Self {
        self.client = Some((id.into(), secret));
        self
    }

    /// The scopes to ask for; by default those the server's challenge or metadata names.
    #[must_use]
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Keeps tokens in `store` (rmcp's [`CredentialStore`]: a file, a keychain, a database)
    /// instead of in memory. A store is for one server: give each server's `McpOAuth` its own.
    #[must_use]
    pub fn with_credential_store<S: CredentialStore + Clone + 'static>(mut self, store: S) -> Self {
        self.store = Arc::new(move |manager| manager.set_credential_store(store.clone()));
        self
    }

    /// How many times one request refused with `403 insufficient_scope` may send the user back
    /// to authorize with more scopes before the client gives up and the request fails with the
    /// refusal (2 by default: with the authorization a `401` starts, three in all, the limit
    /// the conformance suite's `auth/scope-retry-limit` holds a client to).
    #[must_use]
    pub fn with_step_ups(mut self, times: u32) -> Self {
        self.step_ups = times;
        self
    }

    /// A manager for the server at `url` keeping credentials in the application's store.
    async fn manager(&self, url: &str) -> Result<AuthorizationManager, AuthError> {
        let mut manager = AuthorizationManager::new(url).await?;
        (self.store)(&mut manager);
        Ok(manager)
    }

    /// The whole authorization, from the server's challenge to a token.
    async fn authorize(
        &self,
        url: &str,
        challenge: &str,
    ) -> Result<AuthorizationManager, AuthError> {
        if self.machine {
            return self.client_credentials_grant(url, challenge).await;
        }
        if let Some(login) = &self.enterprise {
            return self.enterprise_grant(login, url, challenge).await;
        }
        let mut state = OAuthState::Unauthorized(self.manager(url).await?);
        let mut request = AuthorizationRequest::new(self.redirect_uri.clone());
        if let Some(name) = &self.client_name {
            request = request.with_client_name(name.clone());
        }
        if let Some(document) = &self.client_metadata_url {
            request = request.with_client_metadata_url(document.clone());
        }
        if let Some((id, secret)) = &self.client {
            request = request.with_preregistered_client(id.clone());
            if let Some(secret) = secret {
                request = request.with_client_secret(secret.clone());
            }
        }
        if !self.scopes.is_empty() {
            request = request.with_scopes(self.scopes.iter().cloned());
        }
        request = request.with_challenge(challenge);
        state.start_authorization(request).await?;
        let address = state.get_authorization_url().await?;
        let redirect = (self.browse)(address).await.map_err(|why| {
            AuthError::AuthorizationFailed(format!(
                "the user's authorization did not come back: {why}"
            ))
        })?;
        let callback = AuthorizationCallback::from_redirect_url(&redirect)?;
        state
            .handle_callback_with_issuer(
                &callback.code,
                &callback.csrf_token,
                callback.issuer.as_deref(),
            )
            .await?;
        state.into_authorization_manager().ok_or_else(|| {
            AuthError::InternalError("the authorization did not end authorized".to_owned())
        })
    }

    /// The client credentials grant: the token endpoint found as for the authorization code
    /// (from the challenge), asked with the client's ID and secret.
    async fn client_credentials_grant(
        &self,
        url: &str,
        challenge: &str,
    ) -> Result<AuthorizationManager, AuthError> {
        let Some((id, Some(secret))) = &self.client else {
            return Err(AuthError::InternalError(
                "the client credentials grant needs the client's ID and secret".to_owned(),
            ));
        };
        let manager = self.manager(url).await?;
        let metadata = manager
            .resolve_metadata_from_challenge(Some(challenge))
            .await?
            .metadata;
        let methods: Vec<String> = metadata
            .additional_fields
            .get("token_endpoint_auth_methods_supported")
            .and_then(|methods| serde_json::from_value(methods.clone()).ok())
            .unwrap_or_default();
        // RFC 6749 2.3.1: basic is every server's; post where the server names only it.
        let basic = methods.is_empty() || methods.iter().any(|m| m == "client_secret_basic");
        let scopes = if self.scopes.is_empty() {
            challenge_scope(challenge)
        } else {
            Some(self.scopes.join(" "))
        };
        // Made whole before the request (the serializer may not be held across an await).
        let body = {
            let mut form = url::form_urlencoded::Serializer::new(String::new());
            form.append_pair("grant_type", "client_credentials");
            form.append_pair("resource", url);
            if let Some(scopes) = &scopes {
                form.append_pair("scope", scopes);
            }
            if !basic {
                form.append_pair("client_id", id);
                form.append_pair("client_secret", secret);
            }
            form.finish()
        };
        let mut request = reqwest::Client::new()
            .post(&metadata.token_endpoint)
            .header("content-type", "application/x-www-form-urlencoded")
            .header("accept", "application/json")
            .body(body);
        if basic {
            request = request.basic_auth(id, Some(secret));
        }
        let refused = |why: String| {
            AuthError::TokenExchangeFailed(format!("the client credentials grant failed: {why}"))
        };
        let answer = request
            .send()
            .await
            .map_err(|error| refused(error.to_string()))?;
        let status = answer.status();
        let body = answer
            .bytes()
            .await
            .map_err(|error| refused(error.to_string()))?;
        if !status.is_success() {
            // The error's code and description (RFC 6749 5.2), never the body whole.
            let error: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
            return Err(refused(format!(
                "{status}: {} {}",
                error["error"].as_str().unwrap_or("(no error code)"),
                error["error_description"].as_str().unwrap_or_default()
            )));
        }
        let token: rmcp::transport::auth::OAuthTokenResponse = serde_json::from_slice(&body)
            .map_err(|error| refused(format!("the token response is not one: {error}")))?;
        let mut state = OAuthState::Unauthorized(manager);
        state.set_credentials(id, token).await?;
        state
            .into_authorization_manager()
            .ok_or_else(|| AuthError::InternalError("the grant did not end authorized".to_owned()))
    }
}

impl McpOAuth {
    /// Enterprise-managed authorization: the ID token exchanged at the identity provider for an
    /// ID-JAG, and that at the server's authorization server (found from the challenge) for an
    /// access token.
    async fn enterprise_grant(
        &self,
        login: &EnterpriseLogin,
        url: &str,
        challenge: &str,
    ) -> Result<AuthorizationManager, AuthError> {
        use rmcp::transport::auth::enterprise::{
            EmaAuthorizationServer, EmaClientAuthentication, EmaExchangeRequest,
        };
        let manager = self.manager(url).await?;
        let metadata = manager
            .resolve_metadata_from_challenge(Some(challenge))
            .await?
            .metadata;
        let issuer = metadata.issuer.clone().ok_or_else(|| {
            AuthError::AuthorizationFailed(
                "the authorization server's metadata names no issuer".to_owned(),
            )
        })?;
        let mut idp = EmaAuthorizationServer::new(
            login.idp_issuer.clone(),
            login.idp_token_endpoint.clone(),
            login.idp_client_id.clone(),
        );
        if let Some(secret) = &login.idp_client_secret {
            idp = idp.with_client_authentication(EmaClientAuthentication::ClientSecretBasic(
                oauth2::ClientSecret::new(secret.clone()),
            ));
        }
        let resource_server =
            EmaAuthorizationServer::new(issuer, metadata.token_endpoint, login.client_id.clone())
                .with_client_authentication(EmaClientAuthentication::ClientSecretBasic(
                    oauth2::ClientSecret::new(login.client_secret.clone()),
                ));
        let scopes: Vec<String> = if self.scopes.is_empty() {
            challenge_scope(challenge)
                .map(|scopes| scopes.split(' ').map(str::to_owned).collect())
                .unwrap_or_default()
        } else {
            self.scopes.clone()
        };
        let http = rmcp::transport::auth::default_oauth_http_client()?;
        let token =
            EmaExchangeRequest::new_with_id_token(idp, resource_server, url, &login.id_token)
                .with_scopes(scopes)
                .exchange(&http, &http)
                .await
                .map_err(|error| {
                    AuthError::TokenExchangeFailed(format!(
                        "the enterprise-managed authorization failed: {error}"
                    ))
                })?;
        let mut granted: Vec<&str> = token.scopes.iter().map(String::as_str).collect();
        granted.sort_unstable();
        let response: rmcp::transport::auth::OAuthTokenResponse =
            serde_json::from_value(serde_json::json!({
                "access_token": token.access_token.secret(),
                "token_type": "Bearer",
                "expires_in": token.expires_in.map(|lifetime| lifetime.as_secs()),
                "scope": granted.join(" "),
            }))
            .map_err(|error| AuthError::TokenExchangeFailed(error.to_string()))?;
        let mut state = OAuthState::Unauthorized(manager);
        state.set_credentials(&login.client_id, response).await?;
        state.into_authorization_manager().ok_or_else(|| {
            AuthError::InternalError("the exchange did not end authorized".to_owned())
        })
    }
}

/// The user's enterprise sign-in and the clients registered beforehand, for
/// [`McpOAuth::enterprise`].
#[derive(Clone)]
#[non_exhaustive]
pub struct EnterpriseLogin {
    /// The identity provider's issuer.
    pub idp_issuer: String,
    /// Its token endpoint (where the ID token is exchanged).
    pub idp_token_endpoint: String,
    /// The application's client ID there.
    pub idp_client_id: String,
    /// Its secret there, for a confidential client (`client_secret_basic`).
    pub idp_client_secret: Option<String>,
    /// The ID token the identity provider issued the application for the user.
    pub id_token: String,
    /// The application's client ID at the MCP server's authorization server.
    pub client_id: String,
    /// Its secret there (`client_secret_basic`).
    pub client_secret: String,
}

impl EnterpriseLogin {
    /// The user's `id_token` from the identity provider `idp_issuer` (token endpoint
    /// `idp_token_endpoint`, where the application is the public client `idp_client_id`), and
    /// the application's client at the MCP server's authorization server.
    pub fn new(
        idp_issuer: impl Into<String>,
        idp_token_endpoint: impl Into<String>,
        idp_client_id: impl Into<String>,
        id_token: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        EnterpriseLogin {
            idp_issuer: idp_issuer.into(),
            idp_token_endpoint: idp_token_endpoint.into(),
            idp_client_id: idp_client_id.into(),
            idp_client_secret: None,
            id_token: id_token.into(),
            client_id: client_id.into(),
            client_secret: client_secret.into(),
        }
    }

    /// The application as a confidential client at the identity provider.
    #[must_use]
    pub fn with_idp_client_secret(mut self, secret: impl Into<String>) -> Self {
        self.idp_client_secret = Some(secret.into());
        self
    }
}

impl fmt::Debug for EnterpriseLogin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // No token, no secret.
        f.debug_struct("EnterpriseLogin")
            .field("idp_issuer", &self.idp_issuer)
            .field("idp_client_id", &self.idp_client_id)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

/// The `scope` a `WWW-Authenticate` challenge names, if any.
fn challenge_scope(challenge: &str) -> Option<String> {
    let at = challenge.find("scope=")?;
    let rest = &challenge[at + "scope=".len()..];
    let value = match rest.strip_prefix('"') {
        Some(quoted) => quoted.split('"').next()?,
        None => rest.split([',', ' ']).next()?,
    };
    (!value.is_empty()).then(|| value.to_owned())
}

impl McpClient {
    /// Connects to the Streamable HTTP server at `url` ([`connect`](Self::connect)'s version
    /// negotiation included), authorizing with `oauth` whenever the server asks, for any request
    /// of the session (its tools' calls through a toolbox included): with the tokens already in
    /// the store first (refreshed when they expire), then, on a `401`, the whole authorization
    /// (the browser step included) before the request is sent again; on a `403
    /// insufficient_scope`, the same with the scopes the server names, up to
    /// [`McpOAuth::with_step_ups`] times for one request. A server that asks nothing gets no
    /// token.
    ///
    /// # Errors
    ///
    /// [`McpConnectError::Authorization`] when `url` is not one an authorization can be made for,
    /// and [`connect`](Self::connect)'s errors, among them an authorization that failed (metadata
    /// not found, a resource that is not the server, a refused registration or token request,
    /// the browser step not coming back). No error's text holds a token.
    pub async fn connect_http(
        self,
        url: &str,
        oauth: &McpOAuth,
    ) -> Result<RunningService<RoleClient, Self>, McpConnectError> {
        let mut manager = oauth
            .manager(url)
            .await
            .map_err(|error| McpConnectError::Authorization(Box::new(error)))?;
        // Tokens kept from before are used; none is not an error (the server may ask nothing).
        let _ = manager.initialize_from_store().await;
        let client = Authorizing {
            url: url.into(),
            oauth: oauth.clone(),
            state: Arc::new(Mutex::new(Authorized {
                client: AuthClient::new(reqwest::Client::default(), manager),
                generation: 0,
            })),
        };
        let config = StreamableHttpClientTransportConfig::with_uri(url.to_owned());
        self.connect(StreamableHttpClientTransport::with_client(client, config))
            .await
    }
}

/// rmcp's authorized HTTP client (tokens attached, refreshed once when rejected), which
/// authorizes anew when the server still refuses a request, and sends it again.
#[derive(Clone)]
struct Authorizing {
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

#[cfg(test)]
mod tests {
    use super::challenge_scope;

    #[test]
    fn a_challenges_scope_is_read_quoted_or_not() {
        assert_eq!(
            challenge_scope(
                r#"Bearer resource_metadata="https://a.example/.well-known/x", error="insufficient_scope", scope="files:read files:write""#
            )
            .as_deref(),
            Some("files:read files:write")
        );
        assert_eq!(
            challenge_scope("Bearer scope=mcp, error=\"invalid_token\"").as_deref(),
            Some("mcp")
        );
        assert_eq!(challenge_scope("Bearer realm=\"x\""), None);
        assert_eq!(challenge_scope("Bearer scope=\"\""), None);
    }
}
