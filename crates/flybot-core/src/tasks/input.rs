//! Task input waits (#207): requester-only bookkeeping. A working card waits
//! on one question; the exact current question's answer, from the same
//! requester with no task approval pending, returns it to working. Only the
//! latest question and answer are kept, linked from the actor entries.

use super::machine::{forbidden, is_requester, moved, stale};
use super::text::{TEXT_MAX, nonblank};
use super::{Card, Outcome, find};
use crate::access::Actor;
use flybot_protocol::state::{TaskStatus, TeamState};
use flybot_protocol::task::{InputAnswer, InputRequest, WaitingFor};
use flybot_protocol::{ApiError, ErrorCode};

/// `task-wait-input {id, question}`: working → blocked, waiting for input
/// with a fresh question (`question_id` minted by the host). An
/// approval-only wait is blocked, not working, so it is never replaced.
pub fn wait_input(
    state: &TeamState,
    actor: &Actor,
    id: &str,
    question: &str,
    question_id: &str,
    now: u64,
) -> Result<Outcome, ApiError> {
    let task = find(state, id)?;
    if !is_requester(state, actor, task) {
        return Err(forbidden(task));
    }
    let card = waiting_on(task, question, question_id, now)?;
    let asked = Some(question_id.to_owned());
    Ok(moved(state, actor, card, TaskStatus::Blocked, now, asked))
}

/// The input-wait rule (#207), the one place it is written: only a working
/// card waits; it waits for input on a fresh question, and only the latest
/// question/answer snapshot is kept. Both doors use it: the requester's
/// `task-wait-input` and an execution service's question (#198).
pub(crate) fn waiting_on(
    task: &flybot_protocol::state::Task,
    question: &str,
    question_id: &str,
    now: u64,
) -> Result<Card, ApiError> {
    let question = nonblank("question", question, TEXT_MAX)?;
    if task.status != TaskStatus::Working {
        return Err(stale(task, TaskStatus::Blocked));
    }
    let mut card = Card::of(task);
    card.fields.waiting_for = Some(WaitingFor::Input);
    card.fields.input_request = Some(InputRequest {
        id: question_id.to_owned(),
        question,
        requested_at: now,
    });
    card.fields.input_answer = None;
    Ok(card)
}

/// `task-answer-input {id, questionId, answer}`: blocked on that exact
/// question → working. A late answer never revives an ended card.
pub fn answer_input(
    state: &TeamState,
    actor: &Actor,
    id: &str,
    question_id: &str,
    answer: &str,
    now: u64,
) -> Result<Outcome, ApiError> {
    let answer = nonblank("answer", answer, TEXT_MAX)?;
    let task = find(state, id)?;
    if !is_requester(state, actor, task) {
        return Err(forbidden(task));
    }
    let mut card = Card::of(task);
    if task.status != TaskStatus::Blocked || card.fields.waiting_for != Some(WaitingFor::Input) {
        return Err(stale(task, TaskStatus::Working));
    }
    let current = card.fields.input_request.as_ref().map(|q| q.id.as_str());
    if current != Some(question_id) {
        return Err(ApiError::new(
            ErrorCode::Stale,
            "That question is not the card's current one; answer the question it shows now.",
        )
        .with("taskId", id)
        .with("questionId", current.unwrap_or_default()));
    }
    if !card.fields.input_approval_ids.is_empty() {
        return Err(ApiError::new(
            ErrorCode::Stale,
            "A send of this task still waits for approval; decide it before answering.",
        )
        .with("taskId", id)
        .with("approvalIds", card.fields.input_approval_ids.clone()));
    }
    card.fields.waiting_for = None;
    card.fields.input_answer = Some(InputAnswer {
        question_id: question_id.to_owned(),
        answer,
        answered_at: now,
    });
    let answered = Some(question_id.to_owned());
    Ok(moved(
        state,
        actor,
        card,
        TaskStatus::Working,
        now,
        answered,
    ))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::fixture::{apply, member, task, team, with_fields};
    use super::super::machine::{cancel, start};
    use super::*;
    use flybot_protocol::task::TaskFields;

    fn working() -> TeamState {
        let mut state = team();
        state
            .tasks
            .insert("task-1".into(), task("task-1", TaskStatus::Working));
        state
    }

    #[test]
    /// Rule #207.
    fn a_wait_records_blocked_input_and_a_fresh_question() {
        let mut state = working();
        let a = member("member-a");
        let out = wait_input(&state, &a, "task-1", "Which DB?", "q-1", 10).unwrap();
        apply(&mut state, &out);
        let t = &state.tasks["task-1"];
        let f = TaskFields::read(t);
        assert_eq!(t.status, TaskStatus::Blocked);
        assert_eq!(f.waiting_for, Some(WaitingFor::Input));
        assert_eq!(f.input_request.as_ref().unwrap().id, "q-1");
        assert_eq!(
            f.actors[&TaskStatus::Blocked].question_id.as_deref(),
            Some("q-1")
        );
        // task-start cannot resume a blocked task.
        assert_eq!(
            start(&state, &a, "task-1", 11).unwrap_err().code,
            ErrorCode::Stale
        );
        // A stale question id is refused; the current one resumes.
        let err = answer_input(&state, &a, "task-1", "q-0", "Postgres", 12).unwrap_err();
        assert_eq!(err.code, ErrorCode::Stale);
        let out = answer_input(&state, &a, "task-1", "q-1", "Postgres", 12).unwrap();
        apply(&mut state, &out);
        let f = TaskFields::read(&state.tasks["task-1"]);
        assert_eq!(state.tasks["task-1"].status, TaskStatus::Working);
        assert_eq!(f.waiting_for, None);
        assert_eq!(f.input_answer.unwrap().answer, "Postgres");
        assert_eq!(
            f.actors[&TaskStatus::Working].question_id.as_deref(),
            Some("q-1")
        );
    }

    #[test]
    /// Rule #207.
    fn an_approval_only_wait_is_not_replaced_by_an_input_request() {
        let mut state = team();
        let t = with_fields(task("task-1", TaskStatus::Blocked), |f| {
            f.waiting_for = Some(WaitingFor::Approval);
            f.approval_id = Some("approval-1".into());
        });
        state.tasks.insert("task-1".into(), t);
        let err = wait_input(&state, &member("member-a"), "task-1", "?", "q-1", 5).unwrap_err();
        assert_eq!(err.code, ErrorCode::Stale);
    }

    #[test]
    /// Rule #207.
    fn pending_approvals_hold_the_answer() {
        let mut state = team();
        let t = with_fields(task("task-1", TaskStatus::Blocked), |f| {
            f.waiting_for = Some(WaitingFor::Input);
            f.input_request = Some(InputRequest {
                id: "q-1".into(),
                question: "?".into(),
                requested_at: 1,
            });
            f.input_approval_ids = vec!["approval-1".into()];
        });
        state.tasks.insert("task-1".into(), t);
        let err = answer_input(&state, &member("member-a"), "task-1", "q-1", "yes", 5).unwrap_err();
        assert_eq!(err.code, ErrorCode::Stale);
    }

    #[test]
    /// Rule #207.
    fn a_late_answer_never_revives_a_cancelled_card_and_the_snapshot_stays() {
        let mut state = working();
        let a = member("member-a");
        let step_out = wait_input(&state, &a, "task-1", "?", "q-1", 10).unwrap();
        apply(&mut state, &step_out);
        let step_out = cancel(&state, &a, "task-1", 11).unwrap();
        apply(&mut state, &step_out);
        let f = TaskFields::read(&state.tasks["task-1"]);
        assert_eq!(f.waiting_for, None);
        assert_eq!(f.input_request.unwrap().id, "q-1");
        let err = answer_input(&state, &a, "task-1", "q-1", "late", 12).unwrap_err();
        assert_eq!(err.code, ErrorCode::Stale);
    }

    #[test]
    /// Rule #207.
    fn only_the_requester_waits_or_answers() {
        let state = working();
        let b = member("member-b");
        let err = wait_input(&state, &b, "task-1", "?", "q", 5).unwrap_err();
        assert_eq!(err.code, ErrorCode::Forbidden);
        let long = "x".repeat(2_001);
        let err = wait_input(&state, &member("member-a"), "task-1", &long, "q", 5).unwrap_err();
        assert_eq!(err.code, ErrorCode::Invalid);
    }
}
