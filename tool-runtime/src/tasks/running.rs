//! A task's life in the background: its call run through the toolbox while the task is held
//! (its lease renewed, its progress written, its cancellation heeded), its approval asked and
//! awaited, its end written.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};

use super::APPROVAL;
use super::record::{TaskStatus, now_ms};
use super::runner::{Inner, TaskStart, millis};
use super::store::{TaskUpdate, Updated};
use crate::__mcp::approval_params;
use crate::call::ToolCall;
use crate::forms::Provider;
use crate::result::ToolResult;
use crate::task::{Cancellation, Listen, LogMessage, Progress, ProgressSink};
use crate::toolbox::BatchOptions;

/// How long a cancelled body may wind down before it is dropped.
const GRACE: Duration = Duration::from_secs(2);

/// The progress a running task's tool reports, taken by the loop that writes it.
#[derive(Default)]
struct Live {
    report: Mutex<Option<Progress>>,
    changed: tokio::sync::Notify,
}

impl Listen for Live {
    fn progress(&self, report: Progress) -> bool {
        *self.report.lock().unwrap_or_else(PoisonError::into_inner) = Some(report);
        self.changed.notify_one();
        true
    }

    fn log(&self, _: LogMessage) -> bool {
        false
    }
}

impl<C: Send + Sync + 'static> Inner<C> {
    /// Runs one task to its end, in the background.
    pub(super) async fn run(
        &self,
        id: &str,
        call: ToolCall,
        ctx: C,
        start: TaskStart,
        stop: Cancellation,
    ) {
        let live = Arc::new(Live::default());
        let mut options = BatchOptions::new()
            .stop_signal(stop.clone())
            .progress(ProgressSink::to(Arc::clone(&live) as Arc<dyn Listen>));
        if let Some(caller) = start.caller.clone() {
            options = options.on_behalf_of(caller);
        }
        if let Some(conversation) = start.conversation.clone() {
            options = options.in_conversation(conversation);
        }
        let calls = [call];
        let ran = {
            let batch = pin!(self.toolbox.execute_all_with(&calls, &ctx, options));
            self.hold(id, batch, &live, &stop, &start).await
        };
        let Some(mut results) = ran else {
            return;
        };
        let [call] = calls;
        let Some(mut result) = results.pop() else {
            let error = json!({"code": -32603, "message": "the call gave no result"});
            self.end(id, TaskStatus::Failed, None, Some(error), &start)
                .await;
            return;
        };
        if let Some(interrupt) = result.interrupt() {
            let question = approval_question(&call, &interrupt.message);
            let Some(approved) = self.ask(id, question, &live, &stop, &start).await else {
                return;
            };
            result = if approved {
                let mut approval: Pin<Box<dyn Future<Output = ToolResult> + Send + '_>> =
                    match &start.caller {
                        Some(caller) => Box::pin(self.toolbox.approve_for(&call, &ctx, caller)),
                        None => Box::pin(self.toolbox.approve(&call, &ctx)),
                    };
                let approval = approval.as_mut();
                let Some(result) = self.hold(id, approval, &live, &stop, &start).await else {
                    return;
                };
                result
            } else {
                self.toolbox.reject(&call, "")
            };
        }
        let value = match &start.encode {
            Some(encode) => encode(&call, result),
            None => self
                .toolbox
                .encode_result(Provider::Mcp, &call, &result)
                .unwrap_or_else(|_| {
                    json!({"content": [{"type": "text", "text": result.text()}], "isError": result.is_error})
                }),
        };
        self.end(id, TaskStatus::Completed, Some(value), None, &start)
            .await;
    }

    /// Asks for approval and waits for the answer; `None`: the task ended meanwhile.
    async fn ask(
        &self,
        id: &str,
        question: Value,
        live: &Live,
        stop: &Cancellation,
        start: &TaskStart,
    ) -> Option<bool> {
        let requests = BTreeMap::from([(APPROVAL.to_owned(), question)]);
        let asked = self.store.update(id, TaskUpdate::Ask { requests }).await;
        Self::heard(asked.ok().flatten(), start)?;
        let answers = pin!(self.answers(id, APPROVAL));
        let answer = self.hold(id, answers, live, stop, start).await??;
        let keys = vec![APPROVAL.to_owned()];
        let resumed = self.store.update(id, TaskUpdate::Resume { keys }).await;
        Self::heard(resumed.ok().flatten(), start)?;
        Some(
            answer.get("action").and_then(Value::as_str) == Some("accept")
                && answer.pointer("/content/approve") == Some(&Value::Bool(true)),
        )
    }

    /// Tells the watcher of an applied change; `None` when the task has ended (or is gone).
    fn heard(updated: Option<Updated>, start: &TaskStart) -> Option<()> {
        let updated = updated?;
        if let (true, Some(watch)) = (updated.applied, &start.watch) {
            watch(&updated.record);
        }
        (!updated.record.status.is_terminal()).then_some(())
    }

    /// Polls the store until the question `key` is answered; `None` when the task ended.
    async fn answers(&self, id: &str, key: &str) -> Option<Value> {
        loop {
            tokio::time::sleep(self.poll).await;
            match self.store.get(id).await {
                Ok(Some(record)) if record.status.is_terminal() => return None,
                Ok(Some(record)) => {
                    if let Some(answer) = record.input_responses.get(key) {
                        return Some(answer.clone());
                    }
                }
                Ok(None) => return None,
                Err(error) => tracing::warn!(task = id, %error, "reading a task's answers"),
            }
        }
    }

    /// Drives `body` to its end while holding the task: renewing its lease, writing the
    /// tool's progress, and stopping the body when the task is cancelled or lost. `None`: the
    /// task ended before the body did.
    async fn hold<T>(
        &self,
        id: &str,
        mut body: Pin<&mut (impl Future<Output = T> + ?Sized)>,
        live: &Live,
        stop: &Cancellation,
        start: &TaskStart,
    ) -> Option<T> {
        let every = (self.lease / 3).min(Duration::from_secs(1));
        let mut renew = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        renew.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let ended = loop {
            tokio::select! {
                biased;
                out = body.as_mut() => return Some(out),
                () = stop.cancelled() => break true,
                () = live.changed.notified() => {
                    let report = live.report.lock().unwrap_or_else(PoisonError::into_inner).take();
                    if let Some(report) = report {
                        let update = TaskUpdate::Report {
                            message: report.message,
                            progress: Some(report.progress),
                            total: report.total,
                        };
                        match self.store.update(id, update).await {
                            Ok(updated) => {
                                if Self::heard(updated, start).is_none() {
                                    break true;
                                }
                            }
                            Err(error) => tracing::warn!(task = id, %error, "writing a task's progress"),
                        }
                    }
                }
                _ = renew.tick() => {
                    let lease_ms = now_ms().saturating_add(millis(self.lease));
                    let update = TaskUpdate::Renew { lease_ms, replica: self.replica.clone() };
                    match self.store.update(id, update).await {
                        Ok(Some(Updated { applied: true, .. })) => {}
                        // Cancelled, failed by a reader for a lease run out, or forgotten.
                        Ok(_) => break true,
                        Err(error) => tracing::warn!(task = id, %error, "renewing a task's lease"),
                    }
                }
            }
        };
        debug_assert!(ended);
        stop.cancel();
        let _ = tokio::time::timeout(GRACE, body).await;
        None
    }

    /// Writes the task's end, retrying while the store fails, for as long as the lease
    /// would have held it.
    async fn end(
        &self,
        id: &str,
        status: TaskStatus,
        result: Option<Value>,
        error: Option<Value>,
        start: &TaskStart,
    ) {
        let update = TaskUpdate::Finish {
            status,
            result,
            error,
        };
        let deadline = tokio::time::Instant::now() + self.lease;
        loop {
            match self.store.update(id, update.clone()).await {
                Ok(updated) => {
                    Self::heard(updated, start);
                    return;
                }
                Err(error) if tokio::time::Instant::now() < deadline => {
                    tracing::warn!(task = id, %error, "writing a task's end; trying again");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(error) => {
                    tracing::error!(task = id, %error, "a task's end could not be written");
                    return;
                }
            }
        }
    }
}

/// The approval question of a call that needs one: an MCP elicitation request.
fn approval_question(call: &ToolCall, message: &str) -> Value {
    json!({"method": "elicitation/create", "params": approval_params(call, message)})
}
