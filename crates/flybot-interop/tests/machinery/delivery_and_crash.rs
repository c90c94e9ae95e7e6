//! Matrix row "Delivery and crash", the journal's part: duplicate and
//! out-of-order events, a crash before or after submission, a send
//! timeout and missing acknowledgements cause at most one known turn
//! dispatch or an explicit `recovery: uncertain`; budgets and cursors
//! survive restart.

use crate::kit::*;
use flybot_interop::cancel::HumanDisposition;
use flybot_interop::envelope::EnvelopeKind::Question;
use flybot_interop::journal::{
    Decision, DispatchBlocked, JournalError, Reconciliation, SendObservation, SendOperation,
};

fn with_session(h: &mut Harness, task: &str) {
    enrolled(h, task);
    let send = h
        .journal
        .begin_send(task, SendOperation::CreateSession, None, None, h.now)
        .unwrap();
    h.journal
        .finish_send(
            send,
            SendObservation::Accepted {
                remote_ref: Some(format!("ses-{task}")),
            },
            h.now,
        )
        .unwrap();
}

#[test]
fn matrix_delivery_and_crash_duplicate_events_dispatch_once() {
    let mut h = Harness::new();
    enrolled(&mut h, "task-1");
    let again = h.deliver(&a_to_b(), &request("task-1", "task-1-ev-1", "t1"));
    assert_eq!(again.decision, Decision::Duplicate);
    // The same turn retransmitted under a new eventId is the same turn.
    let mut resent = request("task-1", "task-1-ev-1b", "t1");
    resent.seq = 2;
    assert_eq!(h.deliver(&a_to_b(), &resent).decision, Decision::Duplicate);
    let task = h.journal.task("task-1").unwrap();
    assert_eq!(task.budget.turns_submitted, 1);
    assert_eq!(task.budget.content_messages, 1);
}

#[test]
fn matrix_delivery_and_crash_same_key_other_content_is_a_conflict() {
    let mut h = Harness::new();
    enrolled(&mut h, "task-1");
    let mut edited = request("task-1", "task-1-ev-1", "t1");
    edited.payload.criteria.push("and also deploy it".into());
    edited.input_digest = bound_digest(&edited.payload, &edited.task_id);
    assert_eq!(h.deliver(&a_to_b(), &edited).decision, Decision::Conflict);
    edited.event_id = "task-1-ev-2".into();
    assert_eq!(h.deliver(&a_to_b(), &edited).decision, Decision::Conflict);
    assert_eq!(h.journal.task("task-1").unwrap().budget.turns_submitted, 1);
}

#[test]
fn matrix_delivery_and_crash_crash_before_the_cursor_moves_redelivers_into_dedupe() {
    let mut h = Harness::new();
    h.bind("task-1");
    let checked =
        flybot_interop::envelope::Envelope::seal(request("task-1", "ev-1", "t1")).unwrap();
    let record = h.journal.ingest(&a_to_b(), &checked, 1, h.now).unwrap();
    assert_eq!(record.decision, Decision::Accepted);
    // Crash: the record is durable, the cursor never moved.
    h.restart();
    assert_eq!(h.journal.inbox_cursor(), 0);
    assert_eq!(h.journal.state().journaled_cursor, 1);
    let redelivered = h.journal.ingest(&a_to_b(), &checked, 1, h.now).unwrap();
    assert_eq!(redelivered.decision, Decision::Duplicate);
    h.journal.commit_cursor(1).unwrap();
    h.restart();
    assert_eq!(h.journal.inbox_cursor(), 1);
    assert_eq!(h.journal.task("task-1").unwrap().budget.turns_submitted, 1);
}

#[test]
fn matrix_delivery_and_crash_crash_after_submission_is_uncertain_not_resubmitted() {
    let mut h = Harness::new();
    with_session(&mut h, "task-1");
    let send = h.submit(&first_turn("task-1")).unwrap();
    // Crash between the remote call and its acknowledgement.
    h.restart();
    let task = h.journal.task("task-1").unwrap();
    assert!(task.cancel.recovery.is_some(), "recovery: uncertain");
    assert_eq!(h.journal.unresolved_sends().len(), 1);
    let blocked = h.submit(&first_turn("task-1")).unwrap_err();
    assert!(matches!(blocked, JournalError::Blocked(_)));
    // The history shows exactly one matching message: reconciled.
    h.journal
        .reconcile(
            send,
            Reconciliation::Matched {
                remote_ref: "msg-1".into(),
            },
            h.now,
        )
        .unwrap();
    h.restart();
    assert!(h.journal.task("task-1").unwrap().cancel.recovery.is_none());
    assert!(h.journal.unresolved_sends().is_empty());
}

#[test]
fn matrix_delivery_and_crash_unmatched_submission_needs_a_person() {
    let mut h = Harness::new();
    with_session(&mut h, "task-1");
    let send = h.submit(&first_turn("task-1")).unwrap();
    h.journal
        .finish_send(send, SendObservation::Timeout, h.now)
        .unwrap();
    let raw = "session busy, 2 user messages";
    h.journal
        .reconcile(
            send,
            Reconciliation::Unmatched {
                raw_status: raw.into(),
            },
            h.now,
        )
        .unwrap();
    h.restart();
    let recovery = h
        .journal
        .task("task-1")
        .unwrap()
        .cancel
        .recovery
        .clone()
        .unwrap();
    assert_eq!(recovery.raw_status, raw, "the raw status is kept");
    assert!(
        h.journal
            .may_send("task-1", &SendOperation::PublishResult, None)
            .is_err()
    );
    h.journal
        .dispose("task-1", HumanDisposition::AssumeDone, "owner-1", h.now)
        .unwrap();
    assert!(h.journal.task("task-1").unwrap().cancel.recovery.is_none());
    // Assumed done: the turn is not submitted a second time.
    assert!(matches!(
        h.submit(&first_turn("task-1")).unwrap_err(),
        JournalError::Blocked(DispatchBlocked::AlreadySubmitted)
    ));
}

#[test]
fn matrix_delivery_and_crash_unrecorded_session_creation_blocks_blind_creation() {
    let mut h = Harness::new();
    enrolled(&mut h, "task-1");
    h.journal
        .begin_send("task-1", SendOperation::CreateSession, None, None, h.now)
        .unwrap();
    h.restart();
    let again = h
        .journal
        .begin_send("task-1", SendOperation::CreateSession, None, None, h.now)
        .unwrap_err();
    assert!(matches!(again, JournalError::Blocked(_)));
}

#[test]
fn matrix_delivery_and_crash_draft_send_timeout_is_uncertain() {
    let mut h = Harness::new();
    with_session(&mut h, "task-1");
    let send = h
        .journal
        .begin_send("task-1", SendOperation::DeliverMessage, None, None, h.now)
        .unwrap();
    h.journal
        .finish_send(send, SendObservation::Lost, h.now)
        .unwrap();
    h.restart();
    assert!(h.journal.task("task-1").unwrap().cancel.recovery.is_some());
    assert!(matches!(
        h.journal
            .begin_send("task-1", SendOperation::DeliverMessage, None, None, h.now)
            .unwrap_err(),
        JournalError::Blocked(DispatchBlocked::Uncertain)
    ));
    // Abort stays possible while uncertain.
    h.journal
        .begin_send("task-1", SendOperation::Abort, None, None, h.now)
        .unwrap();
}

#[test]
fn matrix_delivery_and_crash_a_torn_last_record_is_dropped_on_restart() {
    let mut h = Harness::new();
    enrolled(&mut h, "task-1");
    let path = h.home.path().join("interop/journal.jsonl");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(b"{\"type\":\"ingress\",\"cur");
    std::fs::write(&path, bytes).unwrap();
    h.restart();
    assert_eq!(h.journal.task("task-1").unwrap().budget.turns_submitted, 1);
    h.accepted(
        &b_to_a(),
        &reply(Question, "task-1", "q1", "t1", "task-1-ev-1"),
    );
}

#[test]
fn matrix_delivery_and_crash_seq_is_checked_per_producer_and_a_replay_changes_nothing() {
    use flybot_interop::envelope::EnvelopeKind::Answer;
    use flybot_interop::journal::RefusedBecause;
    let mut h = Harness::new();
    enrolled(&mut h, "task-1");
    // Bot B's seq 1 is its own: Bot A's seq 1 does not spend it.
    let mut question = reply(Question, "task-1", "q1", "t1", "task-1-ev-1");
    question.seq = 1;
    let asked = h.deliver_as_sent(&b_to_a(), &question);
    assert_eq!(asked.decision, Decision::Accepted);
    // Durable: after a restart Bot A's seq 1 (its request's) is still spent.
    h.restart();
    let before = format!("{:?}", h.journal.state().tasks);
    let cursor = h.journal.inbox_cursor();
    let mut replayed = reply(Answer, "task-1", "a1", "t2", "q1");
    replayed.seq = 1;
    let refused = h.deliver_as_sent(&a_to_b(), &replayed);
    assert_eq!(
        refused.decision,
        Decision::Refused(RefusedBecause::SeqNotIncreasing { last: 1 })
    );
    assert_eq!(
        format!("{:?}", h.journal.state().tasks),
        before,
        "nothing changed"
    );
    assert_eq!(
        h.journal.inbox_cursor(),
        cursor + 1,
        "recorded, never acted on"
    );
    // An event that jumps ahead is taken; one behind it afterwards is not.
    let mut ahead = reply(Answer, "task-1", "a2", "t2", "q1");
    ahead.seq = 5;
    assert_eq!(
        h.deliver_as_sent(&a_to_b(), &ahead).decision,
        Decision::Accepted
    );
    let mut behind = cancel("task-1", "c1", 0);
    behind.seq = 4;
    assert_eq!(
        h.deliver_as_sent(&a_to_b(), &behind).decision,
        Decision::Refused(RefusedBecause::SeqNotIncreasing { last: 5 })
    );
    assert!(h.journal.task("task-1").unwrap().cancel.cancel.is_none());
}
