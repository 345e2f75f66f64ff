//! The answers the limited service gives of its own: refusals with a JSON-RPC error, the
//! answer for a session that is not the caller's, and a body read within the limits.

use bytes::{Buf, Bytes, BytesMut};
use http::header::{CONTENT_TYPE, RETRY_AFTER};
use http::{HeaderValue, Response, StatusCode};
use http_body::Body;
use http_body_util::{BodyExt, Full};
use serde_json::json;
use std::future::Future;
use std::task::Poll;

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
    let mut reading = std::pin::pin!(collect(body, limits.max_body));
    // A body that is all there (most are: hyper has read a small one with the headers) is read
    // without a timer; the rest get `body_timeout` from here.
    let read = match std::future::poll_fn(|cx| Poll::Ready(reading.as_mut().poll(cx))).await {
        Poll::Ready(read) => Ok(read),
        Poll::Pending => tokio::time::timeout(limits.body_timeout, reading).await,
    };
    match read {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(Unread::TooLarge)) => Err(refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!("the request body is over {} bytes", limits.max_body),
        )),
        Ok(Err(Unread::Broken)) => Err(refuse(
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

/// Why a body was not read.
#[derive(Debug, PartialEq, Eq)]
enum Unread {
    /// Over the limit: the bytes past it were not kept.
    TooLarge,
    /// The connection failed while it came.
    Broken,
}

/// A body's bytes, at most `max` of them. A body that comes in one piece (a JSON-RPC message
/// nearly always does) is kept as it came, not copied; pieces are joined.
async fn collect<B>(body: B, max: usize) -> Result<Bytes, Unread>
where
    B: Body,
{
    let mut body = std::pin::pin!(body);
    let mut first: Option<Bytes> = None;
    let mut joined: Option<BytesMut> = None;
    let mut length = 0usize;
    while let Some(frame) = body.frame().await {
        let Ok(mut data) = frame.map_err(|_| Unread::Broken)?.into_data() else {
            // Trailers: nothing of the message.
            continue;
        };
        // Hyper's pieces are `Bytes` already: taken, not copied.
        let data = data.copy_to_bytes(data.remaining());
        length = length.saturating_add(data.len());
        if length > max {
            return Err(Unread::TooLarge);
        }
        if let Some(joined) = &mut joined {
            joined.extend_from_slice(&data);
        } else if let Some(earlier) = first.take() {
            let mut both = BytesMut::with_capacity(length);
            both.extend_from_slice(&earlier);
            both.extend_from_slice(&data);
            joined = Some(both);
        } else {
            first = Some(data);
        }
    }
    Ok(joined.map_or_else(|| first.unwrap_or_default(), BytesMut::freeze))
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;

    use bytes::Bytes;
    use http_body::Frame;
    use http_body_util::{Full, StreamBody};

    use super::{Unread, collect};

    fn pieces(parts: &[&'static [u8]]) -> impl http_body::Body<Data = Bytes, Error = Infallible> {
        let frames: Vec<Result<Frame<Bytes>, Infallible>> = parts
            .iter()
            .map(|part| Ok(Frame::data(Bytes::from_static(part))))
            .collect();
        StreamBody::new(futures_util::stream::iter(frames))
    }

    #[tokio::test]
    async fn one_piece_is_kept_as_it_came() {
        let sent = Bytes::from_static(b"{\"jsonrpc\":\"2.0\"}");
        let read = collect(Full::new(sent.clone()), 1024).await.unwrap();
        assert_eq!(read, sent);
        // The same memory, not a copy.
        assert_eq!(read.as_ptr(), sent.as_ptr());
    }

    #[tokio::test]
    async fn pieces_are_joined_in_order() {
        let read = collect(pieces(&[b"ab", b"", b"cd", b"e"]), 5)
            .await
            .unwrap();
        assert_eq!(&read[..], b"abcde");
        assert_eq!(collect(pieces(&[]), 5).await.unwrap(), Bytes::new());
    }

    #[tokio::test]
    async fn a_byte_over_the_limit_is_refused() {
        assert_eq!(
            collect(pieces(&[b"abc", b"def"]), 5).await,
            Err(Unread::TooLarge)
        );
        assert_eq!(
            collect(Full::new(Bytes::from_static(b"abcdef")), 5).await,
            Err(Unread::TooLarge)
        );
        assert_eq!(
            &collect(pieces(&[b"abc", b"de"]), 5).await.unwrap()[..],
            b"abcde"
        );
    }

    #[tokio::test]
    async fn a_broken_body_is_told_apart() {
        let frames: Vec<Result<Frame<Bytes>, std::io::Error>> = vec![
            Ok(Frame::data(Bytes::from_static(b"ab"))),
            Err(std::io::Error::other("reset")),
        ];
        let body = StreamBody::new(futures_util::stream::iter(frames));
        assert_eq!(collect(body, 5).await, Err(Unread::Broken));
    }
}
