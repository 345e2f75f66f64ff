//! Discovery as the 2025-03-26 revision had it, for a server that speaks only that revision: no
//! protected resource metadata, the server's origin its own authorization server, whose metadata
//! (RFC 8414) is at the origin's root and may name an issuer with a path.

use std::time::Duration;

use rmcp::transport::auth::{AuthError, AuthorizationMetadata, WWWAuthenticateParams};
use url::Url;

/// How long each of discovery's requests may take.
const TIMEOUT: Duration = Duration::from_secs(30);

/// The authorization server metadata of the server at `server` under the 2025-03-26 rules, when
/// they are the ones that apply: its challenge points to no protected resource metadata, there is
/// none at the well-known URLs, and the metadata at the origin's root names an issuer and
/// endpoints all of the server's own origin. `None` when any of that is not so (the later
/// revisions' rules, which refused the metadata, stand).
pub(super) async fn metadata(
    server: &str,
    challenge: &str,
) -> Result<Option<AuthorizationMetadata>, AuthError> {
    let server = Url::parse(server).map_err(|error| AuthError::InternalError(error.to_string()))?;
    if WWWAuthenticateParams::parse(challenge, &server)
        .resource_metadata_url
        .is_some()
    {
        return Ok(None);
    }
    let http = reqwest::Client::builder()
        .timeout(TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|error| AuthError::InternalError(error.to_string()))?;
    let at = |path: &str| {
        let mut url = server.clone();
        url.set_path(path);
        url.set_query(None);
        url.set_fragment(None);
        url
    };
    let path = server.path().trim_end_matches('/');
    let mut resource_metadata = vec![at("/.well-known/oauth-protected-resource")];
    if !path.is_empty() {
        resource_metadata.insert(
            0,
            at(&format!("/.well-known/oauth-protected-resource{path}")),
        );
    }
    for url in resource_metadata {
        // A server with resource metadata is of a later revision, whatever it answers with.
        if let Ok(answer) = http.get(url).send().await
            && answer.status().is_success()
        {
            return Ok(None);
        }
    }
    let Ok(answer) = http
        .get(at("/.well-known/oauth-authorization-server"))
        .header("accept", "application/json")
        .send()
        .await
    else {
        return Ok(None);
    };
    if !answer.status().is_success() {
        return Ok(None);
    }
    let Ok(metadata) = answer.json::<AuthorizationMetadata>().await else {
        return Ok(None);
    };
    let origin = server.origin();
    let own = |url: &str| Url::parse(url).is_ok_and(|url| url.origin() == origin);
    let all_own = metadata.issuer.as_deref().is_some_and(own)
        && own(&metadata.authorization_endpoint)
        && own(&metadata.token_endpoint)
        && metadata.registration_endpoint.as_deref().is_none_or(own);
    Ok(all_own.then_some(metadata))
}
