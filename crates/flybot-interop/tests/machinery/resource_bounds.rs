//! Matrix row "Resource bounds": repeated wake-ups reach a persisted
//! turn/message/deadline limit, concurrent dispatch cannot overspend
//! reservations, unknown usage never becomes zero, cancellation remains
//! available.

use crate::kit::*;
use flybot_interop::budgets::{BudgetRefusal, Charge, PROPOSED, Usage, enroll};
use flybot_interop::envelope::EnvelopeKind::{Answer, Question, Result as ResultKind};
use flybot_interop::journal::{
    Decision, DispatchBlocked, JournalError, RefusedBecause, SendObservation, SendOperation,
};

fn budget_refusal(limit: BudgetRefusal) -> Decision {
    Decision::Refused(RefusedBecause::Budget { limit })
}

/// Question/answer cycles until the turn budget (four) is spent.
#[test]
fn matrix_resource_bounds_repeated_wake_ups_reach_the_persisted_turn_limit() {
    let mut h = Harness::new();
    enrolled(&mut h, "task-1");
    let mut reply_to = "task-1-ev-1".to_owned();
    for turn in 1..=3 {
        let q = format!("q{turn}");
        h.accepted(
            &b_to_a(),
            &reply(Question, "task-1", &q, &format!("t{turn}"), &reply_to),
        );
        let a = format!("a{turn}");
        h.accepted(
            &a_to_b(),
            &reply(Answer, "task-1", &a, &format!("t{}", turn + 1), &q),
        );
        reply_to = a;
    }
    h.accepted(&b_to_a(), &reply(Question, "task-1", "q4", "t4", &reply_to));
    h.restart();
    let task = h.journal.task("task-1").unwrap();
    assert_eq!(task.budget.turns_submitted, 4);
    let fifth = h.deliver(&a_to_b(), &reply(Answer, "task-1", "a4", "t5", "q4"));
    assert_eq!(fifth.decision, budget_refusal(BudgetRefusal::Turns));
    assert!(fifth.reservation.is_none());
    // Cancellation stays available after the work budget is spent.
    let stop = h.deliver(&a_to_b(), &cancel("task-1", "c1", 0));
    assert_eq!(stop.decision, Decision::Accepted);
}

#[test]
fn matrix_resource_bounds_eight_content_messages() {
    let mut h = Harness::new();
    enrolled(&mut h, "task-1"); // 1
    h.accepted(
        &b_to_a(),
        &reply(Question, "task-1", "q1", "t1", "task-1-ev-1"),
    ); // 2
    h.accepted(&a_to_b(), &reply(Answer, "task-1", "a1", "t2", "q1")); // 3
    h.accepted(&b_to_a(), &reply(Question, "task-1", "q2", "t2", "a1")); // 4
    h.accepted(&a_to_b(), &reply(Answer, "task-1", "a2", "t3", "q2")); // 5
    h.accepted(&b_to_a(), &reply(Question, "task-1", "q3", "t3", "a2")); // 6
    h.accepted(&a_to_b(), &reply(Answer, "task-1", "a3", "t4", "q3")); // 7
    h.accepted(&b_to_a(), &reply(Question, "task-1", "q4", "t4", "a3")); // 8
    assert_eq!(h.journal.task("task-1").unwrap().budget.content_messages, 8);
    h.restart();
    let ninth = h.deliver(&a_to_b(), &reply(Answer, "task-1", "a4", "t5", "q4"));
    // The turn limit and the message limit are both spent; either refuses.
    assert!(matches!(
        ninth.decision,
        Decision::Refused(RefusedBecause::Budget {
            limit: BudgetRefusal::Turns | BudgetRefusal::ContentMessages
        })
    ));
    let budget = enroll(&PROPOSED, 0, 0).unwrap();
    let mut spent = budget.clone();
    for _ in 0..8 {
        spent.apply(&Charge::Content);
    }
    assert_eq!(
        spent.check(&PROPOSED, &Charge::Content, 1),
        Err(BudgetRefusal::ContentMessages)
    );
    assert_eq!(spent.check(&PROPOSED, &Charge::Control, 1), Ok(()));
}

#[test]
fn matrix_resource_bounds_twelve_progress_events_survive_restart() {
    let mut h = Harness::new();
    enrolled(&mut h, "task-1");
    for n in 0..12 {
        h.accepted(&b_to_a(), &progress("task-1", &format!("p{n}"), "t1"));
        if n == 5 {
            h.restart();
        }
    }
    h.restart();
    let thirteenth = h.deliver(&b_to_a(), &progress("task-1", "p12", "t1"));
    assert_eq!(
        thirteenth.decision,
        budget_refusal(BudgetRefusal::ProgressEvents)
    );
}

#[test]
fn matrix_resource_bounds_ten_minute_deadline_from_enrollment_with_a_fake_clock() {
    let mut h = Harness::new();
    enrolled(&mut h, "task-1");
    h.now += 10 * 60 * 1000 - 1;
    h.accepted(&b_to_a(), &progress("task-1", "p1", "t1"));
    h.now += 1;
    h.restart();
    let late = h.deliver(
        &b_to_a(),
        &reply(ResultKind, "task-1", "r1", "t1", "task-1-ev-1"),
    );
    assert_eq!(late.decision, budget_refusal(BudgetRefusal::Deadline));
    // The control channel is separate and stays usable.
    h.accepted(&a_to_b(), &cancel("task-1", "c1", 0));
}

#[test]
fn matrix_resource_bounds_two_concurrent_tasks() {
    let mut h = Harness::new();
    enrolled(&mut h, "task-1");
    enrolled(&mut h, "task-2");
    h.bind("task-3");
    let third = h.deliver(&a_to_b(), &request("task-3", "task-3-ev-1", "t1"));
    assert_eq!(
        third.decision,
        budget_refusal(BudgetRefusal::ConcurrentTasks)
    );
    assert!(h.journal.task("task-3").is_none());
    h.journal.close_task("task-1").unwrap();
    h.restart();
    h.accepted(&a_to_b(), &request("task-3", "task-3-ev-2", "t1"));
}

#[test]
fn matrix_resource_bounds_one_in_flight_turn_and_no_double_dispatch() {
    let mut h = Harness::new();
    enrolled(&mut h, "task-1");
    let task = h.journal.task("task-1").unwrap();
    assert_eq!(
        task.budget.check(
            &PROPOSED,
            &Charge::Turn {
                turn_id: "t2".into()
            },
            h.now
        ),
        Err(BudgetRefusal::TurnInFlight)
    );
    let session = h
        .journal
        .begin_send("task-1", SendOperation::CreateSession, None, None, h.now)
        .unwrap();
    h.journal
        .finish_send(
            session,
            SendObservation::Accepted {
                remote_ref: Some("ses-1".into()),
            },
            h.now,
        )
        .unwrap();
    let turn = first_turn("task-1");
    h.submit(&turn).unwrap();
    // A second, concurrent dispatch of the same reservation never starts.
    let again = h.submit(&turn).unwrap_err();
    assert!(matches!(
        again,
        JournalError::Blocked(DispatchBlocked::AlreadySubmitted)
    ));
    h.restart();
    let after_restart = h.submit(&turn).unwrap_err();
    assert!(matches!(after_restart, JournalError::Blocked(_)));
}

/// Retransmission through the journal, as the OpenCode task makes it
/// (`JournaledTask` retries a refused prompt, or a person's `retry`): a
/// second submission of a reserved turn is blocked until `retry_turn`
/// charges the turn's retry counter; the charge survives a restart, never
/// buys a turn, and is bounded.
#[test]
fn matrix_resource_bounds_retransmission_reuses_the_reservation_and_is_bounded() {
    let mut h = Harness::new();
    enrolled(&mut h, "task-1");
    let session = h
        .journal
        .begin_send("task-1", SendOperation::CreateSession, None, None, h.now)
        .unwrap();
    h.journal
        .finish_send(
            session,
            SendObservation::Accepted {
                remote_ref: Some("ses-1".into()),
            },
            h.now,
        )
        .unwrap();
    let turn = first_turn("task-1");
    for retry in 1..=3u32 {
        let send = h.submit(&turn).unwrap();
        let refused = SendObservation::Refused {
            reason: "400".into(),
        };
        h.journal.finish_send(send, refused, h.now).unwrap();
        assert!(
            matches!(
                h.submit(&turn),
                Err(JournalError::Blocked(DispatchBlocked::AlreadySubmitted))
            ),
            "no second submission without a retry"
        );
        assert_eq!(h.journal.retry_turn("task-1", h.now).unwrap(), turn);
        h.restart();
        let budget = &h.journal.task("task-1").unwrap().budget;
        assert_eq!(budget.retries.get("t1"), Some(&retry));
        assert_eq!(budget.turns_submitted, 1, "a retry never buys a turn");
    }
    h.submit(&turn).unwrap();
    assert!(matches!(
        h.journal.retry_turn("task-1", h.now),
        Err(JournalError::Budget(BudgetRefusal::Retries))
    ));
    // A retry names the reserved turn only.
    let mut idle = Harness::new();
    enrolled(&mut idle, "task-2");
    idle.accepted(
        &b_to_a(),
        &reply(ResultKind, "task-2", "r1", "t1", "task-2-ev-1"),
    );
    assert!(matches!(
        idle.journal.retry_turn("task-2", idle.now),
        Err(JournalError::Blocked(DispatchBlocked::NotActiveTurn))
    ));
    let budget = enroll(&PROPOSED, 0, 0).unwrap();
    assert_eq!(
        budget.check(
            &PROPOSED,
            &Charge::Retry {
                turn_id: "t9".into()
            },
            1
        ),
        Err(BudgetRefusal::NoReservation)
    );
}

#[test]
fn matrix_resource_bounds_unknown_usage_never_becomes_zero() {
    let mut h = Harness::new();
    enrolled(&mut h, "task-1");
    assert_eq!(
        h.journal.task("task-1").unwrap().budget.usage,
        Usage::unknown()
    );
    h.journal.record_usage("task-1", Usage::mock(1)).unwrap();
    h.journal
        .record_usage(
            "task-1",
            Usage {
                requests: Some(1),
                input_tokens: None,
                output_tokens: Some(10),
                cost_micros: None,
            },
        )
        .unwrap();
    h.restart();
    let usage = h.journal.task("task-1").unwrap().budget.usage;
    assert_eq!(usage.input_tokens, None);
    assert_eq!(usage.cost_micros, None);
    let json = serde_json::to_value(usage).unwrap();
    assert!(json["costMicros"].is_null(), "unknown is null, never 0");
    assert_eq!(Usage::mock(2).plus(Usage::mock(3)).cost_micros, Some(0));
}
