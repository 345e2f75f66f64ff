//! Batches of calls (issue 6), on a real multi-thread tokio runtime and on a plain `futures`
//! executor: order under random completion, concurrency limits and serial tools, panics,
//! timeouts, cancellation, approval, retry budgets, hooks and tracing.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::Duration;

use serde_json::{Value, json};
use toolwright::{
    CallInfo, Interrupt, InterruptKind, Outcome, ResultDetail, ToolCall, ToolDefinition,
    ToolResult, Toolbox,
    dynamic::IntoOutcome,
    exec::{BatchOptions, Before, Cancellation, Hook},
    tool,
};

/// What the tools saw: events in order, and how many ran at once.
#[derive(Default)]
struct Log {
    events: Mutex<Vec<String>>,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    saw_cancel: AtomicBool,
    late_finishes: AtomicUsize,
}

#[derive(Clone, Default)]
struct Ctx(Arc<Log>);

impl Ctx {
    fn enter(&self, what: &str, id: u32) {
        let now = self.0.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.0.max_in_flight.fetch_max(now, Ordering::SeqCst);
        self.0
            .events
            .lock()
            .unwrap()
            .push(format!("start {what}{id}"));
    }

    fn leave(&self, what: &str, id: u32) {
        self.0
            .events
            .lock()
            .unwrap()
            .push(format!("end {what}{id}"));
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }

    fn events(&self) -> Vec<String> {
        self.0.events.lock().unwrap().clone()
    }

    fn max_in_flight(&self) -> usize {
        self.0.max_in_flight.load(Ordering::SeqCst)
    }
}

/// Waits `ms` milliseconds, then returns `id`.
#[tool(concurrent)]
async fn wait(id: u32, ms: u64, #[tool(context)] ctx: &Ctx) -> u32 {
    ctx.enter("wait", id);
    toolwright::exec::sleep(Duration::from_millis(ms)).await;
    ctx.leave("wait", id);
    id
}

/// Writes something: not safe beside other calls.
#[tool]
async fn write(id: u32, ms: u64, #[tool(context)] ctx: &Ctx) -> u32 {
    ctx.enter("write", id);
    toolwright::exec::sleep(Duration::from_millis(ms)).await;
    ctx.leave("write", id);
    id
}

/// Read-only, so concurrent unless it says otherwise.
#[tool(read_only)]
fn peek(#[tool(context)] ctx: &Ctx) -> usize {
    ctx.0.in_flight.load(Ordering::SeqCst)
}

/// Read-only, but says it must run alone.
#[tool(read_only, concurrent = false)]
fn peek_alone(#[tool(context)] ctx: &Ctx) -> usize {
    ctx.0.in_flight.load(Ordering::SeqCst)
}

/// Always panics.
#[tool(concurrent)]
fn boom() -> u32 {
    panic!("boom")
}

/// Never finishes.
#[tool(concurrent, timeout = "50ms")]
async fn hang() -> u32 {
    std::future::pending().await
}

/// Blocks its thread for `ms`, longer than it is allowed; notes whether it was told to stop.
#[tool(blocking, concurrent, timeout = "20ms")]
fn overrun(ms: u64, #[tool(context)] ctx: &Ctx, #[tool(call_info)] info: &CallInfo) -> u64 {
    std::thread::sleep(Duration::from_millis(ms));
    let cancelled = info.is_cancelled();
    // Counted before the flag the test waits for is set.
    ctx.0.late_finishes.fetch_add(1, Ordering::SeqCst);
    if cancelled {
        ctx.0.saw_cancel.store(true, Ordering::SeqCst);
    }
    ms
}

/// Works until it is cancelled, on a thread of its own.
#[tool(blocking, concurrent)]
fn spin(#[tool(context)] ctx: &Ctx, #[tool(call_info)] info: &CallInfo) -> &'static str {
    for _ in 0..2_000 {
        if info.is_cancelled() {
            ctx.0.saw_cancel.store(true, Ordering::SeqCst);
            return "stopped";
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    "never cancelled"
}

/// Deletes a file, once a person agrees.
#[tool(needs_approval)]
fn delete(path: String) -> String {
    format!("deleted {path}")
}

/// Sends money; asks for approval itself above 100.
#[tool]
fn transfer(amount: u32, #[tool(call_info)] info: &CallInfo) -> Outcome {
    if amount > 100 && !info.is_approved() {
        return Interrupt::new(format!("send {amount}?"), json!({"amount": amount})).into_outcome();
    }
    format!("sent {amount}").into_outcome()
}

fn toolbox() -> Toolbox<Ctx> {
    Toolbox::for_context()
        .with(WaitTool)
        .unwrap()
        .with(WriteTool)
        .unwrap()
        .with(PeekTool)
        .unwrap()
        .with(PeekAloneTool)
        .unwrap()
        .with(BoomTool)
        .unwrap()
        .with(HangTool)
        .unwrap()
        .with(OverrunTool)
        .unwrap()
        .with(SpinTool)
        .unwrap()
        .with(DeleteTool)
        .unwrap()
        .with(TransferTool)
        .unwrap()
}

fn call(id: &str, name: &str, arguments: Value) -> ToolCall {
    ToolCall::new(id, name, arguments)
}

/// Waits of pseudo-random length (xorshift, fixed seed), so they finish out of call order.
fn scrambled_waits(n: u32) -> Vec<ToolCall> {
    let mut state = 0x2545_f491_u32;
    (0..n)
        .map(|id| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            call(
                &format!("c{id}"),
                "wait",
                json!({"id": id, "ms": state % 40}),
            )
        })
        .collect()
}

fn assert_in_call_order(calls: &[ToolCall], results: &[ToolResult]) {
    assert_eq!(results.len(), calls.len());
    for (call, result) in calls.iter().zip(results) {
        assert_eq!(result.call_id, call.call_id);
        assert_eq!(result.tool_name, call.name);
    }
}

fn ends(ctx: &Ctx) -> Vec<String> {
    ctx.events()
        .into_iter()
        .filter(|e| e.starts_with("end"))
        .collect()
}

fn check_random_completion(calls: &[ToolCall], results: &[ToolResult], ctx: &Ctx) {
    assert_in_call_order(calls, results);
    for (i, result) in results.iter().enumerate() {
        assert!(!result.is_error, "{}", result.text());
        assert_eq!(result.text(), i.to_string());
    }
    let in_call_order: Vec<String> = (0..calls.len()).map(|i| format!("end wait{i}")).collect();
    let finished = ends(ctx);
    assert_eq!(finished.len(), calls.len());
    assert_ne!(
        finished, in_call_order,
        "the waits should finish out of call order, or this test shows nothing"
    );
    assert!(ctx.max_in_flight() > 1, "the waits should overlap");
}

async fn results_come_in_call_order_whatever_order_calls_finish() {
    let (tools, ctx) = (toolbox(), Ctx::default());
    let calls = scrambled_waits(30);
    let results = tools.execute_all(&calls, &ctx).await;
    check_random_completion(&calls, &results, &ctx);
}

#[test]
fn the_blocking_form_keeps_call_order_too() {
    let (tools, ctx) = (toolbox(), Ctx::default());
    let calls = scrambled_waits(30);
    let results = tools.execute_all_blocking(&calls, &ctx);
    check_random_completion(&calls, &results, &ctx);
}

async fn concurrency_is_bounded_by_the_limit() {
    let ctx = Ctx::default();
    let tools = toolbox().with_concurrency(4);
    let calls: Vec<ToolCall> = (0..12)
        .map(|id| call(&format!("c{id}"), "wait", json!({"id": id, "ms": 15})))
        .collect();
    let results = tools.execute_all(&calls, &ctx).await;
    assert_in_call_order(&calls, &results);
    assert_eq!(ctx.max_in_flight(), 4);

    // A limit for one batch.
    let ctx = Ctx::default();
    let options = BatchOptions::new().concurrency(2);
    tools.execute_all_with(&calls, &ctx, options).await;
    assert_eq!(ctx.max_in_flight(), 2);
}

async fn switching_parallel_calls_off_runs_every_call_alone() {
    let calls: Vec<ToolCall> = (0..6)
        .map(|id| call(&format!("c{id}"), "wait", json!({"id": id, "ms": 5})))
        .collect();
    let in_order: Vec<String> = (0..6)
        .flat_map(|i| [format!("start wait{i}"), format!("end wait{i}")])
        .collect();

    let ctx = Ctx::default();
    toolbox()
        .with_parallel_calls(false)
        .execute_all(&calls, &ctx)
        .await;
    assert_eq!(ctx.events(), in_order);

    // The request said `parallel_tool_calls: false` (OpenAI) ...
    let ctx = Ctx::default();
    let options = BatchOptions::for_request(&json!({"parallel_tool_calls": false}));
    toolbox().execute_all_with(&calls, &ctx, options).await;
    assert_eq!(ctx.events(), in_order);

    // ... or `disable_parallel_tool_use` (Anthropic).
    let ctx = Ctx::default();
    let request = json!({"tool_choice": {"type": "auto", "disable_parallel_tool_use": true}});
    let options = BatchOptions::for_request(&request);
    toolbox().execute_all_with(&calls, &ctx, options).await;
    assert_eq!(ctx.events(), in_order);
    assert_eq!(
        BatchOptions::for_request(&json!({"parallel_tool_calls": true})).is_parallel(),
        None
    );
}

async fn a_tool_not_safe_to_run_concurrently_runs_alone_in_call_order() {
    let ctx = Ctx::default();
    let tools = toolbox();
    let calls = [
        call("c0", "wait", json!({"id": 0, "ms": 30})),
        call("c1", "wait", json!({"id": 1, "ms": 10})),
        call("c2", "write", json!({"id": 2, "ms": 10})),
        call("c3", "wait", json!({"id": 3, "ms": 10})),
        call("c4", "wait", json!({"id": 4, "ms": 1})),
        call("c5", "write", json!({"id": 5, "ms": 10})),
        call("c6", "peek_alone", json!({})),
        call("c7", "peek", json!({})),
        call("c8", "wait", json!({"id": 8, "ms": 1})),
    ];
    let results = tools.execute_all(&calls, &ctx).await;
    assert_in_call_order(&calls, &results);
    let events = ctx.events();
    let at = |event: &str| {
        events
            .iter()
            .position(|e| e == event)
            .unwrap_or_else(|| panic!("no `{event}` in {events:?}"))
    };
    // Each write starts after every earlier call ended, and ends before any later call starts.
    assert!(at("start write2") > at("end wait0").max(at("end wait1")));
    assert!(at("end write2") < at("start wait3").min(at("start wait4")));
    assert!(at("start write5") > at("end wait3").max(at("end wait4")));
    assert!(at("end write5") < at("start wait8"));
    // The read-only peek that may run beside others did; the one that may not, ran alone.
    assert_eq!(results[6].text(), "0");
    assert!(ctx.max_in_flight() >= 2);
}

async fn a_panicking_tool_fails_alone() {
    let ctx = Ctx::default();
    let calls = [
        call("c0", "wait", json!({"id": 0, "ms": 5})),
        call("c1", "boom", json!({})),
        call("c2", "wait", json!({"id": 2, "ms": 1})),
    ];
    let results = toolbox().execute_all(&calls, &ctx).await;
    assert_in_call_order(&calls, &results);
    assert_eq!(results[0].text(), "0");
    assert!(results[1].is_error);
    assert_eq!(results[1].panic_message(), Some("boom"));
    assert_eq!(
        results[1].text(),
        "tool `boom` failed unexpectedly; this is not a problem with the arguments"
    );
    assert_eq!(results[2].text(), "2");
}

async fn a_hanging_tool_times_out_and_the_others_finish() {
    let ctx = Ctx::default();
    let calls = [
        call("c0", "hang", json!({})),
        call("c1", "wait", json!({"id": 1, "ms": 5})),
    ];
    let results = toolbox().execute_all(&calls, &ctx).await;
    assert_in_call_order(&calls, &results);
    assert!(results[0].is_error);
    assert!(matches!(
        results[0].detail,
        ResultDetail::TimedOut { after } if after == Duration::from_millis(50)
    ));
    assert_eq!(
        results[0].text(),
        "the call of `hang` did not finish within 50ms and was stopped; it may or may not have taken effect"
    );
    assert_eq!(results[1].text(), "1");

    // The toolbox's timeout covers tools without their own; a single `execute` keeps it too.
    let tools = toolbox().with_timeout(Duration::from_millis(30));
    let slow = call("c2", "wait", json!({"id": 2, "ms": 60_000}));
    let result = tools.execute(&slow, &ctx).await;
    assert!(matches!(result.detail, ResultDetail::TimedOut { .. }));
}

/// Polls `batch` (which must not finish) until `done()` holds, at least once.
async fn run_until<F: Future + Unpin>(batch: &mut F, mut done: impl FnMut() -> bool) {
    let mut polled = false;
    std::future::poll_fn(|cx| {
        if polled && done() {
            return Poll::Ready(());
        }
        polled = true;
        assert!(
            Pin::new(&mut *batch).poll(cx).is_pending(),
            "the batch cannot finish yet"
        );
        // Asked again soon: the condition is not something that wakes this task.
        cx.waker().wake_by_ref();
        Poll::Pending
    })
    .await;
}

/// Waits until `flag` is set, up to five seconds (the work it waits for takes milliseconds).
fn eventually(flag: &AtomicBool) -> bool {
    for _ in 0..500 {
        if flag.load(Ordering::SeqCst) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

async fn a_timed_out_blocking_tool_is_told_to_stop_and_its_late_result_is_discarded() {
    let ctx = Ctx::default();
    let calls = [call("c0", "overrun", json!({"ms": 200}))];
    let results = toolbox().execute_all(&calls, &ctx).await;
    assert_eq!(results.len(), 1);
    assert!(matches!(results[0].detail, ResultDetail::TimedOut { .. }));
    // The body ran on to its end on the blocking pool, saw it was cancelled, and what it
    // returned went nowhere.
    assert!(eventually(&ctx.0.saw_cancel));
    assert_eq!(ctx.0.late_finishes.load(Ordering::SeqCst), 1);
}

async fn cancelling_a_batch_gives_every_unfinished_call_a_cancelled_result() {
    let ctx = Ctx::default();
    let tools = toolbox();
    let calls = [
        call("c0", "wait", json!({"id": 0, "ms": 1})),
        call("c1", "spin", json!({})),
        call("c2", "wait", json!({"id": 2, "ms": 60_000})),
        call("c3", "write", json!({"id": 3, "ms": 1})),
    ];
    let token = Cancellation::new();
    let options = BatchOptions::new().cancellation(token.clone());
    let batch = tools.execute_all_with(&calls, &ctx, options);
    let canceller = std::thread::spawn({
        let ctx = ctx.clone();
        move || {
            // Once the first call is done, cancel the rest.
            while !ctx.events().contains(&"end wait0".to_owned()) {
                std::thread::sleep(Duration::from_millis(1));
            }
            token.cancel();
        }
    });
    let results = batch.await;
    canceller.join().unwrap();
    assert_in_call_order(&calls, &results);
    assert_eq!(results[0].text(), "0");
    for result in &results[1..] {
        assert!(
            matches!(result.detail, ResultDetail::Cancelled),
            "{result:?}"
        );
        assert!(result.is_error);
    }
    assert_eq!(
        results[3].text(),
        "the call of `write` was cancelled before it finished; it may or may not have taken effect"
    );
    // The blocking tool observed the cancellation through its call info.
    assert!(eventually(&ctx.0.saw_cancel));
}

async fn a_batch_cancelled_in_place_keeps_what_finished() {
    let ctx = Ctx::default();
    let tools = toolbox();
    let calls = [
        call("c0", "wait", json!({"id": 0, "ms": 1})),
        call("c1", "wait", json!({"id": 1, "ms": 60_000})),
    ];
    let mut batch = tools.execute_all(&calls, &ctx);
    // Run the batch until the short call is done, then stop it.
    run_until(&mut batch, || {
        ctx.events().contains(&"end wait0".to_owned())
    })
    .await;
    let stopped = batch.cancel();
    assert_in_call_order(&calls, &stopped);
    assert_eq!(stopped[0].text(), "0");
    assert!(matches!(stopped[1].detail, ResultDetail::Cancelled));
    // Nothing is left to give twice.
    assert!(batch.cancel().is_empty());

    // Cancelling in place leaves the application's own signal alone.
    let token = Cancellation::new();
    let options = BatchOptions::new().cancellation(token.clone());
    let mut batch = tools.execute_all_with(&calls[1..], &ctx, options);
    run_until(&mut batch, || true).await;
    assert!(matches!(batch.cancel()[0].detail, ResultDetail::Cancelled));
    assert!(!token.is_cancelled());
}

async fn dropping_a_batch_tells_its_running_calls() {
    let ctx = Ctx::default();
    let tools = toolbox();
    let calls = [call("c0", "spin", json!({}))];
    let mut batch = tools.execute_all(&calls, &ctx);
    // Started (on a thread of its own), then dropped.
    run_until(&mut batch, || true).await;
    drop(batch);
    assert!(eventually(&ctx.0.saw_cancel));
    // An application that dropped a batch still answers every call.
    let answer = ToolResult::cancelled(&calls[0]);
    assert_eq!(answer.call_id, "c0");
    assert!(matches!(answer.detail, ResultDetail::Cancelled));
}

async fn a_call_that_needs_approval_waits_then_runs_once_approved() {
    let ctx = Ctx::default();
    let tools = toolbox();
    let calls = [
        call("c0", "wait", json!({"id": 0, "ms": 1})),
        call("c1", "delete", json!({"path": "/tmp/x"})),
        call("c2", "wait", json!({"id": 2, "ms": 1})),
    ];
    let results = tools.execute_all(&calls, &ctx).await;
    assert_in_call_order(&calls, &results);
    assert_eq!(results[0].text(), "0");
    assert_eq!(results[2].text(), "2");
    let held = &results[1];
    assert!(held.is_interrupt());
    assert!(!held.is_error);
    let interrupt = held.interrupt().unwrap();
    assert_eq!(interrupt.kind, InterruptKind::Approval);
    assert_eq!(interrupt.data, json!({"path": "/tmp/x"}));
    assert_eq!(
        interrupt.message,
        r#"`delete` needs approval to run with {"path":"/tmp/x"}"#
    );
    // Nothing ran, and the provider encoding refuses to send a call still waiting.
    assert!(
        tools
            .encode_results(toolwright::provider::Provider::OpenAiChat, &calls, &results)
            .is_err()
    );

    let approved = tools.approve(&calls[1], &ctx).await;
    assert_eq!(approved.call_id, "c1");
    assert!(!approved.is_error);
    assert_eq!(approved.text(), "deleted /tmp/x");

    // Arguments are checked before anyone is asked: a bad call is an argument error.
    let bad = call("c3", "delete", json!({"file": "/tmp/x"}));
    let result = tools.execute(&bad, &ctx).await;
    assert!(result.argument_error().is_some(), "{}", result.text());
}

async fn a_rejected_call_tells_the_model_why() {
    let (tools, ctx) = (toolbox(), Ctx::default());
    let calls = [call("c1", "delete", json!({"path": "/etc"}))];
    let results = tools.execute_all(&calls, &ctx).await;
    assert!(results[0].is_interrupt());
    let rejected = tools.reject(&calls[0], "not the system folder");
    assert_eq!(rejected.call_id, "c1");
    assert!(rejected.is_error);
    assert_eq!(
        rejected.text(),
        "the user rejected this call of `delete`: not the system folder"
    );
    assert!(matches!(
        &rejected.detail,
        ResultDetail::Rejected { reason } if &**reason == "not the system folder"
    ));
}

#[test]
fn a_tool_can_ask_for_approval_itself() {
    let (tools, ctx) = (toolbox(), Ctx::default());
    let small = call("c0", "transfer", json!({"amount": 5}));
    let large = call("c1", "transfer", json!({"amount": 500}));
    let results = tools.execute_all_blocking(&[small, large.clone()], &ctx);
    assert_eq!(results[0].text(), "sent 5");
    let interrupt = results[1].interrupt().unwrap();
    assert_eq!(interrupt.kind, InterruptKind::Tool);
    assert_eq!(interrupt.message, "send 500?");
    assert_eq!(tools.approve_blocking(&large, &ctx).text(), "sent 500");
}

#[test]
fn an_approval_rule_sees_the_arguments_and_the_context() {
    let ctx = Ctx::default();
    let tools = toolbox()
        .needs_approval_when("wait", |args, ctx: &Ctx| {
            args["ms"].as_u64() > Some(10) && ctx.0.events.lock().unwrap().is_empty()
        })
        .unwrap();
    let results = tools.execute_all_blocking(
        &[
            call("c0", "wait", json!({"id": 0, "ms": "50"})),
            call("c1", "wait", json!({"id": 1, "ms": 1})),
        ],
        &ctx,
    );
    let interrupt = results[0]
        .interrupt()
        .expect("the long wait needs approval");
    // Coerced as the tool will get it.
    assert_eq!(interrupt.data, json!({"id": 0, "ms": 50}));
    assert_eq!(results[1].text(), "1");
    assert!(matches!(
        toolbox().needs_approval_when("nope", |_, _| true),
        Err(toolwright::RegisterError::UnknownTool(name)) if name == "nope"
    ));
}

#[test]
fn a_model_that_keeps_sending_bad_arguments_exhausts_the_budget() {
    let (tools, ctx) = (toolbox(), Ctx::default());
    let bad = |id: &str| call(id, "wait", json!({"id": "one", "ms": 1}));
    let good = call("g", "wait", json!({"id": 1, "ms": 1}));

    let results = tools.execute_all_blocking(&[bad("c0"), bad("c1"), bad("c2")], &ctx);
    assert_eq!(results[0].budget_exhausted(), None);
    assert_eq!(results[1].budget_exhausted(), None);
    assert!(results[1].argument_error().is_some());
    assert_eq!(results[2].budget_exhausted(), Some(3));
    assert!(results[2].argument_error().is_some());
    let text = results[2].text();
    assert!(
        text.starts_with("invalid arguments for tool `wait`"),
        "{text}"
    );
    assert!(
        text.ends_with("This is invalid call 3 of `wait` in a row, the most allowed: do not call it again. Tell the user what you were trying to do and what went wrong."),
        "{text}"
    );
    // Beyond the budget, every invalid call says so; other tools keep their own count.
    assert_eq!(
        tools.execute_blocking(&bad("c3"), &ctx).budget_exhausted(),
        Some(4)
    );
    let other = tools.execute_blocking(&call("d", "delete", json!({})), &ctx);
    assert_eq!(other.budget_exhausted(), None);
    assert!(other.argument_error().is_some());

    // A valid call starts the count again.
    assert_eq!(tools.execute_blocking(&good, &ctx).text(), "1");
    assert_eq!(
        tools.execute_blocking(&bad("c4"), &ctx).budget_exhausted(),
        None
    );

    // A budget of one stops at the first; a fresh copy of the toolbox counts afresh.
    let strict = toolbox().with_retry_budget(1);
    assert_eq!(
        strict.execute_blocking(&bad("c5"), &ctx).budget_exhausted(),
        Some(1)
    );
    assert_eq!(
        strict
            .clone()
            .execute_blocking(&bad("c6"), &ctx)
            .budget_exhausted(),
        Some(1)
    );
    let unlimited = toolbox().with_retry_budget(0);
    for i in 0..5 {
        let result = unlimited.execute_blocking(&bad(&format!("u{i}")), &ctx);
        assert_eq!(result.budget_exhausted(), None);
    }
}

/// Records what it sees; clamps waits to 1 ms; denies writes; tags every result.
struct Guard {
    seen: Arc<Mutex<Vec<String>>>,
}

impl Hook<Ctx> for Guard {
    fn before(&self, definition: &ToolDefinition, call: &ToolCall, ctx: &Ctx) -> Before {
        self.seen.lock().unwrap().push(format!(
            "before {} {} {}",
            definition.name(),
            call.call_id,
            ctx.0.events.lock().unwrap().len()
        ));
        match definition.name() {
            "write" => Before::Deny("writes are off today".to_owned()),
            "wait" => {
                let mut arguments = call.arguments_as_map();
                arguments.insert("ms".to_owned(), json!(1));
                Before::Rewrite(Value::Object(arguments).into())
            }
            _ => Before::Continue,
        }
    }

    fn after(
        &self,
        definition: &ToolDefinition,
        call: &ToolCall,
        _ctx: &Ctx,
        result: &mut ToolResult,
    ) {
        self.seen.lock().unwrap().push(format!(
            "after {} {}",
            definition.name(),
            call.arguments_as_map()["ms"]
        ));
        let text = format!("[checked] {}", result.text());
        result.content = toolwright::Content::text_part(text);
    }
}

#[test]
fn hooks_see_rewrite_and_deny_calls() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let tools = toolbox().with_hook(Guard {
        seen: Arc::clone(&seen),
    });
    let ctx = Ctx::default();
    let calls = [
        call("c0", "wait", json!({"id": 0, "ms": 60_000})),
        call("c1", "write", json!({"id": 1, "ms": 1})),
    ];
    let results = tools.execute_all_blocking(&calls, &ctx);
    assert_eq!(results[0].text(), "[checked] 0");
    assert!(results[1].is_error);
    assert!(matches!(results[1].detail, ResultDetail::Denied));
    assert_eq!(results[1].text(), "[checked] writes are off today");
    assert_eq!(ctx.events(), ["start wait0", "end wait0"]);
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "before wait c0 0",
            "after wait 1",
            "before write c1 2",
            "after write 1"
        ]
    );
}

/// Each scenario as a test on a multi-thread tokio runtime, and as a test on a plain `futures`
/// executor (no runtime: timeouts on the timer thread, blocking tools on threads of their own).
macro_rules! on_both_executors {
    ($($scenario:ident),* $(,)?) => {
        mod tokio_runtime {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $scenario() {
                    super::$scenario().await;
                }
            )*
        }

        mod plain_executor {
            $(
                #[test]
                fn $scenario() {
                    futures_executor::block_on(super::$scenario());
                }
            )*
        }
    };
}

on_both_executors!(
    results_come_in_call_order_whatever_order_calls_finish,
    concurrency_is_bounded_by_the_limit,
    switching_parallel_calls_off_runs_every_call_alone,
    a_tool_not_safe_to_run_concurrently_runs_alone_in_call_order,
    a_panicking_tool_fails_alone,
    a_hanging_tool_times_out_and_the_others_finish,
    a_timed_out_blocking_tool_is_told_to_stop_and_its_late_result_is_discarded,
    cancelling_a_batch_gives_every_unfinished_call_a_cancelled_result,
    a_batch_cancelled_in_place_keeps_what_finished,
    dropping_a_batch_tells_its_running_calls,
    a_call_that_needs_approval_waits_then_runs_once_approved,
    a_rejected_call_tells_the_model_why,
);

#[test]
fn blocking_inside_a_current_thread_runtime_still_times_out() {
    // The runtime's only thread is held by `execute_all_blocking`, so tokio's timer could not
    // fire: the timeout must come from elsewhere, not hang.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let ctx = Ctx::default();
    let results = runtime.block_on(async {
        toolbox().execute_all_blocking(
            &[
                call("c0", "hang", json!({})),
                call("c1", "wait", json!({"id": 1, "ms": 5})),
            ],
            &ctx,
        )
    });
    assert!(matches!(results[0].detail, ResultDetail::TimedOut { .. }));
    assert_eq!(results[1].text(), "1");
}

#[test]
fn an_approval_rule_can_read_the_typed_arguments() {
    let ctx = Ctx::default();
    let tools = toolbox()
        .needs_approval_if(&WaitTool, |args, _: &Ctx| args.ms > 10)
        .unwrap();
    let results = tools.execute_all_blocking(
        &[
            call("c0", "wait", json!({"id": 0, "ms": "50"})),
            call("c1", "wait", json!({"id": 1, "ms": 1})),
        ],
        &ctx,
    );
    // The rule saw the coerced number, and the person sees it too.
    assert_eq!(
        results[0].interrupt().unwrap().data,
        json!({"id": 0, "ms": 50})
    );
    assert_eq!(results[1].text(), "1");
}
