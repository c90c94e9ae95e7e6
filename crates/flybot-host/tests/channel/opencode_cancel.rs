//! Stop and late result (#198), through `task-cancel`: a person's cancel
//! of a card an OpenCode Bot works reaches the card's execution journal (a
//! new generation, the turn tombstoned) and the runtime (the session's
//! abort); the seat goes only once the runtime reported the session
//! stopped, and a runtime that never shows the stop keeps it at
//! `cancel: requested`. Budgets live (resource bounds): the deadline and
//! the progress limit abort the turn in flight and pause new work.

use crate::opencode_room::{Pilot, coder_told, journal_text, set_up};
use flybot_host::rooms::opencode::launcher::OpenCodeRuntime;
use flybot_interop::opencode::fake::{FakeGaps, FakeStep};
use flybot_testkit::Kit;
use serde_json::{Value, json};

fn seat_is_open(kit: &Kit, p: &Pilot) -> bool {
    kit.host
        .externals()
        .opencode()
        .seat(&p.room.id, &p.coder, &p.task)
        .is_some()
}

/// The journal's records of `type`.
fn records(kit: &Kit, p: &Pilot, kind: &str) -> Vec<Value> {
    journal_text(kit, p)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["type"] == kind)
        .collect()
}

/// Coder's turn at work on the hanging fake, then the card cancelled.
async fn cancel_while_working(gaps: FakeGaps) -> (Kit, Pilot) {
    let (kit, p) = coder_told(
        OpenCodeRuntime::FakeGapped(vec![FakeStep::Hang], gaps),
        "@Coder start on the card",
    )
    .await;
    kit.until("Coder's prompt reaches OpenCode", || {
        kit.host
            .externals()
            .opencode()
            .seat(&p.room.id, &p.coder, &p.task)
            .is_some_and(|s| s.runtime_prompts().len() == 1)
    })
    .await;
    let cancelled = kit.ok("task-cancel", json!({"id": p.task})).await;
    assert_eq!(cancelled["task"]["status"], "cancelled");
    (kit, p)
}

#[tokio::test(flavor = "multi_thread")]
async fn stop_and_late_result_task_cancel_reaches_the_journal_and_the_runtime_then_frees_the_seat()
{
    let (kit, p) = cancel_while_working(FakeGaps::default()).await;
    kit.until("the seat is released", || !seat_is_open(&kit, &p))
        .await;
    // The journal: cancel requested (generation 1), the abort sent and
    // taken, then the runtime's own status as the stop's evidence.
    let requested = records(&kit, &p, "cancel-requested");
    assert!(!requested.is_empty(), "{}", journal_text(&kit, &p));
    let journal = journal_text(&kit, &p);
    assert!(journal.contains("\"abort\""), "{journal}");
    let evidence: Vec<Value> = records(&kit, &p, "stop-observed")
        .into_iter()
        .map(|r| r["evidence"].clone())
        .collect();
    assert!(
        evidence.iter().any(|e| e["evidence"] == "runtime-stopped"
            && e["rawStatus"]
                .as_str()
                .unwrap()
                .contains("not listed in /session/status")),
        "{evidence:#?}"
    );
    // The stopped card takes no more work.
    kit.ok("send", json!({"roomId": p.room.id, "text": "@Coder go on"}))
        .await;
    crate::opencode_room::settled(&kit, &p.room).await;
    assert!(!seat_is_open(&kit, &p), "no new seat for a cancelled card");
}

#[tokio::test(flavor = "multi_thread")]
async fn stop_and_late_result_an_abort_the_runtime_never_confirms_keeps_the_seat_at_requested() {
    let gaps = FakeGaps {
        abort_not_observed: true,
        ..FakeGaps::default()
    };
    let (kit, p) = cancel_while_working(gaps).await;
    // The turn's own stop and the cancel's settle each abort once.
    kit.until("two aborts are journaled", || {
        journal_text(&kit, &p).matches("\"abort\"").count() >= 4
    })
    .await;
    assert!(
        seat_is_open(&kit, &p),
        "the seat stays until the stop is seen"
    );
    let evidence = journal_text(&kit, &p);
    assert!(!evidence.contains("runtime-stopped"), "{evidence}");
    assert!(
        evidence.contains("abort-accepted"),
        "an HTTP success alone is not proof"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn resource_bounds_progress_is_charged_and_its_limit_aborts_the_turn_in_flight() {
    // Thirteen finished tool calls: the twelfth is the last the budget
    // takes, the thirteenth pauses the work and aborts the turn.
    let (kit, p) = coder_told(
        OpenCodeRuntime::Fake(vec![FakeStep::ToolsThenHang { count: 13 }]),
        "@Coder start on the card",
    )
    .await;
    let lines = crate::opencode_room::settled(&kit, &p.room).await;
    let said = &lines.iter().rfind(|(a, _, _)| *a == p.coder).unwrap().2;
    assert!(
        said.contains("budget: this task has used all the progress events its budget allows")
            && said.contains("the turn in flight was aborted"),
        "{lines:#?}"
    );
    let accepted = records(&kit, &p, "ingress")
        .into_iter()
        .filter(|r| r["kind"] == "progress")
        .map(|r| {
            r["decision"]["decision"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect::<Vec<_>>();
    assert_eq!(
        accepted.iter().filter(|d| *d == "accepted").count(),
        12,
        "{accepted:?}"
    );
    assert_eq!(
        accepted.last().map(String::as_str),
        Some("refused"),
        "{accepted:?}"
    );
    let journal = journal_text(&kit, &p);
    assert!(journal.contains("\"abort\""), "{journal}");
    // New work is paused: the next line starts nothing.
    kit.ok("send", json!({"roomId": p.room.id, "text": "@Coder go on"}))
        .await;
    let lines = crate::opencode_room::settled(&kit, &p.room).await;
    let said = &lines.iter().rfind(|(a, _, _)| *a == p.coder).unwrap().2;
    assert!(said.contains("starts no work"), "{lines:#?}");
    assert!(
        !said.contains("Refused("),
        "a sentence, not a debug shape: {said}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn resource_bounds_the_deadline_aborts_the_turn_in_flight_and_pauses_new_work() {
    let kit = Kit::with_config(|config| {
        config.models = crate::opencode_room::bot_a_models();
        config.opencode = OpenCodeRuntime::Fake(vec![FakeStep::Hang]);
        // A deadline the hanging turn outlives.
        config.opencode_budget.deadline_ms = 1_000;
    })
    .await;
    let p = set_up(&kit, "mock").await;
    kit.ok(
        "send",
        json!({"roomId": p.room.id, "text": "@Coder start on the card"}),
    )
    .await;
    let lines = crate::opencode_room::settled(&kit, &p.room).await;
    let said = &lines.iter().rfind(|(a, _, _)| *a == p.coder).unwrap().2;
    assert!(
        said.contains("budget: this task passed its budget's deadline")
            && said.contains("the turn in flight was aborted"),
        "{lines:#?}"
    );
    let journal = journal_text(&kit, &p);
    assert!(journal.contains("\"abort\""), "{journal}");
    kit.ok("send", json!({"roomId": p.room.id, "text": "@Coder go on"}))
        .await;
    let lines = crate::opencode_room::settled(&kit, &p.room).await;
    let said = &lines.iter().rfind(|(a, _, _)| *a == p.coder).unwrap().2;
    assert!(said.contains("starts no work"), "{lines:#?}");
}
