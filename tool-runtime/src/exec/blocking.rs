//! Running a sync body that blocks off the executor's threads: on a small pool of toolwright's
//! own threads. Not tokio's blocking pool: a runtime waits for that pool when it shuts down,
//! so a body that never returns would keep a `#[tokio::main]` program from ever exiting.
//! Threads of this pool are not waited for by anything; the process ends when `main` does.

use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};
use std::thread;
use std::time::Duration;

/// Runs `body` where blocking does no harm, and resolves to what it returns. A panic in `body`
/// is resumed where the future is polled (a toolbox turns it into the call's error result).
///
/// Dropping the future does not stop `body`: it runs to its end and its value is discarded. A
/// body that should stop early watches a [`Cancellation`](crate::Cancellation). A body that
/// never returns keeps one thread of toolwright's pool, and nothing else: no runtime waits for
/// it to shut down.
///
/// ```
/// let answer = toolwright::block_on(toolwright::run_blocking(|| {
///     std::thread::sleep(std::time::Duration::from_millis(1));
///     42
/// }));
/// assert_eq!(answer, 42);
/// ```
pub fn run_blocking<F, T>(body: F) -> Blocking<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let slot = Arc::new(Mutex::new(Slot {
        value: None,
        waker: None,
    }));
    let filled = Arc::clone(&slot);
    let job: Job = Box::new(move || {
        let value = catch_unwind(AssertUnwindSafe(body));
        let mut slot = filled.lock().unwrap_or_else(PoisonError::into_inner);
        slot.value = Some(value);
        if let Some(waker) = slot.waker.take() {
            drop(slot);
            waker.wake();
        }
    });
    match POOL.run(job) {
        Ok(()) => Blocking(Place::Thread(slot)),
        Err(error) => Blocking(Place::Failed(Some(error))),
    }
}

type Job = Box<dyn FnOnce() + Send>;

/// How long an idle thread of the pool waits for work before it ends.
const KEEP_ALIVE: Duration = Duration::from_secs(10);

/// Threads that run blocking bodies: one is started whenever a job finds none idle, and it ends
/// after [`KEEP_ALIVE`] without work.
struct Pool {
    state: Mutex<Queue>,
    ready: Condvar,
}

struct Queue {
    jobs: VecDeque<Job>,
    idle: usize,
}

static POOL: Pool = Pool {
    state: Mutex::new(Queue {
        jobs: VecDeque::new(),
        idle: 0,
    }),
    ready: Condvar::new(),
};

impl Pool {
    fn run(&'static self, job: Job) -> Result<(), std::io::Error> {
        let mut queue = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if queue.idle > queue.jobs.len() {
            queue.jobs.push_back(job);
            drop(queue);
            self.ready.notify_one();
            return Ok(());
        }
        drop(queue);
        thread::Builder::new()
            .name("toolwright-blocking".to_owned())
            .spawn(move || self.work(job))
            .map(drop)
    }

    /// Runs `job`, then whatever comes, until none comes for [`KEEP_ALIVE`].
    fn work(&self, job: Job) {
        job();
        let mut queue = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(job) = queue.jobs.pop_front() {
                drop(queue);
                job();
                queue = self.state.lock().unwrap_or_else(PoisonError::into_inner);
                continue;
            }
            queue.idle += 1;
            let (woken, timeout) = self
                .ready
                .wait_timeout(queue, KEEP_ALIVE)
                .unwrap_or_else(PoisonError::into_inner);
            queue = woken;
            queue.idle -= 1;
            if timeout.timed_out() && queue.jobs.is_empty() {
                return;
            }
        }
    }
}

/// The future of [`run_blocking`].
#[must_use = "futures do nothing unless awaited"]
pub struct Blocking<T>(Place<T>);

enum Place<T> {
    Thread(Arc<Mutex<Slot<T>>>),
    Failed(Option<std::io::Error>),
}

struct Slot<T> {
    value: Option<thread::Result<T>>,
    waker: Option<Waker>,
}

impl<T> fmt::Debug for Blocking<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Blocking(..)")
    }
}

impl<T> Unpin for Blocking<T> {}

impl<T> Future for Blocking<T> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        match &mut self.0 {
            Place::Thread(slot) => {
                let mut slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
                match slot.value.take() {
                    Some(Ok(value)) => Poll::Ready(value),
                    Some(Err(payload)) => resume_unwind(payload),
                    None => {
                        slot.waker = Some(cx.waker().clone());
                        Poll::Pending
                    }
                }
            }
            Place::Failed(error) => {
                let error = error.take().map(|e| e.to_string()).unwrap_or_default();
                panic!("no thread could be started for the blocking tool: {error}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::{CatchUnwind, block_on};

    #[test]
    fn a_panic_in_the_body_reaches_the_poller() {
        let caught = block_on(CatchUnwind::new(run_blocking(|| -> u8 { panic!("deep") })));
        let Err(payload) = caught else {
            panic!("the panic was lost")
        };
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"deep"));
    }

    #[test]
    fn idle_threads_take_the_next_body() {
        // Sequential bodies: after the first, a thread of the pool is idle and takes each.
        let first = block_on(run_blocking(|| thread::current().name().map(str::to_owned)));
        assert_eq!(first.as_deref(), Some("toolwright-blocking"));
        let sums: Vec<u32> = (0..50)
            .map(|n| block_on(run_blocking(move || n + 1)))
            .collect();
        assert_eq!(sums, (1..=50).collect::<Vec<u32>>());
    }

    #[test]
    fn the_body_runs_on_another_thread() {
        let here = thread::current().id();
        let there = block_on(run_blocking(|| thread::current().id()));
        assert_ne!(here, there);
    }
}
