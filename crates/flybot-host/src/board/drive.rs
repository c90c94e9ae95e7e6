//! The task drive, the host half of `flybot_core::tasks::drive` (which
//! picks the cards; this half wakes the Sessions) (#1109, #1172, #1205,
//! #1247): after a board write and
//! after a turn ends, each owner's next card wakes its own chat with
//! `[Continue task]` (never a room Session, never a round); an unclaimed
//! queue item is offered to one idle member of its role. A Session with a
//! turn, or with a wake still going, is skipped. A wake whose turn ended with
//! the same board waits 30 s, 2 min, 10 min, then 30 min (a timer runs the
//! pass again when the wait is over); a board change clears it, and so does
//! a turn that was not a wake (a person speaking). The work pass and the
//! queue pass keep their own waits. A card waiting on an answer never wakes
//! (`is_work`), and a decision comment's reminder counts only wakes that went
//! out, at most two (#1172); each is written on the card (`writeBack.wakes`)
//! so the cap holds across a restart.
//!
//! `pass` and `ended` take `now`, so a test can drive the beat itself; the
//! host's clock is tokio's, so a paused test clock moves the waits too.

use crate::events::{HostEvent, Written, follow, follow_written};
use crate::team::Team;
use flybot_agent::session::Sessions;
use flybot_agent::session::{ItemKind, Source};
use flybot_core::rooms::board::format_room_board;
use flybot_core::rooms::wake::{Backoff, after_wake, fingerprint, may_wake, offer_text, wake_text};
use flybot_core::sync::lock;
use flybot_core::tasks::drive::{next_work, queue_offers};
use flybot_core::tasks::target::{WRITE_BACK_WAKES_MAX, count_wake};
use flybot_protocol::state::{Task, TaskStatus};
use flybot_protocol::task::{TaskFields, WriteBackState};
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// Which pass woke a Session; each keeps its own wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pass {
    Work,
    Queue,
}

/// A wake that went out and whose turn has not ended.
#[derive(Debug, Clone)]
struct Wake {
    pass: Pass,
    task_id: String,
    before: String,
}

#[derive(Debug, Default)]
struct DriveState {
    going: HashMap<String, Wake>,
    waits: HashMap<(String, Pass), Backoff>,
    /// Reminders of a decision comment that went out, by card and decision
    /// time (#1172). Kept by the drive rather than written on the card, so
    /// a reminder never writes the team behind a person's back.
    reminders: HashMap<(String, u64), u32>,
}

/// One wake a pass sent: the Session and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    pub session_id: String,
    pub task_id: String,
    pub text: String,
}

struct Plan {
    pass: Pass,
    session_id: String,
    task: Task,
    text: String,
}

/// The host's task drive.
pub struct TaskDrive {
    team: Team,
    sessions: Sessions,
    state: Mutex<DriveState>,
    base_ms: u64,
    start: tokio::time::Instant,
}

impl TaskDrive {
    /// The drive of `team`, waking Sessions of `sessions`; once it
    /// `follow`s, it follows the board's writes and the turns' ends on the
    /// team's bus until the host stops.
    pub(crate) fn new(team: Team, sessions: Sessions) -> TaskDrive {
        TaskDrive {
            team,
            sessions,
            state: Mutex::default(),
            base_ms: flybot_store::system_now_ms(),
            start: tokio::time::Instant::now(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, DriveState> {
        lock(&self.state)
    }

    /// The drive's clock: the wall clock at start plus tokio's elapsed time.
    pub fn now(&self) -> u64 {
        let elapsed = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.base_ms.saturating_add(elapsed)
    }

    /// Whether a wake for `session_id` is still going.
    pub fn waking(&self, session_id: &str) -> bool {
        self.lock().going.contains_key(session_id)
    }

    /// The wait a Session's pass is in, if any.
    pub fn wait_of(&self, session_id: &str, pass: Pass) -> Option<Backoff> {
        self.lock()
            .waits
            .get(&(session_id.to_owned(), pass))
            .cloned()
    }

    fn plans(&self, now: u64) -> Vec<Plan> {
        self.team.read(|state| {
            let board = |task: &Task| {
                task.room_id
                    .as_deref()
                    .map(|r| format_room_board(state, r, now))
                    .unwrap_or_default()
            };
            let mut plans = Vec::new();
            // A run Bot is woken for the node card it holds (#1373).
            for bot in state.bots.values() {
                if let Some(task) = next_work(state, &bot.id, now) {
                    plans.push(Plan {
                        pass: Pass::Work,
                        session_id: bot.session_id.clone(),
                        text: wake_text(task, &board(task)),
                        task: task.clone(),
                    });
                }
            }
            for offer in queue_offers(state, now) {
                let (Some(bot), Some(task)) = (
                    state.bots.get(&offer.bot_id),
                    state.tasks.get(&offer.task_id),
                ) else {
                    continue;
                };
                plans.push(Plan {
                    pass: Pass::Queue,
                    session_id: bot.session_id.clone(),
                    text: offer_text(task),
                    task: task.clone(),
                });
            }
            plans
        })
    }

    /// One drive pass: wakes every owner whose next card may be woken now,
    /// and offers the queue items. Answers the wakes sent.
    pub fn pass(&self, now: u64) -> Vec<Sent> {
        let mut sent = Vec::new();
        let mut woken: BTreeSet<String> = BTreeSet::new();
        for plan in self.plans(now) {
            if woken.contains(&plan.session_id) || self.sessions.is_running(&plan.session_id) {
                continue;
            }
            let fp = fingerprint(&plan.task);
            {
                let mut state = self.lock();
                let wait = state.waits.get(&(plan.session_id.clone(), plan.pass));
                let reminded_enough = reminder_only(&plan.task, &state.reminders);
                if reminded_enough
                    || state.going.contains_key(&plan.session_id)
                    || !may_wake(wait, &fp, false, now)
                {
                    continue;
                }
                state.going.insert(
                    plan.session_id.clone(),
                    Wake {
                        pass: plan.pass,
                        task_id: plan.task.id.clone(),
                        before: fp,
                    },
                );
            }
            let delivered = self.sessions.deliver(
                &plan.session_id,
                &plan.text,
                Source::Host,
                ItemKind::NextTurn,
            );
            if let Err(e) = delivered {
                tracing::warn!(
                    "a task wake for {} could not be delivered: {e}",
                    plan.task.id
                );
                self.lock().going.remove(&plan.session_id);
                continue;
            }
            woken.insert(plan.session_id.clone());
            if let Some(key) = reminder_key(&plan.task) {
                *self.lock().reminders.entry(key.clone()).or_default() += 1;
                self.count_reminder(key);
            }
            sent.push(Sent {
                session_id: plan.session_id,
                task_id: plan.task.id,
                text: plan.text,
            });
        }
        sent
    }

    /// Writes a reminder that went out on its card (`writeBack.wakes`,
    /// #1172), so the cap holds after a restart; the count in memory holds
    /// it until the write is on disk. No board event: the count wakes
    /// nobody.
    fn count_reminder(&self, (task_id, at): (String, u64)) {
        let team = self.team.clone();
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            let written = team
                .mutate("task-reminder", |change| {
                    let task = change.state().tasks.get(&task_id).cloned();
                    if let Some(counted) = task.and_then(|t| count_wake(&t, at)) {
                        change.put_task(&counted);
                    }
                    Ok(())
                })
                .await;
            if let Err(e) = written {
                tracing::warn!("the reminder of {task_id} was not counted: {e:?}");
            }
        });
    }

    /// A turn of `session_id` ended: a wake's turn that left its card as it
    /// was starts (or lengthens) the wait; any other turn clears the
    /// Session's waits (a person spoke). Then a pass runs.
    pub fn ended(self: &Arc<Self>, session_id: &str, now: u64) -> Vec<Sent> {
        let wake = self.lock().going.remove(session_id);
        match wake {
            Some(wake) => {
                let after = self
                    .team
                    .read(|s| s.tasks.get(&wake.task_id).map(fingerprint))
                    .unwrap_or_default();
                let key = (session_id.to_owned(), wake.pass);
                let mut state = self.lock();
                match after_wake(state.waits.get(&key), &wake.before, &after, now) {
                    Some(wait) => {
                        self.rerun_at(wait.until.saturating_sub(now));
                        state.waits.insert(key, wait);
                    }
                    None => {
                        state.waits.remove(&key);
                    }
                }
            }
            None => self.lock().waits.retain(|(s, _), _| s != session_id),
        }
        self.pass(now)
    }

    /// Runs a pass once `after_ms` has gone by.
    fn rerun_at(self: &Arc<Self>, after_ms: u64) {
        let drive = self.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                tokio::time::sleep(Duration::from_millis(after_ms)).await;
                drive.pass(drive.now());
            });
        }
    }

    /// Runs a pass after every board write (`tasks.written`) and the turn's
    /// side after every turn's end, while the host lives.
    pub(crate) fn follow(self: &Arc<Self>) {
        let drive = self.clone();
        follow_written(self.team.bus(), move |_: Written| {
            let drive = drive.clone();
            async move {
                drive.pass(drive.now());
            }
        });
        let drive = self.clone();
        follow(
            self.team.bus().subscribe_work(),
            self.team.bus(),
            |event| match event {
                Ok(HostEvent::TurnEnded { session_id, .. }) => Some(session_id),
                _ => None,
            },
            move |session_id: String| {
                let drive = drive.clone();
                async move {
                    drive.ended(&session_id, drive.now());
                }
            },
        );
    }
}

/// The reminder key of a card whose decision comment is pending.
fn reminder_key(task: &Task) -> Option<(String, u64)> {
    let f = TaskFields::read(task);
    let wb = f.write_back?;
    (wb.state == WriteBackState::Pending).then(|| (task.id.clone(), wb.at))
}

/// Whether the card is woken only for its comment and that comment was
/// already reminded `WRITE_BACK_WAKES_MAX` times (the record's own count
/// included). A card that is also real work keeps waking.
fn reminder_only(task: &Task, reminders: &HashMap<(String, u64), u32>) -> bool {
    let f = TaskFields::read(task);
    let Some(wb) = f.write_back.as_ref() else {
        return false;
    };
    let live = matches!(
        task.status,
        TaskStatus::Open | TaskStatus::Claimed | TaskStatus::Working
    ) && f.waiting_for.is_none();
    let sent = reminders
        .get(&(task.id.clone(), wb.at))
        .copied()
        .unwrap_or(0)
        .max(wb.wakes);
    !live && sent >= WRITE_BACK_WAKES_MAX
}
