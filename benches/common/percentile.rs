//! The `p` quantile of sorted durations (nearest rank), as the load benches report them.

use std::time::Duration;

/// The value at quantile `p` (0 to 1) of `sorted`, which is sorted and not empty.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss,
        reason = "an index into at most millions of samples"
    )]
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at.min(sorted.len() - 1)]
}
