//! The grants without a browser: client credentials (SEP-1046, with a secret or a signed
//! assertion) and enterprise-managed authorization (SEP-990).

use std::fmt;

use rmcp::transport::auth::{AuthError, AuthorizationManager, OAuthState};

use super::McpOAuth;

impl McpOAuth {
    /// The client credentials grant: the token endpoint found as for the authorization code
    /// (from the challenge), asked with the client's ID and secret.
    pub(super) async fn client_credentials_grant(
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
        let scopes = self.scopes_for(challenge);
        let scopes = (!scopes.is_empty()).then(|| scopes.join(" "));
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
    /// The client credentials grant with a signed assertion (RFC 7523) for the client's
    /// secret: the token endpoint found as for the authorization code (from the challenge), the
    /// request rmcp's.
    #[cfg(feature = "oauth-jwt")]
    pub(super) async fn private_key_jwt_grant(
        &self,
        key: &(Vec<u8>, rmcp::transport::auth::JwtSigningAlgorithm),
        url: &str,
        challenge: &str,
    ) -> Result<AuthorizationManager, AuthError> {
        use rmcp::transport::auth::ClientCredentialsConfig;

        let Some((id, _)) = &self.client else {
            return Err(AuthError::InternalError(
                "the client credentials grant needs the client's ID".to_owned(),
            ));
        };
        let mut manager = self.manager(url).await?;
        let metadata = manager
            .resolve_metadata_from_challenge(Some(challenge))
            .await?
            .metadata;
        manager.set_metadata(metadata);
        let scopes = self.scopes_for(challenge);
        let (signing_key, signing_algorithm) = key.clone();
        let config = ClientCredentialsConfig::PrivateKeyJwt {
            client_id: id.clone(),
            signing_key,
            signing_algorithm,
            token_endpoint_audience: None,
            scopes,
            resource: Some(url.to_owned()),
        };
        // rmcp's exchange holds a value that is not `Send` across an await (a form serializer's
        // encoding hook), so it cannot run in this `Send` future: it runs to its end on a thread
        // of the blocking pool, its I/O still the runtime's. The token is kept in the manager's
        // store, where the authorized client takes it.
        let runtime = tokio::runtime::Handle::try_current()
            .map_err(|error| AuthError::InternalError(error.to_string()))?;
        tokio::task::spawn_blocking(move || {
            runtime.block_on(async move {
                manager.exchange_client_credentials(&config).await?;
                Ok(manager)
            })
        })
        .await
        .map_err(|error| {
            AuthError::InternalError(format!("the client credentials grant stopped: {error}"))
        })?
    }

    /// Enterprise-managed authorization: the ID token exchanged at the identity provider for an
    /// ID-JAG, and that at the server's authorization server (found from the challenge) for an
    /// access token.
    pub(super) async fn enterprise_grant(
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
        let scopes = self.scopes_for(challenge);
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

impl McpOAuth {
    /// The scopes to ask for after `challenge`: the application's, and those the challenge
    /// names (what the server needs, and after a `403 insufficient_scope` what it lacked).
    pub(super) fn scopes_for(&self, challenge: &str) -> Vec<String> {
        let mut scopes = self.scopes.clone();
        for scope in challenge_scope(challenge)
            .iter()
            .flat_map(|named| named.split_whitespace())
        {
            if !scopes.iter().any(|known| known == scope) {
                scopes.push(scope.to_owned());
            }
        }
        scopes
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

#[cfg(test)]
mod tests {
    use super::challenge_scope;
    use crate::McpOAuth;

    #[test]
    fn the_scopes_asked_are_the_applications_and_the_challenges() {
        let oauth = McpOAuth::client_credentials("id", "secret").with_scopes(["profile", "mcp"]);
        assert_eq!(
            oauth.scopes_for(r#"Bearer error="insufficient_scope", scope="mcp write""#),
            ["profile", "mcp", "write"]
        );
        assert_eq!(oauth.scopes_for("Bearer"), ["profile", "mcp"]);
        let unnamed = McpOAuth::client_credentials("id", "secret");
        assert_eq!(unnamed.scopes_for(r#"Bearer scope="mcp""#), ["mcp"]);
        assert!(unnamed.scopes_for("Bearer").is_empty());
    }

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
