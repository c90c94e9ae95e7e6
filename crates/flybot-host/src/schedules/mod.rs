//! Scheduled tasks in the running host (#354, #378, #473, #1166): the book
//! (the tasks as team state, written through the one writer), the
//! scheduler (a tokio task that sleeps until the next due time), delivery
//! into a Bot's own chat or a room's round, the settling of each run, the
//! channel's writes and Retry, and the Bots' schedule tools.

pub mod book;
pub mod delivery;
pub mod retry;
pub mod scheduler;
mod settle;
pub mod tools;
pub mod writes;

pub use book::ScheduleBook;
pub use scheduler::Scheduler;

use flybot_store::Clock;
use std::sync::Arc;

/// The scheduler's clock, as `HostConfig` carries it.
#[derive(Clone)]
pub struct ScheduleClock(pub Clock);

impl std::fmt::Debug for ScheduleClock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ScheduleClock({})", (self.0)())
    }
}

/// A clock that follows tokio's time from `base_ms`: under paused time it
/// moves only as the runtime advances, so the scheduler can be driven
/// through hours in a test without a real wait.
pub fn tokio_clock(base_ms: u64) -> Clock {
    let start = tokio::time::Instant::now();
    Arc::new(move || base_ms + u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX))
}

/// The host's zone name, as the system reports it; UTC when it cannot tell.
pub fn system_zone() -> String {
    jiff::tz::TimeZone::try_system()
        .ok()
        .and_then(|tz| tz.iana_name().map(str::to_owned))
        .unwrap_or_else(|| "UTC".to_owned())
}
