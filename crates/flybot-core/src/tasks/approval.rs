//! What a held send does to its task (#54, #207), for the approvals side to
//! call: a working task's hold blocks it on that approval; a hold stamped on
//! an input-waiting task joins `inputApprovalIds` and leaves the question
//! alone. Approving clears only its own id (and resumes an approval-only
//! wait); any rejection cancels the task.

use super::machine::{end, step};
use super::{Card, Outcome, Stamps, find};
use flybot_protocol::ApiError;
use flybot_protocol::state::{TaskStatus, TeamState};
use flybot_protocol::task::{TaskFields, WaitingFor};

/// The actor entries these moves record: the host, deciding for the owner.
const APPROVAL_ACTOR: &str = "approval";

/// A send of task `id` is held for `approval_id`.
pub fn hold(state: &TeamState, id: &str, approval_id: &str, now: u64) -> Result<Outcome, ApiError> {
    let task = find(state, id)?;
    let mut card = Card::of(task);
    let mut stamps = Stamps::new(now);
    let mut out = Outcome::default();
    match (task.status, card.fields.waiting_for) {
        (TaskStatus::Working, _) => {
            card.fields.waiting_for = Some(WaitingFor::Approval);
            card.fields.approval_id = Some(approval_id.to_owned());
            step(
                &mut card,
                TaskStatus::Blocked,
                APPROVAL_ACTOR,
                &mut stamps,
                None,
            );
        }
        (TaskStatus::Blocked, Some(WaitingFor::Input)) => {
            if !card
                .fields
                .input_approval_ids
                .iter()
                .any(|a| a == approval_id)
            {
                card.fields.input_approval_ids.push(approval_id.to_owned());
            }
            card.task.updated_at = stamps.for_task(&card.task);
        }
        _ => return Ok(out),
    }
    out.write(card.into_task());
    Ok(out.answer_with(id))
}

/// The owner decided `approval_id`: every task holding it moves.
pub fn decide(state: &TeamState, approval_id: &str, approved: bool, now: u64) -> Outcome {
    let mut stamps = Stamps::new(now);
    let mut out = Outcome::default();
    let holding: Vec<String> = state
        .tasks
        .values()
        .filter(|t| !t.status.is_terminal())
        .filter(|t| {
            let f = TaskFields::read(t);
            f.approval_id.as_deref() == Some(approval_id)
                || f.input_approval_ids.iter().any(|a| a == approval_id)
        })
        .map(|t| t.id.clone())
        .collect();
    for id in holding {
        let Some(task) = out.current(state, &id) else {
            continue;
        };
        if task.status.is_terminal() {
            continue;
        }
        let mut card = Card::of(task);
        if !approved {
            end(
                state,
                card,
                TaskStatus::Cancelled,
                APPROVAL_ACTOR,
                &mut stamps,
                &mut out,
            );
            continue;
        }
        card.fields.input_approval_ids.retain(|a| a != approval_id);
        let resumes = card.fields.approval_id.as_deref() == Some(approval_id)
            && card.fields.waiting_for == Some(WaitingFor::Approval)
            && card.task.status == TaskStatus::Blocked;
        if card.fields.approval_id.as_deref() == Some(approval_id) {
            card.fields.approval_id = None;
        }
        if resumes {
            card.fields.waiting_for = None;
            step(
                &mut card,
                TaskStatus::Working,
                APPROVAL_ACTOR,
                &mut stamps,
                None,
            );
        } else {
            card.task.updated_at = stamps.for_task(&card.task);
        }
        out.write(card.into_task());
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::fixture::{apply, member, task, team};
    use super::super::input::{answer_input, wait_input};
    use super::*;

    #[test]
    fn a_hold_blocks_a_working_task_and_approval_resumes_it_54() {
        let mut state = team();
        state
            .tasks
            .insert("task-1".into(), task("task-1", TaskStatus::Working));
        let held = hold(&state, "task-1", "approval-1", 5).unwrap();
        apply(&mut state, &held);
        let f = TaskFields::read(&state.tasks["task-1"]);
        assert_eq!(state.tasks["task-1"].status, TaskStatus::Blocked);
        assert_eq!(f.waiting_for, Some(WaitingFor::Approval));
        // An approval-only wait is not replaced by an input request (#207).
        assert!(wait_input(&state, &member("member-a"), "task-1", "?", "q", 6).is_err());
        let decided = decide(&state, "approval-1", true, 7);
        apply(&mut state, &decided);
        assert_eq!(state.tasks["task-1"].status, TaskStatus::Working);
    }

    #[test]
    fn holds_on_an_input_wait_accumulate_and_each_approval_clears_its_own_207() {
        let mut state = team();
        state
            .tasks
            .insert("task-1".into(), task("task-1", TaskStatus::Working));
        state
            .tasks
            .insert("task-2".into(), task("task-2", TaskStatus::Working));
        let a = member("member-a");
        let out = wait_input(&state, &a, "task-1", "Which?", "q-1", 5).unwrap();
        apply(&mut state, &out);
        for approval in ["approval-1", "approval-2"] {
            let out = hold(&state, "task-1", approval, 6).unwrap();
            apply(&mut state, &out);
        }
        let f = TaskFields::read(&state.tasks["task-1"]);
        assert_eq!(f.input_approval_ids, ["approval-1", "approval-2"]);
        let decided = decide(&state, "approval-1", true, 7);
        apply(&mut state, &decided);
        let f = TaskFields::read(&state.tasks["task-1"]);
        assert_eq!(f.input_approval_ids, ["approval-2"]);
        // Approval does not answer the question; a pending hold refuses it.
        assert_eq!(state.tasks["task-1"].status, TaskStatus::Blocked);
        assert!(answer_input(&state, &a, "task-1", "q-1", "x", 8).is_err());
        // The sibling stays untouched; a rejection cancels the holder.
        let decided = decide(&state, "approval-2", false, 9);
        apply(&mut state, &decided);
        assert_eq!(state.tasks["task-1"].status, TaskStatus::Cancelled);
        assert_eq!(state.tasks["task-2"].status, TaskStatus::Working);
    }
}
