//! Running calls as tasks: started into the store, run in the background, read, answered and
//! cancelled from any process sharing the store.

use std::collections::{BTreeMap, HashMap};
use std::fmt::{self, Write as _};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};

use super::input::{TaskInput, Watch};
use super::record::{TaskRecord, TaskStatus, iso8601, now_ms};
use super::rule::TaskRule;
use super::store::{MemoryStore, StoreError, TaskError, TaskStore, TaskUpdate, Updated};
use crate::call::ToolCall;
use crate::caller::Caller;
use crate::result::ToolResult;
use crate::task::{Cancellation, Conversation};
use crate::toolbox::Toolbox;

/// How many tasks of one owner a process runs at once, unless [`Tasks::max_running`] says.
const DEFAULT_MAX_RUNNING: usize = 256;

/// The tasks this process runs: their stop signals, and how many each owner has.
#[derive(Default)]
pub(super) struct Running {
    stops: HashMap<String, Cancellation>,
    per_owner: HashMap<String, usize>,
}

impl<C> Inner<C> {
    /// Takes one of `owner`'s places for the task `id`, if one is free.
    fn reserve(&self, id: &str, owner: &str) -> Result<(), TaskError> {
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        let count = running.per_owner.entry(owner.to_owned()).or_default();
        if *count >= self.max_running {
            return Err(TaskError::Refused {
                id: id.to_owned(),
                reason: format!(
                    "was not started: its caller has {} tasks running here, the most it may",
                    self.max_running
                ),
            });
        }
        *count += 1;
        Ok(())
    }

    /// The stop signal of the task `id`, kept for its cancellation.
    fn stop_of(&self, id: &str) -> Cancellation {
        let stop = Cancellation::new();
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        running.stops.insert(id.to_owned(), stop.clone());
        stop
    }

    /// Gives back the place of `owner`'s task `id`.
    fn release(&self, id: &str, owner: &str) {
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        running.stops.remove(id);
        if let Some(count) = running.per_owner.get_mut(owner) {
            *count -= 1;
            if *count == 0 {
                running.per_owner.remove(owner);
            }
        }
    }
}

/// How a call's result is written into its task ([`TaskRecord::result`]).
type Encode = Arc<dyn Fn(&ToolCall, ToolResult) -> Value + Send + Sync>;

/// How one task is started: whose it is, who the call is made for, and who hears of it.
#[derive(Clone, Default)]
pub struct TaskStart {
    pub(super) owner: String,
    pub(super) caller: Option<Caller>,
    pub(super) conversation: Option<Conversation>,
    pub(super) encode: Option<Encode>,
    pub(super) watch: Option<Watch>,
    pub(super) input: Option<TaskInput>,
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

    /// Binds `input` to the task once it starts: the tool asks its questions there
    /// ([`TaskInput::ask`]).
    #[must_use]
    pub fn input(mut self, input: TaskInput) -> Self {
        self.input = Some(input);
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

pub(super) struct Inner<C> {
    pub(super) toolbox: Arc<Toolbox<C>>,
    pub(super) store: Arc<dyn TaskStore>,
    pub(super) rule: TaskRule,
    pub(super) ttl: Duration,
    pub(super) lease: Duration,
    pub(super) poll: Duration,
    pub(super) replica: String,
    /// The stop signals of the tasks this process runs, by id.
    pub(super) running: Mutex<Running>,
    /// How many tasks of one owner this process runs at once.
    pub(super) max_running: usize,
}

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
                running: Mutex::new(Running::default()),
                max_running: DEFAULT_MAX_RUNNING,
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
                    running: Mutex::new(Running::default()),
                    max_running: inner.max_running,
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

    /// How long the store keeps a task, from its creation (an hour by default; MCP's `ttlMs`).
    /// Give tools that run longer a longer one: a task still running when its time to live
    /// ends is forgotten by the store, and its body is cancelled at its next lease renewal.
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

    /// How many tasks of one owner this process runs at once (256 by default): a call beyond
    /// is refused, so that one caller's flood does not take what the others get.
    #[must_use]
    pub fn max_running(self, tasks: usize) -> Self {
        self.configure(|inner| inner.max_running = tasks.max(1))
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

    /// Which tools run as tasks besides those marked so ([`rule`](Self::rule) set it).
    pub fn task_rule(&self) -> &TaskRule {
        &self.inner.rule
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
        let id = new_id()?;
        inner.reserve(&id, &start.owner)?;
        let mut record = TaskRecord::new(id, start.owner.clone(), call.name.clone(), now, ttl);
        record.lease_ms = now.saturating_add(millis(inner.lease));
        record.replica.clone_from(&inner.replica);
        if let Err(error) = inner.store.create(&record).await {
            inner.release(&record.id, &record.owner);
            return Err(error.into());
        }
        if let Some(input) = &start.input {
            input.bind(
                Arc::clone(&inner.store),
                record.id.clone(),
                inner.poll,
                start.watch.clone(),
            );
        }
        let stop = inner.stop_of(&record.id);
        let (id, owner) = (record.id.clone(), record.owner.clone());
        let inner = Arc::clone(inner);
        runtime.spawn(async move {
            inner.run(&id, call, ctx, start, stop).await;
            inner.release(&id, &owner);
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
        let running = self.inner.running.lock();
        if let Some(stop) = running
            .unwrap_or_else(PoisonError::into_inner)
            .stops
            .get(id)
        {
            stop.cancel();
        }
        Ok(updated.record)
    }
}

pub(super) fn millis(duration: Duration) -> u64 {
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
