//! Cancellation: a signal a batch (or the application) raises, and tools observe.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

/// A cancellation signal shared by whoever holds a clone: raise it with
/// [`cancel`](Self::cancel), observe it with [`is_cancelled`](Self::is_cancelled) or await
/// [`cancelled`](Self::cancelled).
///
/// A batch gives each call its own token, raised when the batch is cancelled or dropped, or the
/// call times out; a tool observes it through its `#[tool(call_info)]` parameter. Give a batch a
/// token of your own ([`BatchOptions::cancellation`](crate::exec::BatchOptions::cancellation)) to cancel
/// it from outside.
///
/// ```
/// use toolwright::exec::Cancellation;
///
/// let token = Cancellation::new();
/// let seen_by_tool = token.clone();
/// assert!(!seen_by_tool.is_cancelled());
/// token.cancel();
/// assert!(seen_by_tool.is_cancelled());
/// ```
#[derive(Clone)]
pub struct Cancellation {
    /// `None` for a token nobody can raise: single calls get one without allocating.
    inner: Option<Arc<Inner>>,
}

#[derive(Default)]
struct Inner {
    cancelled: AtomicBool,
    wakers: Mutex<Vec<Waker>>,
}

static NEVER: Cancellation = Cancellation { inner: None };

impl fmt::Debug for Cancellation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cancellation")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

/// A token not yet raised, as [`Cancellation::new`].
impl Default for Cancellation {
    fn default() -> Self {
        Cancellation::new()
    }
}

impl Cancellation {
    /// A token not yet raised.
    pub fn new() -> Self {
        Cancellation {
            inner: Some(Arc::default()),
        }
    }

    /// A token that is never raised.
    pub fn never() -> &'static Cancellation {
        &NEVER
    }

    /// Raises the signal, waking everything awaiting [`cancelled`](Self::cancelled). Raising it
    /// again does nothing.
    pub fn cancel(&self) {
        let Some(inner) = &self.inner else { return };
        if inner.cancelled.swap(true, Ordering::AcqRel) {
            return;
        }
        let wakers = std::mem::take(&mut *lock(&inner.wakers));
        for waker in wakers {
            waker.wake();
        }
    }

    /// Whether the signal was raised.
    pub fn is_cancelled(&self) -> bool {
        self.inner
            .as_ref()
            .is_some_and(|inner| inner.cancelled.load(Ordering::Acquire))
    }

    /// A future that completes when the signal is raised (never, for [`never`](Self::never)).
    pub fn cancelled(&self) -> Cancelled<'_> {
        Cancelled { token: self }
    }

    /// Wakes `waker` when the signal is raised; registers it once however often it is asked.
    pub(crate) fn wake_on_cancel(&self, waker: &Waker) {
        let Some(inner) = &self.inner else { return };
        let mut wakers = lock(&inner.wakers);
        if !wakers.iter().any(|w| w.will_wake(waker)) {
            wakers.push(waker.clone());
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Nothing runs user code while holding these locks, so a poisoned one is still consistent.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The future of [`Cancellation::cancelled`].
#[derive(Debug)]
#[must_use = "futures do nothing unless awaited"]
pub struct Cancelled<'a> {
    token: &'a Cancellation,
}

impl Future for Cancelled<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.token.is_cancelled() {
            return Poll::Ready(());
        }
        self.token.wake_on_cancel(cx.waker());
        // Raised between the check and the registration: its wake-up list was already taken.
        if self.token.is_cancelled() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::block_on;

    #[test]
    fn a_default_token_can_be_raised_and_never_cannot() {
        // `Default` is `new`: a token made by `Cancellation::default()` works like any other.
        let token = Cancellation::default();
        let seen = token.clone();
        token.cancel();
        assert!(seen.is_cancelled());
        Cancellation::never().cancel();
        assert!(!Cancellation::never().is_cancelled());
    }

    #[test]
    fn a_raised_token_wakes_its_waiters() {
        let token = Cancellation::new();
        let raiser = token.clone();
        let thread = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(10));
            raiser.cancel();
        });
        block_on(token.cancelled());
        assert!(token.is_cancelled());
        thread.join().unwrap();
    }

    #[test]
    fn the_never_token_cannot_be_raised() {
        Cancellation::never().cancel();
        assert!(!Cancellation::never().is_cancelled());
    }
}
