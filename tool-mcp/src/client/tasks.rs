//! A remote tool that answers with a task (the tasks extension, SEP-2663): polled with
//! `tasks/get` until it ends, transparently for the toolbox call, whose result names the task in
//! its `_meta` (`io.modelcontextprotocol/related-task`).

use std::time::Duration;

use rmcp::model::{
    CallToolResult, CancelTaskParams, ContentBlock, GetTaskParams, JsonObject, Task, TaskPayload,
};
use rmcp::service::RoleClient;
use rmcp::{Peer, ServiceError};
use serde_json::{Value, json};
use toolwright_runtime::CallInfo;

/// The `_meta` key of the task a result came from.
pub(crate) const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// Cancels the task on the server when the call is dropped before the task ended (the
/// toolbox call was cancelled).
struct Following {
    peer: Peer<RoleClient>,
    id: String,
    ended: bool,
}

impl Drop for Following {
    fn drop(&mut self) {
        if !self.ended
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            let (peer, id) = (self.peer.clone(), std::mem::take(&mut self.id));
            runtime.spawn(async move {
                let _ = peer.cancel_task(CancelTaskParams::new(id)).await;
            });
        }
    }
}

fn failed(id: &str, message: &str) -> CallToolResult {
    let mut result = CallToolResult::error(vec![ContentBlock::text(format!(
        "the server's task {id} {message}"
    ))]);
    result.meta = Some(related(id, None));
    result
}

fn related(id: &str, meta: Option<JsonObject>) -> rmcp::model::MetaObject {
    let mut meta = meta.unwrap_or_default();
    meta.insert(RELATED_TASK.to_owned(), json!({"taskId": id}));
    rmcp::model::MetaObject(meta)
}

/// Polls the task `task` until it ends, at the interval the server asks for (10 ms to 5 s);
/// its status messages reach the call's `info`. A task that asks for input this client cannot
/// give is cancelled, and the call ends with an error saying so.
pub(crate) async fn finish(
    peer: &Peer<RoleClient>,
    task: Task,
    info: Option<&CallInfo>,
) -> Result<CallToolResult, ServiceError> {
    let mut following = Following {
        peer: peer.clone(),
        id: task.task_id.clone(),
        ended: false,
    };
    let id = task.task_id;
    let mut interval = task.poll_interval_ms;
    let mut polls = 0u32;
    let mut said = task.status_message;
    loop {
        let wait = interval.unwrap_or(500).clamp(10, 5000);
        tokio::time::sleep(Duration::from_millis(wait)).await;
        polls += 1;
        let got = peer.get_task(GetTaskParams::new(id.clone())).await?.task;
        interval = got.task.poll_interval_ms.or(interval);
        if got.task.status_message != said {
            said.clone_from(&got.task.status_message);
            if let (Some(info), Some(message)) = (info, &said) {
                info.report_progress(f64::from(polls), None, Some(message));
            }
        }
        let result = match got.payload {
            TaskPayload::Completed { result } => {
                match serde_json::from_value::<CallToolResult>(Value::Object(result)) {
                    Ok(mut result) => {
                        result.meta = Some(related(&id, result.meta.take().map(|meta| meta.0)));
                        result
                    }
                    Err(error) => failed(
                        &id,
                        &format!("ended with a result that is not one: {error}"),
                    ),
                }
            }
            TaskPayload::Failed { error } => {
                let message = error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("(no message)");
                failed(&id, &format!("failed: {message}"))
            }
            TaskPayload::Cancelled => failed(&id, "was cancelled on the server"),
            TaskPayload::InputRequired { input_requests } => {
                let keys: Vec<&String> = input_requests.keys().collect();
                // Left to `following`'s drop: the task is cancelled.
                return Ok(failed(
                    &id,
                    &format!(
                        "asks for input ({keys:?}) that a toolbox call cannot give; it was cancelled"
                    ),
                ));
            }
            _ => continue,
        };
        following.ended = true;
        return Ok(result);
    }
}
