//! What every MCP request pays for toolwright's handler: rmcp keeps the handler's future inline in
//! the task it spawns for each request and copies that task whole several times a request, so
//! the future's size is paid by every request, whatever it does. Issue 45's spans (an `async fn`
//! that kept the call's future twice) and issue 47's search answer (inline in every call) had
//! taken the server's instructions a call from 175k to 288k (BENCHMARKS.md, "MCP cost"). With
//! the spans' future fixed, the future was still 5.6 KB and the task rmcp spawns for a
//! stateless request 8.4 KB; with the search boxed, 4.7 KB and 7.5 KB (`-Zprint-type-sizes`).
//! This test keeps the future within a bound.

use std::sync::Arc;

use rmcp::Service as _;
use rmcp::model::{CallToolRequestParams, ClientRequest, Request, RequestId};
use rmcp::service::{RequestContext, RoleServer, serve_directly};
use serde_json::json;
use toolwright::mcp::McpServer;
use toolwright::{Toolbox, tool};

/// Add two integers.
#[tool(read_only)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// The bound on the future of one request of any method, with a call's at its largest. The
/// size is rustc's layout of toolwright's handler (4.7 KB when this test was written, rmcp's own
/// dispatch about 2.6 KB of it): a change that adds a kilobyte to every call's future fails
/// here, and belongs behind a `Box::pin` on the path that needs it.
const LIMIT: usize = 5_120;

#[tokio::test]
async fn a_request_future_stays_within_its_bound() {
    let toolbox = Toolbox::new().with(AddTool).unwrap();
    let server = McpServer::new(Arc::new(toolbox), ()).unwrap();
    // A peer for the request's context: the server served on a pipe no one writes to.
    let (transport, _other_end) = tokio::io::duplex(64);
    let running = serve_directly(server.clone(), transport, None);
    let context = RequestContext::<RoleServer>::new(RequestId::Number(1), running.peer().clone());
    let arguments = json!({"a": 2, "b": 3}).as_object().cloned().unwrap();
    let request = ClientRequest::CallToolRequest(Request::new(
        CallToolRequestParams::new("add").with_arguments(arguments),
    ));
    let future = server.handle_request(request, context);
    let size = size_of_val(&future);
    println!("a request's future: {size} bytes");
    assert!(
        size <= LIMIT,
        "the future rmcp keeps for each request is {size} bytes, over {LIMIT}: \
         box the new path (BENCHMARKS.md, \"MCP cost\")"
    );
    // The future measured is the one that answers the call.
    let answer = serde_json::to_value(future.await.unwrap()).unwrap();
    assert_eq!(answer["content"][0]["text"], "5", "{answer}");
}
