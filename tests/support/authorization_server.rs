//! A small OAuth 2.1 authorization server on a loopback port, for the tests of the MCP client's
//! authorization (issue 44): RFC 8414 metadata, dynamic registration (RFC 7591), the
//! authorization endpoint (which approves at once, as a user who approves would, redirecting with
//! a code), and the token endpoint, which checks the code's PKCE verifier (S256), its client, its
//! redirect URI and its resource indicator before it issues a token. It keeps what it issued, so
//! that a protected MCP server can validate tokens against it and a test can look for them.
#![allow(dead_code)]

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use base64::Engine as _;
use http_body_util::{BodyExt as _, Full};
use hyper::body::{Bytes, Incoming};
use serde_json::{Value, json};
use sha2::Digest as _;
use toolwright::Toolbox;
use toolwright::exec::Caller;
use toolwright::mcp::{Authorization, InvalidToken, McpOAuth, McpServer};

/// What the server issued and was asked.
#[derive(Default)]
pub struct Issued {
    /// Access tokens, each with the scopes it grants.
    pub tokens: Vec<(String, Vec<String>)>,
    /// The scopes each authorization request asked for, in order.
    pub asked: Vec<Vec<String>>,
    /// The resource indicator each token request named.
    pub resources: Vec<String>,
    /// Scopes granted by the first authorization whatever it asks (a user who grants less),
    /// when set.
    pub first_grant: Option<Vec<String>>,
    codes: HashMap<String, Code>,
    clients: usize,
}

struct Code {
    client_id: String,
    redirect_uri: String,
    challenge: String,
    scopes: Vec<String>,
}

/// The running server: its issuer URL and what it issued.
#[derive(Clone)]
pub struct AuthorizationServer {
    pub issuer: String,
    pub issued: Arc<Mutex<Issued>>,
    /// The path its endpoints are under (the issuer's path): none but for a 2025-03-26 server.
    prefix: &'static str,
}

impl AuthorizationServer {
    /// Starts the server on a free loopback port until the test's runtime ends.
    pub async fn start() -> AuthorizationServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address: SocketAddr = listener.local_addr().unwrap();
        let server = AuthorizationServer {
            issuer: format!("http://{address}"),
            issued: Arc::default(),
            prefix: "",
        };
        let serving = server.clone();
        let service = hyper::service::service_fn(move |request| {
            let server = serving.clone();
            async move { Ok::<_, Infallible>(server.answer(request).await) }
        });
        crate::http::serve_hyper(listener, service);
        server
    }

    /// The scopes `token` grants, if the server issued it.
    pub fn scopes_of(&self, token: &str) -> Option<Vec<String>> {
        let issued = self.issued.lock().unwrap();
        issued
            .tokens
            .iter()
            .find(|(issued, _)| issued == token)
            .map(|(_, scopes)| scopes.clone())
    }

    async fn answer(&self, request: http::Request<Incoming>) -> http::Response<Full<Bytes>> {
        let path = request.uri().path().to_owned();
        let query = request.uri().query().unwrap_or_default().to_owned();
        let method = request.method().clone();
        let basic = request
            .headers()
            .get("authorization")
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Basic "))
            .and_then(|encoded| {
                base64::engine::general_purpose::STANDARD
                    .decode(encoded)
                    .ok()
            })
            .and_then(|decoded| String::from_utf8(decoded).ok());
        let body = request
            .into_body()
            .collect()
            .await
            .map(|body| body.to_bytes())
            .unwrap_or_default();
        // The metadata is at the root whatever the issuer's path (RFC 8414 3 puts it after the
        // well-known part; 2025-03-26 MCP servers put it at the root).
        let endpoint = path.strip_prefix(self.prefix).unwrap_or_default();
        match (method.as_str(), path.as_str()) {
            ("GET", "/.well-known/oauth-authorization-server") => json_answer(
                200,
                &json!({
                    "issuer": self.issuer,
                    "authorization_endpoint": format!("{}/authorize", self.issuer),
                    "token_endpoint": format!("{}/token", self.issuer),
                    "registration_endpoint": format!("{}/register", self.issuer),
                    "response_types_supported": ["code"],
                    "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
                    "code_challenge_methods_supported": ["S256"],
                    "token_endpoint_auth_methods_supported": ["none", "client_secret_basic"],
                    "scopes_supported": ["mcp", "profile"],
                }),
            ),
            ("POST", _) if endpoint == "/register" => {
                let asked: Value = serde_json::from_slice(&body).unwrap_or_default();
                let id = {
                    let mut issued = self.issued.lock().unwrap();
                    issued.clients += 1;
                    format!("client-{}", issued.clients)
                };
                json_answer(
                    201,
                    &json!({
                        "client_id": id,
                        "redirect_uris": asked["redirect_uris"],
                        "token_endpoint_auth_method": "none",
                        "grant_types": ["authorization_code", "refresh_token"],
                        "response_types": ["code"],
                    }),
                )
            }
            ("GET", _) if endpoint == "/authorize" => self.authorize(&form(query.as_bytes())),
            ("POST", _) if endpoint == "/token" => self.token(&form(&body), basic.as_deref()),
            _ => json_answer(404, &json!({"error": "not_found"})),
        }
    }

    fn authorize(&self, fields: &HashMap<String, String>) -> http::Response<Full<Bytes>> {
        let (Some(redirect_uri), Some(state), Some(challenge), Some(client_id)) = (
            fields.get("redirect_uri"),
            fields.get("state"),
            fields.get("code_challenge"),
            fields.get("client_id"),
        ) else {
            return json_answer(400, &json!({"error": "invalid_request"}));
        };
        if fields.get("code_challenge_method").map(String::as_str) != Some("S256") {
            return json_answer(400, &json!({"error": "invalid_request"}));
        }
        let asked: Vec<String> = scopes_of_form(fields);
        let mut issued = self.issued.lock().unwrap();
        let scopes = match issued.first_grant.take() {
            Some(granted) => granted,
            None => asked.clone(),
        };
        issued.asked.push(asked);
        let code = format!("code-{}", issued.asked.len());
        issued.codes.insert(
            code.clone(),
            Code {
                client_id: client_id.clone(),
                redirect_uri: redirect_uri.clone(),
                challenge: challenge.clone(),
                scopes,
            },
        );
        http::Response::builder()
            .status(302)
            .header(
                "location",
                format!("{redirect_uri}?code={code}&state={state}"),
            )
            .body(Full::default())
            .unwrap()
    }

    fn token(
        &self,
        fields: &HashMap<String, String>,
        basic: Option<&str>,
    ) -> http::Response<Full<Bytes>> {
        if fields.get("grant_type").map(String::as_str) == Some("client_credentials") {
            return self.client_credentials(fields, basic);
        }
        let mut issued = self.issued.lock().unwrap();
        let Some(code) = fields
            .get("code")
            .and_then(|code| issued.codes.remove(code))
        else {
            return json_answer(400, &json!({"error": "invalid_grant"}));
        };
        let verifier = fields.get("code_verifier").cloned().unwrap_or_default();
        let computed = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(sha2::Sha256::digest(verifier.as_bytes()));
        if computed != code.challenge
            || fields.get("client_id") != Some(&code.client_id)
            || fields.get("redirect_uri") != Some(&code.redirect_uri)
            || fields.get("grant_type").map(String::as_str) != Some("authorization_code")
        {
            return json_answer(400, &json!({"error": "invalid_grant"}));
        }
        let Some(resource) = fields.get("resource") else {
            return json_answer(400, &json!({"error": "invalid_target"}));
        };
        issue(&mut issued, resource, code.scopes)
    }
}

impl AuthorizationServer {
    /// The client credentials grant, for the clients registered beforehand: [`MACHINE`], which
    /// authenticates with HTTP Basic (`client_secret_basic`), and [`SIGNER`], with an assertion
    /// signed by its key (`private_key_jwt`).
    fn client_credentials(
        &self,
        fields: &HashMap<String, String>,
        basic: Option<&str>,
    ) -> http::Response<Full<Bytes>> {
        let assertion = fields.get("client_assertion");
        if assertion.is_some() || fields.contains_key("client_assertion_type") {
            if fields.get("client_assertion_type").map(String::as_str)
                != Some("urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
                || !self.signed_by_signer(assertion.map_or("", String::as_str))
            {
                return json_answer(401, &json!({"error": "invalid_client"}));
            }
        } else if basic != Some(&format!("{}:{}", MACHINE.0, MACHINE.1)) {
            return json_answer(401, &json!({"error": "invalid_client"}));
        }
        let Some(resource) = fields.get("resource") else {
            return json_answer(400, &json!({"error": "invalid_target"}));
        };
        let scopes: Vec<String> = scopes_of_form(fields);
        issue(&mut self.issued.lock().unwrap(), resource, scopes)
    }

    /// Whether `assertion` is a JWT (RFC 7523 3) that [`SIGNER`] signed with its key (ES256)
    /// naming itself as issuer and subject and this server's issuer as audience, unexpired.
    fn signed_by_signer(&self, assertion: &str) -> bool {
        use jsonwebtoken::{Algorithm, DecodingKey, Validation};
        let key = DecodingKey::from_ec_pem(SIGNER_PUBLIC_KEY.as_bytes()).unwrap();
        let mut validation = Validation::new(Algorithm::ES256);
        validation.set_audience(&[self.issuer.clone(), format!("{}/", self.issuer)]);
        validation.set_issuer(&[SIGNER]);
        validation.sub = Some(SIGNER.to_owned());
        validation.set_required_spec_claims(&["exp", "iss", "sub", "aud"]);
        jsonwebtoken::decode::<Value>(assertion, &key, &validation).is_ok()
    }
}

/// The client registered beforehand for the client credentials grant: its ID and secret.
pub const MACHINE: (&str, &str) = ("reports-agent", "machine-secret-5c1e");

/// The client registered beforehand for the client credentials grant with a signed assertion
/// (`private_key_jwt`), by its public key [`SIGNER_PUBLIC_KEY`].
pub const SIGNER: &str = "signing-agent";

/// [`SIGNER`]'s private key (P-256, PKCS#8), made for these tests with `openssl genpkey -algorithm
/// EC -pkeyopt ec_paramgen_curve:P-256 | openssl pkcs8 -topk8 -nocrypt`; it signs nothing else.
pub const SIGNER_KEY: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgRdOVL64ZyGkV7sOv
R1ypC+T5f3yN5t2dbCADNz1ALp2hRANCAAQ3p2rojf47JsiHpObK6GV/eprC/af8
edfDjt9GHddrStf0I9kMQzvtAWQjmjlpLiBuG2uFO8JPW2F4cfWAn7pi
-----END PRIVATE KEY-----
";

/// [`SIGNER_KEY`]'s public key, which the authorization server knows.
const SIGNER_PUBLIC_KEY: &str = "-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEN6dq6I3+OybIh6Tmyuhlf3qawv2n
/HnXw47fRh3Xa0rX9CPZDEM77QFkI5o5aS4gbhtrhTvCT1theHH1gJ+6Yg==
-----END PUBLIC KEY-----
";

/// Another P-256 key (made the same way), which the authorization server does not know.
pub const UNKNOWN_KEY: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQggQVNe0DhJwyh3rL0
2oazC7yj1EOzZIHJNqogUz5RSk6hRANCAARUUuy/zIOOv2nP7dpzFm52SG2tj7AH
1v/baYr2H5lOkhylLXub47fGelZDPIcODf9+O1gni8MzMkzrBE5pyueD
-----END PRIVATE KEY-----
";

/// Issues a token of `scopes` for `resource`, and keeps it: the token endpoint's answer.
fn issue(issued: &mut Issued, resource: &str, scopes: Vec<String>) -> http::Response<Full<Bytes>> {
    issued.resources.push(resource.to_owned());
    let token = format!("secret-access-token-{}", issued.tokens.len() + 1);
    let answer = json!({
        "access_token": token,
        "token_type": "Bearer",
        "expires_in": 3600,
        "scope": scopes.join(" "),
    });
    issued.tokens.push((token, scopes));
    json_answer(200, &answer)
}

/// The scopes a form's `scope` field names.
fn scopes_of_form(fields: &HashMap<String, String>) -> Vec<String> {
    fields
        .get("scope")
        .map(|scope| scope.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_default()
}

/// A form's (or a query's) fields.
fn form(text: &[u8]) -> HashMap<String, String> {
    url::form_urlencoded::parse(text).into_owned().collect()
}

fn json_answer(status: u16, body: &Value) -> http::Response<Full<Bytes>> {
    http::Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .header("cache-control", "no-store")
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap()
}

/// toolwright's MCP server of `toolbox` (with sessions) on a loopback port, accepting the tokens
/// `authorization` issued and requiring the scope `mcp`; it names `resource` as itself (its own
/// URL unless told). Its address.
pub async fn protected_server(
    authorization: &AuthorizationServer,
    toolbox: Toolbox,
    resource: Option<&str>,
) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let resource = resource.map_or_else(|| format!("http://{address}/mcp"), str::to_owned);
    let tokens = authorization.clone();
    let guard = Authorization::new(resource, move |token: String| {
        let scopes = tokens.scopes_of(&token);
        async move {
            match scopes {
                Some(scopes) => Ok(Caller::new("user").with_scopes(scopes)),
                None => Err(InvalidToken::new("the token was not issued here")),
            }
        }
    })
    .authorization_server(authorization.issuer.clone())
    .scopes_supported(["mcp"])
    .require_scopes(["mcp"]);
    let server = McpServer::new(Arc::new(toolbox), ()).unwrap();
    crate::http::serve_on(listener, guard.protect(server.http_service(true)));
    address
}

/// A server as the 2025-03-26 revision has them, on a loopback port: toolwright's MCP server of
/// `toolbox` at `/mcp`, refusing a request without a token this server issued with a bare
/// `Bearer` challenge (no protected resource metadata anywhere), and its own authorization
/// server, whose metadata is at the root and names the issuer `/oauth` (endpoints under it), as
/// the conformance suite's `auth/2025-03-26-oauth-metadata-backcompat` has it. Its authorization
/// server and address. With `issuer`, the metadata names that issuer (and endpoints under it)
/// instead: a server that sends its users to someone else's authorization server.
pub async fn legacy_server(
    toolbox: Toolbox,
    issuer: Option<&str>,
) -> (AuthorizationServer, SocketAddr) {
    use tower_service::Service as _;

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let authorization = AuthorizationServer {
        issuer: issuer.map_or_else(|| format!("http://{address}/oauth"), str::to_owned),
        issued: Arc::default(),
        prefix: "/oauth",
    };
    let mcp = McpServer::new(Arc::new(toolbox), ())
        .unwrap()
        .http_service(true);
    let serving = authorization.clone();
    let service = hyper::service::service_fn(move |request: http::Request<Incoming>| {
        let (authorization, mut mcp) = (serving.clone(), mcp.clone());
        async move {
            if request.uri().path() != "/mcp" {
                let answer = authorization.answer(request).await;
                return Ok::<_, Infallible>(
                    answer.map(|body| body.map_err(|never| match never {}).boxed()),
                );
            }
            let token = request
                .headers()
                .get("authorization")
                .and_then(|value| value.to_str().ok())
                .and_then(|value| value.strip_prefix("Bearer "));
            if token
                .and_then(|token| authorization.scopes_of(token))
                .is_none()
            {
                let refusal = http::Response::builder()
                    .status(401)
                    .header("www-authenticate", "Bearer")
                    .body(Full::default().map_err(|never| match never {}).boxed())
                    .unwrap();
                return Ok(refusal);
            }
            mcp.call(request).await
        }
    });
    crate::http::serve_hyper(listener, service);
    (authorization, address)
}

/// The browser step of a user who approves (while `approve` says so): the authorization URL
/// followed to the redirect the authorization server answers with.
pub fn approving(approve: Arc<std::sync::atomic::AtomicBool>) -> McpOAuth {
    McpOAuth::new("http://127.0.0.1:9/callback", move |url| {
        let approve = approve.load(std::sync::atomic::Ordering::SeqCst);
        async move {
            if !approve {
                return Err("the user closed the window".to_owned());
            }
            let http = reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .map_err(|error| error.to_string())?;
            let answer = http
                .get(&url)
                .send()
                .await
                .map_err(|error| error.to_string())?;
            answer
                .headers()
                .get("location")
                .and_then(|location| location.to_str().ok())
                .map(str::to_owned)
                .ok_or_else(|| format!("no redirect: {}", answer.status()))
        }
    })
    .with_client_name("toolwright tests")
}
