//! Running calls as tasks: started into the store, run in the background, read, answered and
//! cancelled from any process sharing the store.

use std::collections::{BTreeMap, HashMap};
use std::fmt::{self, Write as _};
use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};

use super::APPROVAL;
use super::record::{TaskRecord, TaskStatus, iso8601, now_ms};
use super::rule::TaskRule;
use super::store::{MemoryStore, StoreError, TaskStore, TaskUpdate, Updated};
use crate::call::ToolCall;
use crate::caller::Caller;
use crate::forms::Provider;
use crate::result::ToolResult;
use crate::task::{Cancellation, Conversation, Listen, LogMessage, Progress, ProgressSink};
use crate::toolbox::{BatchOptions, Toolbox};

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

/// How a call's result is written into its task ([`TaskRecord::result`]).
type Encode = Arc<dyn Fn(&ToolCall, ToolResult) -> Value + Send + Sync>;
/// What hears of a task's changes.
type Watch = Arc<dyn Fn(&TaskRecord) + Send + Sync>;

/// How one task is started: whose it is, who the call is made for, and who hears of it.
#[derive(Clone, Default)]
pub struct TaskStart {
    owner: String,
    caller: Option<Caller>,
    conversation: Option<Conversation>,
    encode: Option<Encode>,
    watch: Option<Watch>,
}

impl fmt::Debug for TaskStart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskStart")
            .field("owner", &self.owner)
            .field("caller", &self.caller)
            .finish_non_exhaustive()
    }
}

impl TaskStart {
    /// A task owned by no one in particular (the owner `""`), for a call made for no one.
    pub fn new() -> Self {
        TaskStart::default()
    }

    /// The task belongs to `owner`: only reads naming the same owner find it.
    #[must_use]
    pub fn owner(mut self, owner: impl Into<String>) -> Self {
        self.owner = owner.into();
        self
    }

    /// The call is made for `caller` (its scopes checked, as a batch's are); the task belongs
    /// to the caller's subject unless [`owner`](Self::owner) says otherwise.
    #[must_use]
    pub fn on_behalf_of(mut self, caller: Caller) -> Self {
        if self.owner.is_empty() {
            caller.subject().clone_into(&mut self.owner);
        }
        self.caller = Some(caller);
        self
    }

    /// The call spends `conversation`'s retry budget and sees its found tools.
    #[must_use]
    pub fn in_conversation(mut self, conversation: Conversation) -> Self {
        self.conversation = Some(conversation);
        self
    }

    /// Writes the call's result with `encode` (by default MCP's `CallToolResult`, as
    /// [`Toolbox::encode_result`] writes it).
    #[must_use]
    pub fn encode(
        mut self,
        encode: impl Fn(&ToolCall, ToolResult) -> Value + Send + Sync + 'static,
    ) -> Self {
        self.encode = Some(Arc::new(encode));
        self
    }

    /// Calls `watch` with the task after each change this process makes to it (progress,
    /// questions, its end), in order: MCP's `notifications/tasks`.
    #[must_use]
    pub fn watch(mut self, watch: impl Fn(&TaskRecord) + Send + Sync + 'static) -> Self {
        self.watch = Some(Arc::new(watch));
        self
    }
}

/// A toolbox's calls run as tasks, kept in a [`TaskStore`]: see [the module](super).
pub struct Tasks<C> {
    inner: Arc<Inner<C>>,
}

impl<C> Clone for Tasks<C> {
    fn clone(&self) -> Self {
        Tasks {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<C> fmt::Debug for Tasks<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tasks")
            .field("rule", &self.inner.rule)
            .field("ttl", &self.inner.ttl)
            .field("lease", &self.inner.lease)
            .field("replica", &self.inner.replica)
            .finish_non_exhaustive()
    }
}

struct Inner<C> {
    toolbox: Arc<Toolbox<C>>,
    store: Arc<dyn TaskStore>,
    rule: TaskRule,
    ttl: Duration,
    lease: Duration,
    poll: Duration,
    replica: String,
    /// The stop signals of the tasks this process runs, by id.
    running: Mutex<HashMap<String, Cancellation>>,
}

/// How long a cancelled body may wind down before it is dropped.
const GRACE: Duration = Duration::from_secs(2);

impl<C: Send + Sync + 'static> Tasks<C> {
    /// `toolbox`'s calls as tasks kept in `store`. Defaults: tasks kept an hour, a lease of 10
    /// seconds, clients asked to poll every half second, only tools marked `#[tool(task)]`.
    pub fn new(toolbox: Arc<Toolbox<C>>, store: Arc<dyn TaskStore>) -> Self {
        let mut bits = [0u8; 4];
        let tag = getrandom::fill(&mut bits).map_or(0, |()| u32::from_le_bytes(bits));
        Tasks {
            inner: Arc::new(Inner {
                toolbox,
                store,
                rule: TaskRule::none(),
                ttl: Duration::from_secs(3600),
                lease: Duration::from_secs(10),
                poll: Duration::from_millis(500),
                replica: format!("{}-{tag:08x}", std::process::id()),
                running: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// `toolbox`'s calls as tasks kept in this process's memory ([`MemoryStore`]).
    pub fn in_memory(toolbox: Arc<Toolbox<C>>) -> Self {
        Tasks::new(toolbox, Arc::new(MemoryStore::new()))
    }

    fn configure(mut self, change: impl FnOnce(&mut Inner<C>)) -> Self {
        // Settings are made before the first task, while the value is not shared.
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            change(inner);
        } else {
            {
                let inner = &*self.inner;
                let mut copy = Inner {
                    toolbox: Arc::clone(&inner.toolbox),
                    store: Arc::clone(&inner.store),
                    rule: inner.rule.clone(),
                    ttl: inner.ttl,
                    lease: inner.lease,
                    poll: inner.poll,
                    replica: inner.replica.clone(),
                    running: Mutex::new(HashMap::new()),
                };
                change(&mut copy);
                self.inner = Arc::new(copy);
            }
        }
        self
    }

    /// Which tools run as tasks besides those marked so.
    #[must_use]
    pub fn rule(self, rule: TaskRule) -> Self {
        self.configure(|inner| inner.rule = rule)
    }

    /// How long the store keeps a task, from its creation.
    #[must_use]
    pub fn ttl(self, ttl: Duration) -> Self {
        self.configure(|inner| inner.ttl = ttl)
    }

    /// How long a task is held without word from the process running it: the process renews
    /// it while the body runs (every third of it, or every second if sooner), and a task not
    /// renewed in time is read as failed.
    #[must_use]
    pub fn lease(self, lease: Duration) -> Self {
        self.configure(|inner| inner.lease = lease.max(Duration::from_millis(30)))
    }

    /// How often a waiting reader polls the store (and clients are asked to).
    #[must_use]
    pub fn poll_every(self, poll: Duration) -> Self {
        self.configure(|inner| inner.poll = poll.max(Duration::from_millis(1)))
    }

    /// Names this process in the tasks it runs ([`TaskRecord::replica`]); by default its
    /// process id and a random tag.
    #[must_use]
    pub fn replica_name(self, name: impl Into<String>) -> Self {
        let name = name.into();
        self.configure(|inner| inner.replica = name)
    }

    /// The toolbox whose calls run.
    pub fn toolbox(&self) -> &Arc<Toolbox<C>> {
        &self.inner.toolbox
    }

    /// The name of this process in its tasks.
    pub fn replica(&self) -> &str {
        &self.inner.replica
    }

    /// How often readers are asked to poll.
    pub fn poll_interval(&self) -> Duration {
        self.inner.poll
    }

    /// Whether a call of the tool `name` runs as a task (an unknown tool does not).
    pub fn runs_as_task(&self, name: &str) -> bool {
        self.inner
            .toolbox
            .get(name)
            .is_some_and(|tool| self.inner.rule.matches(tool.definition()))
    }

    /// Starts `call` as a task: the task is written to the store (its future ends once it is
    /// stored), then the call runs in the background with `ctx`, through the toolbox's whole
    /// pipeline, and its result is written to the task.
    ///
    /// # Errors
    /// The store failed (nothing runs then), or no tokio runtime runs here.
    pub async fn start(
        &self,
        call: ToolCall,
        ctx: C,
        start: TaskStart,
    ) -> Result<TaskRecord, TaskError> {
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| TaskError::NoRuntime)?;
        let inner = &self.inner;
        let now = now_ms();
        let ttl = millis(inner.ttl);
        let mut record =
            TaskRecord::new(new_id()?, start.owner.clone(), call.name.clone(), now, ttl);
        record.lease_ms = now.saturating_add(millis(inner.lease));
        record.replica.clone_from(&inner.replica);
        inner.store.create(&record).await?;
        let stop = Cancellation::new();
        inner
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(record.id.clone(), stop.clone());
        let id = record.id.clone();
        let inner = Arc::clone(inner);
        runtime.spawn(async move {
            inner.run(&id, call, ctx, start, stop).await;
            inner
                .running
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&id);
        });
        Ok(record)
    }

    /// The task `id` of `owner`. A task whose lease ran out before it ended is failed here
    /// (in the store, for every reader), with an error that says so.
    ///
    /// # Errors
    /// [`TaskError::Unknown`] for no such task of this owner; the store failed.
    pub async fn get(&self, id: &str, owner: &str) -> Result<TaskRecord, TaskError> {
        let store = &self.inner.store;
        let record = store
            .get(id)
            .await?
            .filter(|record| record.owner == owner)
            .ok_or_else(|| TaskError::Unknown(id.to_owned()))?;
        if !record.lease_ran_out(now_ms()) {
            return Ok(record);
        }
        let error = json!({
            "code": -32603,
            "message": format!(
                "the process running this task ({}) stopped: its lease ran out at {} with no word \
                 from it, so whether the tool finished its work is unknown",
                record.replica,
                iso8601(record.lease_ms)
            ),
        });
        match store.update(id, TaskUpdate::Expire { error }).await? {
            Some(updated) => Ok(updated.record),
            None => Err(TaskError::Unknown(id.to_owned())),
        }
    }

    /// Waits until the task `id` of `owner` ends, polling the store; returns it ended.
    ///
    /// # Errors
    /// As [`get`](Self::get).
    pub async fn wait(&self, id: &str, owner: &str) -> Result<TaskRecord, TaskError> {
        loop {
            let record = self.get(id, owner).await?;
            if record.status.is_terminal() {
                return Ok(record);
            }
            tokio::time::sleep(self.inner.poll).await;
        }
    }

    /// Answers questions of the task `id` of `owner` ([`TaskRecord::input_requests`]), by key.
    ///
    /// # Errors
    /// [`TaskError::Refused`] when the task waits for no input or a key is not an open
    /// question; as [`get`](Self::get).
    pub async fn answer(
        &self,
        id: &str,
        owner: &str,
        responses: BTreeMap<String, Value>,
    ) -> Result<TaskRecord, TaskError> {
        let record = self.get(id, owner).await?;
        let refused = |record: &TaskRecord| {
            let reason = if record.status == TaskStatus::InputRequired {
                let open: Vec<&str> = record
                    .input_requests
                    .keys()
                    .filter(|key| !record.input_responses.contains_key(*key))
                    .map(String::as_str)
                    .collect();
                format!("has no open question of that key (open: {open:?})")
            } else {
                format!("waits for no input: it is {}", record.status)
            };
            TaskError::Refused {
                id: id.to_owned(),
                reason,
            }
        };
        if record.status != TaskStatus::InputRequired {
            return Err(refused(&record));
        }
        match self
            .inner
            .store
            .update(id, TaskUpdate::Respond { responses })
            .await?
        {
            Some(Updated {
                applied: true,
                record,
            }) => Ok(record),
            Some(Updated { record, .. }) => Err(refused(&record)),
            None => Err(TaskError::Unknown(id.to_owned())),
        }
    }

    /// Cancels the task `id` of `owner`, if it has not ended: its body sees its cancellation (at
    /// once in this process, at its next lease renewal in another) and is dropped after a
    /// grace period. Returns the task as it is after (an ended task is returned unchanged).
    ///
    /// # Errors
    /// As [`get`](Self::get).
    pub async fn cancel(&self, id: &str, owner: &str) -> Result<TaskRecord, TaskError> {
        self.get(id, owner).await?;
        let updated = self
            .inner
            .store
            .update(id, TaskUpdate::Cancel)
            .await?
            .ok_or_else(|| TaskError::Unknown(id.to_owned()))?;
        if let Some(stop) = self
            .inner
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
        {
            stop.cancel();
        }
        Ok(updated.record)
    }
}

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
    async fn run(&self, id: &str, call: ToolCall, ctx: C, start: TaskStart, stop: Cancellation) {
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
    let arguments = serde_json::to_string(&call.arguments_as_map()).unwrap_or_default();
    json!({
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": format!(
                "The model wants to run `{}` with {arguments}: {message}. Approve?",
                call.name
            ),
            "requestedSchema": {
                "type": "object",
                "properties": {"approve": {"type": "boolean", "title": "Approve this call"}},
                "required": ["approve"],
            },
        },
    })
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// A new task id: 128 bits from the operating system's random source, in hex.
fn new_id() -> Result<String, TaskError> {
    let mut bits = [0u8; 16];
    getrandom::fill(&mut bits)
        .map_err(|error| StoreError(format!("no random id for a task: {error}")))?;
    Ok(bits.iter().fold(String::with_capacity(32), |mut id, byte| {
        let _ = write!(id, "{byte:02x}");
        id
    }))
}
