//! The executor-agnostic pieces calls run on: catching panics across polls, a minimal blocking
//! executor, a sleep, blocking bodies off the executor, cancellation and progress, and the
//! scope a body runs in ([`CallScope`], [`CallInfo`]). Running calls (batches, hooks, approval,
//! retry budgets) is `dispatch`, above the toolbox.

mod blocking;
mod cancel;
mod conversation;
mod progress;
mod scope;
mod timer;

pub use self::blocking::{Blocking, run_blocking};
pub use self::cancel::{Cancellation, Cancelled};
pub use self::conversation::Conversation;
pub use self::progress::{Listen, LogLevel, LogMessage, Progress, ProgressSink};
pub use self::scope::{CallInfo, CallScope};
pub use self::timer::{Sleep, sleep};

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

use crate::caller::Caller;

/// A boxed, sendable future, as the erased tool interface returns.
/// What a running call is told from outside: when to stop, and where its progress goes.
#[derive(Clone, Copy)]
pub(crate) struct Signals<'a> {
    pub(crate) cancellation: &'a Cancellation,
    pub(crate) progress: Option<&'a ProgressSink>,
    /// Who the call is made for, when someone in particular.
    pub(crate) caller: Option<&'a Arc<Caller>>,
    /// The conversation whose retry budget the call spends, when not the toolbox's own.
    pub(crate) conversation: Option<&'a Conversation>,
}

impl Signals<'static> {
    /// Nothing cancels the call, nobody hears its progress, and it is made for no one in
    /// particular.
    pub(crate) fn none() -> Self {
        Signals {
            cancellation: Cancellation::never(),
            progress: None,
            caller: None,
            conversation: None,
        }
    }
}

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A value that is here already, or a boxed future of it: sync tool bodies finish without
/// allocating a future. `.await` it like any future.
pub enum MaybeReady<'a, T> {
    /// Done.
    Ready(T),
    /// Still to come.
    Pending(BoxFuture<'a, T>),
}

impl<T> std::fmt::Debug for MaybeReady<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            MaybeReady::Ready(_) => "MaybeReady::Ready(..)",
            MaybeReady::Pending(_) => "MaybeReady::Pending(..)",
        })
    }
}

impl<'a, T> std::future::IntoFuture for MaybeReady<'a, T> {
    type Output = T;
    type IntoFuture = Resolve<'a, T>;

    fn into_future(self) -> Resolve<'a, T> {
        Resolve(Some(self))
    }
}

/// The future of a [`MaybeReady`].
#[derive(Debug)]
pub struct Resolve<'a, T>(Option<MaybeReady<'a, T>>);

impl<T> Unpin for Resolve<'_, T> {}

impl<T> Future for Resolve<'_, T> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        match self.0.take() {
            Some(MaybeReady::Ready(value)) => Poll::Ready(value),
            Some(MaybeReady::Pending(mut future)) => match future.as_mut().poll(cx) {
                Poll::Ready(value) => Poll::Ready(value),
                Poll::Pending => {
                    self.0 = Some(MaybeReady::Pending(future));
                    Poll::Pending
                }
            },
            None => panic!("`Resolve` polled after it completed"),
        }
    }
}

/// Polls a future, turning a panic during any poll into `Err(payload)`.
pub(crate) struct CatchUnwind<F> {
    inner: F,
}

impl<F> CatchUnwind<F> {
    pub(crate) fn new(inner: F) -> Self {
        CatchUnwind { inner }
    }
}

impl<F: Future + Unpin> Future for CatchUnwind<F> {
    type Output = Result<F::Output, Box<dyn Any + Send>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // A tool that panicked is never polled again: the toolbox drops it with this result.
        let inner = &mut self.inner;
        match catch_unwind(AssertUnwindSafe(|| Pin::new(inner).poll(cx))) {
            Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready(Err(payload)),
        }
    }
}

struct ThreadWaker(Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs a future to completion on the current thread, parking between polls.
///
/// Enough for sync callers of tools that do not need a particular async runtime; a tool that needs
/// tokio must be run inside tokio.
pub fn block_on<F: Future>(future: F) -> F::Output {
    thread_local! {
        // One waker per thread, made once: blocking calls in a loop allocate nothing for it.
        static WAKER: Waker = Waker::from(Arc::new(ThreadWaker(thread::current())));
    }
    let mut future = std::pin::pin!(future);
    let _in_block_on = InBlockOn::enter();
    WAKER.with(|waker| {
        let mut cx = Context::from_waker(waker);
        loop {
            if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
                return output;
            }
            thread::park();
        }
    })
}

thread_local! {
    static IN_BLOCK_ON: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Marks this thread as blocked in [`block_on`] while it lives.
struct InBlockOn(bool);

impl InBlockOn {
    fn enter() -> Self {
        InBlockOn(IN_BLOCK_ON.with(|flag| flag.replace(true)))
    }
}

impl Drop for InBlockOn {
    fn drop(&mut self) {
        IN_BLOCK_ON.with(|flag| flag.set(self.0));
    }
}

#[cfg(feature = "tokio")]
/// Whether this thread is blocked in [`block_on`]: a runtime whose thread this is (tokio's
/// current-thread runtime, say) cannot drive its timers meanwhile.
pub(crate) fn in_block_on() -> bool {
    IN_BLOCK_ON.with(std::cell::Cell::get)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_in_a_poll_become_errors() {
        let result = block_on(CatchUnwind::new(Box::pin(async { panic!("boom") })));
        let Err(payload) = result;
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"boom"));
    }

    #[test]
    fn block_on_waits_for_wakeups_from_other_threads() {
        use std::sync::atomic::{AtomicBool, Ordering};
        // Ready only after another thread has set the flag and woken the task.
        struct Flag(Arc<AtomicBool>, bool);
        impl Future for Flag {
            type Output = &'static str;
            fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
                if self.0.load(Ordering::SeqCst) {
                    return Poll::Ready("done");
                }
                if !self.1 {
                    self.1 = true;
                    let (flag, waker) = (Arc::clone(&self.0), cx.waker().clone());
                    thread::spawn(move || {
                        thread::sleep(std::time::Duration::from_millis(10));
                        flag.store(true, Ordering::SeqCst);
                        waker.wake();
                    });
                }
                Poll::Pending
            }
        }
        assert_eq!(
            block_on(Flag(Arc::new(AtomicBool::new(false)), false)),
            "done"
        );
    }
}
