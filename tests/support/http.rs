//! Serving an HTTP service on a loopback port, as an application does with hyper, for the tests
//! that go through the real HTTP stack.

use std::convert::Infallible;
use std::net::SocketAddr;

use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use toolwright::mcp::HttpBody;

/// Serves `service` on a free loopback port until the test's runtime ends: its address.
pub async fn serve<S>(service: S) -> SocketAddr
where
    S: tower_service::Service<
            http::Request<hyper::body::Incoming>,
            Response = http::Response<HttpBody>,
            Error = Infallible,
        > + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
{
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    serve_on(listener, service);
    address
}

/// Serves `service` on `listener` (bound already, when the service must know its address)
/// until the test's runtime ends.
pub fn serve_on<S>(listener: tokio::net::TcpListener, service: S)
where
    S: tower_service::Service<
            http::Request<hyper::body::Incoming>,
            Response = http::Response<HttpBody>,
            Error = Infallible,
        > + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
{
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let service = TowerToHyperService::new(service.clone());
            tokio::spawn(async move {
                let _ = auto::Builder::new(TokioExecutor::new())
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
}
