//! Scheduled tasks' pure rules (#354, #473, #628, #1166, #1245, #1287,
//! #1321, #1651): the calendar (`timing`), the records a write makes
//! (`edit`), who owns a task (`owner`), when one is due and what a due one
//! does (`due`), quiet hours (`quiet`), last runs (`runs`) and the
//! refusals' sentences (`refusal`). Time comes in as an argument.

pub mod due;
pub mod edit;
pub mod owner;
pub mod quiet;
pub mod refusal;
pub mod runs;
pub mod timing;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_due;

pub use refusal::{Refusal, sentences};

use flybot_protocol::schedule::{ScheduleStatus, Timing};
use flybot_protocol::state::TeamState;

/// `quietUnchecked` (#1166): quiet hours are on and an active or paused
/// repeat or cron task exists, so the window was not checked for it.
pub fn quiet_unchecked(state: &TeamState, quiet_on: bool, sessions: &[String]) -> bool {
    quiet_on
        && state.schedules.values().any(|task| {
            task.status != ScheduleStatus::Done
                && sessions.contains(&task.session_id)
                && matches!(task.when, Timing::Every { .. } | Timing::Cron { .. })
        })
}
