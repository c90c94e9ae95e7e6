//! A clock a test moves by hand, for the scheduler (`HostConfig::
//! schedule_clock`): time stands still until the test advances it, and the
//! scheduler is nudged to look again, so a test walks through hours of due
//! times without a real wait and without a background timer racing it.

use crate::Kit;
use flybot_host::schedules::ScheduleClock;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A hand-moved clock in milliseconds since the epoch. Cheap to clone.
#[derive(Clone)]
pub struct ManualClock {
    now: Arc<AtomicU64>,
}

impl ManualClock {
    pub fn at(ms: u64) -> ManualClock {
        ManualClock {
            now: Arc::new(AtomicU64::new(ms)),
        }
    }

    pub fn now(&self) -> u64 {
        self.now.load(Ordering::SeqCst)
    }

    /// The clock as a host's config carries it.
    pub fn schedule_clock(&self) -> ScheduleClock {
        let now = self.now.clone();
        ScheduleClock(Arc::new(move || now.load(Ordering::SeqCst)))
    }

    /// Moves the clock on; nothing else happens until a scheduler looks.
    pub fn advance(&self, by: Duration) {
        self.now
            .fetch_add(u64::try_from(by.as_millis()).unwrap(), Ordering::SeqCst);
    }
}

impl Kit {
    /// Moves `clock` on by `by` and has this host's scheduler look again.
    pub fn advance(&self, clock: &ManualClock, by: Duration) {
        clock.advance(by);
        self.host.scheduler().book.nudge();
    }
}
