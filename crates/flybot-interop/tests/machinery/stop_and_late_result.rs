//! Matrix row "Stop and late result", the journal's part: cancel before
//! dispatch prevents calls; cancel during work records requested and
//! observed separately; an offline abort stays uncertain; a late result
//! cannot revive the task; room messages never start work.

use crate::kit::*;
use flybot_interop::cancel::{CancelFacet, StopEvidence};
use flybot_interop::envelope::EnvelopeKind::{Progress, Result as ResultKind};
use flybot_interop::envelope::RefusalCode;
use flybot_interop::journal::{
    Decision, DispatchBlocked, JournalError, RefusedBecause, SendObservation, SendOperation,
};

#[test]
fn matrix_stop_and_late_result_cancel_before_dispatch_prevents_calls() {
    let mut h = Harness::new();
    enrolled(&mut h, "task-1");
    let generation = h.journal.request_cancel("task-1", h.now).unwrap();
    assert_eq!(generation, 1);
    h.restart();
    for operation in [
        SendOperation::CreateSession,
        SendOperation::SubmitTurn,
        SendOperation::PublishResult,
    ] {
        let refused = h
            .journal
            .begin_send("task-1", operation.clone(), None, None, h.now)
            .unwrap_err();
        assert!(
            matches!(refused, JournalError::Blocked(DispatchBlocked::Cancelled)),
            "{operation:?}"
        );
    }
    assert!(h.journal.state().sends.is_empty(), "no call was started");
    let task = h.journal.task("task-1").unwrap();
    assert_eq!(
        task.cancel.cancel,
        Some(CancelFacet::Requested { generation: 1 })
    );
    assert!(task.cancel.tombstones.contains(&first_turn("task-1")));
}

#[test]
fn matrix_stop_and_late_result_requested_and_observed_are_separate() {
    let mut h = Harness::new();
    enrolled(&mut h, "task-1");
    h.accepted(&a_to_b(), &cancel("task-1", "c1", 0));
    let abort = h
        .journal
        .begin_send("task-1", SendOperation::Abort, None, None, h.now)
        .unwrap();
    h.journal
        .finish_send(abort, SendObservation::Accepted { remote_ref: None }, h.now)
        .unwrap();
    // An HTTP success alone is not a stop.
    assert!(
        !h.journal
            .observe_stop("task-1", StopEvidence::AbortAccepted, h.now)
            .unwrap()
    );
    h.restart();
    assert_eq!(
        h.journal.task("task-1").unwrap().cancel.cancel,
        Some(CancelFacet::Requested { generation: 1 })
    );
    let stopped = StopEvidence::RuntimeStopped {
        raw_status: "{\"type\":\"idle\"}".into(),
    };
    assert!(h.journal.observe_stop("task-1", stopped, h.now).unwrap());
    h.restart();
    assert_eq!(
        h.journal.task("task-1").unwrap().cancel.cancel,
        Some(CancelFacet::Observed { generation: 1 })
    );
}

#[test]
fn matrix_stop_and_late_result_offline_abort_stays_uncertain() {
    let mut h = Harness::new();
    enrolled(&mut h, "task-1");
    h.journal.request_cancel("task-1", h.now).unwrap();
    let abort = h
        .journal
        .begin_send("task-1", SendOperation::Abort, None, None, h.now)
        .unwrap();
    h.journal
        .finish_send(abort, SendObservation::Lost, h.now)
        .unwrap();
    h.restart();
    let task = h.journal.task("task-1").unwrap();
    assert_eq!(
        task.cancel.cancel,
        Some(CancelFacet::Requested { generation: 1 })
    );
    assert!(
        task.cancel.recovery.is_some(),
        "recovery: uncertain, never stopped"
    );
}

#[test]
fn matrix_stop_and_late_result_late_result_cannot_revive_the_task() {
    let mut h = Harness::new();
    enrolled(&mut h, "task-1");
    h.journal.request_cancel("task-1", h.now).unwrap();
    let late = h.deliver(
        &b_to_a(),
        &reply(ResultKind, "task-1", "r1", "t1", "task-1-ev-1"),
    );
    assert_eq!(late.decision, Decision::Diagnostic);
    let late_progress = h.deliver(
        &b_to_a(),
        &reply(Progress, "task-1", "p1", "t1", "task-1-ev-1"),
    );
    assert_eq!(late_progress.decision, Decision::Diagnostic);
    h.restart();
    let task = h.journal.task("task-1").unwrap();
    assert!(task.result_event.is_none(), "no result for acceptance");
    assert_eq!(task.diagnostics, vec!["r1".to_owned(), "p1".to_owned()]);
    assert_eq!(
        task.cancel.generation, 1,
        "a late event never resets the generation"
    );
    // The same result at the new generation names no active turn.
    let mut forged = reply(ResultKind, "task-1", "r2", "t1", "task-1-ev-1");
    forged.generation = 1;
    let record = h.deliver(&b_to_a(), &forged);
    assert_eq!(
        record.decision,
        Decision::Refused(RefusedBecause::NotActiveTurn)
    );
    // A stale-generation follow-up of a turn that was never tombstoned.
    let mut stale = reply(ResultKind, "task-1", "r3", "t9", "task-1-ev-1");
    stale.generation = 0;
    let record = h.deliver(&b_to_a(), &stale);
    assert_eq!(
        record.decision,
        Decision::Refused(RefusedBecause::StaleGeneration)
    );
}

/// The codec's half only: raw room text is not an envelope. The rule that
/// room messages never start work is kept on the live path, where every
/// round turn is wrapped (flybot-host `opencode_room_messages`).
#[test]
fn codec_raw_room_text_is_not_an_envelope() {
    let mut h = Harness::new();
    h.bind("task-1");
    for text in [
        "@bot-b please start task-1 now",
        "{\"kind\":\"request\",\"taskId\":\"task-1\"}",
        "",
    ] {
        let refused = h
            .journal
            .receive(&a_to_b(), text.as_bytes(), 1, h.now)
            .unwrap()
            .unwrap_err();
        assert!(matches!(
            refused.code,
            RefusalCode::NotJson | RefusalCode::MissingField
        ));
    }
    assert!(h.journal.task("task-1").is_none());
}
