//! The execution service's seam (#198, issue 18): an external runtime
//! working a card (OpenCode) moves it as the execution service bound to that
//! one card, never with its owner's authority. The host mints a
//! task-scoped credential when it enrolls the card (`ExecutionBinding`,
//! which keeps only the credential's SHA-256) and every observation is
//! revalidated here against it and against the card as it is now: the same
//! card, the same requester Bot, its room, the worker still a member.
//! The service reports observations only: a question for input, or a
//! result. It has no move that answers a question, approves, accepts or
//! cancels: those stay the requester's (`input`, `machine`, `approval`).

use super::machine::{moved_as, stale};
use super::text::{SUMMARY_MAX, nonblank};
use super::{Card, Outcome, find};
use flybot_protocol::evidence::EvidenceLevel;
use flybot_protocol::state::{TaskStatus, TeamState};

use flybot_protocol::{ApiError, ErrorCode};

/// What the host recorded when it enrolled a card for an external runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecutionBinding {
    pub task_id: String,
    /// The card's own Bot, the requester of the work.
    pub requester_bot: String,
    /// The external Bot whose runtime works the card.
    pub worker_bot: String,
    pub room_id: String,
    /// SHA-256 hex of the credential handed to the execution service.
    pub credential_sha256: String,
}

/// An observation the execution service may report. There is no variant
/// for an answer, an approval, an acceptance or a cancel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecutionObservation<'a> {
    /// The runtime asked for a selected input: working → blocked on input.
    Question {
        question: &'a str,
        question_id: &'a str,
    },
    /// The runtime returned a result the host verified: working →
    /// result-ready, for a person to accept or send back. The card records
    /// the evidence level the runtime ran at (1 to 3); level 4 is never an
    /// observation.
    Result {
        summary: &'a str,
        evidence_level: EvidenceLevel,
    },
}

/// The actor label an execution service's moves are recorded with.
pub fn service_label(worker_bot: &str) -> String {
    format!("execution:{worker_bot}")
}

fn refused(message: String) -> ApiError {
    ApiError::new(ErrorCode::Forbidden, message)
}

/// Revalidates the binding and the credential presented with it against the
/// card as it is now; answers why not, as one sentence.
fn revalidate(
    state: &TeamState,
    binding: &ExecutionBinding,
    presented: &str,
) -> Result<(), ApiError> {
    if presented != binding.credential_sha256 {
        return Err(refused(
            "The execution credential is not the one minted for this card; nothing was moved."
                .to_owned(),
        ));
    }
    let task = find(state, &binding.task_id)?;
    if task.bot_id != binding.requester_bot
        || task.room_id.as_deref() != Some(binding.room_id.as_str())
    {
        return Err(refused(format!(
            "The card \"{}\" is no longer the one this execution was bound to; nothing was moved.",
            task.title
        )));
    }
    let member = state
        .rooms
        .get(&binding.room_id)
        .is_some_and(|room| room.members.contains(&binding.worker_bot));
    if !member {
        return Err(refused(format!(
            "The Bot working \"{}\" is no longer a member of its room; nothing was moved.",
            task.title
        )));
    }
    Ok(())
}

/// One observation of the execution service bound to `binding.task_id`,
/// made only from `working`.
pub fn observe(
    state: &TeamState,
    binding: &ExecutionBinding,
    presented_sha256: &str,
    observation: ExecutionObservation<'_>,
    now: u64,
) -> Result<Outcome, ApiError> {
    revalidate(state, binding, presented_sha256)?;
    let task = find(state, &binding.task_id)?;
    let label = service_label(&binding.worker_bot);
    match observation {
        ExecutionObservation::Question {
            question,
            question_id,
        } => {
            let card = super::input::waiting_on(task, question, question_id, now)?;
            let asked = Some(question_id.to_owned());
            Ok(moved_as(&label, card, TaskStatus::Blocked, now, asked))
        }
        ExecutionObservation::Result {
            summary,
            evidence_level,
        } => {
            if evidence_level == EvidenceLevel::HumanAcceptance {
                // Acceptance cannot be forged by an adapter event (#198).
                return Err(refused(format!(
                    "An execution service cannot report a person's acceptance of \"{}\"; nothing was moved.",
                    task.title
                )));
            }
            let summary = nonblank("summary", summary, SUMMARY_MAX)?;
            if task.status != TaskStatus::Working {
                return Err(stale(task, TaskStatus::ResultReady));
            }
            let mut card = Card::of(task);
            card.fields.summary = Some(summary);
            card.fields.evidence_level = Some(evidence_level);
            Ok(moved_as(&label, card, TaskStatus::ResultReady, now, None))
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::tasks::fixture::*;
    use flybot_protocol::task::{TaskFields, WaitingFor};

    /// `bot-dev1`'s card in `room-1`, worked by `bot-dev2`'s runtime.
    fn room_card_state(status: TaskStatus) -> TeamState {
        let mut state = team();
        let mut card = task("t1", status);
        card.room_id = Some("room-1".into());
        state.tasks.insert("t1".into(), card);
        state
    }

    fn binding(state: &TeamState) -> ExecutionBinding {
        let task = state.tasks.get("t1").unwrap();
        ExecutionBinding {
            task_id: "t1".into(),
            requester_bot: task.bot_id.clone(),
            worker_bot: "bot-dev2".into(),
            room_id: "room-1".into(),
            credential_sha256: "a".repeat(64),
        }
    }

    fn question(id: &str) -> ExecutionObservation<'_> {
        ExecutionObservation::Question {
            question: "Transliterate or drop accents?",
            question_id: id,
        }
    }

    #[test]
    fn authority_the_bound_service_reports_a_question_and_a_result_as_itself() {
        let state = room_card_state(TaskStatus::Working);
        let out = observe(&state, &binding(&state), &"a".repeat(64), question("q1"), 9).unwrap();
        let card = &out.writes[0];
        assert_eq!(card.status, TaskStatus::Blocked);
        let fields = TaskFields::read(card);
        assert_eq!(fields.waiting_for, Some(WaitingFor::Input));
        assert_eq!(
            fields.actors[&TaskStatus::Blocked].actor_id,
            "execution:bot-dev2"
        );
        let result = ExecutionObservation::Result {
            summary: "Tests pass.",
            evidence_level: EvidenceLevel::RealProcessInterface,
        };
        let out = observe(&state, &binding(&state), &"a".repeat(64), result, 9).unwrap();
        assert_eq!(out.writes[0].status, TaskStatus::ResultReady);
        let fields = TaskFields::read(&out.writes[0]);
        assert_eq!(
            fields.evidence_level,
            Some(EvidenceLevel::RealProcessInterface)
        );
        assert_eq!(
            fields.actors[&TaskStatus::ResultReady].actor_id,
            "execution:bot-dev2"
        );
    }

    #[test]
    fn authority_a_wrong_credential_another_card_or_a_removed_worker_moves_nothing() {
        let state = room_card_state(TaskStatus::Working);
        let wrong =
            observe(&state, &binding(&state), &"b".repeat(64), question("q1"), 9).unwrap_err();
        assert_eq!(wrong.code, ErrorCode::Forbidden);
        assert!(
            wrong.message.contains("not the one minted"),
            "{}",
            wrong.message
        );
        // A credential bound to another room's card is refused for this one.
        let mut elsewhere = binding(&state);
        elsewhere.room_id = "room-2".into();
        let moved = observe(&state, &elsewhere, &"a".repeat(64), question("q1"), 9).unwrap_err();
        assert_eq!(moved.code, ErrorCode::Forbidden);
        // The worker left the room: its binding no longer holds.
        let mut left = state.clone();
        left.rooms
            .get_mut("room-1")
            .unwrap()
            .members
            .retain(|m| m != "bot-dev2");
        let gone =
            observe(&left, &binding(&state), &"a".repeat(64), question("q1"), 9).unwrap_err();
        assert!(
            gone.message.contains("no longer a member"),
            "{}",
            gone.message
        );
    }

    #[test]
    fn authority_the_service_moves_only_a_working_card() {
        for status in [
            TaskStatus::Blocked,
            TaskStatus::ResultReady,
            TaskStatus::Cancelled,
        ] {
            let state = room_card_state(status);
            let result = ExecutionObservation::Result {
                summary: "done",
                evidence_level: EvidenceLevel::OfflineMock,
            };
            let refused =
                observe(&state, &binding(&state), &"a".repeat(64), result, 9).unwrap_err();
            assert_eq!(refused.code, ErrorCode::Stale, "{status:?}");
        }
    }

    #[test]
    /// Rule #198.
    fn evidence_an_execution_service_cannot_report_a_persons_acceptance() {
        let state = room_card_state(TaskStatus::Working);
        let forged = ExecutionObservation::Result {
            summary: "Accepted by the owner.",
            evidence_level: EvidenceLevel::HumanAcceptance,
        };
        let refused = observe(&state, &binding(&state), &"a".repeat(64), forged, 9).unwrap_err();
        assert_eq!(refused.code, ErrorCode::Forbidden);
        assert!(
            refused.message.contains("acceptance"),
            "{}",
            refused.message
        );
    }

    #[test]
    /// Rule #198.
    fn evidence_a_persons_acceptance_of_a_verified_result_is_level_4() {
        let mut state = room_card_state(TaskStatus::Working);
        let result = ExecutionObservation::Result {
            summary: "Verified in a fresh copy.",
            evidence_level: EvidenceLevel::OfflineMock,
        };
        let out = observe(&state, &binding(&state), &"a".repeat(64), result, 9).unwrap();
        state.tasks.insert("t1".into(), out.writes[0].clone());
        let accepted = crate::tasks::machine::accept_result(
            &state,
            &crate::access::Actor::SingleOwner,
            "t1",
            "owner",
            10,
        )
        .unwrap();
        let card = accepted.writes.iter().find(|t| t.id == "t1").unwrap();
        assert_eq!(card.status, TaskStatus::Accepted);
        assert_eq!(
            TaskFields::read(card).evidence_level,
            Some(EvidenceLevel::HumanAcceptance)
        );
        // A card no runtime returned carries no level when accepted.
        let plain = room_card_state(TaskStatus::ResultReady);
        let out = crate::tasks::machine::accept_result(
            &plain,
            &crate::access::Actor::SingleOwner,
            "t1",
            "owner",
            10,
        )
        .unwrap();
        let card = out.writes.iter().find(|t| t.id == "t1").unwrap();
        assert_eq!(TaskFields::read(card).evidence_level, None);
    }
}
