//! Delivery and crash (#198): publishing Bot B's reply onto the card is
//! journaled. Coder's reply reaches the room and its publication's intent
//! is journaled before the card moves; the host then dies by kill -9 before
//! the publication's outcome is written (the home taken as it is on disk,
//! the outcome line cut). The next host settles it against the board at
//! start: a card that moved is recorded and never moved twice; a
//! publication that was not carried out is carried out once.

use crate::opencode_recovery::{copy_folder, host_config, journal_path, records};
use crate::opencode_room::{Pilot, failing_slug_edit, host_on, set_up};
use flybot_core::rooms::log::LineKind;
use flybot_host::Host;
use flybot_host::rooms::opencode::launcher::OpenCodeRuntime;
use flybot_interop::opencode::fake::FakeStep;
use flybot_store::{Store, StoreOptions};
use flybot_testkit::Kit;
use serde_json::{Value, json};
use std::path::Path;

fn publications(home: &Path, p: &Pilot) -> (Vec<Value>, Vec<Value>) {
    let all = records(home, p);
    let intents: Vec<Value> = all
        .iter()
        .filter(|r| r["type"] == "send-intent" && r["operation"] == "publish-result")
        .cloned()
        .collect();
    let outcomes = all
        .iter()
        .filter(|r| {
            r["type"] == "send-outcome" && intents.iter().any(|i| i["sendId"] == r["sendId"])
        })
        .cloned()
        .collect();
    (intents, outcomes)
}

/// Coder's one turn on `step`, its publication settled, then the host
/// killed before the publication's outcome line: the second host on that
/// disk, once it settled the publication again.
async fn killed_before_the_publications_outcome(step: FakeStep) -> (Kit, Kit, Pilot) {
    let first = host_on(OpenCodeRuntime::Fake(vec![step])).await;
    let p = set_up(&first, "mock").await;
    first
        .ok(
            "send",
            json!({"roomId": p.room.id, "text": "@Coder please fix slug.mjs"}),
        )
        .await;
    first
        .until("the publication's outcome is journaled", || {
            journal_path(first.home(), &p).exists() && publications(first.home(), &p).1.len() == 1
        })
        .await;
    // The crash comes after Bot B's line is on disk (the room posts it before
    // the card moves, #198); what it cuts is only the publication's outcome.
    first
        .until("Bot B's line is durable in the room", || {
            first
                .room_lines(&p.room)
                .iter()
                .any(|l| l.author_id == p.coder)
        })
        .await;
    first.host.store().saves_settled().await;
    let home = tempfile::tempdir().unwrap();
    copy_folder(first.home(), home.path());
    first.host.begin_stop();
    let path = journal_path(home.path(), &p);
    let kept: String = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .filter(|l| {
            let r: Value = serde_json::from_str(l).unwrap();
            !(r["type"] == "send-outcome"
                && r["observed"]["remoteRef"]
                    .as_str()
                    .is_some_and(|s| s.starts_with("card:")))
        })
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&path, kept).unwrap();
    let store = Store::open(home.path(), StoreOptions::default()).unwrap();
    let host = Host::open(store, host_config(home.path(), vec![FakeStep::Echo])).await;
    let kit = Kit::around(host, home);
    kit.until("the publication is settled again", || {
        publications(kit.home(), &p)
            .1
            .iter()
            .any(|o| o["observed"]["observed"] == "accepted")
    })
    .await;
    (first, kit, p)
}

#[tokio::test(flavor = "multi_thread")]
async fn delivery_and_crash_a_question_published_before_the_kill_is_recorded_not_published_twice() {
    let (first, kit, p) = killed_before_the_publications_outcome(FakeStep::AskQuestion {
        question: "QUESTION: dashes or underscores?".into(),
    })
    .await;
    let before = crate::opencode_room::card(&first, &p.task).await;
    let after = crate::opencode_room::card(&kit, &p.task).await;
    assert_eq!(after["status"], "blocked", "{after}");
    assert_eq!(
        after["inputRequest"], before["inputRequest"],
        "the same question, once"
    );
    assert_eq!(
        after["updatedAt"], before["updatedAt"],
        "the card did not move again"
    );
    let (intents, outcomes) = publications(kit.home(), &p);
    assert_eq!(intents.len(), 1, "{intents:#?}");
    assert_eq!(outcomes.len(), 1, "{outcomes:#?}");
    assert_eq!(outcomes[0]["observed"]["remoteRef"], "card:blocked");
    let questions = kit
        .room_lines(&p.room)
        .iter()
        .filter(|l| l.author_id == p.coder && l.text.contains("QUESTION"))
        .count();
    assert_eq!(questions, 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn delivery_and_crash_a_result_whose_publication_was_cut_is_published_once_after_the_restart()
{
    let step = failing_slug_edit();
    let (_first, kit, p) = killed_before_the_publications_outcome(step).await;
    // The card never moved (its result did not verify), so the cut
    // publication was not made: it is recorded as such and made once.
    let (intents, outcomes) = publications(kit.home(), &p);
    assert_eq!(intents.len(), 2, "{intents:#?}");
    assert_eq!(intents[0]["digest"], intents[1]["digest"], "the same reply");
    assert_eq!(outcomes.len(), 2, "{outcomes:#?}");
    assert_eq!(outcomes[0]["observed"]["observed"], "refused");
    assert_eq!(outcomes[1]["observed"]["remoteRef"], "card:working");
    kit.until("the check is said again after the restart", || {
        kit.room_lines(&p.room)
            .iter()
            .filter(|l| l.kind == LineKind::Event && l.text.contains("did not verify"))
            .count()
            == 2
    })
    .await;
    assert_eq!(
        crate::opencode_room::card(&kit, &p.task).await["status"],
        "working"
    );
}
