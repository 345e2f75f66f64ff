//! Where tasks live: the store trait, the changes a task goes through, and the in-memory store.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use serde_json::Value;

use super::record::{TaskRecord, TaskStatus, now_ms};

/// What a store's operations return: a boxed future, so that the trait is object safe.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// A store that could not do what was asked (unreachable, or its data unreadable).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the task store failed: {0}")]
pub struct StoreError(pub String);

/// Why a task could not be started, read, answered or cancelled.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TaskError {
    /// No such task for this owner: never created, forgotten after its time to live, or
    /// another owner's (told apart from none, it would say that the id exists).
    #[error("no task `{0}`")]
    Unknown(String),
    /// The task does not take this: answers while it waits for none, or to questions it did
    /// not ask.
    #[error("task `{id}` {reason}")]
    Refused {
        /// The task.
        id: String,
        /// Why, as a sentence's end.
        reason: String,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Tasks run in the background on tokio, and no tokio runtime runs here.
    #[error("a task runs on a tokio runtime, and this code runs outside one")]
    NoRuntime,
}

/// One change to a task. A store applies it atomically, by the rules of [`TaskUpdate::apply`]
/// (which [`MemoryStore`] uses as written, and a store of its own can too): a task that has
/// ended changes no more, so no result is given twice.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum TaskUpdate {
    /// The tool reported progress: the fields given are set (while the task has not ended).
    Report {
        /// What the tool is doing.
        message: Option<String>,
        /// The progress so far.
        progress: Option<f64>,
        /// The total.
        total: Option<f64>,
    },
    /// The running process holds the task until `lease_ms` (while it has not ended).
    Renew {
        /// The lease's new end.
        lease_ms: u64,
        /// The process holding it.
        replica: String,
    },
    /// The task asks questions and waits: status `input_required` (while it has not ended).
    Ask {
        /// The questions, by key (added to those asked already).
        requests: BTreeMap<String, Value>,
    },
    /// Answers to the task's questions: applied only while it waits for input, and only when
    /// every key is a question asked and not answered yet.
    Respond {
        /// The answers, by key.
        responses: BTreeMap<String, Value>,
    },
    /// The task took the answers to `keys`: those questions and answers are removed, and with
    /// none left the task is working again.
    Resume {
        /// The questions answered.
        keys: Vec<String>,
    },
    /// The task ended with a result (`completed`) or an error (`failed`), if it had not ended.
    Finish {
        /// `Completed` or `Failed`.
        status: TaskStatus,
        /// The result, for `completed`.
        result: Option<Value>,
        /// The error, for `failed`.
        error: Option<Value>,
    },
    /// The task is cancelled, if it had not ended.
    Cancel,
    /// The task's lease ran out: it fails with `error`, if it has not ended and its lease is
    /// still over when the store applies this.
    Expire {
        /// The error it fails with.
        error: Value,
    },
}

/// What an update did: whether it was applied, and the task after it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Updated {
    /// Whether the update changed the task (an ended task, or answers to questions not asked,
    /// are refused).
    pub applied: bool,
    /// The task after the update.
    pub record: TaskRecord,
}

impl TaskUpdate {
    /// Applies the update to `record` at `now`; returns whether it was applied. A store that
    /// keeps whole records applies updates with this, under its lock or transaction.
    pub fn apply(&self, record: &mut TaskRecord, now: u64) -> bool {
        let live = !record.status.is_terminal();
        let applied = match self {
            TaskUpdate::Report {
                message,
                progress,
                total,
            } => {
                if live {
                    if message.is_some() {
                        record.message.clone_from(message);
                    }
                    record.progress = progress.or(record.progress);
                    record.total = total.or(record.total);
                }
                live
            }
            TaskUpdate::Renew { lease_ms, replica } => {
                if live {
                    record.lease_ms = *lease_ms;
                    record.replica.clone_from(replica);
                }
                // Not a change anyone reads: `updated_ms` stays.
                return live;
            }
            TaskUpdate::Ask { requests } => {
                if live {
                    record.status = TaskStatus::InputRequired;
                    record
                        .input_requests
                        .extend(requests.iter().map(|(k, v)| (k.clone(), v.clone())));
                }
                live
            }
            TaskUpdate::Respond { responses } => {
                let takes = record.status == TaskStatus::InputRequired
                    && responses.keys().all(|key| {
                        record.input_requests.contains_key(key)
                            && !record.input_responses.contains_key(key)
                    });
                if takes {
                    record
                        .input_responses
                        .extend(responses.iter().map(|(k, v)| (k.clone(), v.clone())));
                }
                takes
            }
            TaskUpdate::Resume { keys } => {
                let takes = record.status == TaskStatus::InputRequired;
                if takes {
                    for key in keys {
                        record.input_requests.remove(key);
                        record.input_responses.remove(key);
                    }
                    if record.input_requests.is_empty() {
                        record.status = TaskStatus::Working;
                    }
                }
                takes
            }
            TaskUpdate::Finish {
                status,
                result,
                error,
            } => {
                if live {
                    record.status = *status;
                    record.result.clone_from(result);
                    record.error.clone_from(error);
                }
                live
            }
            TaskUpdate::Cancel => {
                if live {
                    record.status = TaskStatus::Cancelled;
                }
                live
            }
            TaskUpdate::Expire { error } => {
                let over = record.lease_ran_out(now);
                if over {
                    record.status = TaskStatus::Failed;
                    record.error = Some(error.clone());
                }
                over
            }
        };
        if applied {
            record.updated_ms = now;
        }
        applied
    }
}

/// Where tasks live. Every operation is atomic for its task; several processes may share one
/// store (that is what it is for), so a store keeps no state of its own in a process but a
/// connection.
///
/// A store forgets a task once its time to live ([`TaskRecord::ttl_ms`], from its creation) has
/// passed.
pub trait TaskStore: Send + Sync + 'static {
    /// Writes a new task; it is stored (as durably as the store is) when the future ends.
    fn create<'a>(&'a self, record: &'a TaskRecord) -> StoreFuture<'a, ()>;

    /// The task `id`, if the store has it.
    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>>;

    /// Applies `update` to the task `id` atomically (by [`TaskUpdate::apply`]'s rules); `None`
    /// when the store has no such task.
    fn update<'a>(&'a self, id: &'a str, update: TaskUpdate) -> StoreFuture<'a, Option<Updated>>;
}

/// Tasks in this process's memory: the default store, with nothing to run. Tasks do not outlive
/// the process, and other processes do not see them (a store such as
/// [`RedisStore`](super::RedisStore) does).
#[derive(Debug, Default)]
pub struct MemoryStore {
    tasks: Mutex<HashMap<String, TaskRecord>>,
    /// When the forgotten were last dropped (milliseconds since the epoch).
    purged: AtomicU64,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        MemoryStore::default()
    }

    fn with<T>(&self, id: &str, then: impl FnOnce(&mut TaskRecord, u64) -> T) -> Option<T> {
        let now = now_ms();
        let mut tasks = self.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        // The forgotten go when the store is used, at most once a second (a pass over every
        // task); one asked for is never given past its time.
        if now >= self.purged.load(Ordering::Relaxed).saturating_add(1000) {
            self.purged.store(now, Ordering::Relaxed);
            tasks.retain(|_, record| !record.is_expired(now));
        }
        match tasks.get_mut(id) {
            Some(record) if record.is_expired(now) => {
                tasks.remove(id);
                None
            }
            Some(record) => Some(then(record, now)),
            None => None,
        }
    }
}

impl TaskStore for MemoryStore {
    fn create<'a>(&'a self, record: &'a TaskRecord) -> StoreFuture<'a, ()> {
        let mut tasks = self.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        let taken = tasks.contains_key(&record.id);
        if !taken {
            tasks.insert(record.id.clone(), record.clone());
        }
        drop(tasks);
        Box::pin(std::future::ready(if taken {
            Err(StoreError(format!("task {} exists already", record.id)))
        } else {
            Ok(())
        }))
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        Box::pin(std::future::ready(Ok(
            self.with(id, |record, _| record.clone())
        )))
    }

    fn update<'a>(&'a self, id: &'a str, update: TaskUpdate) -> StoreFuture<'a, Option<Updated>> {
        let updated = self.with(id, |record, now| Updated {
            applied: update.apply(record, now),
            record: record.clone(),
        });
        Box::pin(std::future::ready(Ok(updated)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn task() -> TaskRecord {
        TaskRecord::new("t".into(), "o".into(), "tool".into(), 1000, 60_000)
    }

    #[test]
    fn an_ended_task_changes_no_more() {
        let mut record = task();
        let finish = TaskUpdate::Finish {
            status: TaskStatus::Completed,
            result: Some(json!({"content": []})),
            error: None,
        };
        assert!(finish.apply(&mut record, 2000));
        for update in [
            finish.clone(),
            TaskUpdate::Cancel,
            TaskUpdate::Expire { error: json!({}) },
            TaskUpdate::Report {
                message: Some("late".into()),
                progress: None,
                total: None,
            },
        ] {
            let before = record.clone();
            assert!(!update.apply(&mut record, 3000), "{update:?}");
            assert_eq!(record, before);
        }
    }

    #[test]
    fn answers_are_taken_only_for_questions_asked_and_open() {
        let mut record = task();
        let answer = |key: &str| TaskUpdate::Respond {
            responses: BTreeMap::from([(key.to_owned(), json!({"action": "accept"}))]),
        };
        // Not waiting for input.
        assert!(!answer("q").apply(&mut record, 1));
        let ask = TaskUpdate::Ask {
            requests: BTreeMap::from([("q".to_owned(), json!({"method": "elicitation/create"}))]),
        };
        assert!(ask.apply(&mut record, 2));
        assert_eq!(record.status, TaskStatus::InputRequired);
        assert!(!answer("other").apply(&mut record, 3));
        assert!(answer("q").apply(&mut record, 4));
        // Answered once only.
        assert!(!answer("q").apply(&mut record, 5));
        let resume = TaskUpdate::Resume {
            keys: vec!["q".into()],
        };
        assert!(resume.apply(&mut record, 6));
        assert_eq!(record.status, TaskStatus::Working);
        assert!(record.input_requests.is_empty() && record.input_responses.is_empty());
    }

    #[test]
    fn a_lease_expires_only_once_over() {
        let mut record = task();
        record.lease_ms = 5000;
        let expire = TaskUpdate::Expire {
            error: json!({"code": -32603, "message": "gone"}),
        };
        assert!(!expire.apply(&mut record, 5000));
        assert_eq!(record.status, TaskStatus::Working);
        assert!(expire.apply(&mut record, 5001));
        assert_eq!(record.status, TaskStatus::Failed);
    }
}
