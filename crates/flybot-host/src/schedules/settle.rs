//! Settling a run (#473): a task's turn ends (`turn.ended`) or its room's
//! round ends (`round.ended`), and its `running` record becomes `ran`,
//! `failed` (the turn errored, or a member's turn in the round failed) or
//! `stopped`; the answer or the failure goes out of the app (#355).

use super::scheduler::Scheduler;
use crate::events::{HostEvent, follow};
use flybot_agent::session::{AbortedBy, EndReason, SessionEvent, Source, TurnOutcome, of_turn};
use flybot_core::fences::failure::failure_sentence;
use flybot_core::schedules::runs::{Ending, settle};
use flybot_protocol::room_line::{AuthorKind, LineKind};
use flybot_protocol::schedule::{RunResult, ScheduleRun};

/// What ended: a Session's turn or a room's rounds.
enum Ended {
    Turn { session_id: String, turn_id: String },
    Round { room_id: String },
}

/// Follows turn and round ends for the scheduler's runs.
pub fn follow_ends(scheduler: &Scheduler) {
    let bus = scheduler.book.team.bus();
    let scheduler = scheduler.clone();
    follow(
        bus.subscribe_work(),
        bus,
        |event| match event {
            Ok(HostEvent::TurnEnded {
                session_id,
                turn_id,
            }) => Some(Ended::Turn {
                session_id,
                turn_id,
            }),
            Ok(HostEvent::RoundEnded { room_id }) => Some(Ended::Round { room_id }),
            _ => None,
        },
        move |ended| {
            let scheduler = scheduler.clone();
            async move {
                match ended {
                    Ended::Turn {
                        session_id,
                        turn_id,
                    } => scheduler.turn_ended(&session_id, &turn_id).await,
                    Ended::Round { room_id } => scheduler.round_ended(&room_id).await,
                }
            }
        },
    );
}

/// How a turn's end reads for its run.
fn ending_of(reason: &EndReason) -> Ending {
    match reason {
        EndReason::Completed => Ending::Completed,
        EndReason::Error { code, message } => Ending::Failed(failure_sentence(code, message)),
        EndReason::MaxTokens => Ending::Failed("The answer reached its token limit.".to_owned()),
        EndReason::Blocked { reason } => Ending::Failed(reason.clone()),
        EndReason::Aborted {
            by: AbortedBy::User,
            ..
        } => Ending::Stopped,
        EndReason::Aborted { .. } | EndReason::Interrupted => {
            Ending::Failed("The run was cut off before it finished.".to_owned())
        }
    }
}

impl Scheduler {
    async fn turn_ended(&self, session_id: &str, turn_id: &str) {
        // The reply a Bot owes the group that handed it work (#553) rides
        // this follower of turn ends rather than a task of its own.
        crate::rooms::handed_reply::reply_to_group(
            &self.book.team,
            &self.sessions,
            &self.logs,
            session_id,
            turn_id,
        );
        // Only a Session with a run going is read: most turns are no run.
        let running = self.book.team.read(|state| {
            state
                .schedule_runs
                .values()
                .any(|run| run.result == RunResult::Running && run.session_id == session_id)
        });
        if !running {
            return;
        }
        let Ok(entries) = self.sessions.turn_transcript(session_id, turn_id) else {
            return;
        };
        let TurnOutcome {
            ended: Some(reason),
            answer,
        } = TurnOutcome::of(&entries, turn_id)
        else {
            return;
        };
        for entry in of_turn(&entries, turn_id) {
            if let SessionEvent::UserMessage {
                source: Source::Schedule { task_id },
                message_id,
                ..
            } = &entry.event
            {
                let carried = |run: &ScheduleRun| run.message_id.as_deref() == Some(message_id);
                self.settle_run(task_id, carried, ending_of(&reason), answer.clone())
                    .await;
            }
        }
    }

    async fn round_ended(&self, room_id: &str) {
        let running: Vec<(String, u64)> = self.book.team.read(|state| {
            state
                .schedule_runs
                .iter()
                .filter(|(_, run)| run.result == RunResult::Running && run.session_id == room_id)
                .filter_map(|(id, run)| Some((id.clone(), run.room_seq?)))
                .collect()
        });
        let oldest = running
            .iter()
            .map(|(_, seq)| *seq)
            .min()
            .unwrap_or(u64::MAX);
        let lines = if running.is_empty() {
            Vec::new()
        } else {
            self.logs.lines_after(room_id, oldest).unwrap_or_default()
        };
        for (task_id, seq) in running {
            let after = lines.iter().filter(|line| line.seq > seq);
            let mut failed = None;
            let mut answer = None;
            for line in after {
                match (line.author_kind, line.kind) {
                    (AuthorKind::LocalBot, LineKind::Event) => failed = Some(line.text.clone()),
                    (AuthorKind::LocalBot, LineKind::Chat) => answer = Some(line.text.clone()),
                    _ => {}
                }
            }
            let ending = failed.map_or(Ending::Completed, Ending::Failed);
            let carried = move |run: &ScheduleRun| run.room_seq == Some(seq);
            self.settle_run(&task_id, carried, ending, answer).await;
        }
    }

    /// Settles `task_id`'s running record when `carried` says it is this
    /// run's, then sends the answer or the failure out of the app.
    async fn settle_run(
        &self,
        task_id: &str,
        carried: impl Fn(&ScheduleRun) -> bool,
        ending: Ending,
        answer: Option<String>,
    ) {
        let now = self.book.now();
        let settled = self
            .book
            .write("scheduler", |change| {
                let state = change.state();
                let Some(run) = state.schedule_runs.get(task_id) else {
                    return Ok(None);
                };
                if run.result != RunResult::Running || !carried(run) {
                    return Ok(None);
                }
                let settled = settle(run, &ending, now);
                let task = state.schedules.get(task_id).cloned();
                change.put_schedule_run(task_id, &settled);
                Ok(task.map(|task| (task, settled)))
            })
            .await;
        let Ok(Some((task, run))) = settled else {
            return;
        };
        match (run.result, answer) {
            (RunResult::Failed, _) => self.announce_failure(&task, &run).await,
            (RunResult::Ran, Some(answer)) => {
                let key = format!("{}:{}:answer", task.id, run.scheduled_for);
                let text = format!("{}: {answer}", task.title);
                self.out_of_app.announce(&self.book.team, &key, &text).await;
            }
            _ => {}
        }
    }
}
