//! Serving an HTTP service on a loopback port, as an application does with hyper, for the tests
//! that go through the real HTTP stack (MCP's, and the OpenAI-compatible server of the client
//! tests).
#![allow(dead_code)]

use std::convert::Infallible;
use std::net::SocketAddr;

use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use toolwright::mcp::HttpBody;

/// What the MCP tests serve: a tower service of hyper's requests answering with the MCP crate's
/// body, cloned per connection.
pub trait McpService:
    tower_service::Service<
        http::Request<hyper::body::Incoming>,
        Response = http::Response<HttpBody>,
        Error = Infallible,
        Future: Send + 'static,
    > + Clone
    + Send
    + 'static
{
}

impl<S> McpService for S where
    S: tower_service::Service<
            http::Request<hyper::body::Incoming>,
            Response = http::Response<HttpBody>,
            Error = Infallible,
            Future: Send + 'static,
        > + Clone
        + Send
        + 'static
{
}

/// Serves `service` on a free loopback port until the test's runtime ends: its address.
pub async fn serve(service: impl McpService) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    serve_on(listener, service);
    address
}

/// Serves `service` on `listener` (bound already, when the service must know its address)
/// until the test's runtime ends.
pub fn serve_on(listener: tokio::net::TcpListener, service: impl McpService) {
    serve_hyper(listener, TowerToHyperService::new(service));
}

/// Serves a hyper service (cloned per connection) on `listener` until the test's runtime ends.
pub fn serve_hyper<S, B>(listener: tokio::net::TcpListener, service: S)
where
    S: hyper::service::Service<http::Request<hyper::body::Incoming>, Response = http::Response<B>>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    S::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    B: hyper::body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let service = service.clone();
            tokio::spawn(async move {
                let _ = auto::Builder::new(TokioExecutor::new())
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
}
