//! `ScheduleBook`: the scheduled tasks as team state. Every write goes
//! through the one writer and wakes the scheduler; reads build the rows the
//! channel, the page and the Bots' tools show. It holds no runtime, so the
//! turns' tools can use it before the agent runtime exists.

use crate::team::Team;
use flybot_core::access::Actor;
use flybot_core::schedules::edit::Context;
use flybot_core::schedules::owner::{Place, owns, place_of};
use flybot_core::schedules::quiet::{QuietHours, quiet_hours};
use flybot_protocol::ApiError;
use flybot_protocol::schedule::{LastRun, ScheduleRow, ScheduleTask};
use flybot_protocol::state::TeamState;
use flybot_store::{Change, Clock};
use std::sync::Arc;
use tokio::sync::Notify;

/// The scheduled tasks' store side. Cheap to clone.
#[derive(Clone)]
pub struct ScheduleBook {
    pub team: Team,
    pub clock: Clock,
    /// The zone a task names none in (the host's).
    pub host_zone: Arc<str>,
    /// Whether the scheduler runs (`automationTasks`, #378).
    pub automation: bool,
    wake: Arc<Notify>,
}

impl ScheduleBook {
    pub fn new(team: Team, clock: Clock, host_zone: &str, automation: bool) -> ScheduleBook {
        ScheduleBook {
            team,
            clock,
            host_zone: Arc::from(host_zone),
            automation,
            wake: Arc::new(Notify::new()),
        }
    }

    pub fn now(&self) -> u64 {
        (self.clock)()
    }

    /// Resolves when a write may have moved the next due time.
    pub async fn woken(&self) {
        self.wake.notified().await;
    }

    /// Asks the scheduler to look again now (its clock moved, or a test
    /// moved it).
    pub fn nudge(&self) {
        self.wake.notify_one();
    }

    /// One change through the one writer; the scheduler looks again after.
    pub async fn write<T>(
        &self,
        actor: &str,
        f: impl FnOnce(&mut Change<'_>) -> Result<T, ApiError>,
    ) -> Result<T, ApiError> {
        let answer = self.team.mutate(actor, f).await;
        if answer.is_ok() {
            self.wake.notify_one();
        }
        answer
    }
}

/// The team's quiet hours; a stored value that no longer reads is off.
pub fn team_quiet(state: &TeamState) -> Option<QuietHours> {
    quiet_hours(state.prefs.get("quietHours")).ok().flatten()
}

/// The context every write is checked against.
pub fn context<'a>(now: u64, host_zone: &'a str, quiet: Option<&'a QuietHours>) -> Context<'a> {
    Context {
        now,
        host_zone,
        quiet,
    }
}

/// A task as a row: its place, its last run and its suppressed count.
pub fn row_of(state: &TeamState, task: &ScheduleTask) -> ScheduleRow {
    let (bot_id, room_id) = match place_of(state, &task.session_id) {
        Some(Place::Bot { bot_id, .. }) => (Some(bot_id), None),
        Some(Place::Room { room_id }) => (None, Some(room_id)),
        None => (None, None),
    };
    ScheduleRow {
        id: task.id.clone(),
        title: task.title.clone(),
        prompt: task.prompt.clone(),
        when: task.when.clone(),
        next_run_at: task.next_run_at,
        status: task.status,
        session_id: task.session_id.clone(),
        bot_id,
        room_id,
        last_run: state.schedule_runs.get(&task.id).map(|run| LastRun {
            at: run.at,
            result: run.result,
            reason: run.reason.clone(),
            missed: run.missed,
        }),
        held_until: task.held_until,
        suppressed: task.suppressed.len(),
    }
}

/// The rows of every task on `sessions`, soonest first.
pub fn rows_on(state: &TeamState, sessions: &[String]) -> Vec<ScheduleRow> {
    let mut rows: Vec<ScheduleRow> = state
        .schedules
        .values()
        .filter(|task| sessions.contains(&task.session_id))
        .map(|task| row_of(state, task))
        .collect();
    rows.sort_by_key(|row| (row.next_run_at.unwrap_or(u64::MAX), row.id.clone()));
    rows
}

/// The state view's `automation`: whether the scheduler runs (#378), how
/// many of the actor's tasks are active, and how many runs quiet hours
/// suppressed (#1166).
pub fn automation_view(state: &TeamState, actor: &Actor, on: bool) -> serde_json::Value {
    let mine = state.schedules.values().filter(|task| {
        place_of(state, &task.session_id).is_some_and(|place| owns(state, actor, &place))
    });
    let (mut active, mut suppressed) = (0, 0);
    for task in mine {
        active += usize::from(task.status == flybot_protocol::schedule::ScheduleStatus::Active);
        suppressed += task.suppressed.len();
    }
    serde_json::json!({"tasks": on, "active": active, "suppressed": suppressed})
}
