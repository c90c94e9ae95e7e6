//! What a held send does to its task (#54, #207), for the approvals side to
//! call: a working task's hold blocks it on that approval; a hold stamped on
//! an input-waiting task joins `inputApprovalIds` and leaves the question
//! alone. Approving clears only its own id (and resumes an approval-only
//! wait); any rejection cancels the task.

use super::machine::{end, step};
use super::{Card, Outcome, Stamps, find};
use flybot_protocol::ApiError;
use flybot_protocol::approval::{HeldRecord, HoldStatus};
use flybot_protocol::state::{Task, TaskStatus, TeamState};
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

/// The task a Bot's send is made for (#54, #207): the card the send names
/// in `meta.taskId`, never a guess. An untargeted send (`None`) blocks no
/// card, even when the Bot works one, because a Bot with several cards
/// cannot be read from its newest. A named card must be one the sending
/// Bot holds, so a Bot cannot block another Bot's card with its own hold:
/// anything else is refused with a sentence the Bot can act on.
pub fn task_of_send<'a>(
    state: &'a TeamState,
    bot_id: &str,
    task_id: Option<&str>,
) -> Result<Option<&'a Task>, ApiError> {
    let Some(task_id) = task_id.map(str::trim).filter(|id| !id.is_empty()) else {
        return Ok(None);
    };
    match state.tasks.get(task_id) {
        Some(task) if task.bot_id == bot_id => Ok(Some(task)),
        _ => Err(ApiError::invalid(
            "taskId",
            format!("{task_id} is not a card of yours; name one of your own cards or none."),
        )),
    }
}

/// The task moves that follow holds decided at `now` (an answer, a
/// demotion, a deleted Bot): a rejected hold cancels its task; an approved
/// one resumes it, and so does a stale one, whose send can never go, so
/// the task is never left blocked on it (#54).
pub fn after_holds(state: &TeamState, records: &[HeldRecord], now: u64) -> Outcome {
    let mut stamps = Stamps::new(now);
    let mut out = Outcome::default();
    for record in records {
        let approved = match record.held.status {
            HoldStatus::Rejected => false,
            HoldStatus::Approved | HoldStatus::Stale => true,
            HoldStatus::Pending | HoldStatus::PendingApproval => continue,
        };
        decide_into(state, &record.id, approved, &mut stamps, &mut out);
    }
    out
}

/// The owner decided `approval_id`: every task holding it moves.
pub fn decide(state: &TeamState, approval_id: &str, approved: bool, now: u64) -> Outcome {
    let mut stamps = Stamps::new(now);
    let mut out = Outcome::default();
    decide_into(state, approval_id, approved, &mut stamps, &mut out);
    out
}

fn decide_into(
    state: &TeamState,
    approval_id: &str,
    approved: bool,
    stamps: &mut Stamps,
    out: &mut Outcome,
) {
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
                stamps,
                out,
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
            step(&mut card, TaskStatus::Working, APPROVAL_ACTOR, stamps, None);
        } else {
            card.task.updated_at = stamps.for_task(&card.task);
        }
        out.write(card.into_task());
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::fixture::{apply, member, task, team};
    use super::super::input::{answer_input, wait_input};
    use super::*;

    #[test]
    /// Rule #54.
    fn a_hold_blocks_a_working_task_and_approval_resumes_it() {
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
    /// Rule #207.
    fn holds_on_an_input_wait_accumulate_and_each_approval_clears_its_own() {
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

    #[test]
    /// Rule #54.
    fn a_stale_hold_resumes_its_card_and_a_rejected_one_cancels_it() {
        use flybot_protocol::approval::{HeldSend, HeldSendKind};
        let mut state = team();
        for id in ["task-1", "task-2"] {
            state.tasks.insert(id.into(), task(id, TaskStatus::Working));
        }
        for (id, hold_id) in [("task-1", "hold-1"), ("task-2", "hold-2")] {
            let out = hold(&state, id, hold_id, 5).unwrap();
            apply(&mut state, &out);
        }
        let record = |id: &str, status: HoldStatus| HeldRecord {
            id: id.into(),
            kind: HeldSendKind::HeldSend,
            held: HeldSend {
                status,
                ..serde_json::from_value(serde_json::json!({
                    "requestId": id, "version": "v", "ownerId": "member-a",
                    "fromBot": "bot-dev1", "status": "pending", "createdAt": 1,
                    "origin": {"via": "message_bot", "hop": 1, "audience": "bot:bot-rev"}
                }))
                .unwrap()
            },
            to_bot: "bot-rev".into(),
            text: "hi".into(),
            decided_at: Some(6),
            stale_reason: None,
            extra: Default::default(),
        };
        let out = after_holds(
            &state,
            &[
                record("hold-1", HoldStatus::Stale),
                record("hold-2", HoldStatus::Rejected),
            ],
            6,
        );
        apply(&mut state, &out);
        assert_eq!(state.tasks["task-1"].status, TaskStatus::Working);
        assert_eq!(state.tasks["task-2"].status, TaskStatus::Cancelled);
    }

    #[test]
    /// Rules #54, #207.
    fn a_held_send_blocks_the_card_it_names_and_an_untargeted_send_blocks_none() {
        let mut state = team();
        for id in ["task-old", "task-new"] {
            state.tasks.insert(id.into(), task(id, TaskStatus::Working));
        }
        state.tasks.get_mut("task-new").unwrap().updated_at = 9;
        let mut other = task("task-rev", TaskStatus::Working);
        other.bot_id = "bot-rev".into();
        state.tasks.insert("task-rev".into(), other);
        // (named card, the card it answers, or a refusal)
        type Case<'a> = (Option<&'a str>, Result<Option<&'a str>, ()>);
        let cases: [Case; 6] = [
            (None, Ok(None)),
            (Some("  "), Ok(None)),
            (Some("task-old"), Ok(Some("task-old"))),
            (Some("task-new"), Ok(Some("task-new"))),
            (Some("task-rev"), Err(())),
            (Some("task-gone"), Err(())),
        ];
        for (named, want) in cases {
            let got = task_of_send(&state, "bot-dev1", named)
                .map(|t| t.map(|t| t.id.as_str()))
                .map_err(|_| ());
            assert_eq!(got, want, "{named:?}");
        }
    }
}
