//! The host seam (the moves) for an external runtime's observations (#198): each goes
//! through the projection table, and the move it allows is made by the
//! board rule that draws that edge, through the board's one write path
//! (the execution service's `execution::report`, the requester's
//! `card::answer_as_requester`). Neither the pilot nor a room's OpenCode Bot writes a
//! status or moves a card the table does not allow.

use flybot_interop::projection::{Observation, project};
use flybot_protocol::state::TaskStatus;
use flybot_protocol::task::WaitingFor;

/// A move the seam makes: each is one edge of the task machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeamMove {
    /// working → blocked on input (#207).
    WaitInput,
    /// blocked on input → working (#207).
    AnswerInput,
    /// working → result-ready.
    Return,
}

impl SeamMove {
    /// The channel endpoint that draws the same edge for a person.
    pub fn endpoint(self) -> &'static str {
        match self {
            SeamMove::WaitInput => "task-wait-input",
            SeamMove::AnswerInput => "task-answer-input",
            SeamMove::Return => "task-return",
        }
    }
}

/// The move that makes the projected change from `from`, if any.
pub fn move_for(from: TaskStatus, observation: &Observation) -> Result<SeamMove, String> {
    let projection = project(from, observation).map_err(|e| e.to_string())?;
    match (projection.moves.as_slice(), projection.waiting_for) {
        ([TaskStatus::Blocked], Some(WaitingFor::Input)) => Ok(SeamMove::WaitInput),
        ([TaskStatus::Working], None) if from == TaskStatus::Blocked => Ok(SeamMove::AnswerInput),
        ([TaskStatus::ResultReady], _) => Ok(SeamMove::Return),
        (moves, _) => Err(format!(
            "the projection asks for {moves:?}, which the host seam does not make"
        )),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn completion_evidence_seam_moves_only_what_the_table_allows() {
        let question = Observation::WaitingForInput {
            question_id: "q".into(),
        };
        assert_eq!(
            move_for(TaskStatus::Working, &question).unwrap().endpoint(),
            "task-wait-input"
        );
        let result = Observation::ValidResult {
            summary: "done".into(),
        };
        assert_eq!(
            move_for(TaskStatus::Working, &result).unwrap().endpoint(),
            "task-return"
        );
        assert_eq!(
            move_for(TaskStatus::Blocked, &Observation::InputAnswered)
                .unwrap()
                .endpoint(),
            "task-answer-input"
        );
        assert!(move_for(TaskStatus::Working, &Observation::InputAnswered).is_err());
        assert!(move_for(TaskStatus::Working, &Observation::RuntimeIdle).is_err());
        assert!(move_for(TaskStatus::Open, &result).is_err());
    }
}
