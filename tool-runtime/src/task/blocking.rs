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
/// body that should stop early watches a [`Cancellation`](crate::exec::Cancellation). A body that
/// never returns keeps one thread of toolwright's pool, and nothing else: no runtime waits for
/// it to shut down.
///
/// The pool starts a thread when a body finds none idle, up to 512 threads (as tokio's blocking
/// pool); past that, bodies wait, in the order they came, for a thread to finish its body. An
/// idle thread ends after 10 seconds without work.
///
/// ```
/// let answer = toolwright::exec::block_on(toolwright::exec::run_blocking(|| {
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

/// The most threads the pool of [`run_blocking`] runs at once; further bodies wait for one.
const MAX_BLOCKING_THREADS: usize = 512;

/// How long an idle thread of the pool waits for work before it ends.
const KEEP_ALIVE: Duration = Duration::from_secs(10);

/// Threads that run blocking bodies: one is started whenever a job finds none idle and fewer
/// than `max` run, and it ends after `keep_alive` without work.
struct Pool {
    state: Mutex<Queue>,
    ready: Condvar,
    max: usize,
    keep_alive: Duration,
}

struct Queue {
    jobs: VecDeque<Job>,
    /// Threads waiting for a job.
    idle: usize,
    /// Threads started and not yet ended.
    threads: usize,
}

static POOL: Pool = Pool::new(MAX_BLOCKING_THREADS, KEEP_ALIVE);

impl Pool {
    const fn new(max: usize, keep_alive: Duration) -> Self {
        Pool {
            state: Mutex::new(Queue {
                jobs: VecDeque::new(),
                idle: 0,
                threads: 0,
            }),
            ready: Condvar::new(),
            max,
            keep_alive,
        }
    }

    fn run(&'static self, job: Job) -> Result<(), std::io::Error> {
        let mut queue = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        // An idle thread takes it, or, at the cap, the first thread to finish its body.
        if queue.idle > queue.jobs.len() || queue.threads >= self.max {
            queue.jobs.push_back(job);
            drop(queue);
            self.ready.notify_one();
            return Ok(());
        }
        queue.threads += 1;
        drop(queue);
        let started = thread::Builder::new()
            .name("toolwright-blocking".to_owned())
            .spawn(move || self.work(job));
        if started.is_err() {
            self.state
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .threads -= 1;
        }
        started.map(drop)
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
                .wait_timeout(queue, self.keep_alive)
                .unwrap_or_else(PoisonError::into_inner);
            queue = woken;
            queue.idle -= 1;
            if timeout.timed_out() && queue.jobs.is_empty() {
                queue.threads -= 1;
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
    use crate::task::{CatchUnwind, block_on};

    #[test]
    fn a_panic_in_the_body_reaches_the_poller() {
        let caught = block_on(CatchUnwind::new(run_blocking(|| -> u8 { panic!("deep") })));
        let Err(payload) = caught else {
            panic!("the panic was lost")
        };
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"deep"));
    }

    /// A pool of the test's own, so that its threads are known.
    fn pool(max: usize) -> &'static Pool {
        Box::leak(Box::new(Pool::new(max, Duration::from_secs(60))))
    }

    /// Waits until `pool` has `idle` idle threads (bounded, for a broken pool).
    fn wait_idle(pool: &Pool, idle: usize) {
        let started = std::time::Instant::now();
        while pool.state.lock().unwrap().idle < idle {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "no thread went idle"
            );
            thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn idle_threads_take_the_next_body() {
        // Sequential bodies, each sent once the thread before is idle: one thread runs them all.
        let pool = pool(8);
        let (sent, ran_on) = std::sync::mpsc::channel();
        for _ in 0..20 {
            let sent = sent.clone();
            pool.run(Box::new(move || sent.send(thread::current().id()).unwrap()))
                .unwrap();
            ran_on.recv().unwrap();
            wait_idle(pool, 1);
        }
        drop(sent);
        assert_eq!(pool.state.lock().unwrap().threads, 1);
    }

    #[test]
    fn threads_are_capped_and_later_bodies_wait() {
        // Six bodies that block until released, on a pool of at most two threads: two run, four
        // wait; released, all six finish, on those two threads.
        let pool = pool(2);
        let running = Arc::new(Mutex::new((0usize, 0usize))); // (now, most at once)
        let (release, gate) = std::sync::mpsc::channel::<()>();
        let gate = Arc::new(Mutex::new(gate));
        let (done, finished) = std::sync::mpsc::channel();
        for _ in 0..6 {
            let (running, gate, done) = (Arc::clone(&running), Arc::clone(&gate), done.clone());
            pool.run(Box::new(move || {
                {
                    let mut count = running.lock().unwrap();
                    count.0 += 1;
                    count.1 = count.1.max(count.0);
                }
                gate.lock().unwrap().recv().unwrap();
                running.lock().unwrap().0 -= 1;
                done.send(thread::current().id()).unwrap();
            }))
            .unwrap();
        }
        assert_eq!(pool.state.lock().unwrap().threads, 2);
        assert_eq!(pool.state.lock().unwrap().jobs.len(), 4);
        // Both threads in their first body before any is released.
        let started = std::time::Instant::now();
        while running.lock().unwrap().0 < 2 {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the bodies never started"
            );
            thread::sleep(Duration::from_millis(1));
        }
        for _ in 0..6 {
            release.send(()).unwrap();
        }
        let threads: std::collections::HashSet<_> =
            (0..6).map(|_| finished.recv().unwrap()).collect();
        assert_eq!(
            running.lock().unwrap().1,
            2,
            "more bodies ran at once than the cap"
        );
        assert_eq!(threads.len(), 2);
    }

    #[test]
    fn the_body_runs_on_another_thread() {
        let here = thread::current().id();
        let there = block_on(run_blocking(|| thread::current().id()));
        assert_ne!(here, there);
    }
}
