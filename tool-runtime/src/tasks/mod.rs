//! Long-running tools as tasks: a call that answers at once with a task handle while its body
//! runs in the background, kept in a [`TaskStore`] that any process can read.
//!
//! The shape is the MCP tasks extension's (`io.modelcontextprotocol/tasks`, SEP-2663), which
//! `toolwright::mcp` serves; the same API works without MCP, for an application with its own HTTP
//! API or job queue:
//!
//! - [`Tasks::start`] writes the task to the store (durably, before it returns) and runs the call
//!   in the background through the toolbox's whole pipeline: arguments, scopes, hooks, timeouts,
//!   panics as results, one result per call.
//! - [`Tasks::get`] reads it from any process sharing the store, [`Tasks::wait`] waits for its
//!   end, [`Tasks::answer`] answers its input requests (a call that needs approval asks for it
//!   with status [`TaskStatus::InputRequired`]), [`Tasks::cancel`] cancels it (the body sees its
//!   cancellation, as a batch's does).
//! - The process running a task holds a lease on it, renewed while the body runs; a task whose
//!   lease ran out (its process died) is read as [`TaskStatus::Failed`] with an error saying so,
//!   never as working forever.
//! - Each task belongs to its owner (the caller's subject, or a session's key): another owner's
//!   read gets the same error as an unknown task.
//!
//! [`MemoryStore`] keeps tasks in the process; [`RedisStore`] (feature `redis`) in Redis, for
//! several replicas; [`TaskStore`] is the trait for an application's own database.
//!
//! ```
//! use std::sync::Arc;
//! use toolwright::tasks::{TaskStart, TaskStatus, Tasks};
//! use toolwright::{ToolCall, Toolbox, tool};
//!
//! /// Builds the quarterly report.
//! #[tool(task)]
//! async fn report(quarter: u8) -> String {
//!     format!("report for Q{quarter}")
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let toolbox = Arc::new(Toolbox::new().with(ReportTool)?);
//! let tasks = Tasks::in_memory(toolbox);
//! let call = ToolCall::new("c1", "report", r#"{"quarter": 3}"#);
//! let task = tasks.start(call, (), TaskStart::new().owner("alice")).await?;
//! assert_eq!(task.status, TaskStatus::Working);
//!
//! let done = tasks.wait(&task.id, "alice").await?;
//! assert_eq!(done.status, TaskStatus::Completed);
//! assert_eq!(done.result.unwrap()["content"][0]["text"], "report for Q3");
//! // Another owner cannot see it.
//! assert!(tasks.get(&task.id, "bob").await.is_err());
//! # Ok(())
//! # }
//! ```

mod input;
mod record;
#[cfg(feature = "redis")]
mod redis;
mod rule;
mod runner;
mod running;
mod store;

pub use self::input::TaskInput;
pub use self::record::{TaskRecord, TaskStatus, iso8601};
#[cfg(feature = "redis")]
pub use self::redis::RedisStore;
pub use self::rule::TaskRule;
pub use self::runner::{TaskStart, Tasks};
pub use self::store::{
    MemoryStore, StoreError, StoreFuture, TaskError, TaskStore, TaskUpdate, Updated,
};

/// The key of the approval question a task asks ([`TaskRecord::input_requests`]), answered with
/// an elicitation result: `{"action": "accept", "content": {"approve": true}}` approves.
pub const APPROVAL: &str = "toolwright/approval";
