//! The card's recovery facet (#198, "Lost connection or ambiguous write"):
//! the host marks a card whose external turn could not be matched
//! `recovery: uncertain` with the raw status it saw, and only the card's
//! requester decides it (`task-recovery-decide`: retry, accept or cancel).
//! The facet sits beside the status, never in it; a cancel also ends the
//! card through the machine's own cancel.

use super::machine::{self, actor_label, forbidden, is_requester};
use super::text::TEXT_MAX;
use super::{Card, Outcome, find};
use crate::access::Actor;
use flybot_protocol::state::TeamState;
use flybot_protocol::task::{Recovery, RecoveryDecision, RecoveryState};
use flybot_protocol::{ApiError, ErrorCode};

/// The host marks `id` uncertain with what the runtime showed. A card that
/// ended, or one already uncertain with the same status, is left as it is.
pub fn mark_uncertain(
    state: &TeamState,
    id: &str,
    raw_status: &str,
    now: u64,
) -> Result<Outcome, ApiError> {
    let task = find(state, id)?;
    let mut card = Card::of(task);
    let raw_status: String = raw_status.chars().take(TEXT_MAX).collect();
    let same = card
        .fields
        .recovery
        .as_ref()
        .is_some_and(|r| r.state == RecoveryState::Uncertain && r.raw_status == raw_status);
    if task.status.is_terminal() || same {
        return Ok(Outcome {
            answer: Some(task.clone()),
            ..Outcome::default()
        });
    }
    card.fields.recovery = Some(Recovery {
        state: RecoveryState::Uncertain,
        raw_status,
        since: now,
        decision: None,
        decided_by: None,
        decided_at: None,
    });
    card.task.updated_at = now;
    Ok(Outcome::one(card.into_task()))
}

/// Whether `id` waits for a person's recovery decision.
pub fn is_uncertain(state: &TeamState, id: &str) -> bool {
    state.tasks.get(id).is_some_and(|task| {
        Card::of(task)
            .fields
            .recovery
            .is_some_and(|r| r.state == RecoveryState::Uncertain)
    })
}

/// `task-recovery-decide {taskId, decision}`: the requester decides an
/// uncertain card; the decision stays on it. `cancel` ends the card as
/// `task-cancel` does.
pub fn decide(
    state: &TeamState,
    actor: &Actor,
    id: &str,
    decision: RecoveryDecision,
    now: u64,
) -> Result<Outcome, ApiError> {
    let task = find(state, id)?;
    if !is_requester(state, actor, task) {
        return Err(forbidden(task));
    }
    if !is_uncertain(state, id) {
        return Err(ApiError::new(
            ErrorCode::Stale,
            format!(
                "\"{}\" has no uncertain turn to decide; reload the board.",
                task.title
            ),
        )
        .with("taskId", id));
    }
    let mut out = match decision {
        RecoveryDecision::Cancel => machine::cancel(state, actor, id, now)?,
        RecoveryDecision::Retry | RecoveryDecision::Accept => Outcome::one(task.clone()),
    };
    let Some(written) = out.current(state, id).cloned() else {
        return Err(ApiError::not_found("task", id));
    };
    let mut card = Card::of(&written);
    if let Some(recovery) = card.fields.recovery.as_mut() {
        recovery.state = RecoveryState::Decided;
        recovery.decision = Some(decision);
        recovery.decided_by = Some(actor_label(state, actor));
        recovery.decided_at = Some(now);
    }
    card.task.updated_at = now;
    out.write(card.into_task());
    Ok(out.answer_with(id))
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{member, task, team};
    use super::*;
    use flybot_protocol::state::TaskStatus;
    use flybot_protocol::task::TaskFields;

    fn uncertain_team() -> TeamState {
        let mut state = team();
        let card = task("t1", TaskStatus::Working);
        state.tasks.insert(card.id.clone(), card);
        let out = mark_uncertain(&state, "t1", "timeout", 5).unwrap_or_else(|e| panic!("{e:?}"));
        super::super::fixture::apply(&mut state, &out);
        state
    }

    fn recovery_of(state: &TeamState, out: &Outcome) -> Recovery {
        let card = out
            .current(state, "t1")
            .unwrap_or_else(|| panic!("no card"));
        TaskFields::read(card)
            .recovery
            .unwrap_or_else(|| panic!("no facet"))
    }

    #[test]
    fn recovery_uncertain_is_a_facet_beside_the_status() {
        let state = uncertain_team();
        assert!(is_uncertain(&state, "t1"));
        assert_eq!(state.tasks["t1"].status, TaskStatus::Working);
    }

    #[test]
    fn recovery_only_the_requester_decides_and_only_an_uncertain_card() {
        let state = uncertain_team();
        let refused = decide(
            &state,
            &member("member-b"),
            "t1",
            RecoveryDecision::Retry,
            9,
        );
        assert_eq!(refused.err().map(|e| e.code), Some(ErrorCode::Forbidden));
        let unknown = decide(
            &state,
            &member("member-a"),
            "t9",
            RecoveryDecision::Retry,
            9,
        );
        assert_eq!(unknown.err().map(|e| e.code), Some(ErrorCode::NotFound));
        let decided = decide(
            &state,
            &member("member-a"),
            "t1",
            RecoveryDecision::Accept,
            9,
        )
        .unwrap_or_else(|e| panic!("{e:?}"));
        let recovery = recovery_of(&state, &decided);
        assert_eq!(recovery.state, RecoveryState::Decided);
        assert_eq!(recovery.decision, Some(RecoveryDecision::Accept));
        assert_eq!(recovery.raw_status, "timeout");
        let mut after = state.clone();
        super::super::fixture::apply(&mut after, &decided);
        let again = decide(
            &after,
            &member("member-a"),
            "t1",
            RecoveryDecision::Retry,
            10,
        );
        assert_eq!(again.err().map(|e| e.code), Some(ErrorCode::Stale));
    }

    #[test]
    fn recovery_cancel_ends_the_card_as_task_cancel_does() {
        let state = uncertain_team();
        let out = decide(
            &state,
            &member("member-a"),
            "t1",
            RecoveryDecision::Cancel,
            9,
        )
        .unwrap_or_else(|e| panic!("{e:?}"));
        let card = out
            .current(&state, "t1")
            .unwrap_or_else(|| panic!("no card"));
        assert_eq!(card.status, TaskStatus::Cancelled);
        assert_eq!(
            recovery_of(&state, &out).decision,
            Some(RecoveryDecision::Cancel)
        );
    }
}
