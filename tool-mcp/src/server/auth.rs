//! Bearer-token authorization in front of the Streamable HTTP service, as the MCP
//! specification's authorization part (revisions 2025-06-18 and later) has a protected resource
//! behave: OAuth 2.0 Protected Resource Metadata (RFC 9728), `401` with `WWW-Authenticate` for a
//! missing or refused token (RFC 6750), `403` for a token without a required scope.

use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::header::{AUTHORIZATION, CACHE_CONTROL, CONTENT_TYPE, WWW_AUTHENTICATE};
use http::{HeaderValue, Method, Request, Response, StatusCode};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use serde_json::{Value, json};
use toolwright_runtime::exec::Caller;

// Names the documentation links to.
#[cfg(doc)]
use toolwright_runtime::Toolbox;

tokio::task_local! {
    /// The caller of the request being handled, for what rmcp asks of the server outside a
    /// request context (a tool's schema, to check `Mcp-Param-*` headers): a tool the caller
    /// may not call is not there for it either.
    pub(crate) static CALLER: Caller;
}

/// The response body every HTTP answer of the server has (rmcp's).
pub type HttpBody = BoxBody<Bytes, Infallible>;

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// Checks one bearer token: the caller it stands for, or why it is refused.
type Validate = dyn Fn(String) -> BoxFuture<Result<Caller, InvalidToken>> + Send + Sync;

/// Where a protected resource publishes its metadata (RFC 9728, section 3).
const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// Why a bearer token was refused: expired, revoked, malformed, issued for another resource.
/// Its description goes to the client in `WWW-Authenticate`'s `error_description`, so it must
/// not repeat the token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidToken {
    description: String,
}

impl InvalidToken {
    /// A refusal saying why, for the client (never the token itself).
    pub fn new(description: impl Into<String>) -> Self {
        InvalidToken {
            description: description.into(),
        }
    }

    /// Why the token was refused.
    pub fn description(&self) -> &str {
        &self.description
    }
}

impl fmt::Display for InvalidToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid token: {}", self.description)
    }
}

impl std::error::Error for InvalidToken {}

/// How the HTTP service knows who is calling: a bearer token on every request, checked by the
/// application's validator, and the metadata that tells a client where to get one.
///
/// - `GET /.well-known/oauth-protected-resource` (and the same with the resource's path after
///   it, as RFC 9728 places it) answers the Protected Resource Metadata: the `resource`, the
///   `authorization_servers` configured, the `scopes_supported`, `bearer_methods_supported:
///   ["header"]`.
/// - A request without `Authorization: Bearer <token>` gets `401` and
///   `WWW-Authenticate: Bearer resource_metadata="<url>"`; one whose token the validator refuses
///   gets the same with `error="invalid_token"`; one whose caller lacks a scope
///   [`require_scopes`](Self::require_scopes) names gets `403` with
///   `error="insufficient_scope"` and the scopes needed. Nothing of the request is read past
///   its headers before the token is accepted.
/// - An accepted request goes on with its [`Caller`] in the request's extensions, where the
///   [`McpServer`](crate::McpServer) finds it: `tools/list` then shows the caller only the tools
///   it may call, and other tools are unknown to it
///   ([`Toolbox::require_scopes`],
///   `#[tool(scopes = [..])]`).
///
/// The token itself is handed to the validator and goes nowhere else: not into the caller, a
/// log line, a trace or a response.
///
/// ```
/// use std::sync::Arc;
/// use toolwright::{Toolbox, exec::Caller};
/// use toolwright::mcp::{Authorization, InvalidToken, McpServer};
///
/// let auth = Authorization::new("https://notes.example.com/mcp", |token: String| async move {
///     // Call an introspection endpoint, or check a JWT with the library of your choice.
///     match token.as_str() {
///         "secret-of-ada" => Ok(Caller::new("ada").with_scopes(["notes:read", "notes:write"])),
///         _ => Err(InvalidToken::new("unknown token")),
///     }
/// })
/// .authorization_server("https://auth.example.com")
/// .scopes_supported(["notes:read", "notes:write"]);
/// assert_eq!(
///     auth.metadata_url(),
///     "https://notes.example.com/.well-known/oauth-protected-resource/mcp"
/// );
/// let server = McpServer::new(Arc::new(Toolbox::new()), ()).unwrap();
/// let service = auth.protect(server.http_service(false));
/// // Serve `service` with hyper or any tower server.
/// # let _ = service;
/// ```
#[derive(Clone)]
pub struct Authorization {
    resource: String,
    issuers: Vec<String>,
    scopes_supported: Vec<String>,
    required_scopes: Vec<String>,
    resource_name: Option<String>,
    validate: Arc<Validate>,
}

impl fmt::Debug for Authorization {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Authorization")
            .field("resource", &self.resource)
            .field("authorization_servers", &self.issuers)
            .field("scopes_supported", &self.scopes_supported)
            .field("required_scopes", &self.required_scopes)
            .finish_non_exhaustive()
    }
}

impl Authorization {
    /// Protects the resource at `resource` (the server's URL as clients reach it, e.g.
    /// `https://mcp.example.com/mcp`: the metadata's `resource`, and where its metadata URL is
    /// derived from), checking every bearer token with `validate`.
    pub fn new<F, Fut>(resource: impl Into<String>, validate: F) -> Self
    where
        F: Fn(String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Caller, InvalidToken>> + Send + 'static,
    {
        Authorization {
            resource: resource.into(),
            issuers: Vec::new(),
            scopes_supported: Vec::new(),
            required_scopes: Vec::new(),
            resource_name: None,
            validate: Arc::new(move |token| Box::pin(validate(token))),
        }
    }

    /// An authorization server that issues tokens for this resource (its issuer URL), listed
    /// in the metadata; call once for each.
    #[must_use]
    pub fn authorization_server(mut self, url: impl Into<String>) -> Self {
        self.issuers.push(url.into());
        self
    }

    /// The scopes this resource knows, listed in the metadata.
    #[must_use]
    pub fn scopes_supported<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes_supported
            .extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Scopes every caller needs for any access: a valid token without them gets `403`
    /// (`insufficient_scope`, naming them). Per-tool scopes are the toolbox's.
    #[must_use]
    pub fn require_scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.required_scopes
            .extend(scopes.into_iter().map(Into::into));
        self
    }

    /// A name for people, the metadata's `resource_name`.
    #[must_use]
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// The resource's identifier, as given.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// Where the metadata is published (RFC 9728, section 3.1): the well-known path inserted
    /// between the resource's host and its path; `WWW-Authenticate` points clients there.
    pub fn metadata_url(&self) -> String {
        let (origin, path) = split_url(&self.resource);
        let path = path.trim_end_matches('/');
        format!("{origin}{WELL_KNOWN}{path}")
    }

    /// The Protected Resource Metadata document (RFC 9728, section 2).
    pub fn metadata(&self) -> Value {
        let mut metadata = json!({
            "resource": self.resource,
            "bearer_methods_supported": ["header"],
        });
        if !self.issuers.is_empty() {
            metadata["authorization_servers"] = json!(self.issuers);
        }
        let mut scopes = self.scopes_supported.clone();
        for scope in &self.required_scopes {
            if !scopes.contains(scope) {
                scopes.push(scope.clone());
            }
        }
        if !scopes.is_empty() {
            metadata["scopes_supported"] = json!(scopes);
        }
        if let Some(name) = &self.resource_name {
            metadata["resource_name"] = json!(name);
        }
        metadata
    }

    /// `service` behind this authorization: the metadata answered, every other request let
    /// through only with a valid token, its [`Caller`] in the request's extensions.
    pub fn protect<S>(self, service: S) -> Protected<S> {
        Protected {
            inner: service,
            auth: Arc::new(self),
        }
    }

    /// Whether `path` is where this resource's metadata is asked for: the well-known path, alone
    /// or with the resource's path after it.
    fn is_metadata_path(&self, path: &str) -> bool {
        let Some(rest) = path.strip_prefix(WELL_KNOWN) else {
            return false;
        };
        let (_, resource_path) = split_url(&self.resource);
        rest.is_empty() || rest == "/" || rest == resource_path.trim_end_matches('/')
    }

    /// What the request's headers say of its caller: accepted (the caller), or the response
    /// that refuses it.
    async fn admit(&self, authorization: Option<&HeaderValue>) -> Result<Caller, Refusal> {
        let Some(token) = authorization.and_then(bearer_token) else {
            // No credentials (or not a bearer token): RFC 6750 says no error code then.
            return Err(Refusal::Unauthorized(None));
        };
        if token.is_empty() {
            return Err(Refusal::Unauthorized(Some(InvalidToken::new(
                "the bearer token is empty",
            ))));
        }
        let caller = (self.validate)(token.to_owned())
            .await
            .map_err(|invalid| Refusal::Unauthorized(Some(invalid)))?;
        let missing: Vec<&str> = self
            .required_scopes
            .iter()
            .filter(|scope| !caller.has_scope(scope))
            .map(String::as_str)
            .collect();
        if missing.is_empty() {
            Ok(caller)
        } else {
            Err(Refusal::Forbidden(missing.join(" ")))
        }
    }

    fn refusal_response(&self, refusal: &Refusal) -> Response<HttpBody> {
        let metadata = quoted(&self.metadata_url());
        let (status, challenge, body) = match refusal {
            Refusal::Unauthorized(None) => {
                let mut challenge = format!("Bearer resource_metadata={metadata}");
                if !self.required_scopes.is_empty() {
                    challenge.push_str(", scope=");
                    challenge.push_str(&quoted(&self.required_scopes.join(" ")));
                }
                (
                    StatusCode::UNAUTHORIZED,
                    challenge,
                    json!({"error": "unauthorized", "error_description": "a bearer token is required"}),
                )
            }
            Refusal::Unauthorized(Some(invalid)) => (
                StatusCode::UNAUTHORIZED,
                format!(
                    "Bearer resource_metadata={metadata}, error=\"invalid_token\", error_description={}",
                    quoted(&header_text(invalid.description()))
                ),
                json!({"error": "invalid_token", "error_description": invalid.description()}),
            ),
            Refusal::Forbidden(scopes) => (
                StatusCode::FORBIDDEN,
                format!(
                    "Bearer resource_metadata={metadata}, error=\"insufficient_scope\", scope={}",
                    quoted(scopes)
                ),
                json!({
                    "error": "insufficient_scope",
                    "error_description": format!("the token lacks the scope {scopes}"),
                    "scope": scopes,
                }),
            ),
        };
        let mut response = json_response(status, &body);
        // Visible ASCII by construction (a validator's description is made so); should a
        // resource URL still not be, the bare scheme.
        let challenge =
            HeaderValue::from_str(&challenge).unwrap_or(HeaderValue::from_static("Bearer"));
        response.headers_mut().insert(WWW_AUTHENTICATE, challenge);
        response
    }
}

/// Why a request is turned away.
enum Refusal {
    /// `401`: no token, or (with why) a token the validator refused.
    Unauthorized(Option<InvalidToken>),
    /// `403`: the scopes the caller lacks, space-separated.
    Forbidden(String),
}

/// The token of `Authorization: Bearer <token>` (the scheme in any case, RFC 6750 section
/// 2.1); `None` for another scheme or a header that is not text.
fn bearer_token(header: &HeaderValue) -> Option<&str> {
    let value = header.to_str().ok()?;
    let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim_matches(' '))
}

/// A URL's origin (`scheme://authority`) and path (from the first `/` after the authority,
/// query and fragment left out).
fn split_url(url: &str) -> (&str, &str) {
    let after_scheme = url.find("://").map_or(0, |at| at + 3);
    let path_at = url[after_scheme..]
        .find('/')
        .map_or(url.len(), |at| after_scheme + at);
    let path = &url[path_at..];
    let path = path.split(['?', '#']).next().unwrap_or("");
    (&url[..path_at], path)
}

/// `text` as a header parameter can hold it (RFC 6750, section 3: `error_description` is
/// visible ASCII): other characters become `?`. The JSON body keeps the text as it is.
fn header_text(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c == ' ' || c.is_ascii_graphic() {
                c
            } else {
                '?'
            }
        })
        .collect()
}

/// `text` as an RFC 9110 quoted-string.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

fn json_response(status: StatusCode, body: &Value) -> Response<HttpBody> {
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())).boxed());
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// A service behind an [`Authorization`]: see there.
#[derive(Clone)]
pub struct Protected<S> {
    inner: S,
    auth: Arc<Authorization>,
}

impl<S> fmt::Debug for Protected<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Protected")
            .field("auth", &self.auth)
            .finish_non_exhaustive()
    }
}

impl<S, B> tower_service::Service<Request<B>> for Protected<S>
where
    S: tower_service::Service<Request<B>, Response = Response<HttpBody>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    B: Send + 'static,
{
    type Response = Response<HttpBody>;
    type Error = Infallible;
    type Future = BoxFuture<Result<Response<HttpBody>, Infallible>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<B>) -> Self::Future {
        let auth = Arc::clone(&self.auth);
        // The service that was polled ready takes this request; a clone waits for the next.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        Box::pin(async move {
            if request.method() == Method::GET && auth.is_metadata_path(request.uri().path()) {
                let mut response = json_response(StatusCode::OK, &auth.metadata());
                let headers = response.headers_mut();
                headers.insert("access-control-allow-origin", HeaderValue::from_static("*"));
                headers.insert(CACHE_CONTROL, HeaderValue::from_static("max-age=3600"));
                return Ok(response);
            }
            // A browser's CORS preflight carries no credentials by design.
            if request.method() == Method::OPTIONS {
                return inner.call(request).await;
            }
            match auth.admit(request.headers().get(AUTHORIZATION)).await {
                Ok(caller) => {
                    request.extensions_mut().insert(caller.clone());
                    CALLER.scope(caller, inner.call(request)).await
                }
                Err(refusal) => Ok(auth.refusal_response(&refusal)),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_split_into_origin_and_path() {
        assert_eq!(
            split_url("https://a.example:8443/mcp/v1?x=1"),
            ("https://a.example:8443", "/mcp/v1")
        );
        assert_eq!(
            split_url("http://127.0.0.1:3000"),
            ("http://127.0.0.1:3000", "")
        );
        assert_eq!(split_url("http://h/"), ("http://h", "/"));
    }

    #[test]
    fn bearer_tokens_are_read_from_the_header() {
        let token =
            |value: &'static str| bearer_token(&HeaderValue::from_static(value)).map(str::to_owned);
        assert_eq!(token("Bearer abc").as_deref(), Some("abc"));
        assert_eq!(token("bearer  abc ").as_deref(), Some("abc"));
        assert_eq!(token("Basic YTpi"), None);
        assert_eq!(token("Bearer").as_deref(), Some(""));
    }

    #[test]
    fn descriptions_in_the_challenge_are_visible_ascii() {
        assert_eq!(header_text("jeton expiré\n"), "jeton expir??");
        let auth = Authorization::new("https://h/mcp", |_: String| async {
            Err(InvalidToken::new("jeton expiré"))
        });
        let response = auth.refusal_response(&Refusal::Unauthorized(Some(InvalidToken::new(
            "jeton expiré",
        ))));
        assert_eq!(
            response.headers()[WWW_AUTHENTICATE],
            "Bearer resource_metadata=\"https://h/.well-known/oauth-protected-resource/mcp\", \
             error=\"invalid_token\", error_description=\"jeton expir?\""
        );
    }

    #[test]
    fn quoted_strings_escape_quotes_and_backslashes() {
        assert_eq!(quoted(r#"a "b" \c"#), r#""a \"b\" \\c""#);
    }
}
