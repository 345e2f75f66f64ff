//! The HTTP service under its limits, each excess answered with the HTTP status and a JSON-RPC
//! error a client understands, and the signal a call gets from the request it came on: the
//! client gone, the server shutting down.

use std::collections::HashMap;
use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::header::HeaderName;
use http::{Method, Request, Response, StatusCode};
use http_body::{Body, Frame, SizeHint};
use http_body_util::{BodyExt, Full};
use rmcp::ServerHandler;
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};
use toolwright_runtime::exec::{Caller, Cancellation};

use super::answers::{no_such_session, read_body, refuse};
use super::auth::HttpBody;
use super::limits::HttpLimits;
use super::running::Running;

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// The session header of Streamable HTTP, as a name made once: looked up by a `&str`, a header
/// name is parsed at every lookup.
pub(crate) static SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");

/// What a call learns from the HTTP request it came on: raised when the client goes away
/// before its answer is sent, or when the server shuts down and the call outlives the grace
/// period. The [`McpServer`](crate::McpServer) finds it in the request's extensions and cancels
/// the call, as `notifications/cancelled` would; it is also the call's own stop signal, raised
/// by the server for a call cancelled by `notifications/cancelled` (the request carries one call
/// only, so no other call sees it).
#[derive(Debug, Clone)]
pub(crate) struct RequestGone(pub(crate) Cancellation);

/// What [`ShutdownHandle::shutdown`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Drained {
    /// Requests that finished within the grace period.
    pub finished: usize,
    /// Requests still running at its end: cancelled, and answered with an error.
    pub cancelled: usize,
}

/// The service's limits, counters and requests in flight, shared by its clones.
struct State {
    limits: HttpLimits,
    places: Arc<Semaphore>,
    queued: AtomicUsize,
    sessions: Option<Arc<LocalSessionManager>>,
    per_session: Mutex<HashMap<String, SessionUse>>,
    /// Who opened each session, behind an authorization: another caller's requests for it are
    /// answered as for a session that does not exist.
    owners: Mutex<HashMap<String, String>>,
    closing: AtomicBool,
    /// Every request in flight's signal, at a place of its own.
    running: Mutex<Running>,
    drained: Notify,
}

#[derive(Default)]
struct SessionUse {
    requests: usize,
    streams: usize,
}

impl State {
    fn session_use(&self) -> std::sync::MutexGuard<'_, HashMap<String, SessionUse>> {
        self.per_session
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn running(&self) -> std::sync::MutexGuard<'_, Running> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn owners(&self) -> std::sync::MutexGuard<'_, HashMap<String, String>> {
        self.owners.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether `session` was opened by a caller other than `caller`.
    fn owned_by_another(&self, session: &str, caller: &Caller) -> bool {
        self.owners()
            .get(session)
            .is_some_and(|owner| owner != caller.subject())
    }

    /// Notes that `caller` opened `session`, and forgets the owners of sessions that have
    /// closed (so the table holds at most the live sessions and this one).
    async fn own(&self, session: String, caller: &Caller) {
        let live: Option<std::collections::HashSet<String>> = match &self.sessions {
            Some(sessions) => Some(
                sessions
                    .sessions
                    .read()
                    .await
                    .keys()
                    .map(ToString::to_string)
                    .collect(),
            ),
            None => None,
        };
        let mut owners = self.owners();
        if let Some(live) = live {
            owners.retain(|id, _| live.contains(id));
        }
        owners.insert(session, caller.subject().to_owned());
    }
}

/// The Streamable HTTP service under [`HttpLimits`]: what
/// [`McpServer::http_service`](crate::McpServer::http_service) gives.
pub struct Limited<S> {
    /// Shared, not cloned: a request is served by reference (`StreamableHttpService::handle`),
    /// so that no request copies the service's configuration (its allowed hosts, a string
    /// each), as its own `Service::call` does.
    inner: Arc<S>,
    state: Arc<State>,
}

impl<S> Clone for Limited<S> {
    fn clone(&self) -> Self {
        Limited {
            inner: Arc::clone(&self.inner),
            state: Arc::clone(&self.state),
        }
    }
}

impl<S> fmt::Debug for Limited<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Limited")
            .field("limits", &self.state.limits)
            .field(
                "in_flight",
                &(self.state.limits.max_in_flight - self.state.places.available_permits()),
            )
            .finish_non_exhaustive()
    }
}

impl<S> Limited<S> {
    pub(crate) fn new(
        inner: S,
        limits: HttpLimits,
        sessions: Option<Arc<LocalSessionManager>>,
    ) -> Self {
        Limited {
            inner: Arc::new(inner),
            state: Arc::new(State {
                places: Arc::new(Semaphore::new(limits.max_in_flight)),
                limits,
                queued: AtomicUsize::new(0),
                sessions,
                per_session: Mutex::new(HashMap::new()),
                owners: Mutex::new(HashMap::new()),
                closing: AtomicBool::new(false),
                running: Mutex::new(Running::default()),
                drained: Notify::new(),
            }),
        }
    }

    /// The limits in force.
    pub fn limits(&self) -> &HttpLimits {
        &self.state.limits
    }

    /// How many requests are being handled now.
    pub fn in_flight(&self) -> usize {
        self.state.running().len()
    }

    /// A handle that shuts the service down: see [`ShutdownHandle::shutdown`].
    pub fn shutdown_handle(&self) -> ShutdownHandle {
        ShutdownHandle {
            state: Arc::clone(&self.state),
        }
    }
}

/// Shuts a [`Limited`] service down, from anywhere (a signal handler, an admin endpoint).
#[derive(Clone)]
pub struct ShutdownHandle {
    state: Arc<State>,
}

impl fmt::Debug for ShutdownHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ShutdownHandle")
            .field("closing", &self.state.closing.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl ShutdownHandle {
    /// Stops taking requests (new ones get `503` and a JSON-RPC error), lets the requests in
    /// flight finish for up to `grace`, then cancels the rest (their tools see the call
    /// cancelled, and each is answered with an error) and waits a moment for those answers;
    /// returns what it found. The HTTP server's accept loop is the application's to end.
    pub async fn shutdown(&self, grace: Duration) -> Drained {
        let state = &self.state;
        state.closing.store(true, Ordering::SeqCst);
        let at_start = state.running().len();
        let drained = async {
            loop {
                let notified = state.drained.notified();
                if state.running().is_empty() {
                    return;
                }
                notified.await;
            }
        };
        if tokio::time::timeout(grace, drained).await.is_ok() {
            return Drained {
                finished: at_start,
                cancelled: 0,
            };
        }
        let left: Vec<Cancellation> = state.running().signals().cloned().collect();
        for signal in &left {
            signal.cancel();
        }
        // The cancelled calls answer with their error; give them a moment to be written.
        let _ = tokio::time::timeout(Duration::from_secs(1), async {
            loop {
                let notified = state.drained.notified();
                if state.running().is_empty() {
                    return;
                }
                notified.await;
            }
        })
        .await;
        Drained {
            finished: at_start.saturating_sub(left.len()),
            cancelled: left.len(),
        }
    }

    /// Whether [`shutdown`](Self::shutdown) has begun.
    pub fn is_closing(&self) -> bool {
        self.state.closing.load(Ordering::SeqCst)
    }
}

/// What a request holds while it is handled, given back when its answer has been sent or
/// dropped: its place, its session's count, its signal's registration.
struct Held {
    state: Arc<State>,
    place: Option<OwnedSemaphorePermit>,
    session: Option<(String, bool)>,
    id: Option<usize>,
    gone: Cancellation,
    sent: bool,
}

impl Drop for Held {
    fn drop(&mut self) {
        // Dropped before the whole answer went out: the client is gone.
        if !self.sent {
            self.gone.cancel();
        }
        if let Some((session, stream)) = self.session.take() {
            let mut uses = self.state.session_use();
            if let Some(entry) = uses.get_mut(&session) {
                if stream {
                    entry.streams = entry.streams.saturating_sub(1);
                } else {
                    entry.requests = entry.requests.saturating_sub(1);
                }
                if entry.requests == 0 && entry.streams == 0 {
                    uses.remove(&session);
                }
            }
        }
        if let Some(id) = self.id {
            let mut running = self.state.running();
            running.remove(id);
            if running.is_empty() {
                self.state.drained.notify_waiters();
            }
        }
    }
}

/// An answer's body that gives back what its request held once it has been sent.
struct Answer {
    body: HttpBody,
    held: Option<Held>,
}

impl Body for Answer {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let polled = Pin::new(&mut self.body).poll_frame(cx);
        // Sent: the body said it has no more (hyper does not poll a body again once its
        // last frame is out and it says it is at its end), or it ended.
        let ended = match &polled {
            Poll::Ready(None) => true,
            Poll::Ready(Some(Ok(_))) => self.body.is_end_stream(),
            _ => false,
        };
        if ended && let Some(mut held) = self.held.take() {
            held.sent = true;
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

impl<H, M, B> tower_service::Service<Request<B>> for Limited<StreamableHttpService<H, M>>
where
    H: ServerHandler + Send + 'static,
    M: SessionManager,
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = Response<HttpBody>;
    type Error = Infallible;
    type Future = BoxFuture<Result<Response<HttpBody>, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        // rmcp's service is always ready (its `poll_ready` says so): the limits are kept in
        // `call`, where a request over them gets its answer.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let state = Arc::clone(&self.state);
        let inner = Arc::clone(&self.inner);
        Box::pin(handle(state, inner, request))
    }
}

impl Held {
    fn new(state: &Arc<State>) -> Self {
        Held {
            state: Arc::clone(state),
            place: None,
            session: None,
            id: None,
            gone: Cancellation::new(),
            sent: false,
        }
    }

    /// Counts the request in its session (a stream, or a request in flight); or the refusal.
    fn count_in_session(&mut self, session: &str, stream: bool) -> Option<Response<HttpBody>> {
        let limits = &self.state.limits;
        let mut uses = self.state.session_use();
        let (most, what) = if stream {
            (limits.max_streams_per_session, "open streams")
        } else {
            (limits.max_in_flight_per_session, "requests in flight")
        };
        let taken = uses.get(session).map_or(0, |entry| {
            if stream {
                entry.streams
            } else {
                entry.requests
            }
        });
        if taken >= most {
            return Some(refuse(
                StatusCode::TOO_MANY_REQUESTS,
                &format!("the session has its most {what} ({most})"),
            ));
        }
        // Counted only when taken: a refused request leaves no entry behind.
        let entry = uses.entry(session.to_owned()).or_default();
        if stream {
            entry.streams += 1;
        } else {
            entry.requests += 1;
        }
        drop(uses);
        self.session = Some((session.to_owned(), stream));
        None
    }

    /// Takes a place among the requests in flight, waiting in the queue if there is room in it,
    /// and registers the request's signal; or the refusal.
    async fn take_place(&mut self) -> Option<Response<HttpBody>> {
        let state = Arc::clone(&self.state);
        let limits = &state.limits;
        if let Ok(place) = Arc::clone(&state.places).try_acquire_owned() {
            self.place = Some(place);
        } else {
            // Counted while it waits, however the wait ends (a client that goes away drops it).
            let waiting = Waiting::enter(&state.queued);
            if waiting.ahead >= limits.max_queued {
                return Some(refuse(
                    StatusCode::TOO_MANY_REQUESTS,
                    &format!(
                        "the server is handling its most requests ({}) and {} more wait",
                        limits.max_in_flight, limits.max_queued
                    ),
                ));
            }
            let place = Arc::clone(&state.places).acquire_owned().await;
            drop(waiting);
            self.place = place.ok();
            // Queued before a shutdown began: refused as a new request is.
            if state.closing.load(Ordering::SeqCst) {
                return Some(refuse(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "the server is shutting down",
                ));
            }
        }
        self.id = Some(state.running().insert(self.gone.clone()));
        None
    }
}

/// A request counted among those waiting for a place, until it is dropped.
struct Waiting<'a> {
    queued: &'a AtomicUsize,
    /// How many were waiting before it.
    ahead: usize,
}

impl<'a> Waiting<'a> {
    fn enter(queued: &'a AtomicUsize) -> Self {
        let ahead = queued.fetch_add(1, Ordering::SeqCst);
        Waiting { queued, ahead }
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.queued.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The refusal of a request before anything of it is taken: the server closing, a body
/// announced over the limit (`length`), no room for the new session a `post` without a
/// `session` opens.
async fn refused_at_once(
    state: &State,
    post: bool,
    length: Option<u64>,
    session: Option<&str>,
) -> Option<Response<HttpBody>> {
    let limits = &state.limits;
    if state.closing.load(Ordering::SeqCst) {
        return Some(refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            "the server is shutting down",
        ));
    }
    if length.is_some_and(|length| length > limits.max_body as u64) {
        return Some(refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!("the request body is over {} bytes", limits.max_body),
        ));
    }
    if post
        && session.is_none()
        && let Some(sessions) = &state.sessions
        && sessions.sessions.read().await.len() >= limits.max_sessions
    {
        return Some(refuse(
            StatusCode::TOO_MANY_REQUESTS,
            &format!(
                "the server holds its most sessions ({})",
                limits.max_sessions
            ),
        ));
    }
    None
}

/// Serves one request under the limits. A future made by hand (`async move`), boxed as it is
/// by `call`: an `async fn` keeps its arguments twice (the request is 264 bytes), and a block
/// around it once more (`-Zprint-type-sizes`).
#[expect(
    clippy::manual_async_fn,
    reason = "an async fn keeps its arguments twice in its future"
)]
fn handle<H, M, B>(
    state: Arc<State>,
    inner: Arc<StreamableHttpService<H, M>>,
    request: Request<B>,
) -> impl Future<Output = Result<Response<HttpBody>, Infallible>> + Send
where
    H: ServerHandler + Send + 'static,
    M: SessionManager,
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    async move {
        let (state, inner) = (&state, &*inner);
        let session = request
            .headers()
            .get(&SESSION_ID)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        let stream = request.method() == Method::GET;
        let post = request.method() == Method::POST;
        // The length the request announced (hyper's body knows its `content-length`): no second
        // lookup of the header.
        let length = request.body().size_hint().upper();
        if let Some(refusal) = refused_at_once(state, post, length, session.as_deref()).await {
            return Ok(refusal);
        }
        let caller = request.extensions().get::<Caller>().cloned();
        if let (Some(session), Some(caller)) = (&session, &caller)
            && state.owned_by_another(session, caller)
        {
            return Ok(no_such_session());
        }
        let mut held = Held::new(state);
        if (post || stream)
            && let Some(session) = &session
            && let Some(refusal) = held.count_in_session(session, stream)
        {
            return Ok(refusal);
        }
        if post && let Some(refusal) = held.take_place().await {
            return Ok(refusal);
        }
        let (mut parts, body) = request.into_parts();
        let bytes = if post {
            match read_body(body, &state.limits).await {
                Ok(bytes) => bytes,
                Err(refusal) => return Ok(refusal),
            }
        } else {
            Bytes::new()
        };
        parts.extensions.insert(RequestGone(held.gone.clone()));
        // Boxed where it is made: rmcp's request future is kilobytes large, and inline it made this
        // one as large, which `call`'s box then copied whole for every request (8.5 KB: the largest
        // single cost of the layer in a profile).
        let response = Box::pin(inner.handle(Request::from_parts(parts, Full::new(bytes)))).await;
        // A session opened behind an authorization belongs to its caller.
        if session.is_none()
            && let Some(caller) = &caller
            && let Some(opened) = response
                .headers()
                .get(&SESSION_ID)
                .and_then(|value| value.to_str().ok())
        {
            state.own(opened.to_owned(), caller).await;
        }
        let (parts, body) = response.into_parts();
        Ok(Response::from_parts(
            parts,
            Answer {
                body,
                held: Some(held),
            }
            .boxed(),
        ))
    }
}
