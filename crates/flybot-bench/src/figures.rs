//! The arithmetic the figures share: a percentile of measured durations and
//! a duration in milliseconds.

use std::time::Duration;

/// The `percent`th percentile of `samples` (sorted in place): the sample at
/// `(len - 1) * percent / 100`, or zero when there is none.
pub fn percentile(samples: &mut [Duration], percent: usize) -> Duration {
    samples.sort_unstable();
    let index = (samples.len().saturating_sub(1) * percent) / 100;
    samples.get(index).copied().unwrap_or_default()
}

/// A duration in milliseconds.
pub fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
