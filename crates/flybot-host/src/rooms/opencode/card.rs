//! The card an OpenCode Bot's room turn works on (#198: one task, one
//! runtime session), and the one move the room makes for the requester:
//! its Bot's own answer to the worker's question. The worker's
//! observations (a question, a result) are the execution service's moves
//! (`execution`), never made with the owner's authority.

use super::observation_moves::SeamMove;
use crate::actor::journal_actor;
use crate::board::Board;
use flybot_core::tasks::input;
use flybot_protocol::state::{Task, TaskStatus, TeamState};
use flybot_protocol::task::{TaskFields, WaitingFor};

/// The card a turn is about: the room's working or blocked card, the one
/// this Bot holds first, then the most recently moved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Card {
    pub id: String,
    pub title: String,
    /// The card's own Bot: the one that handed the work out and verifies.
    pub bot_id: String,
    pub status: TaskStatus,
    /// The open input question's id, when the card waits for input.
    pub question_id: Option<String>,
    pub waiting_for: Option<WaitingFor>,
}

pub fn card_for(state: &TeamState, room_id: &str, bot_id: &str) -> Option<Card> {
    state
        .tasks
        .values()
        .filter(|t| t.room_id.as_deref() == Some(room_id))
        .filter(|t| matches!(t.status, TaskStatus::Working | TaskStatus::Blocked))
        .max_by_key(|t| (t.bot_id == bot_id, t.updated_at, t.id.clone()))
        .and_then(|t| card_by_id(state, &t.id))
}

/// The card `task_id` as it is now.
pub fn card_by_id(state: &TeamState, task_id: &str) -> Option<Card> {
    let t = state.tasks.get(task_id)?;
    let fields = TaskFields::read(t);
    Some(Card {
        id: t.id.clone(),
        title: t.title.clone(),
        bot_id: t.bot_id.clone(),
        status: t.status,
        question_id: fields.input_request.map(|q| q.id),
        waiting_for: fields.waiting_for,
    })
}

/// Whether the card still needs its seat: it exists and is not finished.
pub fn card_is_open(state: &TeamState, task_id: &str) -> bool {
    state
        .tasks
        .get(task_id)
        .is_some_and(|t| !t.status.is_terminal())
}

/// Answers the card's open question with the requester Bot's own line
/// (`requester_bot`'s act, under its owner's authority as the Bot's every
/// act is), through the board's one write path; answers the card.
pub async fn answer_as_requester(
    board: &Board,
    requester_bot: &str,
    task_id: &str,
    question_id: &str,
    answer: &str,
) -> Result<Option<Task>, String> {
    let actor = board
        .team()
        .read(|state| crate::board::track::bot_actor(state, requester_bot));
    let written = board
        .write(journal_actor(&actor), |s, now| {
            input::answer_input(s, &actor, task_id, question_id, answer, now)
        })
        .await;
    written.map(|out| out.answer).map_err(|e| {
        format!(
            "{} was refused: {}",
            SeamMove::AnswerInput.endpoint(),
            e.message
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn task(id: &str, bot: &str, room: &str, status: TaskStatus, at: u64) -> Task {
        serde_json::from_value(
            json!({"id": id, "botId": bot, "title": id, "status": status,
            "roomId": room, "createdAt": at, "updatedAt": at}),
        )
        .unwrap()
    }

    #[test]
    fn the_bots_own_working_card_first_then_the_latest_and_never_a_finished_one() {
        let mut state = TeamState::default();
        for t in [
            task("t-old", "ada", "r1", TaskStatus::Working, 1),
            task("t-new", "ada", "r1", TaskStatus::Blocked, 5),
            task("t-done", "ada", "r1", TaskStatus::Accepted, 9),
            task("t-other-room", "ada", "r2", TaskStatus::Working, 9),
        ] {
            state.tasks.insert(t.id.clone(), t);
        }
        assert_eq!(card_for(&state, "r1", "coder").unwrap().id, "t-new");
        let mine = task("t-mine", "coder", "r1", TaskStatus::Working, 2);
        state.tasks.insert(mine.id.clone(), mine);
        assert_eq!(card_for(&state, "r1", "coder").unwrap().id, "t-mine");
        assert_eq!(card_for(&state, "r3", "coder"), None);
        assert!(card_is_open(&state, "t-new"));
        assert!(!card_is_open(&state, "t-done"));
        assert!(!card_is_open(&state, "t-gone"));
    }
}
