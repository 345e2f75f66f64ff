//! Running a sync body that blocks off the executor's threads: on tokio's blocking pool inside
//! a tokio runtime (with the `tokio` feature), otherwise on a thread of its own.

use std::fmt;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};
use std::thread;

/// Runs `body` where blocking does no harm, and resolves to what it returns. A panic in `body`
/// is resumed where the future is polled (a toolbox turns it into the call's error result).
///
/// Dropping the future does not stop `body`: it runs to its end and its value is discarded. A
/// body that should stop early watches a [`Cancellation`](crate::Cancellation).
///
/// ```
/// let answer = tool_runtime::block_on(tool_runtime::run_blocking(|| {
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
    #[cfg(feature = "tokio")]
    if let Ok(runtime) = tokio::runtime::Handle::try_current() {
        return Blocking(Place::Tokio(runtime.spawn_blocking(body)));
    }
    let slot = Arc::new(Mutex::new(Slot {
        value: None,
        waker: None,
    }));
    let filled = Arc::clone(&slot);
    let spawned = thread::Builder::new()
        .name("toolwright-blocking".to_owned())
        .spawn(move || {
            let value = catch_unwind(AssertUnwindSafe(body));
            let mut slot = filled.lock().unwrap_or_else(PoisonError::into_inner);
            slot.value = Some(value);
            if let Some(waker) = slot.waker.take() {
                drop(slot);
                waker.wake();
            }
        });
    match spawned {
        Ok(_) => Blocking(Place::Thread(slot)),
        Err(error) => Blocking(Place::Failed(Some(error))),
    }
}

/// The future of [`run_blocking`].
#[must_use = "futures do nothing unless awaited"]
pub struct Blocking<T>(Place<T>);

enum Place<T> {
    #[cfg(feature = "tokio")]
    Tokio(tokio::task::JoinHandle<T>),
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
            #[cfg(feature = "tokio")]
            Place::Tokio(handle) => match Pin::new(handle).poll(cx) {
                Poll::Ready(Ok(value)) => Poll::Ready(value),
                Poll::Ready(Err(error)) => match error.try_into_panic() {
                    Ok(payload) => resume_unwind(payload),
                    // Only a runtime shutting down cancels a blocking task.
                    Err(error) => panic!("the blocking tool was stopped: {error}"),
                },
                Poll::Pending => Poll::Pending,
            },
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
    fn the_body_runs_on_another_thread() {
        let here = thread::current().id();
        let there = block_on(run_blocking(|| thread::current().id()));
        assert_ne!(here, there);
    }
}
