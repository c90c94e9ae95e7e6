//! The registered tools in a real turn (the mock's script): a workspace tool
//! writes in the Bot's own folder, message_bot reaches the other Bot's chat,
//! ask_user shows as a question, and each model call lands in the usage
//! ledger with the counts the model reported and the unknown ones stored as
//! null (#903).

use crate::approvals::{say, scripted_host};
use crate::support::TestHost;
use serde_json::{Value, json};
use std::time::Duration;

async fn rows(t: &TestHost, bot: &str, n: usize) -> Vec<Value> {
    for _ in 0..500 {
        let answer = t.ok(None, "usage", json!({"botId": bot})).await;
        let rows = answer["rows"].as_array().unwrap().clone();
        if rows.len() >= n {
            return rows;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the usage ledger never reached {n} rows");
}

#[tokio::test]
async fn a_turn_writes_a_file_in_the_bots_folder_and_its_calls_are_in_the_ledger() {
    let t = scripted_host();
    let bot = t.create_bot(None, "Ada").await;
    let session = say(&t, &bot, "write it");
    t.host.sessions().wait_idle(&session).await.unwrap();
    let file = t.dir.path().join("workspaces").join(&bot).join("notes.txt");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "hello");
    let rows = rows(&t, &bot, 2).await;
    assert_eq!(rows.len(), 2, "one row per model call: {rows:?}");
    assert_eq!(rows[0]["provider"], "mock");
    assert_eq!(rows[0]["toolCalls"], 1);
    assert_eq!(rows[1]["toolCalls"], 0);
    for row in &rows {
        assert!(
            row["inputTokens"].is_u64(),
            "the mock reports its input: {row}"
        );
        assert!(row["cachedTokens"].is_null(), "unknown stays null: {row}");
        assert!(
            row["reasoningTokens"].is_null(),
            "unknown stays null: {row}"
        );
        assert!(
            row["wallMs"].is_u64() && row["harness"] == "default",
            "{row}"
        );
    }
    // Another member's view of the ledger is scoped: an unknown Bot.
    t.refused(None, "usage", json!({"botId": "bot-nope"}), "bot/not-found")
        .await;
}

#[tokio::test]
async fn message_bot_lands_in_the_other_bots_chat_and_ask_user_is_a_question() {
    let t = scripted_host();
    let ada = t.create_bot(None, "Ada").await;
    let bob = t.create_bot(None, "Bob").await;
    let session = say(&t, &ada, "tell bob");
    t.host.sessions().wait_idle(&session).await.unwrap();
    let bob_session = t.host.store().read(|s| s.bots[&bob].session_id.clone());
    t.host.sessions().wait_idle(&bob_session).await.unwrap();
    let answer = t.ok(None, "messages", json!({"botId": bob})).await;
    let first = &answer["messages"][0];
    assert_eq!(first["kind"], "user");
    assert_eq!(first["text"], "please review");
    assert_eq!(first["source"]["kind"], "bot");
    assert_eq!(first["source"]["botId"], ada);
    assert_eq!(first["source"]["hops"], 1);
    say(&t, &ada, "ask me");
    t.host.sessions().wait_idle(&session).await.unwrap();
    let answer = t.ok(None, "messages", json!({"botId": ada})).await;
    let question = answer["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["kind"] == "question")
        .cloned()
        .unwrap();
    assert_eq!(question["text"], "Which branch?");
}
