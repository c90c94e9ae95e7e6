//! `Scheduler`: the tokio task that runs due tasks. It sleeps until the
//! soonest due time (or a write wakes it), then fires each due task through
//! the core rule: deliver, then record the run and the next time in one
//! change (a crash between the two may repeat that one run, never more), or
//! hold it for quiet hours and record the suppressed time (#1166).

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

/// The longest the loop sleeps before it looks again (a wall clock that
/// jumped, a zone rule that changed).
const LOOK_AGAIN: Duration = Duration::from_secs(60);

/// The scheduler and what a run uses. Cheap to clone.
#[derive(Clone)]
pub struct Scheduler {
    pub book: ScheduleBook,
    pub sessions: Sessions,
    pub logs: Arc<RoomLogs>,
    pub out_of_app: Arc<OutOfApp>,
    /// When this host started: a time before it was missed (#354).
    pub started_at: u64,
}

impl Scheduler {
    /// Starts the loop and the run settler, unless automation is off (#378).
    pub fn start(&self) {
        if !self.book.automation {
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
            let sleep = soonest.map_or(LOOK_AGAIN, |at| {
                Duration::from_millis(at.saturating_sub(now)).min(LOOK_AGAIN)
            });
            tokio::select! {
                () = &mut stopped => break,
                () = self.book.woken() => {}
                () = tokio::time::sleep(sleep) => {}
            }
        }
    }

    /// Fires every task due now; answers the soonest time still ahead.
    pub async fn tick(&self) -> Option<u64> {
        let now = self.book.now();
        let (due, soonest) = self
            .book
            .team
            .read(|state| due_now(state.schedules.values(), now));
        for id in due {
            self.fire_one(&id, now).await;
        }
        soonest
    }

    async fn fire_one(&self, id: &str, now: u64) {
        let zone = self.book.host_zone.clone();
        let Some((task, quiet)) = self
            .book
            .team
            .read(|s| s.schedules.get(id).map(|t| (t.clone(), team_quiet(s))))
        else {
            return;
        };
        let (Ok(cal), Ok(host)) = (calendar(&task.when, &zone), zone_of(None, &zone)) else {
            tracing::warn!("scheduled task {id} has a timing this host cannot read; it stays put");
            return;
        };
        let Some(fired) = fire(&task, &cal, now, self.started_at, quiet.as_ref(), &host) else {
            return;
        };
        let next = after_fire(&task, &fired, now);
        let Fire::Deliver {
            scheduled_for,
            missed,
            ..
        } = fired
        else {
            let _ = self
                .book
                .write("scheduler", |change| Ok(change.put_schedule(&next)))
                .await;
            return;
        };
        let run = self.deliver_run(&task, scheduled_for, missed, now);
        let recorded = self
            .book
            .write("scheduler", |change| {
                if change.state().schedules.contains_key(&task.id) {
                    change.put_schedule(&next);
                    change.put_schedule_run(&task.id, &run);
                }
                Ok(())
            })
            .await;
        if let Err(e) = recorded {
            tracing::warn!(
                "the run of scheduled task {id} was not recorded: {}",
                e.message
            );
        }
        if run.result == RunResult::Failed {
            self.announce_failure(&task, &run).await;
        }
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
