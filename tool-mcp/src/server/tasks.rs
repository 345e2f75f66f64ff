//! The MCP tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) served: a call of a tool
//! that runs as a task answers with a task handle, and `tasks/get`, `tasks/update` and
//! `tasks/cancel` read, answer and cancel it, on whichever replica shares the store.

use std::collections::BTreeMap;
use std::sync::Arc;

use rmcp::model::{
    CallToolResponse, CancelTaskParams, CreateTaskResult, DetailedTask, ErrorData, GetTaskParams,
    GetTaskResult, InputRequest, JsonObject, Task, TaskPayload, TaskStatus as McpStatus,
    TaskStatusNotification, TaskStatusNotificationParams, UpdateTaskParams,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;
use tokio::sync::mpsc;
use toolwright_runtime::exec::{Caller, Conversation};
use toolwright_runtime::tasks::{TaskError, TaskRecord, TaskStart, TaskStatus, Tasks, iso8601};
use toolwright_runtime::{ToolCall, ToolDefinition};

use super::McpServer;
use super::ask::Round;
use super::call::{into_call_tool_result, takes_structured};

/// Whom a request's tasks belong to: its authenticated caller; else its session (in this
/// process: a session is one replica's); else no one in particular (a stateless anonymous
/// request, whose task only its 128-bit id finds).
pub(super) fn owner(caller: Option<&Caller>, session: Option<(&str, u64)>) -> String {
    match (caller, session) {
        (Some(caller), _) => format!("caller:{}", caller.subject()),
        (None, Some((replica, number))) => format!("session:{replica}:{number}"),
        (None, None) => String::new(),
    }
}

fn status(status: TaskStatus) -> McpStatus {
    match status {
        TaskStatus::InputRequired => McpStatus::InputRequired,
        TaskStatus::Completed => McpStatus::Completed,
        TaskStatus::Failed => McpStatus::Failed,
        TaskStatus::Cancelled => McpStatus::Cancelled,
        _ => McpStatus::Working,
    }
}

fn object(value: Option<&Value>) -> JsonObject {
    match value {
        Some(Value::Object(object)) => object.clone(),
        _ => JsonObject::new(),
    }
}

/// A task as MCP writes it: `Task` and the payload of its status.
pub(super) fn task(record: &TaskRecord, poll_ms: u64) -> Task {
    let mut task = Task::new(
        record.id.clone(),
        status(record.status),
        iso8601(record.created_ms),
        iso8601(record.updated_ms),
    )
    .with_ttl_ms(record.ttl_ms)
    .with_poll_interval_ms(poll_ms);
    if let Some(message) = &record.message {
        task = task.with_status_message(message.clone());
    }
    task
}

pub(super) fn detailed(record: &TaskRecord, poll_ms: u64) -> DetailedTask {
    let payload = match record.status {
        TaskStatus::InputRequired => TaskPayload::InputRequired {
            input_requests: record
                .input_requests
                .iter()
                .filter(|(key, _)| !record.input_responses.contains_key(*key))
                .filter_map(|(key, request)| {
                    let request = serde_json::from_value::<InputRequest>(request.clone()).ok()?;
                    Some((key.clone(), request))
                })
                .collect(),
        },
        TaskStatus::Completed => TaskPayload::Completed {
            result: object(record.result.as_ref()),
        },
        TaskStatus::Failed => TaskPayload::Failed {
            error: object(record.error.as_ref()),
        },
        TaskStatus::Cancelled => TaskPayload::Cancelled,
        _ => TaskPayload::Working,
    };
    DetailedTask::new(task(record, poll_ms), payload)
}

fn failed(error: TaskError) -> ErrorData {
    match error {
        TaskError::Unknown(_) | TaskError::Refused { .. } => {
            ErrorData::invalid_params(error.to_string(), None)
        }
        _ => ErrorData::internal_error(error.to_string(), None),
    }
}

fn poll_ms<C: Send + Sync + 'static>(tasks: &Tasks<C>) -> u64 {
    u64::try_from(tasks.poll_interval().as_millis()).unwrap_or(u64::MAX)
}

impl<C: Send + Sync + 'static> McpServer<C> {
    /// Whom this request's tasks belong to.
    pub(super) fn task_owner(&self, context: &RequestContext<RoleServer>) -> String {
        let parts = context.extensions.get::<http::request::Parts>();
        let caller = super::caller_of(context);
        let on_session = parts.is_none_or(|parts| parts.headers.contains_key(&super::SESSION_ID));
        let replica = self.tasks.as_ref().map_or("", |tasks| tasks.replica());
        owner(
            caller.as_ref(),
            on_session.then_some((replica, self.session.number)),
        )
    }

    /// Whether a call of the tool `definition` describes runs as a task on this request: tasks
    /// are on, the tool is one, and the client declared the extension. (The definition the
    /// call's lookup found: no second lookup by name.)
    pub(super) fn runs_as_task(
        &self,
        definition: &ToolDefinition,
        context: &RequestContext<RoleServer>,
    ) -> bool {
        self.tasks
            .as_ref()
            .is_some_and(|tasks| tasks.task_rule().matches(definition))
            && context
                .client_capabilities()
                .is_some_and(|capabilities| capabilities.supports_tasks())
    }

    /// Starts `call` as a task, answering with its handle. Its changes go to the client as
    /// `notifications/tasks` while the session that started it is there to hear them.
    pub(super) async fn start_task(
        &self,
        call: ToolCall,
        ctx: C,
        conversation: Conversation,
        caller: Option<Caller>,
        output_schema: Option<&Value>,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let tasks = self.served_tasks()?;
        let version = context.protocol_version();
        let output_schema = output_schema
            .filter(|schema| takes_structured(version.as_ref(), schema))
            .cloned();
        let mut start = TaskStart::new()
            .owner(self.task_owner(context))
            .in_conversation(conversation)
            .encode(move |_, result| {
                serde_json::to_value(into_call_tool_result(result, output_schema.as_ref()))
                    .unwrap_or_default()
            });
        if let Some(caller) = caller {
            start = start.on_behalf_of(caller);
        }
        // Where the tool's questions go (`AskClient`): the call's round says.
        let input = context
            .extensions
            .get::<Arc<Round>>()
            .and_then(|round| round.task.get().cloned());
        if let Some(input) = input {
            start = start.input(input);
        }
        let poll = poll_ms(tasks);
        let (changes, mut heard) = mpsc::unbounded_channel::<DetailedTask>();
        let peer = context.peer.clone();
        tokio::spawn(async move {
            while let Some(task) = heard.recv().await {
                let notification =
                    TaskStatusNotification::new(TaskStatusNotificationParams::new(task));
                if peer.send_notification(notification.into()).await.is_err() {
                    break;
                }
            }
        });
        let start = start.watch(move |record| {
            let _ = changes.send(detailed(record, poll));
        });
        let record = tasks.start(call, ctx, start).await.map_err(failed)?;
        Ok(CallToolResponse::Task(CreateTaskResult::new(task(
            &record, poll,
        ))))
    }

    pub(super) async fn answer_get_task(
        &self,
        request: GetTaskParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let tasks = self.served_tasks()?;
        let owner = self.task_owner(context);
        let record = tasks.get(&request.task_id, &owner).await.map_err(failed)?;
        Ok(GetTaskResult::new(detailed(&record, poll_ms(tasks))))
    }

    pub(super) async fn answer_update_task(
        &self,
        request: UpdateTaskParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let tasks = self.served_tasks()?;
        let owner = self.task_owner(context);
        let responses: BTreeMap<String, Value> = request.input_responses.into_iter().collect();
        tasks
            .answer(&request.task_id, &owner, responses)
            .await
            .map(drop)
            .map_err(failed)
    }

    pub(super) async fn answer_cancel_task(
        &self,
        request: CancelTaskParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let tasks = self.served_tasks()?;
        let owner = self.task_owner(context);
        tasks
            .cancel(&request.task_id, &owner)
            .await
            .map(drop)
            .map_err(failed)
    }

    fn served_tasks(&self) -> Result<&Tasks<C>, ErrorData> {
        self.tasks
            .as_ref()
            .ok_or_else(ErrorData::method_not_found::<rmcp::model::GetTaskMethod>)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_belong_to_the_caller_else_the_session() {
        let alice = Caller::new("alice");
        assert_eq!(owner(Some(&alice), Some(("r", 1))), "caller:alice");
        assert_eq!(owner(None, Some(("r", 1))), "session:r:1");
        assert_ne!(owner(None, Some(("r", 1))), owner(None, Some(("r", 2))));
        assert_ne!(owner(None, Some(("r", 1))), owner(None, Some(("s", 1))));
        assert_eq!(owner(None, None), "");
    }
}
