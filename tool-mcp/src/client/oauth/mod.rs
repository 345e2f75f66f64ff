//! OAuth 2.1 for a client of a Streamable HTTP server, as the MCP specification's authorization
//! part describes it, through rmcp's `auth`: the `oauth` feature.
//!
//! The flow is rmcp's (protected resource metadata from the `WWW-Authenticate` challenge or the
//! well-known URLs, authorization server metadata by RFC 8414 or `OpenID Connect` discovery, a
//! pre-registered client, else a client ID metadata document, else dynamic registration, PKCE,
//! resource indicators, the refresh of an expired token), and for a client that offers
//! 2025-03-26, that revision's discovery, where a server with no resource metadata is its own
//! authorization server ([`legacy`]); what is the application's is here:
//! the browser step, where its credentials are kept, and when to ask again.

mod authorizing;
mod grants;
mod legacy;

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::ProtocolVersion;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
#[cfg(feature = "oauth-jwt")]
use rmcp::transport::auth::JwtSigningAlgorithm;
use rmcp::transport::auth::{
    AuthError, AuthorizationCallback, AuthorizationManager, AuthorizationRequest,
    AuthorizationSession, CredentialStore, InMemoryCredentialStore, OAuthState,
};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

use self::authorizing::Authorizing;
pub use self::grants::EnterpriseLogin;
use super::McpClient;
use super::connect::McpConnectError;

/// The browser step: the authorization URL in, the URL the authorization server redirected to
/// out (or why not).
type Browse =
    dyn Fn(String) -> Pin<Box<dyn Future<Output = Result<String, String>> + Send>> + Send + Sync;

/// Puts the credential store of the server at the URL given into a manager.
type Store = dyn Fn(&mut AuthorizationManager, &str) + Send + Sync;

/// How a client authorizes with an MCP server that asks for OAuth ([`McpClient::connect_http`]):
/// where the authorization server sends the user back, the browser step (the application opens
/// the URL and hands back the redirect), who the client is, and where tokens are kept (in memory
/// by default, one store for each server URL, shared by this value's clones: a second connection
/// to a server reuses the first's tokens, and no server is ever sent another's).
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
    /// For the client credentials grant, the client's private key (PEM) and its algorithm: a
    /// signed assertion instead of the secret.
    #[cfg(feature = "oauth-jwt")]
    key: Option<Arc<(Vec<u8>, JwtSigningAlgorithm)>>,
    client_name: Option<String>,
    client_metadata_url: Option<String>,
    client: Option<(String, Option<String>)>,
    scopes: Vec<String>,
    store: Arc<Store>,
    step_ups: u32,
    /// The client offers 2025-03-26, whose discovery differs ([`legacy`]): set by the connection.
    legacy: bool,
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
        // One store for each server: a token is never offered to a server it was not issued for.
        let stores: Mutex<HashMap<String, InMemoryCredentialStore>> = Mutex::default();
        McpOAuth {
            redirect_uri: redirect_uri.into(),
            browse: Arc::new(move |url| Box::pin(browse(url))),
            machine: false,
            enterprise: None,
            #[cfg(feature = "oauth-jwt")]
            key: None,
            client_name: None,
            client_metadata_url: None,
            client: None,
            scopes: Vec::new(),
            store: Arc::new(move |manager, server| {
                let store = stores
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .entry(server.to_owned())
                    .or_default()
                    .clone();
                manager.set_credential_store(store);
            }),
            step_ups: 2,
            legacy: false,
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

    /// The client credentials grant ([`client_credentials`](Self::client_credentials)) with
    /// the client authenticated by a JWT it signs with its private key (RFC 7523,
    /// `private_key_jwt`) instead of a secret: `key_pem` is the key in PEM (PKCS#8 for the EC
    /// algorithms; the public key is registered with the authorization server beforehand). The
    /// assertion names the client as issuer and subject and the authorization server's issuer as
    /// audience, and lives a few minutes. The token endpoint must be `https` (or on a loopback
    /// address). The `oauth-jwt` feature (`toolwright`'s `mcp-oauth-jwt`).
    ///
    /// ```
    /// use toolwright::mcp::{JwtSigningAlgorithm, McpOAuth};
    ///
    /// let key = std::env::var("AGENT_KEY_PEM").unwrap_or_default();
    /// let oauth = McpOAuth::private_key_jwt("reports-agent", key, JwtSigningAlgorithm::ES256);
    /// # drop(oauth);
    /// ```
    #[cfg(feature = "oauth-jwt")]
    pub fn private_key_jwt(
        id: impl Into<String>,
        key_pem: impl Into<Vec<u8>>,
        algorithm: JwtSigningAlgorithm,
    ) -> Self {
        McpOAuth {
            key: Some(Arc::new((key_pem.into(), algorithm))),
            ..McpOAuth::client_credentials(id, String::new())
        }
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

    /// The scopes to ask for, with those the server's challenge names (a step-up's among them);
    /// by default those the challenge or the metadata names.
    #[must_use]
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Keeps tokens in the stores `store_for` gives for each server's URL (rmcp's
    /// [`CredentialStore`]: a file, a keychain, a database) instead of in memory. Each server
    /// needs a store of its own: a store's tokens are offered to every server it is given for.
    #[must_use]
    pub fn with_credential_stores<S, F>(mut self, store_for: F) -> Self
    where
        S: CredentialStore + 'static,
        F: Fn(&str) -> S + Send + Sync + 'static,
    {
        self.store = Arc::new(move |manager, server| {
            manager.set_credential_store(store_for(server));
        });
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
        (self.store)(&mut manager, url);
        Ok(manager)
    }

    /// The whole authorization, from the server's challenge to a token.
    async fn authorize(
        &self,
        url: &str,
        challenge: &str,
    ) -> Result<AuthorizationManager, AuthError> {
        #[cfg(feature = "oauth-jwt")]
        if let Some(key) = &self.key {
            return self.private_key_jwt_grant(key, url, challenge).await;
        }
        if self.machine {
            return self.client_credentials_grant(url, challenge).await;
        }
        if let Some(login) = &self.enterprise {
            return self.enterprise_grant(login, url, challenge).await;
        }
        let mut manager = self.manager(url).await?;
        let metadata = match manager
            .resolve_metadata_from_challenge(Some(challenge))
            .await
        {
            Ok(resolution) => resolution.metadata,
            // A 2025-03-26 server is its own authorization server, whose issuer may have a path.
            Err(refusal @ AuthError::AuthorizationServerMismatch { .. }) if self.legacy => {
                legacy::metadata(url, challenge).await?.ok_or(refusal)?
            }
            Err(error) => return Err(error),
        };
        manager.set_metadata(metadata);
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
        // The application's and the challenge's; with neither named, rmcp's choice (the
        // metadata's `scopes_supported`, or none).
        if !self.scopes.is_empty() {
            request = request.with_scopes(self.scopes_for(challenge));
        }
        request = request.with_challenge(challenge);
        let session = AuthorizationSession::new(manager, request)
            .await
            .map_err(|(_, error)| error)?;
        let mut state = OAuthState::Session(session);
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
}

impl McpClient {
    /// Connects to the Streamable HTTP server at `url` ([`connect`](Self::connect)'s version
    /// negotiation included), authorizing with `oauth` whenever the server asks, for any request
    /// of the session (its tools' calls through a toolbox included): with the tokens already in
    /// the store first (refreshed when they expire), then, on a `401`, the whole authorization
    /// (the browser step included) before the request is sent again; on a `403
    /// insufficient_scope`, the same with the scopes the server names, up to
    /// [`McpOAuth::with_step_ups`] times for one request. A server that asks nothing gets no
    /// token. When the client offers 2025-03-26, a server with no protected resource metadata
    /// whose authorization server metadata, at its root, names an issuer of its own origin with
    /// a path (as that revision allowed) is authorized with; one that names another origin never.
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
        let mut oauth = oauth.clone();
        oauth.legacy = self
            .protocol_versions()
            .contains(&ProtocolVersion::V_2025_03_26);
        let client = Authorizing::new(url, oauth, manager);
        let config = StreamableHttpClientTransportConfig::with_uri(url.to_owned());
        self.connect(StreamableHttpClientTransport::with_client(client, config))
            .await
    }
}
