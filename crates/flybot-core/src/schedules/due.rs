//! Which tasks are due and what a due task does (#354, #1166): the missed-run
//! rule (a recurring task runs once, for its latest missed time; a one-time
//! task whose time passed runs once at start; a paused task runs nothing),
//! and the quiet-hours hold of a delivery.

use super::quiet::{AtEnd, QuietHours};
use super::timing::Calendar;
use flybot_protocol::schedule::{ScheduleStatus, ScheduleTask};
use jiff::tz::TimeZone;

/// What the scheduler does with a due task now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fire {
    /// Deliver the prompt for `scheduled_for`; then the task is next due at
    /// `next_run_at` (none: a one-time task is done).
    Deliver {
        scheduled_for: u64,
        missed: bool,
        next_run_at: Option<u64>,
        /// The run released a quiet-hours hold.
        released: bool,
    },
    /// Quiet hours hold `scheduled_for` (#1166): record it suppressed; run
    /// once at `held_until` when the owner chose so.
    Suppress {
        scheduled_for: u64,
        next_run_at: Option<u64>,
        held_until: Option<u64>,
    },
}

/// The instant `task` is next looked at: its next run or its held run.
pub fn wake_at(task: &ScheduleTask) -> Option<u64> {
    if task.status != ScheduleStatus::Active {
        return None;
    }
    match (task.next_run_at, task.held_until) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// What `task` does at `now`; `started_at` is when this host started (a
/// time before it was missed while the host was down).
pub fn fire(
    task: &ScheduleTask,
    calendar: &Calendar,
    now: u64,
    started_at: u64,
    quiet: Option<&QuietHours>,
    host_zone: &TimeZone,
) -> Option<Fire> {
    if task.status != ScheduleStatus::Active {
        return None;
    }
    if let Some(held) = task.held_until.filter(|held| *held <= now) {
        // The held run stands for every time due up to now: one run.
        let next_run_at = match task.next_run_at {
            Some(next) if next <= now => calendar.next_after(now, next),
            other => other,
        };
        return Some(Fire::Deliver {
            scheduled_for: held,
            missed: held < started_at,
            next_run_at,
            released: true,
        });
    }
    let next = task.next_run_at.filter(|next| *next <= now)?;
    let (scheduled_for, next_run_at) = match calendar {
        Calendar::Once(..) => (next, None),
        _ => {
            // The latest time in [next, now]: one run, never one per time.
            let latest = calendar
                .latest_in(next.saturating_sub(1), now, next)
                .unwrap_or(next);
            (latest, calendar.next_after(now, next))
        }
    };
    let tz = calendar.zone().unwrap_or(host_zone);
    if let Some(end) = quiet.and_then(|q| q.ends_after(scheduled_for, tz).map(|end| (q, end))) {
        let (quiet, end) = end;
        let held_until = match quiet.at_end {
            AtEnd::RunOnce => Some(task.held_until.unwrap_or(end)),
            AtEnd::Skip => None,
        };
        return Some(Fire::Suppress {
            scheduled_for,
            next_run_at,
            held_until,
        });
    }
    Some(Fire::Deliver {
        scheduled_for,
        missed: scheduled_for < started_at,
        next_run_at,
        released: false,
    })
}

/// The suppressed times a task keeps, newest last.
pub const SUPPRESSED_KEPT: usize = 100;

/// `task` after `fire` was acted on at `now`.
pub fn after_fire(task: &ScheduleTask, fire: &Fire, now: u64) -> ScheduleTask {
    let mut task = task.clone();
    task.updated_at = now;
    match fire {
        Fire::Deliver {
            next_run_at,
            released,
            ..
        } => {
            if *released {
                task.held_until = None;
            }
            task.next_run_at = *next_run_at;
            if task.next_run_at.is_none() && task.held_until.is_none() {
                task.status = ScheduleStatus::Done;
            }
        }
        Fire::Suppress {
            scheduled_for,
            next_run_at,
            held_until,
        } => {
            task.next_run_at = *next_run_at;
            task.held_until = *held_until;
            task.suppressed.push(*scheduled_for);
            let extra = task.suppressed.len().saturating_sub(SUPPRESSED_KEPT);
            task.suppressed.drain(..extra);
            if task.next_run_at.is_none() && task.held_until.is_none() {
                task.status = ScheduleStatus::Done;
            }
        }
    }
    task
}
