//! A running task's own questions (an MCP elicitation, say): asked through the store, answered
//! from any process by [`Tasks::answer`](super::Tasks::answer).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde_json::Value;

use super::record::TaskRecord;
use super::store::{TaskError, TaskStore, TaskUpdate};

/// What hears of a task's changes.
pub(super) type Watch = Arc<dyn Fn(&TaskRecord) + Send + Sync>;

/// Where a task's tool asks its questions: made before the task starts (handed to the tool in
/// its context, and to [`TaskStart::input`](super::TaskStart::input)), bound to the task when it
/// starts. [`ask`](Self::ask) sets the task `input_required` with the question under its key,
/// waits for the answer ([`Tasks::answer`](super::Tasks::answer), MCP's `tasks/update`), and
/// gives it; the task is `working` again once no question is open.
///
/// ```
/// use std::sync::Arc;
/// use toolwright::tasks::{TaskInput, TaskStart, TaskStatus, Tasks};
/// use toolwright::{ToolCall, Toolbox, tool};
///
/// /// Books a room, asking which one.
/// #[tool(task)]
/// async fn book(#[tool(context)] input: &TaskInput) -> String {
///     let question = serde_json::json!({"method": "elicitation/create", "params": {"message": "Which room?"}});
///     match input.ask("room", question).await {
///         Ok(answer) => format!("booked {}", answer["content"]["room"]),
///         Err(error) => format!("not booked: {error}"),
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let toolbox = Arc::new(Toolbox::for_context().with(BookTool)?);
/// let tasks = Tasks::in_memory(toolbox).poll_every(std::time::Duration::from_millis(5));
/// let input = TaskInput::new();
/// let start = TaskStart::new().owner("alice").input(input.clone());
/// let task = tasks.start(ToolCall::new("c1", "book", "{}"), input, start).await?;
/// let asked = loop {
///     let now = tasks.get(&task.id, "alice").await?;
///     if now.status == TaskStatus::InputRequired { break now; }
///     tokio::time::sleep(std::time::Duration::from_millis(5)).await;
/// };
/// assert!(asked.input_requests.contains_key("room"));
/// let answer = serde_json::json!({"action": "accept", "content": {"room": "B2"}});
/// tasks.answer(&task.id, "alice", [("room".to_owned(), answer)].into()).await?;
/// let done = tasks.wait(&task.id, "alice").await?;
/// assert_eq!(done.result.unwrap()["content"][0]["text"], "booked \"B2\"");
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Default)]
pub struct TaskInput(Arc<OnceLock<Bound>>);

/// The task a [`TaskInput`] asks for.
struct Bound {
    store: Arc<dyn TaskStore>,
    id: String,
    poll: Duration,
    watch: Option<Watch>,
}

impl fmt::Debug for TaskInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskInput")
            .field("task", &self.task_id())
            .finish()
    }
}

impl TaskInput {
    /// Questions for a task not started yet.
    pub fn new() -> Self {
        TaskInput::default()
    }

    /// The task's id, once it has started.
    pub fn task_id(&self) -> Option<&str> {
        self.0.get().map(|bound| bound.id.as_str())
    }

    pub(super) fn bind(
        &self,
        store: Arc<dyn TaskStore>,
        id: String,
        poll: Duration,
        watch: Option<Watch>,
    ) {
        let _ = self.0.set(Bound {
            store,
            id,
            poll,
            watch,
        });
    }

    /// Asks question `key` (`request`: an MCP input request such as
    /// `{"method": "elicitation/create", "params": {..}}`) and waits for its answer.
    ///
    /// # Errors
    /// [`TaskError::Refused`] when the task has not started, has ended (cancelled, say) or the
    /// key was asked before; the store failed.
    pub async fn ask(&self, key: &str, request: Value) -> Result<Value, TaskError> {
        let bound = self.0.get().ok_or_else(|| TaskError::Refused {
            id: String::new(),
            reason: "has not started: a question is asked from the task's own call".to_owned(),
        })?;
        let refused = |reason: String| TaskError::Refused {
            id: bound.id.clone(),
            reason,
        };
        let id = bound.id.as_str();
        let requests = BTreeMap::from([(key.to_owned(), request)]);
        let asked = bound
            .store
            .update(id, TaskUpdate::Ask { requests })
            .await?
            .ok_or_else(|| TaskError::Unknown(id.to_owned()))?;
        if !asked.applied {
            return Err(refused(format!("has ended: it is {}", asked.record.status)));
        }
        if let Some(watch) = &bound.watch {
            watch(&asked.record);
        }
        loop {
            tokio::time::sleep(bound.poll).await;
            let record = bound
                .store
                .get(id)
                .await?
                .ok_or_else(|| TaskError::Unknown(id.to_owned()))?;
            if record.status.is_terminal() {
                return Err(refused(format!(
                    "ended while waiting: it is {}",
                    record.status
                )));
            }
            let Some(answer) = record.input_responses.get(key).cloned() else {
                continue;
            };
            let keys = vec![key.to_owned()];
            if let Some(resumed) = bound.store.update(id, TaskUpdate::Resume { keys }).await?
                && resumed.applied
                && let Some(watch) = &bound.watch
            {
                watch(&resumed.record);
            }
            return Ok(answer);
        }
    }
}
