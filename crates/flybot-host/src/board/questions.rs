//! Questions about work handed out from a group, shown in the room (#550):
//! a card of a room that goes into an input wait (`task-wait-input`, or the
//! Bot's own `track_tasks ask`) posts its question into that room's log in
//! the asking Bot's voice, once per question. Logged, never posted into the
//! room's Session: no turn, no round. The question already shown is kept on
//! the card as `questionCue`, so a rewrite of the card never repeats it; a
//! question a member already said in the room word for word (an external
//! Bot's own question, #198) is not said again.

use super::write::Board;
use crate::events::{Written, follow_written};
use crate::rooms::RoomLogs;
use crate::team::Team;
use flybot_core::rooms::log::{AuthorKind, LineKind};
use flybot_protocol::state::Task;
use flybot_protocol::task::{TaskFields, WaitingFor};
use flybot_store::room_log::NewLine;

/// The card field the question last shown in the room is kept in.
pub const QUESTION_CUE: &str = "questionCue";

/// The room line of a card's question.
pub fn question_line(task: &Task, question: &str) -> String {
    format!("Question on \"{}\": {question}", task.title)
}

/// The room, question id and line of a card whose question is not shown yet.
fn unshown(task: &Task) -> Option<(String, String, String)> {
    let room_id = task.room_id.clone()?;
    let f = TaskFields::read(task);
    if f.waiting_for != Some(WaitingFor::Input) {
        return None;
    }
    let ask = f.input_request?;
    let shown = task.extra.get(QUESTION_CUE).and_then(|v| v.as_str());
    (shown != Some(ask.id.as_str())).then(|| (room_id, ask.id, question_line(task, &ask.question)))
}

/// Shows the questions of the written cards `task_ids` in their rooms.
pub async fn show_questions(board: &Board, task_ids: &[String]) {
    let (team, logs) = (board.team(), board.logs());
    let cards: Vec<Task> = team.read(|s| {
        task_ids
            .iter()
            .filter_map(|id| s.tasks.get(id).cloned())
            .collect()
    });
    for task in cards {
        let Some((room_id, question_id, text)) = unshown(&task) else {
            continue;
        };
        let asked = TaskFields::read(&task)
            .input_request
            .map(|q| q.question)
            .unwrap_or_default();
        if said_in_room(logs, &room_id, &asked) {
            keep_cue(team, &task.id, &question_id).await;
            continue;
        }
        let appended = logs.append(
            &room_id,
            NewLine {
                author_id: task.bot_id.clone(),
                author_kind: AuthorKind::LocalBot,
                kind: LineKind::Chat,
                text,
                at: flybot_store::system_now_ms(),
                hop: 0,
            },
        );
        if let Err(e) = appended {
            tracing::warn!("the question of {} could not be logged: {e}", task.id);
            continue;
        }
        keep_cue(team, &task.id, &question_id).await;
    }
}

/// Whether a member's line in the room already says `question`.
fn said_in_room(logs: &RoomLogs, room_id: &str, question: &str) -> bool {
    let question = question.trim();
    !question.is_empty()
        && logs
            .recent(room_id, 20)
            .unwrap_or_default()
            .iter()
            .any(|l| flybot_core::fences::readable_body(&l.text).trim() == question)
}

/// Keeps the shown question's id on the card, so it is never shown again.
async fn keep_cue(team: &Team, task_id: &str, question_id: &str) {
    let kept = team
        .mutate("host", |change| {
            if let Some(mut card) = change.state().tasks.get(task_id).cloned() {
                card.extra
                    .insert(QUESTION_CUE.to_owned(), question_id.to_owned().into());
                change.put_task(&card);
            }
            Ok(())
        })
        .await;
    if let Err(e) = kept {
        tracing::warn!(
            "the question cue of {task_id} could not be kept: {}",
            e.message
        );
    }
}

/// Shows questions after every board write (`tasks.written`) while the host
/// lives; one event at a time, so a question is shown once. A follower that
/// fell behind looks at every card.
pub(crate) fn follow(board: &Board) {
    let board = board.clone();
    follow_written(&board.team().bus().clone(), move |written| {
        let board = board.clone();
        async move {
            let ids = match written {
                Written::Cards(ids) => ids,
                Written::Lagged => board.team().read(|s| s.tasks.keys().cloned().collect()),
            };
            show_questions(&board, &ids).await;
        }
    });
}
