//! Delivery and crash (#198): recovery a person can act on. Coder's turn
//! is submitted to the fake OpenCode and the host dies by kill -9 between
//! the submission and its recorded outcome (the home is taken as it is on
//! disk at that instant: every acknowledged write is fsynced, and the
//! submission's outcome line is not there yet). The next host reconciles
//! the card against the session's history and status at start: the
//! runtime holds the prompt but no answer, so the card shows
//! `recovery: uncertain`, nothing is resubmitted, and `task-recovery-decide`
//! decides it: retry, accept or cancel, each journaled and kept across a
//! restart; a refused decision changes nothing.

use crate::opencode_room::{Pilot, bot_a_models, set_up, settled};
use flybot_host::rooms::opencode::Seat;
use flybot_host::rooms::opencode::launcher::OpenCodeRuntime;
use flybot_host::{Host, HostConfig};
use flybot_interop::opencode::fake::FakeStep;
use flybot_protocol::task::TaskFields;
use flybot_store::{Store, StoreOptions};
use flybot_testkit::Kit;
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;

/// The question the runtime gives after the restart.
const QUESTION: &str = "QUESTION: dashes or underscores?";

pub(crate) fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_folder(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

pub(crate) fn journal_path(home: &Path, p: &Pilot) -> std::path::PathBuf {
    home.join("interop")
        .join(&p.coder)
        .join(&p.task)
        .join("journal/journal.jsonl")
}

pub(crate) fn records(home: &Path, p: &Pilot) -> Vec<Value> {
    std::fs::read_to_string(journal_path(home, p))
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Cuts the journal back to just after the submission's intent: the
/// instant a kill -9 between the prompt and its outcome leaves on disk.
fn cut_after_the_submission(home: &Path, p: &Pilot) {
    let path = journal_path(home, p);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut kept = String::new();
    for line in text.lines() {
        kept.push_str(line);
        kept.push('\n');
        let record: Value = serde_json::from_str(line).unwrap();
        if record["type"] == "send-intent" && record["operation"] == "submit-turn" {
            break;
        }
    }
    std::fs::write(&path, kept).unwrap();
}

pub(crate) fn host_config(home: &Path, after: Vec<FakeStep>) -> HostConfig {
    let mut config = HostConfig::new(home.to_owned());
    config.models = bot_a_models();
    config.opencode = OpenCodeRuntime::Fake(after);
    config
}

fn recovery(kit: &Kit, task: &str) -> Option<Value> {
    kit.host.store().read(|s| {
        let fields = TaskFields::read(s.tasks.get(task)?);
        serde_json::to_value(fields.recovery?).ok()
    })
}

/// The revision (the write-ahead journal's sequence number, which moves
/// on every accepted change) and the team, once every change is on disk.
async fn standing(kit: &Kit) -> (u64, String) {
    let (_, _, revision, team) = kit.fingerprint().await;
    (revision, team)
}

fn seat(kit: &Kit, p: &Pilot) -> Arc<Seat> {
    kit.host
        .externals()
        .opencode()
        .seat(&p.room.id, &p.coder, &p.task)
        .unwrap()
}

/// Coder's first turn submitted on a hanging fake, the host killed before
/// the outcome was written, and a second host on that disk whose fake
/// plays `after`, started as `flybot serve` starts (picking up the round).
/// Answers the second host once the card shows `recovery: uncertain`.
async fn uncertain_after_a_kill(after: Vec<FakeStep>) -> (Kit, Kit, Pilot) {
    let first = crate::opencode_room::host_on(OpenCodeRuntime::Fake(vec![FakeStep::Hang])).await;
    let p = set_up(&first, "mock").await;
    first
        .ok(
            "send",
            json!({"roomId": p.room.id, "text": "@Coder make slugify pass"}),
        )
        .await;
    first
        .until("Coder's prompt reaches OpenCode", || {
            first
                .host
                .externals()
                .opencode()
                .seat(&p.room.id, &p.coder, &p.task)
                .is_some_and(|s| s.runtime_prompts().len() == 1)
        })
        .await;
    first.host.store().saves_settled().await;
    let home = tempfile::tempdir().unwrap();
    copy_folder(first.home(), home.path());
    // The first host stops; its folder stays, since Coder's seed is there.
    first.host.begin_stop();
    cut_after_the_submission(home.path(), &p);
    let store = Store::open(home.path(), StoreOptions::default()).unwrap();
    // As `flybot serve` starts: the round the kill cut resumes (Coder's
    // turn again) beside the recovery, which settles the journal first.
    let (host, _) = Host::open_picking_up(store, host_config(home.path(), after)).await;
    let kit = Kit::around(host, home);
    kit.until("the card shows recovery: uncertain", || {
        recovery(&kit, &p.task).is_some_and(|r| r["state"] == "uncertain")
    })
    .await;
    (first, kit, p)
}

#[tokio::test(flavor = "multi_thread")]
async fn delivery_and_crash_a_kill_between_submit_and_outcome_is_uncertain_and_resubmits_nothing() {
    let (_first, kit, p) = uncertain_after_a_kill(vec![FakeStep::Echo]).await;
    let shown = recovery(&kit, &p.task).unwrap();
    let raw = shown["rawStatus"].as_str().unwrap();
    assert!(
        raw.contains("holds the turn's words as message") && raw.contains("no completed answer"),
        "{shown}"
    );
    // The state view shows it on the card, where the page reads it.
    let (_, view) = kit.anyone().state().await;
    let card = view["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == p.task.as_str())
        .cloned()
        .unwrap();
    assert_eq!(card["recovery"]["state"], "uncertain", "{card}");
    assert_eq!(card["status"], "working");
    let reconciled: Vec<Value> = records(kit.home(), &p)
        .into_iter()
        .filter(|r| r["type"] == "reconciled")
        .collect();
    assert_eq!(reconciled.len(), 1);
    assert_eq!(reconciled[0]["found"]["found"], "unmatched");
    // Dispatch is suppressed: a line to Coder sends nothing to OpenCode.
    kit.ok("send", json!({"roomId": p.room.id, "text": "@Coder go on"}))
        .await;
    let lines = settled(&kit, &p.room).await;
    let said = &lines.iter().rfind(|(a, _, _)| *a == p.coder).unwrap().2;
    assert!(said.contains("task-recovery-decide"), "{lines:#?}");
    assert!(
        seat(&kit, &p).runtime_prompts().is_empty(),
        "nothing resubmitted"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn delivery_and_crash_retry_resends_the_turn_under_its_one_reservation_after_a_restart() {
    let after = vec![FakeStep::AskQuestion {
        question: QUESTION.into(),
    }];
    let (_first, kit, p) = uncertain_after_a_kill(after.clone()).await;
    let decided = kit
        .ok(
            "task-recovery-decide",
            json!({"taskId": p.task, "decision": "retry"}),
        )
        .await;
    assert_eq!(decided["task"]["recovery"]["state"], "decided");
    assert_eq!(decided["task"]["recovery"]["decision"], "retry");
    // The decision is journaled and survives a restart.
    let kit = kit
        .restart_with(|config| *config = host_config(config.home.as_path(), after))
        .await;
    assert_eq!(recovery(&kit, &p.task).unwrap()["decision"], "retry");
    kit.ok("send", json!({"roomId": p.room.id, "text": "@Coder go on"}))
        .await;
    let lines = settled(&kit, &p.room).await;
    let said = &lines.iter().rfind(|(a, _, _)| *a == p.coder).unwrap().2;
    assert!(said.starts_with("QUESTION"), "{lines:#?}");
    // The turn's own words went again, not the new line.
    let prompts = seat(&kit, &p).runtime_prompts();
    assert_eq!(prompts.len(), 1, "{prompts:?}");
    assert!(
        prompts[0].contains("Task: Fixture task: make slugify's tests pass"),
        "{prompts:?}"
    );
    let journal = records(kit.home(), &p);
    let kinds = |t: &str| journal.iter().filter(|r| r["type"] == t).count();
    assert_eq!(kinds("retried"), 1);
    assert!(
        journal
            .iter()
            .any(|r| r["type"] == "disposed" && r["disposition"] == "resubmit")
    );
    let turn_charges = journal
        .iter()
        .filter(|r| r["reservation"]["charge"] == "turn")
        .count();
    assert_eq!(turn_charges, 1, "a retry never buys a turn");
    crate::opencode_room::card_when(&kit, &p.task, "blocked").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn delivery_and_crash_accept_takes_what_the_runtime_shows_as_the_turns_end() {
    let (_first, kit, p) = uncertain_after_a_kill(vec![FakeStep::Echo]).await;
    // The runtime finished the turn after the reconciliation looked.
    seat(&kit, &p)
        .fake_runtime()
        .unwrap()
        .finish_pending_asking(QUESTION);
    let decided = kit
        .ok(
            "task-recovery-decide",
            json!({"taskId": p.task, "decision": "accept"}),
        )
        .await;
    assert_eq!(decided["task"]["recovery"]["decision"], "accept");
    let blocked = crate::opencode_room::card_when(&kit, &p.task, "blocked").await;
    assert_eq!(blocked["waitingFor"], "input", "{blocked}");
    let said: Vec<String> = kit
        .room_lines(&p.room)
        .iter()
        .filter(|l| l.author_id == p.coder)
        .map(|l| flybot_core::fences::readable_body(&l.text))
        .collect();
    assert!(said.iter().any(|t| t.starts_with("QUESTION")), "{said:?}");
    let journal = records(kit.home(), &p);
    assert!(
        journal
            .iter()
            .any(|r| r["type"] == "disposed" && r["disposition"] == "assume-done")
    );
    assert!(journal.iter().any(|r| r["type"] == "ingress"
        && r["kind"] == "question"
        && r["decision"]["decision"] == "accepted"));
    assert!(
        seat(&kit, &p).runtime_prompts().is_empty(),
        "nothing resent"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn delivery_and_crash_cancel_ends_the_card_and_aborts_the_session() {
    let (_first, kit, p) = uncertain_after_a_kill(vec![FakeStep::Echo]).await;
    let decided = kit
        .ok(
            "task-recovery-decide",
            json!({"taskId": p.task, "decision": "cancel"}),
        )
        .await;
    assert_eq!(decided["task"]["status"], "cancelled");
    assert_eq!(decided["task"]["recovery"]["decision"], "cancel");
    let journal = records(kit.home(), &p);
    assert!(
        journal
            .iter()
            .any(|r| r["type"] == "disposed" && r["disposition"] == "abandon")
    );
    assert!(journal.iter().any(|r| r["type"] == "cancel-requested"));
    kit.until("the seat is released", || {
        kit.host
            .externals()
            .opencode()
            .seat(&p.room.id, &p.coder, &p.task)
            .is_none()
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn delivery_and_crash_a_refused_decision_changes_nothing() {
    let (_first, kit, p) = uncertain_after_a_kill(vec![FakeStep::Echo]).await;
    let pat = kit.owner("Pat").await;
    let bob = kit.as_member(&pat).invite("Bob").await;
    let journal_before = std::fs::read(journal_path(kit.home(), &p)).unwrap();
    let before = standing(&kit).await;
    let decide = |task: &str, decision: &str| json!({"taskId": task, "decision": decision});
    kit.as_member(&bob)
        .refused(
            "task-recovery-decide",
            decide(&p.task, "retry"),
            "bot/forbidden",
        )
        .await;
    assert!(standing(&kit).await == before, "forbidden changed nothing");
    kit.as_member(&pat)
        .refused(
            "task-recovery-decide",
            decide("task-none", "retry"),
            "bot/not-found",
        )
        .await;
    assert!(standing(&kit).await == before, "not-found changed nothing");
    kit.as_member(&pat)
        .refused(
            "task-recovery-decide",
            decide(&p.task, "resubmit"),
            "bot/invalid",
        )
        .await;
    kit.as_member(&pat)
        .refused(
            "task-recovery-decide",
            json!({"taskId": p.task, "decision": "retry", "by": "Pat"}),
            "bot/invalid",
        )
        .await;
    assert!(standing(&kit).await == before, "the team is unchanged");
    // A card with nothing uncertain is the wrong state.
    let other = kit
        .as_member(&pat)
        .ok(
            "task-create",
            json!({"botId": p.ada, "roomId": p.room.id, "title": "Another"}),
        )
        .await;
    let other = other["task"]["id"].as_str().unwrap().to_owned();
    let before_other = standing(&kit).await;
    kit.as_member(&pat)
        .refused(
            "task-recovery-decide",
            decide(&other, "accept"),
            "bot/stale",
        )
        .await;
    assert!(standing(&kit).await == before_other);
    assert_eq!(
        std::fs::read(journal_path(kit.home(), &p)).unwrap(),
        journal_before,
        "the execution journal is unchanged"
    );
    assert_eq!(recovery(&kit, &p.task).unwrap()["state"], "uncertain");
    assert!(seat(&kit, &p).runtime_prompts().is_empty());
}
