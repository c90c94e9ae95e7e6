//! The explicitly selected text an OpenCode turn carries (#198, payload):
//! the card's task input and its acceptance criterion for the request, the
//! requester's answer as the card records it for an answer. The room
//! round's text (other members' lines, route notes, reply rules) never
//! reaches OpenCode.

use flybot_protocol::state::TeamState;
use flybot_protocol::task::TaskFields;

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
