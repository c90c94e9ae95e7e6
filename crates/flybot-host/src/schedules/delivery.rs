//! Delivering a due task (#473): to a Bot's own chat as a `schedule`-source
//! message in the reminder framing, so the turn is that task's run; to a
//! room as a line in the task owner's name that opens the room's round.

use crate::rooms::RoomLogs;
use flybot_agent::session::{ItemKind, Sessions, Source};
use flybot_core::schedules::owner::{Place, place_of};
use flybot_protocol::room_line::{AuthorKind, LineKind};
use flybot_protocol::schedule::ScheduleTask;
use flybot_protocol::state::TeamState;
use flybot_store::room_log::NewLine;

/// What carried a run: an inbox item of the own chat, or a room line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Carrier {
    Message(String),
    RoomLine(u64),
}

/// The reminder framing: which task this turn runs, then its prompt.
pub fn reminder_text(task: &ScheduleTask) -> String {
    format!(
        "[Scheduled task \"{}\" ({})]\n{}",
        task.title, task.id, task.prompt
    )
}

/// Hands `task`'s prompt to its Session now; `Err` says why it could not be.
pub fn deliver(
    state: &TeamState,
    sessions: &Sessions,
    logs: &RoomLogs,
    task: &ScheduleTask,
    now: u64,
) -> Result<Carrier, String> {
    let not_delivered = || format!("Scheduled task \"{}\" was not delivered", task.title);
    let text = reminder_text(task);
    match place_of(state, &task.session_id) {
        Some(Place::Bot { bot_id, session_id }) => {
            let retired = state.bots.get(&bot_id).is_some_and(|b| b.is_retired());
            if retired {
                return Err(not_delivered());
            }
            let source = Source::Schedule {
                task_id: task.id.clone(),
            };
            sessions
                .deliver(&session_id, &text, source, ItemKind::NextTurn)
                .map(Carrier::Message)
                .map_err(|e| {
                    tracing::warn!("scheduled task {} was not delivered: {e}", task.id);
                    not_delivered()
                })
        }
        Some(Place::Room { room_id }) => {
            let line = NewLine {
                author_id: task.created_by.clone(),
                author_kind: AuthorKind::Human,
                kind: LineKind::Chat,
                text,
                at: now,
                hop: 0,
            };
            let line = logs.append(&room_id, line).map_err(|e| {
                tracing::warn!("scheduled task {} was not posted: {e}", task.id);
                not_delivered()
            })?;
            logs.open_round(&room_id, line.seq);
            Ok(Carrier::RoomLine(line.seq))
        }
        None => Err(not_delivered()),
    }
}
