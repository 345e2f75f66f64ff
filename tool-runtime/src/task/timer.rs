//! An executor-agnostic sleep: tokio's timer inside a tokio runtime (with the `tokio` feature),
//! otherwise one shared timer thread, started on first use.

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, OnceLock, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

/// Waits for `duration` under any executor.
///
/// Inside a tokio runtime (with the `tokio` feature) this is `tokio::time::sleep`, so it follows
/// tokio's clock (`tokio::time::pause` included) and the runtime needs its timer enabled.
/// Elsewhere, and under [`block_on`](crate::exec::block_on) (which may be holding the very thread a
/// runtime would drive its timers on), one shared thread keeps the deadlines and wakes the
/// waiting tasks. Timeouts of tool
/// calls are measured with it; tools may use it to wait without tying themselves to a runtime.
///
/// ```
/// use std::time::{Duration, Instant};
///
/// let started = Instant::now();
/// toolwright::exec::block_on(toolwright::exec::sleep(Duration::from_millis(5)));
/// assert!(started.elapsed() >= Duration::from_millis(5));
/// ```
pub fn sleep(duration: Duration) -> Sleep {
    #[cfg(feature = "tokio")]
    if !super::in_block_on() && tokio::runtime::Handle::try_current().is_ok() {
        return Sleep(Clock::Tokio(Box::pin(tokio::time::sleep(duration))));
    }
    // A duration too long to add is a wait without end.
    let deadline = Instant::now().checked_add(duration);
    Sleep(Clock::Thread {
        deadline,
        key: None,
    })
}

/// The future of [`sleep`].
#[must_use = "futures do nothing unless awaited"]
pub struct Sleep(Clock);

enum Clock {
    #[cfg(feature = "tokio")]
    Tokio(Pin<Box<tokio::time::Sleep>>),
    Thread {
        deadline: Option<Instant>,
        /// This sleep's entry in the timer thread's queue, with the waker it holds.
        key: Option<((Instant, u64), Waker)>,
    },
}

impl fmt::Debug for Sleep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Sleep(..)")
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        match &mut self.0 {
            #[cfg(feature = "tokio")]
            Clock::Tokio(sleep) => sleep.as_mut().poll(cx),
            Clock::Thread { deadline, key } => {
                let Some(deadline) = *deadline else {
                    return Poll::Pending;
                };
                if Instant::now() >= deadline {
                    if let Some((at, _)) = key.take() {
                        timers().remove(at);
                    }
                    return Poll::Ready(());
                }
                // Registered again only when the task to wake has changed.
                if !matches!(key, Some((_, waker)) if waker.will_wake(cx.waker())) {
                    if let Some((at, _)) = key.take() {
                        timers().remove(at);
                    }
                    let at = timers().insert(deadline, cx.waker().clone());
                    *key = Some((at, cx.waker().clone()));
                }
                Poll::Pending
            }
        }
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        if let Clock::Thread {
            key: Some((at, _)), ..
        } = &self.0
        {
            timers().remove(*at);
        }
    }
}

/// The deadlines the timer thread waits for, earliest first.
struct Timers {
    queue: Mutex<BTreeMap<(Instant, u64), Waker>>,
    changed: Condvar,
    next_id: AtomicU64,
}

fn timers() -> &'static Timers {
    static TIMERS: OnceLock<Timers> = OnceLock::new();
    TIMERS.get_or_init(|| {
        std::thread::Builder::new()
            .name("toolwright-timer".to_owned())
            .spawn(|| timers().run())
            // Without a thread no timer fires: nothing can be done about that here but to say
            // so loudly, and a program that cannot start one thread is failing anyway.
            .expect("toolwright could not start its timer thread");
        Timers {
            queue: Mutex::new(BTreeMap::new()),
            changed: Condvar::new(),
            next_id: AtomicU64::new(0),
        }
    })
}

impl Timers {
    fn insert(&self, deadline: Instant, waker: Waker) -> (Instant, u64) {
        let key = (deadline, self.next_id.fetch_add(1, Ordering::Relaxed));
        let mut queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
        let earliest = queue
            .first_key_value()
            .is_none_or(|(first, _)| key < *first);
        queue.insert(key, waker);
        drop(queue);
        if earliest {
            self.changed.notify_one();
        }
        key
    }

    fn remove(&self, key: (Instant, u64)) {
        self.queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&key);
    }

    fn run(&self) -> ! {
        let mut queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            let now = Instant::now();
            let mut due = Vec::new();
            while let Some(entry) = queue.first_entry() {
                if entry.key().0 > now {
                    break;
                }
                due.push(entry.remove());
            }
            if !due.is_empty() {
                // Woken outside the lock: a waker may run code that sets another timer.
                drop(queue);
                due.into_iter().for_each(Waker::wake);
                queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
                continue;
            }
            queue = match queue.first_key_value() {
                Some(((deadline, _), _)) => {
                    let wait = deadline.saturating_duration_since(now);
                    self.changed
                        .wait_timeout(queue, wait)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
                None => self
                    .changed
                    .wait(queue)
                    .unwrap_or_else(PoisonError::into_inner),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sleeps_wake_in_deadline_order() {
        // Each waker records its sleep when the timer thread wakes it: the order is the timer's
        // own, whatever the threads of the test do. The deadlines are 100 ms apart, so the
        // order they were made in (30, 10, 20) cannot change which comes first.
        struct Record(u64, std::sync::Arc<Mutex<Vec<u64>>>);
        impl std::task::Wake for Record {
            fn wake(self: std::sync::Arc<Self>) {
                self.1.lock().unwrap().push(self.0);
            }
        }
        let order = std::sync::Arc::new(Mutex::new(Vec::new()));
        let started = Instant::now();
        let mut sleeps: Vec<(u64, Pin<Box<Sleep>>)> = [300u64, 100, 200]
            .into_iter()
            .map(|ms| (ms, Box::pin(sleep(Duration::from_millis(ms)))))
            .collect();
        for (ms, sleep) in &mut sleeps {
            let waker = Waker::from(std::sync::Arc::new(Record(
                *ms,
                std::sync::Arc::clone(&order),
            )));
            assert!(
                sleep
                    .as_mut()
                    .poll(&mut Context::from_waker(&waker))
                    .is_pending()
            );
        }
        while order.lock().unwrap().len() < 3 {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the timer never fired"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(*order.lock().unwrap(), [100, 200, 300]);
        assert!(started.elapsed() >= Duration::from_millis(300));
        for (_, sleep) in &mut sleeps {
            assert!(
                sleep
                    .as_mut()
                    .poll(&mut Context::from_waker(Waker::noop()))
                    .is_ready()
            );
        }
    }

    #[test]
    fn a_dropped_sleep_leaves_no_entry() {
        let mut sleep = Box::pin(sleep(Duration::from_secs(3600)));
        let waker = Waker::noop();
        assert!(
            sleep
                .as_mut()
                .poll(&mut Context::from_waker(waker))
                .is_pending()
        );
        let Clock::Thread {
            key: Some((key, _)),
            ..
        } = &sleep.0
        else {
            panic!("outside tokio the timer thread keeps the deadline");
        };
        let key = *key;
        assert!(timers().queue.lock().unwrap().contains_key(&key));
        drop(sleep);
        assert!(!timers().queue.lock().unwrap().contains_key(&key));
    }
}
