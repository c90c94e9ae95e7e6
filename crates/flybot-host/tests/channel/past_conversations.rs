//! Issue 31, "Past conversations": `conversation-new` starts a fresh part
//! of the Bot's Session the way the steward moves one, so the model no
//! longer sees the earlier lines and the chat opens on the new
//! conversation; `conversations` lists them all with their first line,
//! `messages {part}` reads an earlier one; a turn still running or a chat
//! with nothing in it starts none; another member reaches none of it.

use flybot_testkit::Kit;
use flybot_testkit::mock_server::{kit_on, models_config};
use flybot_testkit::sse_server::{End, Reply, ScriptedProvider};
use serde_json::{Value, json};

async fn kit_with(server: &ScriptedProvider) -> Kit {
    kit_on(&models_config(&server.base_url, None)).await
}

fn texts(answer: &Value) -> Vec<String> {
    answer["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["kind"] == "user" || m["kind"] == "assistant")
        .map(|m| m["text"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_new_conversation_starts_clean_and_the_earlier_one_stays_readable() {
    let server = ScriptedProvider::start(vec![Reply::text("Noted."), Reply::text("Hello again.")]);
    let kit = kit_with(&server).await;
    let bot = kit
        .anyone()
        .bot_from(json!({"name": "Ada", "model": "remote"}))
        .await;
    kit.ok(
        "send",
        json!({"botId": bot.id, "text": "my secret plan is X"}),
    )
    .await;
    kit.turns_ended(&bot.session, 1).await;

    let started = kit.ok("conversation-new", json!({"botId": bot.id})).await;
    assert_eq!(started["started"], true);
    assert_eq!(started["conversation"]["part"], 2);
    // The chat opens on the new conversation: nothing in it yet.
    let now = kit.ok("messages", json!({"botId": bot.id})).await;
    assert!(texts(&now).is_empty(), "{now}");

    kit.ok("send", json!({"botId": bot.id, "text": "hi"})).await;
    kit.turns_ended(&bot.session, 2).await;
    // The model's second request carries nothing of the first conversation.
    let second = server.requests()[1].to_string();
    assert!(!second.contains("my secret plan"), "{second}");
    assert!(second.contains("hi"));

    let now = kit.ok("messages", json!({"botId": bot.id})).await;
    assert_eq!(texts(&now), ["hi", "Hello again."]);
    let earlier = kit
        .ok("messages", json!({"botId": bot.id, "part": 1}))
        .await;
    assert_eq!(texts(&earlier), ["my secret plan is X", "Noted."]);

    let list = kit.ok("conversations", json!({"botId": bot.id})).await;
    let rows = list["conversations"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["part"], 1);
    assert_eq!(rows[0]["firstLine"], "my secret plan is X");
    assert_eq!(rows[0]["lines"], 2);
    assert_eq!(rows[0]["current"], false);
    assert_eq!(rows[1]["firstLine"], "hi");
    assert_eq!(rows[1]["current"], true);
    kit.refused(
        "messages",
        json!({"botId": bot.id, "part": 9}),
        "bot/not-found",
    )
    .await;
}

#[tokio::test]
async fn an_empty_conversation_is_not_started_again() {
    let kit = Kit::new().await;
    let bot = kit.bot("Ada").await;
    let answer = kit.ok("conversation-new", json!({"botId": bot.id})).await;
    assert_eq!(answer["started"], false);
    assert_eq!(answer["conversation"]["part"], 1);
    let list = kit.ok("conversations", json!({"botId": bot.id})).await;
    assert_eq!(list["conversations"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn no_new_conversation_while_the_bot_is_answering() {
    let stalled = json!({"choices": [{"delta": {"content": "thinking"}}]}).to_string();
    let server = ScriptedProvider::start(vec![Reply::stream(&[&stalled], End::Stall)]);
    let kit = kit_with(&server).await;
    let bot = kit
        .anyone()
        .bot_from(json!({"name": "Ada", "model": "remote"}))
        .await;
    kit.ok("send", json!({"botId": bot.id, "text": "go"})).await;
    kit.until_some("the turn streams", async || {
        let answer = kit.ok("messages", json!({"botId": bot.id})).await;
        answer.get("draft").map(|_| ())
    })
    .await;
    kit.refused("conversation-new", json!({"botId": bot.id}), "bot/busy")
        .await;
    let list = kit.ok("conversations", json!({"botId": bot.id})).await;
    assert_eq!(list["conversations"].as_array().unwrap().len(), 1);
    kit.ok("cancel", json!({"botId": bot.id})).await;
    kit.turns_ended(&bot.session, 1).await;
}

#[tokio::test]
async fn another_member_neither_lists_nor_starts_nor_reads_anothers_conversations() {
    let kit = Kit::new().await;
    let owner = kit.owner("Olga").await;
    let bob = kit.as_member(&owner).invite("Bob").await;
    let ada = kit.as_member(&owner).bot("Ada").await;
    kit.as_member(&owner)
        .ok("send", json!({"botId": ada.id, "text": "private words"}))
        .await;
    kit.turns_ended(&ada.session, 1).await;
    kit.as_member(&owner)
        .ok("conversation-new", json!({"botId": ada.id}))
        .await;

    let bob = kit.as_member(&bob);
    // Each refusal leaves the home as it was (`refused` checks), and Ada's
    // conversations stay two.
    for (endpoint, body) in [
        ("conversations", json!({"botId": ada.id})),
        ("conversation-new", json!({"botId": ada.id})),
        ("messages", json!({"botId": ada.id, "part": 1})),
        ("messages", json!({"sessionId": ada.session, "part": 1})),
    ] {
        let refusal = bob.refused(endpoint, body, "bot/not-found").await;
        assert!(!refusal.to_string().contains("private words"));
    }
    let list = kit
        .as_member(&owner)
        .ok("conversations", json!({"botId": ada.id}))
        .await;
    assert_eq!(list["conversations"].as_array().unwrap().len(), 2);
}
