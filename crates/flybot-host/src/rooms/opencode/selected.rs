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
use flybot_interop::opencode::JournaledTask;
use flybot_protocol::state::{TaskStatus, TeamState};
use flybot_protocol::task::TaskFields;

/// The text an OpenCode turn on `card` sends, once the card may take a
/// turn. The card's input must still be the one the enrolled request was
/// made from (`task`'s `inputDigest`): a card edited since is refused and
/// nothing moves. A card blocked on the worker's own question is then
/// resumed by the requester Bot's answer in the room log (`resume`), so
/// the answer sent is the one the card records. The refusal is the line
/// the worker says instead.
pub(crate) async fn turn_text(
    rounds: &Rounds,
    turn: &MemberTurn,
    card: &Card,
    test_command: &[String],
    task: &JournaledTask,
) -> Result<String, String> {
    if input_edited(rounds, &card.id, test_command, task) {
        return Err(format!(
            "The card \"{}\" was edited after my request was made, so its input is not the one I was given; cancel it and start a new card with the edited input.",
            card.title
        ));
    }
    if card.status == TaskStatus::Blocked {
        resume(rounds, turn, card).await?;
    }
    Ok(rounds
        .team()
        .read(|state| selected_text(state, &card.id, test_command, task.requested())))
}

/// Whether card `card_id`'s input (its title, note and criterion, as the
/// request carries them) is no longer the one `task`'s enrolled request
/// was made from: its `inputDigest` binds them (#198).
pub(crate) fn input_edited(
    rounds: &Rounds,
    card_id: &str,
    test_command: &[String],
    task: &JournaledTask,
) -> bool {
    let input = rounds
        .team()
        .read(|state| selected_text(state, card_id, test_command, false));
    !task.input_unchanged(&input)
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
