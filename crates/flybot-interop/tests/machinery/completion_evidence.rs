//! Matrix row "Completion evidence", the machinery's part: idle is not a
//! final result; a malformed or mismatched result is refused; no
//! observation can reach `accepted`; a returned result can still be
//! cancelled by its requester. Plus the whole projection table against
//! the real task machine.

use crate::kit::*;
use flybot_core::tasks::machine::edge;
use flybot_interop::envelope::EnvelopeKind::Result as ResultKind;
use flybot_interop::envelope::RefusalCode;
use flybot_interop::journal::{Decision, RefusedBecause};
use flybot_interop::projection::{Facet, Observation, project};
use flybot_protocol::state::TaskStatus;
use flybot_protocol::task::WaitingFor;

const STATUSES: [TaskStatus; 8] = [
    TaskStatus::Open,
    TaskStatus::Claimed,
    TaskStatus::Working,
    TaskStatus::Blocked,
    TaskStatus::ResultReady,
    TaskStatus::Accepted,
    TaskStatus::Cancelled,
    TaskStatus::Failed,
];

fn observations() -> Vec<Observation> {
    vec![
        Observation::ExecutionStarted,
        Observation::WaitingForInput {
            question_id: "q1".into(),
        },
        Observation::WaitingForApproval {
            approval_ids: vec!["local-1".into(), "server-7".into()],
        },
        Observation::InputAnswered,
        Observation::UnexpectedPermission {
            permission: "webfetch".into(),
        },
        Observation::RuntimeIdle,
        Observation::ValidResult {
            summary: "tests pass".into(),
        },
        Observation::KnownFailure {
            evidence: "exit 1".into(),
        },
        Observation::CancelRequested,
        Observation::AbortObserved,
        Observation::Uncertain {
            raw_status: "503".into(),
        },
    ]
}

#[test]
fn matrix_completion_evidence_no_observation_reaches_accepted_or_an_undrawn_edge() {
    for from in STATUSES {
        for observation in observations() {
            let Ok(projection) = project(from, &observation) else {
                continue;
            };
            let mut at = from;
            for to in &projection.moves {
                assert!(edge(at, *to), "{observation:?}: {at:?} → {to:?}");
                assert_ne!(*to, TaskStatus::Accepted, "{observation:?}");
                assert_ne!(*to, TaskStatus::Cancelled, "{observation:?}");
                assert_ne!(*to, TaskStatus::Failed, "{observation:?}");
                at = *to;
            }
        }
    }
}

#[test]
fn matrix_completion_evidence_idle_is_not_a_final_result() {
    for from in STATUSES {
        let projection = project(from, &Observation::RuntimeIdle).unwrap();
        assert!(projection.moves.is_empty() && projection.summary.is_none());
    }
}

#[test]
fn matrix_completion_evidence_the_projection_table() {
    use TaskStatus::*;
    let started = project(Open, &Observation::ExecutionStarted).unwrap();
    assert_eq!(started.moves, vec![Claimed, Working]);
    assert!(project(Working, &Observation::ExecutionStarted).is_err());
    let waiting = project(Working, &observations()[1]).unwrap();
    assert_eq!(waiting.moves, vec![Blocked]);
    assert_eq!(waiting.waiting_for, Some(WaitingFor::Input));
    assert_eq!(waiting.question_id.as_deref(), Some("q1"));
    let approval = project(Working, &observations()[2]).unwrap();
    assert_eq!(approval.waiting_for, Some(WaitingFor::Approval));
    assert_eq!(approval.approval_ids.len(), 2, "each layer's id is kept");
    assert_eq!(
        project(Blocked, &Observation::InputAnswered).unwrap().moves,
        vec![Working]
    );
    let denied = project(Working, &observations()[4]).unwrap();
    assert!(denied.stop_turn && denied.moves.is_empty());
    assert!(matches!(denied.facet, Some(Facet::PermissionDenied { .. })));
    let result = project(Working, &observations()[6]).unwrap();
    assert_eq!(result.moves, vec![ResultReady]);
    assert!(project(Blocked, &observations()[6]).is_err());
    let failed = project(Working, &observations()[7]).unwrap();
    assert!(
        failed.moves.is_empty(),
        "no public task-fail endpoint: report only"
    );
    for (index, facet) in [(8, Facet::CancelRequested), (9, Facet::CancelObserved)] {
        let p = project(Working, &observations()[index]).unwrap();
        assert!(p.moves.is_empty() && p.suppress_dispatch);
        assert_eq!(p.facet, Some(facet));
    }
    let uncertain = project(Working, &observations()[10]).unwrap();
    assert!(uncertain.suppress_dispatch);
    assert_eq!(
        uncertain.facet,
        Some(Facet::RecoveryUncertain {
            raw_status: "503".into()
        })
    );
    // The requester's disposition of a returned result stays possible.
    assert!(edge(ResultReady, Cancelled));
}

#[test]
fn matrix_completion_evidence_malformed_or_mismatched_result_is_refused() {
    let mut h = Harness::new();
    enrolled(&mut h, "task-1");
    let mut wrong_turn = reply(ResultKind, "task-1", "r1", "t7", "task-1-ev-1");
    wrong_turn.seq = 2;
    let record = h.deliver(&b_to_a(), &wrong_turn);
    assert_eq!(
        record.decision,
        Decision::Refused(RefusedBecause::NotActiveTurn)
    );
    let mut unanswered = reply(ResultKind, "task-1", "r2", "t1", "ev-nothing");
    unanswered.seq = 3;
    let record = h.deliver(&b_to_a(), &unanswered);
    assert_eq!(
        record.decision,
        Decision::Refused(RefusedBecause::NotOutstanding)
    );
    let mut value =
        serde_json::to_value(reply(ResultKind, "task-1", "r3", "t1", "task-1-ev-1")).unwrap();
    value["payload"]["accepted"] = true.into();
    let refused = h
        .journal
        .receive(&b_to_a(), &serde_json::to_vec(&value).unwrap(), 99, h.now)
        .unwrap()
        .unwrap_err();
    assert_eq!(
        refused.code,
        RefusalCode::UnknownField,
        "acceptance cannot be forged"
    );
    assert!(h.journal.task("task-1").unwrap().result_event.is_none());
    h.accepted(
        &b_to_a(),
        &reply(ResultKind, "task-1", "r4", "t1", "task-1-ev-1"),
    );
    assert_eq!(
        h.journal.task("task-1").unwrap().result_event.as_deref(),
        Some("r4")
    );
}
