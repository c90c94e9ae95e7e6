//! The explicitly selected text an OpenCode turn carries (#198, payload):
//! the card's task input and its acceptance criterion for the request, the
//! requester's answer as the card records it for an answer. The room
//! round's text (other members' lines, route notes, reply rules) never
//! reaches OpenCode. A live seat and `flybot pilot`'s Bot B both take
//! their turn's text from here (`turn_text`).

use super::card::Card;
use super::card_moves::resume;
use crate::rooms::Rounds;
use crate::rooms::participant::MemberTurn;
use flybot_protocol::state::{TaskStatus, TeamState};
use flybot_protocol::task::TaskFields;

/// The text an OpenCode turn on `card` sends, once the card may take a
/// turn: a card blocked on the worker's own question is first resumed by
/// the requester Bot's answer in the room log (`resume`), so the answer
/// sent is the one the card records. `requested`: the journal made the
/// request already. The refusal is the line the worker says instead.
pub(crate) async fn turn_text(
    rounds: &Rounds,
    turn: &MemberTurn,
    card: &Card,
    test_command: &[String],
    requested: bool,
) -> Result<String, String> {
    if card.status == TaskStatus::Blocked {
        resume(rounds, turn, card).await?;
    }
    Ok(rounds
        .team
        .read(|state| selected_text(state, &card.id, test_command, requested)))
}

/// What the turn sends for card `task_id`: the request's selected input
/// when no request was made yet (`requested` false), else the requester's
/// recorded answer (a note that none is recorded when the card has none:
/// the journal then finds no question it answers and starts no work).
pub fn selected_text(
    state: &TeamState,
    task_id: &str,
    test_command: &[String],
    requested: bool,
) -> String {
    let Some(task) = state.tasks.get(task_id) else {
        return String::new();
    };
    let fields = TaskFields::read(task);
    if requested {
        return fields.input_answer.map_or_else(
            || "(no answer is recorded on the card)".to_owned(),
            |a| a.answer,
        );
    }
    let mut text = format!("Task: {}\n", task.title);
    if let Some(note) = fields.note.filter(|n| !n.trim().is_empty()) {
        text.push_str(&format!("{note}\n"));
    }
    text.push_str(&format!(
        "Acceptance criteria:\n- `{}` passes in this workspace.\n\
         If anything is unclear, ask with your question tool.",
        test_command.join(" ")
    ));
    text
}
