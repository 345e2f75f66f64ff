//! What a task costs beyond its tool's own time (issue 48), with 100 tasks in flight at every
//! moment: 100 workers, each starting a task, waiting for it, and starting the next. A task's
//! overhead is the time from `Tasks::start` until the task is stored completed (its creation
//! written, the body spawned, its result written), plus one `tasks/get`-style read of the result,
//! less the tool's own time (a 20 ms sleep, timed inside the tool). In Redis (`--redis URL`, a
//! server on loopback) and in memory.
//!
//!     cargo bench -p toolwright-benches --bench tasks -- [--redis redis://127.0.0.1:6379] [--rounds 50]
//!
//! Prints p50, p99 and max over every task of every round (BENCHMARKS.md has the numbers). Not
//! criterion: the figure wanted is a percentile over concurrent tasks, not a mean of one loop.

#[path = "common/percentile.rs"]
mod percentile;

use percentile::percentile;
use std::sync::Arc;
use std::time::{Duration, Instant};

use toolwright::tasks::{MemoryStore, RedisStore, TaskStart, TaskStatus, TaskStore, Tasks};
use toolwright::{ToolCall, Toolbox, tool};

static NAP_MS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(20);

/// Sleeps `NAP_MS` milliseconds; returns how long it took, in nanoseconds.
#[tool]
async fn nap() -> u64 {
    let began = Instant::now();
    tokio::time::sleep(Duration::from_millis(
        NAP_MS.load(std::sync::atomic::Ordering::Relaxed),
    ))
    .await;
    u64::try_from(began.elapsed().as_nanos()).unwrap()
}

async fn one(tasks: &Tasks<()>, n: usize) -> Duration {
    let (done, finished) = tokio::sync::oneshot::channel::<Instant>();
    let done = std::sync::Mutex::new(Some(done));
    let start = TaskStart::new().owner("bench").watch(move |record| {
        if record.status == TaskStatus::Completed
            && let Some(done) = done.lock().unwrap().take()
        {
            let _ = done.send(Instant::now());
        }
    });
    let began = Instant::now();
    let call = ToolCall::new(format!("c{n}"), "nap", "{}");
    let task = tasks.start(call, (), start).await.expect("started");
    let stored = finished.await.expect("the task ended");
    let read = Instant::now();
    let got = tasks.get(&task.id, "bench").await.expect("read");
    let read = read.elapsed();
    assert_eq!(got.status, TaskStatus::Completed);
    let own = got
        .result
        .as_ref()
        .and_then(|result| result["structuredContent"].as_u64());
    (stored - began) + read - Duration::from_nanos(own.expect("the tool's own time"))
}

async fn measure(name: &str, store: Arc<dyn TaskStore>, rounds: usize, concurrent: usize) {
    let toolbox = Arc::new(Toolbox::new().with(NapTool).unwrap());
    let tasks = Tasks::new(toolbox, store);
    // Warm up: connections, the script loaded.
    for n in 0..10 {
        one(&tasks, n).await;
    }
    let workers: Vec<_> = (0..concurrent)
        .map(|worker| {
            let tasks = tasks.clone();
            tokio::spawn(async move {
                // Spread over the first tool's time, as tasks in flight are.
                let ms = NAP_MS.load(std::sync::atomic::Ordering::Relaxed);
                let step = ms * 1000 / u64::try_from(concurrent).unwrap();
                tokio::time::sleep(Duration::from_micros(step * u64::try_from(worker).unwrap()))
                    .await;
                let mut times = Vec::with_capacity(rounds);
                for round in 0..rounds {
                    times.push(one(&tasks, worker * rounds + round).await);
                }
                times
            })
        })
        .collect();
    let mut all = Vec::with_capacity(rounds * concurrent);
    for worker in workers {
        all.extend(worker.await.unwrap());
    }
    all.sort();
    println!(
        "{name}: {} tasks, {concurrent} in flight: overhead p50 {:?}, p99 {:?}, max {:?}",
        all.len(),
        percentile(&all, 0.5),
        percentile(&all, 0.99),
        all[all.len() - 1]
    );
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut redis, mut rounds, mut concurrent) = (None, 50, 100);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--redis" => redis = args.next(),
            "--rounds" => rounds = args.next().and_then(|n| n.parse().ok()).unwrap_or(50),
            "--tool-ms" => {
                let ms = args.next().and_then(|n| n.parse().ok()).unwrap_or(20);
                NAP_MS.store(ms, std::sync::atomic::Ordering::Relaxed);
            }
            "--concurrent" => {
                concurrent = args.next().and_then(|n| n.parse().ok()).unwrap_or(100);
            }
            // cargo bench passes `--bench`.
            _ => {}
        }
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        measure("memory", Arc::new(MemoryStore::new()), rounds, concurrent).await;
        if let Some(url) = redis {
            let store = RedisStore::connect(&url).await.expect("Redis at --redis");
            measure("redis", Arc::new(store), rounds, concurrent).await;
        }
    });
}
