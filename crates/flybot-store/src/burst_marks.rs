//! Where a burst of changes spends its time (issue 38), for `flybot-bench
//! store`: each step on a change's way to disk stamps when it was reached
//! (the first change's start, every other step's last time), and the bench
//! reads and clears the stamps around each burst. Stamps, and the bench's
//! `begin`/`end`, exist only with the `testing` feature (the benchmark seam
//! the flybot binary never enables); without it each mark is empty and
//! compiles away.

/// The steps of a change's way to disk, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// A change entered `Store::mutate` (the first one's time is kept).
    Entered,
    /// A change's line was queued for the journal.
    Queued,
    /// Queued lines were handed to the journal thread.
    HandedOver,
    /// The journal thread took lines to write.
    WriterTook,
    /// A write and its fsync ended (each is one batch).
    Written,
    /// A batch's waiters were answered.
    Answered,
}

impl Step {
    /// Every step, in the order a change takes them.
    pub const ALL: [Step; 6] = [
        Step::Entered,
        Step::Queued,
        Step::HandedOver,
        Step::WriterTook,
        Step::Written,
        Step::Answered,
    ];

    /// What the step is, in the bench's words.
    pub fn name(self) -> &'static str {
        match self {
            Step::Entered => "first change begun",
            Step::Queued => "last line queued",
            Step::HandedOver => "handed to the journal thread",
            Step::WriterTook => "journal thread has them",
            Step::Written => "written and synced",
            Step::Answered => "waiters answered",
        }
    }
}

/// One burst's stamps, in microseconds from its start (`None`: not reached),
/// and how many batches it was written in.
#[cfg(feature = "testing")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Burst {
    pub at_us: [Option<u64>; 6],
    pub batches: u64,
}

#[cfg(feature = "testing")]
mod kept {
    use super::{Burst, Step};
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Instant;

    static EPOCH: OnceLock<Instant> = OnceLock::new();
    static STAMPS: [AtomicU64; 6] = [const { AtomicU64::new(0) }; 6];
    static BATCHES: AtomicU64 = AtomicU64::new(0);

    fn now_ns() -> u64 {
        // Never 0, which stands for "not reached".
        let since = EPOCH.get_or_init(Instant::now).elapsed().as_nanos();
        u64::try_from(since).unwrap_or(u64::MAX).max(1)
    }

    pub fn reach(step: Step) {
        let stamp = &STAMPS[step as usize];
        if step == Step::Entered {
            let _ = stamp.compare_exchange(0, now_ns(), Ordering::SeqCst, Ordering::SeqCst);
        } else {
            stamp.store(now_ns(), Ordering::SeqCst);
        }
        if step == Step::Written {
            BATCHES.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// Clears the stamps; answers the burst's start.
    pub fn begin() -> u64 {
        for stamp in &STAMPS {
            stamp.store(0, Ordering::SeqCst);
        }
        BATCHES.store(0, Ordering::SeqCst);
        now_ns()
    }

    pub fn end(start: u64) -> Burst {
        let at_us = std::array::from_fn(|i| match STAMPS[i].swap(0, Ordering::SeqCst) {
            0 => None,
            at => Some(at.saturating_sub(start) / 1_000),
        });
        Burst {
            at_us,
            batches: BATCHES.swap(0, Ordering::SeqCst),
        }
    }
}

#[cfg(not(feature = "testing"))]
mod kept {
    #[inline(always)]
    pub fn reach(_: super::Step) {}
}

/// Stamps `step` as reached now.
#[inline(always)]
pub(crate) fn reach(step: Step) {
    kept::reach(step);
}

/// Clears the stamps for a burst that starts now; answers its start, for
/// [`end`]. One burst at a time: the stamps are the process's.
#[cfg(feature = "testing")]
pub fn begin() -> u64 {
    kept::begin()
}

/// The stamps of the burst begun at `start`, cleared.
#[cfg(feature = "testing")]
pub fn end(start: u64) -> Burst {
    kept::end(start)
}

#[cfg(all(test, feature = "testing"))]
mod tests {
    use super::*;

    /// Run alone (nextest runs each test in a process of its own) or beside
    /// other tests' changes, which may only add stamps: the first entry
    /// stays the first, a later step's stamp is its last, and every write
    /// is counted.
    #[test]
    fn a_burst_keeps_the_first_entry_the_last_of_each_step_and_counts_its_batches() {
        let start = begin();
        reach(Step::Entered);
        std::thread::sleep(std::time::Duration::from_millis(2));
        reach(Step::Entered);
        reach(Step::Queued);
        reach(Step::Written);
        reach(Step::Written);
        let burst = end(start);
        let (entered, queued) = (burst.at_us[0].unwrap(), burst.at_us[1].unwrap());
        assert!(queued >= entered + 2_000, "{burst:?}");
        assert!(burst.batches >= 2, "{burst:?}");
    }
}
