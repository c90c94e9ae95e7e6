//! Matrix row "approval" (#198, the contract's line 109) through a running
//! host, Bot B on the scripted fake OpenCode, one person owning both Bots
//! (the single-owner pilot). Each layer's hold is cleared only by its own
//! decision: Bot A's held send (the task layer's approval hold) by that
//! hold's approval, the card's input wait by the requester's answer. Bot
//! A's approval never releases Bot B's hold, nor the reverse, though one
//! person decides both. A replayed approval, a rejection and an input
//! edited after OpenCode's request was made start no OpenCode work.

use crate::opencode_room::{
    Pilot, asking_once, card, card_when, coder_told, host_on, seed, set_up, settled,
};
use flybot_core::rooms::log::{AuthorKind, LineKind};
use flybot_host::rooms::hold::hold_send;
use flybot_host::rooms::opencode::launcher::OpenCodeRuntime;
use flybot_interop::opencode::fake::FakeStep;
use flybot_interop::pilot::script;
use flybot_protocol::approval::{Approval, HoldStatus};
use flybot_store::room_log::NewLine;
use flybot_testkit::Kit;
use serde_json::{Value, json};

/// `from`'s send to `to`, held for their (one) owner; answers its id. Bot
/// A's sends name the card they are made for (`meta.taskId`, #54); Bot B's
/// name none, so they block no card.
async fn held(kit: &Kit, p: &Pilot, from: &str, to: &str) -> String {
    let task = (from == p.ada).then_some(p.task.as_str());
    hold_send(
        kit.host.team(),
        from,
        to,
        &format!("a send of {from}'s"),
        0,
        task,
    )
    .await
    .unwrap()
}

fn hold_status(kit: &Kit, id: &str) -> HoldStatus {
    kit.host
        .store()
        .read(|s| {
            s.flybot
                .approvals
                .get(id)
                .and_then(Approval::as_held_send)
                .map(|r| r.held.status)
        })
        .unwrap()
}

async fn decide(kit: &Kit, id: &str, answer: &str) {
    kit.ok("approval-answer", json!({"id": id, "answer": answer}))
        .await;
}

/// Every prompt Bot B's OpenCode received (none before its seat opens).
fn prompts(kit: &Kit, p: &Pilot) -> Vec<String> {
    kit.host
        .externals()
        .opencode()
        .seat(&p.room.id, &p.coder, &p.task)
        .map(|seat| seat.runtime_prompts())
        .unwrap_or_default()
}

/// The person's line to the room; answers Bot B's lines once it settles.
async fn say(kit: &Kit, p: &Pilot, text: &str) -> Vec<String> {
    kit.ok("send", json!({"roomId": p.room.id, "text": text}))
        .await;
    settled(kit, &p.room)
        .await
        .into_iter()
        .filter(|(author, _, _)| *author == p.coder)
        .map(|(_, _, text)| text)
        .collect()
}

/// Bot A's own line in the room (its answer to Bot B's question).
fn ada_says(kit: &Kit, p: &Pilot, text: &str) {
    let line = NewLine {
        author_id: p.ada.clone(),
        author_kind: AuthorKind::LocalBot,
        kind: LineKind::Chat,
        text: text.to_owned(),
        at: flybot_store::system_now_ms(),
        hop: 0,
    };
    kit.host.rooms().append(&p.room.id, line).unwrap();
}

/// Bot B's request made, and its question blocking the card.
async fn asked(kit: &Kit, p: &Pilot) -> String {
    say(kit, p, "@Coder start on the card").await;
    let blocked = card_when(kit, &p.task, "blocked").await;
    assert_eq!(blocked["waitingFor"], "input", "{blocked}");
    assert_eq!(prompts(kit, p).len(), 1);
    blocked["inputRequest"]["id"].as_str().unwrap().to_owned()
}

fn last_said(lines: &[String]) -> &str {
    lines.last().map_or("", String::as_str)
}

#[tokio::test(flavor = "multi_thread")]
async fn matrix_approval_one_operator_releases_each_bots_hold_only_with_its_own_approval() {
    let (kit, p) = asking_once().await;
    let a_hold = held(&kit, &p, &p.ada, &p.coder).await;
    let b_hold = held(&kit, &p, &p.coder, &p.ada).await;
    let blocked = card(&kit, &p.task).await;
    assert_eq!(blocked["status"], "blocked");
    assert_eq!(blocked["approvalId"], a_hold.as_str(), "{blocked}");
    let said = say(&kit, &p, "@Coder start on the card").await;
    assert!(
        last_said(&said).contains("waits for an approval"),
        "{said:?}"
    );
    assert!(prompts(&kit, &p).is_empty(), "a held card starts no work");
    // Bot B's hold approved by the one person: Bot A's stays, and so does
    // the card's block.
    decide(&kit, &b_hold, "allowed-once").await;
    assert_eq!(hold_status(&kit, &a_hold), HoldStatus::Pending);
    assert_eq!(card(&kit, &p.task).await["approvalId"], a_hold.as_str());
    say(&kit, &p, "@Coder go on").await;
    assert!(prompts(&kit, &p).is_empty(), "{:?}", prompts(&kit, &p));
    // The reverse: Bot A's approval leaves Bot B's waiting hold waiting.
    let b_again = held(&kit, &p, &p.coder, &p.ada).await;
    decide(&kit, &a_hold, "allowed-once").await;
    assert_eq!(hold_status(&kit, &b_again), HoldStatus::Pending);
    card_when(&kit, &p.task, "working").await;
    say(&kit, &p, "@Coder go on").await;
    assert_eq!(prompts(&kit, &p).len(), 1, "only its own approval freed it");
}

#[tokio::test(flavor = "multi_thread")]
async fn matrix_approval_the_input_wait_and_an_approval_hold_are_cleared_each_by_its_own_decision()
{
    let (kit, p) = asking_once().await;
    let question = asked(&kit, &p).await;
    let a_hold = held(&kit, &p, &p.ada, &p.coder).await;
    let answer = json!({"id": p.task, "questionId": question, "answer": "Dashes."});
    // An answer does not pass the approval hold: the person's is refused,
    // nothing changed; Bot A's in the room resumes nothing.
    kit.refused("task-answer-input", answer.clone(), "bot/stale")
        .await;
    ada_says(&kit, &p, "Dashes, please.");
    let said = say(&kit, &p, "@Coder go on").await;
    assert!(last_said(&said).contains("refused"), "{said:?}");
    assert_eq!(prompts(&kit, &p).len(), 1, "no answer reached OpenCode");
    // The approval clears its own hold only: the question still waits.
    decide(&kit, &a_hold, "allowed-once").await;
    let still = card(&kit, &p.task).await;
    assert_eq!(still["status"], "blocked", "{still}");
    assert_eq!(still["waitingFor"], "input", "{still}");
    ada_says(&kit, &p, "Dashes, please.");
    say(&kit, &p, "@Coder go on").await;
    let sent = prompts(&kit, &p);
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert_eq!(sent[1], "Dashes, please.");
}

#[tokio::test(flavor = "multi_thread")]
async fn matrix_approval_a_replayed_approval_grants_nothing() {
    let (kit, p) = asking_once().await;
    let first = held(&kit, &p, &p.ada, &p.coder).await;
    decide(&kit, &first, "allowed-once").await;
    card_when(&kit, &p.task, "working").await;
    let second = held(&kit, &p, &p.ada, &p.coder).await;
    for answer in ["allowed-once", "rejected"] {
        let replay = json!({"id": first, "answer": answer});
        kit.refused("approval-answer", replay, "bot/stale").await;
    }
    let blocked = card(&kit, &p.task).await;
    assert_eq!(blocked["status"], "blocked");
    assert_eq!(blocked["approvalId"], second.as_str(), "{blocked}");
    assert_eq!(hold_status(&kit, &second), HoldStatus::Pending);
    say(&kit, &p, "@Coder start on the card").await;
    assert!(prompts(&kit, &p).is_empty(), "{:?}", prompts(&kit, &p));
}

#[tokio::test(flavor = "multi_thread")]
async fn matrix_approval_a_rejection_prevents_execution_and_publication() {
    let (kit, p) = asking_once().await;
    asked(&kit, &p).await;
    let a_hold = held(&kit, &p, &p.ada, &p.coder).await;
    decide(&kit, &a_hold, "rejected").await;
    assert_eq!(card(&kit, &p.task).await["status"], "cancelled");
    ada_says(&kit, &p, "Dashes, please.");
    say(&kit, &p, "@Coder go on").await;
    assert_eq!(prompts(&kit, &p).len(), 1, "nothing after the rejection");
    let ended = card(&kit, &p.task).await;
    assert_eq!(ended["status"], "cancelled", "never published: {ended}");
}

/// The card's note (its task input) edited after the request.
async fn edit_input(kit: &Kit, p: &Pilot) {
    let note = "Use underscores, and push the result to a remote.";
    kit.ok("task-update", json!({"id": p.task, "note": note}))
        .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn matrix_approval_an_input_edited_after_the_request_prevents_execution() {
    let (kit, p) = asking_once().await;
    let question = asked(&kit, &p).await;
    edit_input(&kit, &p).await;
    // Bot A's answer in the room resumes nothing: the card is unchanged.
    ada_says(&kit, &p, "Dashes, please.");
    let said = say(&kit, &p, "@Coder go on").await;
    assert!(
        last_said(&said).contains("was edited after my request was made"),
        "{said:?}"
    );
    let unchanged: Value = card(&kit, &p.task).await;
    assert_eq!(unchanged["status"], "blocked", "{unchanged}");
    assert!(unchanged.get("inputAnswer").is_none(), "{unchanged}");
    // Nor does the person's answer let the edited card go on.
    let answer = json!({"id": p.task, "questionId": question, "answer": "Dashes."});
    kit.ok("task-answer-input", answer).await;
    let said = say(&kit, &p, "@Coder go on").await;
    assert!(
        last_said(&said).contains("start a new card with the edited input"),
        "{said:?}"
    );
    assert_eq!(prompts(&kit, &p).len(), 1, "{:?}", prompts(&kit, &p));
}

/// Bot B's turn in flight: it wrote the fix, and its test run waits for
/// the file answered to exist in its workspace (the test's go).
async fn working_until_go() -> (Kit, Pilot, std::path::PathBuf) {
    let (kit, p) = coder_told(
        OpenCodeRuntime::Fake(vec![FakeStep::Edit {
            files: vec![("slug.mjs".to_owned(), script::FIXED_SLUG.to_owned())],
            command: ["sh", "-c", "until [ -e go ]; do sleep 0.01; done"]
                .map(str::to_owned)
                .to_vec(),
            text: "DONE: slug.mjs is fixed.".to_owned(),
        }]),
        "@Coder start on the card",
    )
    .await;
    kit.until("Coder's prompt reaches OpenCode", || {
        prompts(&kit, &p).len() == 1
    })
    .await;
    let seat = kit
        .host
        .externals()
        .opencode()
        .seat(&p.room.id, &p.coder, &p.task);
    let go = seat.unwrap().workspace().join("go");
    (kit, p, go)
}

#[tokio::test(flavor = "multi_thread")]
async fn matrix_approval_an_input_edited_while_opencode_works_is_not_published() {
    let (kit, p, go) = working_until_go().await;
    edit_input(&kit, &p).await;
    std::fs::write(go, "").unwrap();
    // The card's Bot says how the reply went: not published, or (had the
    // edit been missed) verified and returned result-ready.
    let said = kit
        .until_some("the card's Bot says how the reply went", async || {
            settled(&kit, &p.room)
                .await
                .into_iter()
                .find(|(a, kind, text)| {
                    *a == p.ada
                        && kind == "event"
                        && (text.contains("not published") || text.contains("result-ready"))
                })
        })
        .await;
    assert!(said.2.contains("its reply is not published"), "{said:?}");
    let card = card(&kit, &p.task).await;
    assert_eq!(card["status"], "working", "never result-ready: {card}");
}

#[tokio::test(flavor = "multi_thread")]
async fn matrix_approval_a_card_enrolled_for_one_opencode_bot_is_not_taken_over_by_another() {
    let kit = host_on(OpenCodeRuntime::Fake(vec![FakeStep::Reply {
        text: "On it.".into(),
    }]))
    .await;
    let p = set_up(&kit, "mock").await;
    let other = kit
        .ok(
            "create-bot",
            json!({"name": "Coder2", "model": "mock",
                "external": {"driver": "opencode", "seed": seed(&kit), "testCommand": ["node", "--test"]}}),
        )
        .await;
    let other = other["bot"]["id"].as_str().unwrap().to_owned();
    let members = json!([p.ada, p.coder, other]);
    kit.ok("update-room", json!({"id": p.room.id, "members": members}))
        .await;
    say(&kit, &p, "@Coder start on the card").await;
    assert_eq!(prompts(&kit, &p).len(), 1);
    assert_eq!(card(&kit, &p.task).await["status"], "working");
    // The recipient changed with no new card: Coder2 starts nothing.
    kit.ok(
        "send",
        json!({"roomId": p.room.id, "text": "@Coder2 take the card over"}),
    )
    .await;
    let lines = settled(&kit, &p.room).await;
    let refused = lines.iter().rfind(|(author, _, _)| *author == other);
    assert!(
        refused.is_some_and(|(_, _, text)| text.contains("was handed to Coder")),
        "{lines:?}"
    );
    let opencode = kit.host.externals().opencode();
    assert!(opencode.seat(&p.room.id, &other, &p.task).is_none());
    assert!(
        !kit.home()
            .join("interop")
            .join(&other)
            .join(&p.task)
            .exists()
    );
    assert_eq!(opencode.binding(&p.task).unwrap().worker_bot, p.coder);
}
