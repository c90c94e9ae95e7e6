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

/// The median of figures already in milliseconds, chosen as `percentile`
/// chooses (the lower middle of an even count); zero when there is none.
pub fn median_of(mut samples: Vec<f64>) -> f64 {
    samples.sort_unstable_by(f64::total_cmp);
    let index = samples.len().saturating_sub(1) / 2;
    samples.get(index).copied().unwrap_or_default()
}
