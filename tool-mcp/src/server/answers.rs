//! The answers the limited service gives of its own: refusals with a JSON-RPC error, the
//! answer for a session that is not the caller's, and a body read within the limits.

use bytes::Bytes;
use http::header::{CONTENT_TYPE, RETRY_AFTER};
use http::{HeaderValue, Response, StatusCode};
use http_body::Body;
use http_body_util::{BodyExt, Full, Limited as LimitedBody};
use serde_json::json;

use super::auth::HttpBody;
use super::limits::HttpLimits;

/// A refusal: the status and a JSON-RPC error naming the limit.
pub(super) fn refuse(status: StatusCode, message: &str) -> Response<HttpBody> {
    let body = json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": -32000, "message": message},
    });
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())).boxed());
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    if status == StatusCode::TOO_MANY_REQUESTS || status == StatusCode::SERVICE_UNAVAILABLE {
        response
            .headers_mut()
            .insert(RETRY_AFTER, HeaderValue::from_static("1"));
    }
    response
}

/// The answer for a session that does not exist (rmcp's own, word for word), given to a caller
/// who asks for another caller's session.
pub(super) fn no_such_session() -> Response<HttpBody> {
    let mut response =
        Response::new(Full::new(Bytes::from_static(b"Not Found: Session not found")).boxed());
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

/// A request's body, read whole within the limits: the bytes, or the refusal.
pub(super) async fn read_body<B>(body: B, limits: &HttpLimits) -> Result<Bytes, Response<HttpBody>>
where
    B: Body + Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let read = tokio::time::timeout(
        limits.body_timeout,
        LimitedBody::new(body, limits.max_body).collect(),
    )
    .await;
    match read {
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(error)) if error.is::<http_body_util::LengthLimitError>() => Err(refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!("the request body is over {} bytes", limits.max_body),
        )),
        Ok(Err(_)) => Err(refuse(
            StatusCode::BAD_REQUEST,
            "the request body could not be read",
        )),
        Err(_) => Err(refuse(
            StatusCode::REQUEST_TIMEOUT,
            &format!(
                "the request body did not arrive within {} s",
                limits.body_timeout.as_secs_f64()
            ),
        )),
    }
}
