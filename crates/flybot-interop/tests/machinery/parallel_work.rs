//! Matrix row "Parallel work", the journal's part: two task ids in one
//! conversation get two different sessions; out-of-order questions,
//! answers and results cannot cross them.

use crate::kit::*;
use flybot_interop::envelope::EnvelopeKind::{Answer, Question, Result as ResultKind};
use flybot_interop::journal::{
    Decision, DispatchBlocked, JournalError, RefusedBecause, SendObservation, SendOperation,
};

fn create_session(h: &mut Harness, task: &str, session: &str) -> Result<(), JournalError> {
    let send = h
        .journal
        .begin_send(task, SendOperation::CreateSession, None, None, h.now)?;
    h.journal.finish_send(
        send,
        SendObservation::Accepted {
            remote_ref: Some(session.into()),
        },
        h.now,
    )
}

#[test]
fn matrix_parallel_work_two_tasks_one_conversation_two_sessions() {
    let mut h = Harness::new();
    enrolled(&mut h, "task-1");
    enrolled(&mut h, "task-2");
    create_session(&mut h, "task-1", "ses-1").unwrap();
    // One task, one session: a second session for task-1 never starts.
    let second = h
        .journal
        .begin_send("task-1", SendOperation::CreateSession, None, None, h.now)
        .unwrap_err();
    assert!(matches!(
        second,
        JournalError::Blocked(DispatchBlocked::SessionExists)
    ));
    // A session serving task-1 is never reused for task-2.
    let taken = create_session(&mut h, "task-2", "ses-1").unwrap_err();
    assert!(matches!(
        taken,
        JournalError::Blocked(DispatchBlocked::SessionTaken)
    ));
    h.journal
        .dispose(
            "task-2",
            flybot_interop::cancel::HumanDisposition::Resubmit,
            "owner-1",
            h.now,
        )
        .unwrap();
    create_session(&mut h, "task-2", "ses-2").unwrap();
    h.restart();
    let one = h.journal.task("task-1").unwrap();
    let two = h.journal.task("task-2").unwrap();
    assert_eq!(one.correlation.session_id.as_deref(), Some("ses-1"));
    assert_eq!(two.correlation.session_id.as_deref(), Some("ses-2"));
    assert_eq!(one.conversations, two.conversations, "same conversation");
}

#[test]
fn matrix_parallel_work_out_of_order_events_cannot_cross_tasks() {
    let mut h = Harness::new();
    enrolled(&mut h, "task-1");
    enrolled(&mut h, "task-2");
    h.accepted(
        &b_to_a(),
        &reply(Question, "task-1", "q1", "t1", "task-1-ev-1"),
    );
    // task-2's answer naming task-1's question.
    let crossed = h.deliver(&a_to_b(), &reply(Answer, "task-2", "a1", "t2", "q1"));
    assert_eq!(
        crossed.decision,
        Decision::Refused(RefusedBecause::NotOutstanding)
    );
    // task-2's result naming task-1's request.
    let crossed = h.deliver(
        &b_to_a(),
        &reply(ResultKind, "task-2", "r1", "t1", "task-1-ev-1"),
    );
    assert_eq!(
        crossed.decision,
        Decision::Refused(RefusedBecause::NotOutstanding)
    );
    // An answer before its question.
    let early = h.deliver(&a_to_b(), &reply(Answer, "task-2", "a2", "t2", "q-not-yet"));
    assert_eq!(
        early.decision,
        Decision::Refused(RefusedBecause::NotOutstanding)
    );
    // The right answer still works after all that.
    h.accepted(&a_to_b(), &reply(Answer, "task-1", "a3", "t2", "q1"));
    h.accepted(
        &b_to_a(),
        &reply(ResultKind, "task-2", "r2", "t1", "task-2-ev-1"),
    );
    assert_eq!(
        h.journal.task("task-2").unwrap().result_event.as_deref(),
        Some("r2")
    );
    assert!(h.journal.task("task-1").unwrap().result_event.is_none());
}
