//! Long-running tools as MCP tasks (issue 48; the tasks extension, SEP-2663) with rmcp's client,
//! which implements the extension: a task handle at once, `tasks/get` until it ends, approval
//! as `input_required` answered by `tasks/update`, `tasks/cancel` reaching the body, another
//! session's reads answered as for an unknown task, clients without the extension answered
//! synchronously; toolwright's own client following a remote task; the in-process API; and
//! the Redis store (`#[ignore]`d here: `.ci/run` runs them with a Redis server).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig, GetTaskParams,
    Implementation, TaskPayload, TaskStatus as McpStatus, UpdateTaskParams,
};
use rmcp::service::{RoleClient, RunningService};
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{Value, json};
use toolwright::exec::Caller;
use toolwright::mcp::{McpClient, McpServer, McpTools, ToolboxExt as _};
use toolwright::tasks::{
    APPROVAL, MemoryStore, RedisStore, TaskRecord, TaskRule, TaskStart, TaskStatus, TaskStore,
    TaskUpdate, Tasks,
};
use toolwright::{CallInfo, ToolCall, Toolbox, tool};

use crate::servers::{call, text};

static CANCELLED: AtomicU32 = AtomicU32::new(0);

/// Waits `ms` milliseconds, saying so, and returns how long it waited.
#[tool(task)]
async fn wait(ms: u64, #[tool(call_info)] info: &CallInfo) -> String {
    info.report_progress(0.0, Some(1.0), Some("waiting"));
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("waited {ms} ms")
}

/// Runs until cancelled.
#[tool]
async fn forever(#[tool(call_info)] info: &CallInfo) -> String {
    info.cancelled().await;
    CANCELLED.fetch_add(1, Ordering::SeqCst);
    "stopped".to_owned()
}

/// Breaks.
#[tool(task)]
fn broken() -> String {
    panic!("the tool broke")
}

/// Deletes everything.
#[tool(task, needs_approval)]
fn wipe() -> String {
    "wiped".to_owned()
}

fn toolbox() -> Arc<Toolbox> {
    Arc::new(
        Toolbox::new()
            .with_all((WaitTool, ForeverTool, WipeTool, BrokenTool))
            .unwrap(),
    )
}

fn server() -> McpServer<()> {
    let toolbox = toolbox();
    let tasks = Tasks::in_memory(Arc::clone(&toolbox))
        .rule(TaskRule::none().tool("forever"))
        .poll_every(Duration::from_millis(20));
    McpServer::new(toolbox, ()).unwrap().with_tasks(tasks)
}

/// rmcp's client, declaring the tasks extension or not; keeps the `notifications/tasks` it
/// hears (status, status message).
#[derive(Clone, Default)]
struct Client {
    tasks: bool,
    heard: Arc<std::sync::Mutex<Vec<Heard>>>,
}

/// A task's status and status message, as a notification told them.
type Heard = (McpStatus, Option<String>);

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = if self.tasks {
            ClientCapabilities::builder().enable_tasks().build()
        } else {
            ClientCapabilities::default()
        };
        // Forms (elicitation) it can show.
        capabilities.elicitation = Some(Default::default());
        ClientConfig::new(capabilities, Implementation::new("tasks-test", "1.0.0"))
    }

    async fn on_task_status(
        &self,
        params: rmcp::model::TaskStatusNotificationParams,
        _: rmcp::service::NotificationContext<RoleClient>,
    ) {
        let task = &params.task.task;
        self.heard
            .lock()
            .unwrap()
            .push((task.status, task.status_message.clone()));
    }
}

async fn connect<C: Send + Sync + 'static>(
    server: McpServer<C>,
    tasks: bool,
) -> RunningService<RoleClient, Client> {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    Client {
        tasks,
        ..Client::default()
    }
    .serve(client_io)
    .await
    .unwrap()
}

async fn started(client: &RunningService<RoleClient, Client>, name: &str, args: Value) -> String {
    match client
        .peer()
        .call_tool_once(call(name, args))
        .await
        .unwrap()
    {
        CallToolResponse::Task(created) => {
            assert_eq!(created.task.status, McpStatus::Working);
            assert_eq!(created.task.poll_interval_ms, Some(20));
            created.task.task_id
        }
        other => panic!("not a task: {other:?}"),
    }
}

/// Polls until the task leaves `working`; returns what `tasks/get` said last.
async fn settled(
    client: &RunningService<RoleClient, Client>,
    id: &str,
) -> rmcp::model::DetailedTask {
    for _ in 0..500 {
        let got = client
            .peer()
            .get_task(GetTaskParams::new(id))
            .await
            .unwrap()
            .task;
        if got.status() != McpStatus::Working {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("task {id} still working after 5 s");
}

/// Polls until the task has ended (past `input_required` too, once answered).
async fn ended(client: &RunningService<RoleClient, Client>, id: &str) -> rmcp::model::DetailedTask {
    let mut got = settled(client, id).await;
    while got.status() == McpStatus::InputRequired {
        tokio::time::sleep(Duration::from_millis(10)).await;
        got = settled(client, id).await;
    }
    got
}

/// Answers the task's question `key` with `answer` (`tasks/update`); the task's result once it
/// has completed.
async fn answered(
    client: &RunningService<RoleClient, Client>,
    id: &str,
    key: &str,
    answer: Value,
) -> rmcp::model::JsonObject {
    let answers = BTreeMap::from([(key.to_owned(), answer)]);
    client
        .peer()
        .update_task(UpdateTaskParams::new(id, answers))
        .await
        .unwrap();
    let done = ended(client, id).await;
    let TaskPayload::Completed { result } = done.payload else {
        panic!("not completed: {done:?}")
    };
    result
}

#[tokio::test]
async fn a_task_tool_answers_with_a_handle_and_its_result_comes_by_tasks_get() {
    let client = connect(server(), true).await;
    let id = started(&client, "wait", json!({"ms": 100})).await;
    assert_eq!(id.len(), 32, "128 bits in hex");
    let first = client
        .peer()
        .get_task(GetTaskParams::new(&id))
        .await
        .unwrap();
    assert_eq!(first.task.status(), McpStatus::Working);
    let done = settled(&client, &id).await;
    let TaskPayload::Completed { result } = done.payload else {
        panic!("not completed: {done:?}")
    };
    assert_eq!(result["content"][0]["text"], "waited 100 ms");
    assert_eq!(result["isError"], false);
    assert!(done.task.created_at.ends_with('Z'));
    // The tool's status message reached the task.
    assert_eq!(done.task.status_message.as_deref(), Some("waiting"));

    // Another session's client: the task is unknown to it, in the words of an unknown one.
    let other = connect(server(), true).await;
    let theirs = other
        .peer()
        .get_task(GetTaskParams::new(&id))
        .await
        .unwrap_err();
    let none = other
        .peer()
        .get_task(GetTaskParams::new("0".repeat(32)))
        .await
        .unwrap_err();
    assert_eq!(
        theirs.to_string().replace(&id, "ID"),
        none.to_string().replace(&"0".repeat(32), "ID")
    );
}

#[tokio::test]
async fn the_session_that_started_a_task_hears_its_changes() {
    let client = connect(server(), true).await;
    let id = started(&client, "wait", json!({"ms": 50})).await;
    let done = settled(&client, &id).await;
    assert_eq!(done.status(), McpStatus::Completed);
    let heard = client.service().heard.clone();
    for _ in 0..100 {
        if heard.lock().unwrap().len() >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // The tool's status message, then its end, in order.
    assert_eq!(
        *heard.lock().unwrap(),
        [
            (McpStatus::Working, Some("waiting".to_owned())),
            (McpStatus::Completed, Some("waiting".to_owned())),
        ]
    );
}

#[tokio::test]
async fn a_task_s_call_goes_through_the_whole_pipeline_wrong_arguments_and_panics_too() {
    let client = connect(server(), true).await;
    // Wrong arguments: the model's message, as a result, once.
    let id = started(&client, "wait", json!({"milliseconds": 5})).await;
    let TaskPayload::Completed { result } = ended(&client, &id).await.payload else {
        panic!("not completed")
    };
    assert_eq!(result["isError"], true);
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("missing required argument `ms`"), "{text}");
    // A panic: an error result, and the server goes on.
    let id = started(&client, "broken", json!({})).await;
    let TaskPayload::Completed { result } = ended(&client, &id).await.payload else {
        panic!("not completed")
    };
    assert_eq!(result["isError"], true, "{result:?}");
    let id = started(&client, "wait", json!({"ms": 1})).await;
    assert_eq!(ended(&client, &id).await.status(), McpStatus::Completed);
}

#[tokio::test]
async fn a_client_without_the_extension_gets_the_result_at_once() {
    let client = connect(server(), false).await;
    let result = client
        .peer()
        .call_tool(call("wait", json!({"ms": 10})))
        .await
        .unwrap();
    assert_eq!(text(&result), "waited 10 ms");
}

#[tokio::test]
async fn tasks_cancel_reaches_the_body() {
    let client = connect(server(), true).await;
    let before = CANCELLED.load(Ordering::SeqCst);
    let id = started(&client, "forever", json!({})).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    client
        .peer()
        .cancel_task(CancelTaskParams::new(&id))
        .await
        .unwrap();
    let got = settled(&client, &id).await;
    assert_eq!(got.status(), McpStatus::Cancelled);
    for _ in 0..200 {
        if CANCELLED.load(Ordering::SeqCst) > before {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the body never saw its cancellation");
}

#[tokio::test]
async fn approval_is_input_required_answered_by_tasks_update() {
    let client = connect(server(), true).await;
    for (approve, expected, error) in [(true, "wiped", false), (false, "", true)] {
        let id = started(&client, "wipe", json!({})).await;
        let asked = settled(&client, &id).await;
        let TaskPayload::InputRequired { input_requests } = &asked.payload else {
            panic!("no question: {asked:?}")
        };
        let question = serde_json::to_value(&input_requests[APPROVAL]).unwrap();
        assert_eq!(question["method"], "elicitation/create");
        assert_eq!(
            question["params"]["requestedSchema"]["required"][0],
            "approve"
        );
        // An answer to a question not asked is refused.
        let stray = BTreeMap::from([("other".to_owned(), json!({}))]);
        assert!(
            client
                .peer()
                .update_task(UpdateTaskParams::new(&id, stray))
                .await
                .is_err()
        );
        let answer = json!({"action": "accept", "content": {"approve": approve}});
        let result = answered(&client, &id, APPROVAL, answer).await;
        assert_eq!(result["isError"], error, "{result:?}");
        if approve {
            assert_eq!(result["content"][0]["text"], expected);
        }
    }
}

#[tokio::test]
async fn a_tool_s_own_question_is_an_input_request_of_its_task() {
    // The protocol tests' server, whose `greet` asks the user's name (`AskClient::elicit`).
    let server = crate::protocol::server();
    let tasks = Tasks::in_memory(server.toolbox())
        .rule(TaskRule::none().tool("greet"))
        .poll_every(Duration::from_millis(20));
    let client = connect(server.with_tasks(tasks), true).await;
    let id = started(&client, "greet", json!({})).await;
    let asked = settled(&client, &id).await;
    let TaskPayload::InputRequired { input_requests } = &asked.payload else {
        panic!("no question: {asked:?}")
    };
    let question = serde_json::to_value(&input_requests["name"]).unwrap();
    assert_eq!(question["method"], "elicitation/create");
    assert_eq!(question["params"]["message"], "Your name?");
    let answer = json!({"action": "accept", "content": {"name": "Ada"}});
    let result = answered(&client, &id, "name", answer).await;
    assert_eq!(result["content"][0]["text"], "hello Ada");
}

#[tokio::test]
async fn toolwright_s_client_follows_a_remote_task_to_its_end() {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let server = server();
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let running = McpClient::new().connect(client_io).await.unwrap();
    let tools = McpTools::list(running.peer()).await.unwrap();
    let toolbox = Toolbox::new().with_mcp_tools(tools).unwrap();
    let result = toolbox
        .execute(&ToolCall::new("c1", "wait", r#"{"ms": 50}"#), &())
        .await;
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(result.text(), "waited 50 ms");
    let task = &result.option("_meta").unwrap()["io.modelcontextprotocol/related-task"];
    assert_eq!(task["taskId"].as_str().unwrap().len(), 32);
}

#[tokio::test]
async fn a_tool_runs_as_a_task_when_marked_or_named_by_the_rule() {
    let named = Tasks::in_memory(toolbox()).rule(TaskRule::none().tool("forever"));
    // `#[tool(task)]`, whatever the rule.
    assert!(named.runs_as_task("wait"));
    assert!(named.runs_as_task("forever"));
    assert!(!named.runs_as_task("no_such_tool"));
    let unnamed = Tasks::in_memory(toolbox());
    assert!(unnamed.runs_as_task("wait"));
    assert!(!unnamed.runs_as_task("forever"));
    assert!(
        Tasks::in_memory(toolbox())
            .rule(TaskRule::all())
            .runs_as_task("forever")
    );
}

#[tokio::test]
async fn in_process_tasks_run_wait_and_belong_to_their_owner() {
    let tasks = Tasks::in_memory(toolbox()).poll_every(Duration::from_millis(5));
    let alice = Caller::new("alice");
    let call = ToolCall::new("c1", "wait", r#"{"ms": 20}"#);
    let task = tasks
        .start(call, (), TaskStart::new().on_behalf_of(alice))
        .await
        .unwrap();
    assert_eq!(task.owner, "alice");
    assert!(tasks.get(&task.id, "bob").await.is_err());
    let done = tasks.wait(&task.id, "alice").await.unwrap();
    assert_eq!(done.status, TaskStatus::Completed);
    assert_eq!(done.result.unwrap()["content"][0]["text"], "waited 20 ms");
    // Ended: a cancel changes nothing.
    let after = tasks.cancel(&task.id, "alice").await.unwrap();
    assert_eq!(after.status, TaskStatus::Completed);
}

#[tokio::test]
async fn one_owner_s_flood_of_tasks_leaves_the_others_theirs() {
    let tasks = Tasks::in_memory(toolbox())
        .max_running(2)
        .poll_every(Duration::from_millis(5));
    let forever = || ToolCall::new("c", "forever", "{}");
    let mut alice = Vec::new();
    for _ in 0..2 {
        let task = tasks
            .start(forever(), (), TaskStart::new().owner("alice"))
            .await
            .unwrap();
        alice.push(task.id);
    }
    let refused = tasks
        .start(forever(), (), TaskStart::new().owner("alice"))
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("2 tasks running"), "{refused}");
    // Another owner's are not counted against alice's, nor hers against them.
    let bob = tasks
        .start(forever(), (), TaskStart::new().owner("bob"))
        .await
        .unwrap();
    // One of alice's ends: her place is free again.
    tasks.cancel(&alice[0], "alice").await.unwrap();
    let mut again = None;
    for _ in 0..400 {
        if let Ok(task) = tasks
            .start(forever(), (), TaskStart::new().owner("alice"))
            .await
        {
            again = Some(task);
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let again = again.expect("a place freed by the cancelled task");
    for (id, owner) in [(&alice[1], "alice"), (&bob.id, "bob"), (&again.id, "alice")] {
        tasks.cancel(id, owner).await.unwrap();
    }
}

#[tokio::test]
async fn over_mcp_a_caller_past_its_cap_is_refused_with_an_error() {
    let toolbox = toolbox();
    let tasks = Tasks::in_memory(Arc::clone(&toolbox))
        .rule(TaskRule::none().tool("forever"))
        .max_running(1)
        .poll_every(Duration::from_millis(20));
    let server = McpServer::new(toolbox, ()).unwrap().with_tasks(tasks);
    let client = connect(server, true).await;
    let id = started(&client, "forever", json!({})).await;
    let refused = client
        .peer()
        .call_tool_once(call("forever", json!({})))
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("1 tasks running"), "{refused}");
    client
        .peer()
        .cancel_task(CancelTaskParams::new(&id))
        .await
        .unwrap();
}

#[tokio::test]
async fn a_task_whose_process_stopped_fails_once_its_lease_runs_out() {
    let store: Arc<dyn TaskStore> = Arc::new(MemoryStore::new());
    lost_lease(store).await;
}

/// A task held by a process that stopped renewing it (written as that process left it): read
/// as failed once its lease runs out, and a late end from it changes nothing.
async fn lost_lease(store: Arc<dyn TaskStore>) {
    let tasks = Tasks::new(toolbox(), Arc::clone(&store)).lease(Duration::from_millis(100));
    // Started, then the process "dies": the task is never renewed.
    let task = tasks
        .start(
            ToolCall::new("c1", "forever", "{}"),
            (),
            TaskStart::new().owner("o"),
        )
        .await
        .unwrap();
    let mut record: TaskRecord = store.get(&task.id).await.unwrap().unwrap();
    record.id = format!("{}-dead", task.id);
    record.lease_ms = task.created_ms + 100;
    store.create(&record).await.unwrap();
    assert_eq!(
        tasks.get(&record.id, "o").await.unwrap().status,
        TaskStatus::Working
    );
    tokio::time::sleep(Duration::from_millis(250)).await;
    let failed = tasks.get(&record.id, "o").await.unwrap();
    assert_eq!(failed.status, TaskStatus::Failed);
    let message = failed.error.unwrap()["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(message.contains("lease ran out"), "{message}");
    let late = TaskUpdate::Finish {
        status: TaskStatus::Completed,
        result: Some(json!({"content": []})),
        error: None,
    };
    let updated = store.update(&record.id, late).await.unwrap().unwrap();
    assert!(!updated.applied);
    assert_eq!(updated.record.status, TaskStatus::Failed);
    // The live one is renewed (every third of its lease) and still works.
    assert_eq!(
        tasks.get(&task.id, "o").await.unwrap().status,
        TaskStatus::Working
    );
    tasks.cancel(&task.id, "o").await.unwrap();
}

fn redis_url() -> String {
    std::env::var("REDIS_URL").expect("REDIS_URL names the Redis server these tests use")
}

#[tokio::test]
#[ignore = "needs a Redis server at REDIS_URL: .ci/run starts one"]
async fn redis_lease_expiry() {
    let store: Arc<dyn TaskStore> = Arc::new(RedisStore::connect(&redis_url()).await.unwrap());
    lost_lease(store).await;
}

/// The same updates, in the same order, to the in-memory store (whose rules are
/// `TaskUpdate::apply`, written in Rust) and to Redis (a Lua script): the same records.
#[tokio::test]
#[ignore = "needs a Redis server at REDIS_URL: .ci/run starts one"]
async fn redis_applies_updates_as_the_rules_say() {
    let redis = RedisStore::connect(&redis_url()).await.unwrap();
    let memory = MemoryStore::new();
    let updates = || {
        let q = |k: &str| {
            BTreeMap::from([(
                k.to_owned(),
                json!({"method": "elicitation/create", "params": {"n": 1.5e300}}),
            )])
        };
        vec![
            TaskUpdate::Report {
                message: Some("half".into()),
                progress: Some(0.5),
                total: Some(1.0),
            },
            TaskUpdate::Respond { responses: q("a") },
            TaskUpdate::Ask { requests: q("a") },
            TaskUpdate::Respond { responses: q("b") },
            TaskUpdate::Respond { responses: q("a") },
            TaskUpdate::Respond { responses: q("a") },
            TaskUpdate::Ask { requests: q("b") },
            TaskUpdate::Resume {
                keys: vec!["a".into()],
            },
            TaskUpdate::Resume {
                keys: vec!["b".into()],
            },
            TaskUpdate::Renew {
                lease_ms: 1,
                replica: "r2".into(),
            },
            TaskUpdate::Expire {
                error: json!({"code": -32603, "message": "gone"}),
            },
            TaskUpdate::Cancel,
            TaskUpdate::Finish {
                status: TaskStatus::Completed,
                result: Some(json!({"content": [], "big": 12345678901234567890u64})),
                error: None,
            },
            TaskUpdate::Report {
                message: Some("late".into()),
                progress: None,
                total: None,
            },
        ]
    };
    // One sequence as written, and each with the task finished first (from the third step).
    for finish_at in [None, Some(2)] {
        let id = format!("{:032x}", rand_id());
        let record = fresh(&id);
        redis.create(&record).await.unwrap();
        memory.create(&record).await.unwrap();
        for (step, update) in updates().into_iter().enumerate() {
            let update = match finish_at {
                Some(at) if step == at => TaskUpdate::Finish {
                    status: TaskStatus::Failed,
                    result: None,
                    error: Some(json!({"code": 1, "message": "x"})),
                },
                _ => update,
            };
            let mut a = redis.update(&id, update.clone()).await.unwrap().unwrap();
            let mut b = memory.update(&id, update.clone()).await.unwrap().unwrap();
            // `updated_ms` is each store's own clock reading.
            a.record.updated_ms = 0;
            b.record.updated_ms = 0;
            assert_eq!(a, b, "step {step}: {update:?}");
        }
        assert_eq!(
            redis.get(&id).await.unwrap().map(|mut r| {
                r.updated_ms = 0;
                r
            }),
            memory.get(&id).await.unwrap().map(|mut r| {
                r.updated_ms = 0;
                r
            })
        );
    }
    assert!(redis.get("no-such-task").await.unwrap().is_none());
    assert!(
        redis
            .update("no-such-task", TaskUpdate::Cancel)
            .await
            .unwrap()
            .is_none()
    );
}

fn rand_id() -> u128 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos(),
    );
    u128::from(hasher.finish()) << 64 | u128::from(hasher.finish().rotate_left(17))
}

fn fresh(id: &str) -> TaskRecord {
    let mut record: TaskRecord = serde_json::from_value(json!({
        "id": id, "owner": "o", "tool": "wait", "status": "working", "message": null,
        "progress": null, "total": null, "created_ms": now(), "updated_ms": now(),
        "ttl_ms": 600_000, "lease_ms": now() + 600_000, "replica": "r1", "result": null,
        "error": null, "input_requests": {}, "input_responses": {}
    }))
    .unwrap();
    record.lease_ms = now() + 600_000;
    record
}

fn now() -> u64 {
    u64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}
