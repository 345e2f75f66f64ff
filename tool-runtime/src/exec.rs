//! Running calls: batches and their options, cancellation and progress, hooks, approval
//! decisions, who a call is made for, and the executor-agnostic pieces underneath (`block_on`,
//! `sleep`, blocking bodies), and the contents of a resource a result embeds.
//!
//! [`Toolbox::execute`](crate::Toolbox::execute) and
//! [`Toolbox::execute_all`](crate::Toolbox::execute_all) are the entry points; this module holds
//! what tunes and observes them. Everything here works on any executor (the `tokio` feature only
//! moves timers onto tokio's).

pub use crate::caller::Caller;
pub use crate::content::{ResourceBody, ResourceContents, ResourceLink};
pub use crate::hook::{Before, Hook};
pub use crate::output::HookFailure;
pub use crate::task::{
    Blocking, BoxFuture, CallScope, Cancellation, Cancelled, Conversation, Listen, LogLevel,
    LogMessage, MaybeReady, Progress, ProgressSink, Resolve, Sleep, block_on, run_blocking, sleep,
};
pub use crate::telemetry::error_type;
pub use crate::toolbox::{Batch, BatchOptions, Decision};
pub use crate::toolbox::{DEFAULT_CONCURRENCY, DEFAULT_RETRY_BUDGET};
