//! Scheduled tasks in the running host (#354, #378, #473, #1166): the book
//! (the tasks as team state, written through the one writer), the
//! scheduler (a tokio task that sleeps until the next due time), delivery
//! into a Bot's own chat or a room's round, the settling of each run, the
//! channel's writes and Retry, and the Bots' schedule tools.

pub mod book;
pub mod delivery;
pub mod digest;
pub mod retry;
pub mod scheduler;
mod settle;
pub mod tools;
pub mod writes;

pub use book::ScheduleBook;
pub use scheduler::Scheduler;

use flybot_store::Clock;

/// The scheduler's clock, as `HostConfig` carries it.
#[derive(Clone)]
pub struct ScheduleClock(pub Clock);

impl std::fmt::Debug for ScheduleClock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ScheduleClock({})", (self.0)())
    }
}

/// The host's zone name, as the system reports it; UTC when it cannot tell.
pub fn system_zone() -> String {
    jiff::tz::TimeZone::try_system()
        .ok()
        .and_then(|tz| tz.iana_name().map(str::to_owned))
        .unwrap_or_else(|| "UTC".to_owned())
}
