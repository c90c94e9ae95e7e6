//! A clock a test moves by hand, for the scheduler (`HostConfig::
//! schedule_clock`): time stands still until the test advances it, and the
//! scheduler is nudged to look again, so a test walks through hours of due
//! times without a real wait and without a background timer racing it.

use crate::Kit;
use flybot_host::schedules::ScheduleClock;
use std::cell::Cell;
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

/// Holds a paused tokio clock still while it lives. On a paused clock the
/// runtime jumps to its next timer whenever it idles, which it does while
/// the journal writer thread fsyncs, so under a loaded disk a test's
/// "30 s later" can land minutes on. Tokio does not jump while a blocking
/// task runs; the hold is such a task, so time moves only by
/// `tokio::time::advance` until the hold is dropped. `Kit::until` still
/// works under a hold: its backstop tick becomes real time.
pub struct ClockHold {
    _release: std::sync::mpsc::Sender<()>,
}

thread_local! {
    /// How many holds the test on this thread has (its runtime is the
    /// current-thread one that runs on it).
    static HOLDS: Cell<usize> = const { Cell::new(0) };
}

/// Holds the current (paused, current-thread) runtime's clock still.
pub fn hold_clock() -> ClockHold {
    let (release, released) = std::sync::mpsc::channel::<()>();
    // Ends when the hold drops its sender.
    tokio::task::spawn_blocking(move || {
        let _ = released.recv();
    });
    HOLDS.with(|holds| holds.set(holds.get() + 1));
    ClockHold { _release: release }
}

impl Drop for ClockHold {
    fn drop(&mut self) {
        HOLDS.with(|holds| holds.set(holds.get() - 1));
    }
}

/// Waits `tick` as a backstop between two looks: on the runtime's clock,
/// or in real time while the clock is held (it would never fire otherwise).
pub(crate) async fn backstop(tick: Duration) {
    if HOLDS.with(Cell::get) == 0 {
        tokio::time::sleep(tick).await;
    } else {
        let _ = tokio::task::spawn_blocking(move || std::thread::sleep(tick)).await;
    }
}
