//! Helpers the task tests share: put a card in any status through the
//! channel, read a record as stored, give a Bot a role, and the owner,
//! member and Bot the access tests start from.
#![allow(dead_code)]

use crate::support::{Session, TestHost};
use serde_json::{Value, json};

/// Every status, in the order `card_in` can reach them.
pub const STATUSES: [&str; 8] = [
    "open",
    "claimed",
    "working",
    "blocked",
    "result-ready",
    "accepted",
    "cancelled",
    "failed",
];

/// Creates a card for `bot` and answers its id.
pub async fn create(t: &TestHost, token: Option<&str>, bot: &str, title: &str) -> String {
    create_from(t, token, json!({"botId": bot, "title": title})).await
}

/// Creates a card from a whole `task-create` body (a room, a parent, a
/// priority...) and answers its id.
pub async fn create_from(t: &TestHost, token: Option<&str>, body: Value) -> String {
    t.ok(token, "task-create", body).await["task"]["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Creates a room from a whole `create-room` body and answers its id.
pub async fn create_room(t: &TestHost, token: Option<&str>, body: Value) -> String {
    t.ok(token, "create-room", body).await["room"]["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Ada signs in as the owner and invites Bob; Ada owns a Bot "Worker".
/// Answers (Ada, Bob, the Bot's id).
pub async fn ada_bob_and_worker(t: &TestHost) -> (Session, Session, String) {
    let owner = t.sign_in_owner("Ada").await;
    let other = t.invite_member(&owner.token, "Bob").await;
    let bot = t.create_bot(Some(&owner.token), "Worker").await;
    (owner, other, bot)
}

/// A card in `status`, made through the channel; answers (id, question id).
/// A failed card needs its Bot deleted, so it gets a Bot of its own.
pub async fn card_in(
    t: &TestHost,
    token: Option<&str>,
    bot: &str,
    status: &str,
) -> (String, Option<String>) {
    let bot = if status == "failed" {
        let name = format!("Doomed {}", t.host.store().revision());
        t.create_bot(token, &name).await
    } else {
        bot.to_owned()
    };
    let id = create(t, token, &bot, &format!("card {status}")).await;
    let by_id = json!({"id": id});
    let mut question = None;
    let path: &[&str] = match status {
        "open" => &[],
        "claimed" => &["task-accept"],
        "working" => &["task-accept", "task-start"],
        "blocked" => &["task-accept", "task-start", "wait"],
        "result-ready" => &["task-accept", "task-start", "return"],
        "accepted" => &["task-accept", "task-start", "return", "task-accept-result"],
        "cancelled" => &["task-cancel"],
        "failed" => &["task-accept", "task-start", "delete-bot"],
        other => panic!("no path to {other}"),
    };
    for step in path {
        match *step {
            "wait" => {
                let a = t
                    .ok(
                        token,
                        "task-wait-input",
                        json!({"id": id, "question": "Which one?"}),
                    )
                    .await;
                question = Some(a["task"]["inputRequest"]["id"].as_str().unwrap().to_owned());
            }
            "return" => {
                t.ok(
                    token,
                    "task-return",
                    json!({"id": id, "summary": "Done it."}),
                )
                .await;
            }
            "delete-bot" => {
                t.ok(token, "delete-bot", json!({"id": bot})).await;
            }
            endpoint => {
                t.ok(token, endpoint, by_id.clone()).await;
            }
        }
    }
    assert_eq!(record(t, &id)["status"], status);
    (id, question)
}

/// The card as the store holds it.
pub fn record(t: &TestHost, id: &str) -> Value {
    t.host
        .store()
        .read(|s| serde_json::to_value(&s.tasks[id]).unwrap())
}

pub fn task_count(t: &TestHost) -> usize {
    t.host.store().read(|s| s.tasks.len())
}

/// Gives a Bot a role: a Bot carries its role in its record's `role` field.
pub async fn set_role(t: &TestHost, bot: &str, role: &str) {
    let bot = bot.to_owned();
    let role = role.to_owned();
    t.host
        .mutate("test", move |change| {
            let mut record = change.state().bots[&bot].clone();
            record.extra.insert("role".into(), Value::from(role));
            change.put_bot(&record);
            Ok(())
        })
        .await
        .unwrap();
}

/// The request body that makes `endpoint` move card `id`.
pub fn move_body(endpoint: &str, id: &str, question: Option<&str>) -> Value {
    match endpoint {
        "task-return" => json!({"id": id, "summary": "Result."}),
        "task-wait-input" => json!({"id": id, "question": "Which?"}),
        "task-answer-input" => {
            json!({"id": id, "questionId": question.unwrap_or("question-none"), "answer": "This."})
        }
        "task-send-back" => json!({"id": id, "note": "Needs tests."}),
        _ => json!({"id": id}),
    }
}

/// After a decision on a targeted card the task drive wakes the card's Bot in
/// the background and counts that reminder on the card (#1172). Waits until
/// the reminder is counted and the Bot's chat is idle, so a refusal's
/// unchanged-home check is not raced by the drive.
pub async fn settle_reminder(t: &TestHost, task_id: &str) {
    for _ in 0..400 {
        let counted = record(t, task_id)["writeBack"]["wakes"]
            .as_u64()
            .is_some_and(|w| w >= 1);
        if counted {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    let bot = record(t, task_id)["botId"].as_str().unwrap().to_owned();
    let session = t.host.store().read(|s| s.bots[&bot].session_id.clone());
    let _ = t.host.sessions().wait_idle(&session).await;
    // The count is in the team at once but acknowledged (journal, revision)
    // a little later: wait until the home stops moving.
    let mut last = t.fingerprint().await;
    for _ in 0..100 {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        let now = t.fingerprint().await;
        if now == last {
            break;
        }
        last = now;
    }
}
