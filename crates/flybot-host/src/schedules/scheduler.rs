//! `Scheduler`: the tokio task that runs due tasks. It sleeps until the
//! soonest due time (or a write wakes it), then fires each due task through
//! the core rule: deliver, then record the run and the next time in one
//! change (a crash between the two may repeat that one run, never more), or
//! hold it for quiet hours and record the suppressed time (#1166). A task
//! on a Project assistant's Session is not delivered: the host builds that
//! Project's digest itself (#1712, `digest`).

use super::book::{ScheduleBook, team_quiet};
use super::delivery::{Carrier, deliver};
use crate::notify::OutOfApp;
use crate::rooms::RoomLogs;
use flybot_agent::session::Sessions;
use flybot_core::schedules::due::{Fire, after_fire, fire, wake_at};
use flybot_core::schedules::timing::{calendar, zone_of};
use flybot_protocol::schedule::{RunResult, ScheduleRun, ScheduleTask};
use std::sync::Arc;
use std::time::Duration;

/// The longest the loop sleeps before it looks again while a task is ahead
/// (a wall clock that jumped, a zone rule that changed).
const LOOK_AGAIN: Duration = Duration::from_secs(60);

/// Sleeps `wait`, or for ever when there is nothing to wait for.
async fn sleep_for(wait: Option<Duration>) {
    match wait {
        Some(wait) => tokio::time::sleep(wait).await,
        None => std::future::pending().await,
    }
}

/// The scheduler and what a run uses. Cheap to clone.
#[derive(Clone)]
pub struct Scheduler {
    pub book: ScheduleBook,
    pub sessions: Sessions,
    pub logs: Arc<RoomLogs>,
    pub out_of_app: Arc<OutOfApp>,
    /// When this host started: a time before it was missed (#354).
    pub started_at: u64,
    /// What a Project assistant's daily task builds its digest with
    /// (#1712); None in a host that runs no Project Assistant.
    pub digests: Option<super::digest::Digests>,
}

impl Scheduler {
    /// Starts the loop and the run settler, unless automation is off (#378).
    pub fn start(&self) {
        if !self.book.automation {
            // The replies owed to a group still go back (#553).
            crate::rooms::handed_reply::follow_handed_replies(
                &self.book.team,
                &self.sessions,
                &self.logs,
            );
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        super::settle::follow_ends(self);
        let scheduler = self.clone();
        runtime.spawn(async move { scheduler.run().await });
    }

    async fn run(self) {
        let bus = self.book.team.bus().clone();
        let stopped = bus.stopped();
        tokio::pin!(stopped);
        loop {
            let soonest = self.tick().await;
            let now = self.book.now();
            // With no task ahead the loop sleeps until a task is written
            // (`woken`): an idle host keeps no timer.
            let sleep =
                soonest.map(|at| Duration::from_millis(at.saturating_sub(now)).min(LOOK_AGAIN));
            tokio::select! {
                () = &mut stopped => break,
                () = self.book.woken() => {}
                () = sleep_for(sleep) => {}
            }
        }
    }

    /// Fires every task due now; answers the soonest time still ahead.
    /// Every due task is delivered first, then all their records are
    /// written in one change: a crash between the two may repeat each of
    /// those runs once, never more.
    pub async fn tick(&self) -> Option<u64> {
        let now = self.book.now();
        let (due, soonest) = self
            .book
            .team
            .read(|state| due_now(state.schedules.values(), now));
        if due.is_empty() {
            return soonest;
        }
        let fired: Vec<(ScheduleTask, ScheduleTask, Option<ScheduleRun>)> =
            due.iter().filter_map(|id| self.fire_one(id, now)).collect();
        let recorded = self
            .book
            .write("scheduler", |change| {
                for (task, next, run) in &fired {
                    if !change.state().schedules.contains_key(&task.id) {
                        continue;
                    }
                    change.put_schedule(next);
                    if let Some(run) = run {
                        change.put_schedule_run(&task.id, run);
                    }
                }
                Ok(())
            })
            .await;
        if let Err(e) = recorded {
            tracing::warn!("the scheduler's runs were not recorded: {}", e.message);
        }
        for (task, _, run) in &fired {
            if let Some(run) = run.as_ref().filter(|run| run.result == RunResult::Failed) {
                self.announce_failure(task, run).await;
            }
        }
        for (task, _, run) in &fired {
            if let Some(run) = run.as_ref().filter(|_| self.builds_digest(task)) {
                self.run_digest_task(task, run).await;
            }
        }
        soonest
    }

    /// What `id` does now: the task as it was, as it will be, and the run
    /// it delivered (none when quiet hours held it).
    fn fire_one(
        &self,
        id: &str,
        now: u64,
    ) -> Option<(ScheduleTask, ScheduleTask, Option<ScheduleRun>)> {
        let zone = self.book.host_zone.clone();
        let (task, quiet) = self
            .book
            .team
            .read(|s| s.schedules.get(id).map(|t| (t.clone(), team_quiet(s))))?;
        let (Ok(cal), Ok(host)) = (calendar(&task.when, &zone), zone_of(None, &zone)) else {
            tracing::warn!("scheduled task {id} has a timing this host cannot read; it stays put");
            return None;
        };
        let fired = fire(&task, &cal, now, self.started_at, quiet.as_ref(), &host)?;
        let next = after_fire(&task, &fired, now);
        let run = match fired {
            Fire::Deliver {
                scheduled_for,
                missed,
                ..
            } if self.builds_digest(&task) => Some(ScheduleRun {
                at: now,
                result: RunResult::Running,
                reason: None,
                scheduled_for,
                missed,
                session_id: task.session_id.clone(),
                message_id: None,
                room_seq: None,
            }),
            Fire::Deliver {
                scheduled_for,
                missed,
                ..
            } => Some(self.deliver_run(&task, scheduled_for, missed, now)),
            Fire::Suppress { .. } => None,
        };
        Some((task, next, run))
    }

    /// Whether `task` is a Project assistant's daily digest (#1712).
    fn builds_digest(&self, task: &ScheduleTask) -> bool {
        self.digests.is_some()
            && self
                .book
                .team
                .read(|state| super::digest::digest_project(state, task).is_some())
    }

    /// Delivers `task` now and answers its run record: `running`, or
    /// `failed` when it could not be delivered (noted in the ended turns).
    pub fn deliver_run(
        &self,
        task: &ScheduleTask,
        scheduled_for: u64,
        missed: bool,
        now: u64,
    ) -> ScheduleRun {
        let delivered = self
            .book
            .team
            .read(|state| deliver(state, &self.sessions, &self.logs, task, now));
        let mut run = ScheduleRun {
            at: now,
            result: RunResult::Running,
            reason: None,
            scheduled_for,
            missed,
            session_id: task.session_id.clone(),
            message_id: None,
            room_seq: None,
        };
        match delivered {
            Ok(Carrier::Message(id)) => run.message_id = Some(id),
            Ok(Carrier::RoomLine(seq)) => run.room_seq = Some(seq),
            Err(reason) => {
                self.sessions
                    .note_failure(&task.session_id, &task.id, now, &reason);
                run.result = RunResult::Failed;
                run.reason = Some(reason);
            }
        }
        run
    }

    /// A failed run, out of the app (#355).
    pub async fn announce_failure(&self, task: &ScheduleTask, run: &ScheduleRun) {
        let reason = run.reason.as_deref().unwrap_or("it failed");
        let text = format!("Scheduled task \"{}\" failed: {reason}", task.title);
        let key = format!("{}:{}:failed", task.id, run.scheduled_for);
        self.out_of_app.announce(&self.book.team, &key, &text).await;
    }
}

/// The ids due at `now` and the soonest wake time among the rest.
pub fn due_now<'a>(
    tasks: impl Iterator<Item = &'a ScheduleTask>,
    now: u64,
) -> (Vec<String>, Option<u64>) {
    let mut due = Vec::new();
    let mut soonest: Option<u64> = None;
    for task in tasks {
        let Some(at) = wake_at(task) else { continue };
        if at <= now {
            due.push(task.id.clone());
        } else {
            soonest = Some(soonest.map_or(at, |s| s.min(at)));
        }
    }
    (due, soonest)
}
