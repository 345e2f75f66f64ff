//! Running calls: one call's whole path (hooks, approval, retry budget, timeout), batches with
//! bounded concurrency, and approval of held calls, on any executor.

mod approval;
mod batch;
mod run;

pub use self::approval::Decision;
pub use self::batch::{Batch, BatchOptions};
