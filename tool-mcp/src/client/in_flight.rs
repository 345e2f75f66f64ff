//! The toolbox calls in flight through an MCP server's tools, by the progress token of the
//! request that carries each: where the server's progress for a call goes (the call's
//! [`CallInfo`], and on to whoever runs the toolbox: a provider's stream, an MCP server of
//! toolwright's own).
//!
//! Log messages are not carried to the call: MCP ties a `notifications/message` to no request,
//! and rmcp's client (3.11) marks the response stream a message came on for requests only, so
//! which call a log message belongs to is not known; it reaches the client's
//! [`on_log`](super::McpClient::on_log) listener and `tracing`.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam,
    ClientRequest, ProgressNotificationParam, ProgressToken, RequestId, ServerResult,
};
use rmcp::service::{PeerRequestOptions, RequestHandle, RoleClient};
use rmcp::{Peer, ServiceError};
use toolwright_runtime::CallInfo;

use crate::telemetry::Id;

/// How many progress notifications for no known call are kept for a call about to be known:
/// rmcp names a request's progress token only once it is sent, and a report may come first.
const EARLY: usize = 32;

/// The calls in flight, shared by a client's handler and the tools listed through it.
#[derive(Default)]
pub(crate) struct InFlight {
    calls: Mutex<Calls>,
}

#[derive(Default)]
struct Calls {
    by_token: HashMap<ProgressToken, CallInfo>,
    early: VecDeque<ProgressNotificationParam>,
}

impl InFlight {
    fn calls(&self) -> std::sync::MutexGuard<'_, Calls> {
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A progress notification: to its call's info, or kept a moment for a call about to be known.
    pub(crate) fn progress(&self, params: ProgressNotificationParam) {
        let mut calls = self.calls();
        match calls.by_token.get(&params.progress_token) {
            Some(info) => report(info, &params),
            None => calls.keep(params),
        }
    }

    /// Calls a tool on the server for the toolbox call `info`: the server's progress for it
    /// reaches `info`, and a call dropped before its answer is cancelled on the server
    /// (`notifications/cancelled`).
    pub(crate) async fn call(
        self: &Arc<Self>,
        peer: &Peer<RoleClient>,
        params: CallToolRequestParams,
        info: CallInfo,
    ) -> Result<CallToolResult, ServiceError> {
        let handle = send(peer, params).await?;
        let task_info = info.clone();
        let mut registered = Registered {
            in_flight: Arc::clone(self),
            peer: peer.clone(),
            token: handle.progress_token.clone(),
            id: handle.id.clone(),
            answered: false,
        };
        self.register(&registered.token, info);
        let answer = handle.await_response().await;
        registered.answered = true;
        tool_result(peer, answer?, Some(&task_info)).await
    }

    fn register(&self, token: &ProgressToken, info: CallInfo) {
        let mut calls = self.calls();
        // What came before the call was known.
        let early = std::mem::take(&mut calls.early);
        for params in early {
            if params.progress_token == *token {
                report(&info, &params);
            } else {
                calls.early.push_back(params);
            }
        }
        calls.by_token.insert(token.clone(), info);
    }
}

/// Calls a tool on the server, outside an [`InFlight`] (a peer of the application's own).
pub(crate) async fn call(
    peer: &Peer<RoleClient>,
    params: CallToolRequestParams,
) -> Result<CallToolResult, ServiceError> {
    tool_result(
        peer,
        send(peer, params).await?.await_response().await?,
        None,
    )
    .await
}

/// Sends a `tools/call`; its id goes on the current span (the call's, `jsonrpc.request.id`).
async fn send(
    peer: &Peer<RoleClient>,
    params: CallToolRequestParams,
) -> Result<RequestHandle<RoleClient>, ServiceError> {
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    let handle = peer
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await?;
    tracing::Span::current().record("jsonrpc.request.id", Id(&handle.id).to_string());
    Ok(handle)
}

/// The result of a call from the server's answer: the result itself, or, for a task (the tasks
/// extension, SEP-2663), the task's result once it ends (`finish`).
async fn tool_result(
    peer: &Peer<RoleClient>,
    answer: ServerResult,
    info: Option<&CallInfo>,
) -> Result<CallToolResult, ServiceError> {
    match answer {
        ServerResult::CallToolResult(result) => Ok(result),
        ServerResult::CreateTaskResult(created) => {
            super::tasks::finish(peer, created.task, info).await
        }
        _ => Err(ServiceError::UnexpectedResponse),
    }
}

impl Calls {
    fn keep(&mut self, params: ProgressNotificationParam) {
        if self.early.len() == EARLY {
            self.early.pop_front();
        }
        self.early.push_back(params);
    }
}

fn report(info: &CallInfo, params: &ProgressNotificationParam) {
    info.report_progress(params.progress, params.total, params.message.as_deref());
}

/// A call's place in [`InFlight`], given up when the call ends; a call dropped before its answer
/// is cancelled on the server.
struct Registered {
    in_flight: Arc<InFlight>,
    peer: Peer<RoleClient>,
    token: ProgressToken,
    id: RequestId,
    answered: bool,
}

impl Drop for Registered {
    fn drop(&mut self) {
        {
            self.in_flight.calls().by_token.remove(&self.token);
        }
        if !self.answered
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            let peer = self.peer.clone();
            let params = CancelledNotificationParam::new(
                Some(self.id.clone()),
                Some("the call was cancelled".to_owned()),
            );
            runtime.spawn(async move {
                let _ = peer.notify_cancelled(params).await;
            });
        }
    }
}
