//! The host seam for an external runtime's observations (#198): each goes
//! through the projection table, and the move it allows is made by the
//! task endpoint that draws that edge. Neither the pilot nor a room's
//! OpenCode Bot writes a status or moves a card the table does not allow.

use flybot_interop::projection::{Observation, project};
use flybot_protocol::state::TaskStatus;
use flybot_protocol::task::WaitingFor;

/// The endpoint that makes the projected move from `from`, if any.
pub fn endpoint_for(from: TaskStatus, observation: &Observation) -> Result<&'static str, String> {
    let projection = project(from, observation).map_err(|e| e.to_string())?;
    match (projection.moves.as_slice(), projection.waiting_for) {
        ([TaskStatus::Blocked], Some(WaitingFor::Input)) => Ok("task-wait-input"),
        ([TaskStatus::Working], None) if from == TaskStatus::Blocked => Ok("task-answer-input"),
        ([TaskStatus::ResultReady], _) => Ok("task-return"),
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
            endpoint_for(TaskStatus::Working, &question).unwrap(),
            "task-wait-input"
        );
        let result = Observation::ValidResult {
            summary: "done".into(),
        };
        assert_eq!(
            endpoint_for(TaskStatus::Working, &result).unwrap(),
            "task-return"
        );
        assert_eq!(
            endpoint_for(TaskStatus::Blocked, &Observation::InputAnswered).unwrap(),
            "task-answer-input"
        );
        assert!(endpoint_for(TaskStatus::Working, &Observation::InputAnswered).is_err());
        assert!(endpoint_for(TaskStatus::Working, &Observation::RuntimeIdle).is_err());
        assert!(endpoint_for(TaskStatus::Open, &result).is_err());
    }
}
