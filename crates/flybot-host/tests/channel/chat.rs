//! A Bot's own chat through the channel: a person sends a line, the mock
//! model answers, `messages` shows it; the settle window; cancel with and
//! without keepInbox; owner-scoped access; the work view in the state view.

use flybot_testkit::Kit;
use serde_json::{Value, json};
use std::time::Duration;

fn kinds(answer: &Value) -> Vec<String> {
    answer["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["kind"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(start_paused = true)]
async fn a_line_sent_is_answered_by_the_mock_and_read_back_in_order() {
    let kit = Kit::new().await;
    let bot = kit.bot("Ada").await;
    let sent = kit
        .ok("send", json!({"botId": bot.id, "text": "hello there"}))
        .await;
    assert_eq!(sent["queued"], "held");
    let second = kit
        .ok("send", json!({"botId": bot.id, "text": "and more"}))
        .await;
    assert_eq!(second["queued"], "held");
    let session = sent["sessionId"].as_str().unwrap().to_owned();
    // Idle means past the settle window too: the held lines went as one.
    kit.idle(&session).await;
    let answer = kit.ok("messages", json!({"botId": bot.id})).await;
    assert_eq!(kinds(&answer), ["user", "assistant", "turn-end"]);
    let lines = answer["messages"].as_array().unwrap();
    assert_eq!(lines[0]["text"], "hello there\nand more");
    assert!(
        lines[1]["text"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .contains("mock"),
        "{answer}"
    );
    assert_eq!(lines[2]["reason"]["kind"], "completed");
    // `after` reads only what is newer; `sessionId` names the same chat.
    let after = lines[1]["seq"].as_u64().unwrap();
    let newer = kit
        .ok("messages", json!({"sessionId": session, "after": after}))
        .await;
    assert_eq!(kinds(&newer), ["turn-end"]);
    // The ended turn is in the state view's work view.
    let (_, state) = kit.state().await;
    assert_eq!(state["work"]["ended"][0]["botId"], bot.id.as_str());
    assert_eq!(state["work"]["ended"][0]["kind"], "completed");
}

#[tokio::test(start_paused = true)]
async fn cancel_without_keep_inbox_drops_held_lines_and_with_it_keeps_them() {
    let kit = Kit::new().await;
    let bot = kit.bot("Ada").await;
    let session = bot.session.clone();
    let idle = kit.ok("cancel", json!({"botId": bot.id})).await;
    assert_eq!(
        (idle["wasRunning"].clone(), idle["dropped"].clone()),
        (json!(false), json!(0))
    );

    kit.ok("send", json!({"botId": bot.id, "text": "never mind"}))
        .await;
    let dropped = kit.ok("cancel", json!({"botId": bot.id})).await;
    assert_eq!(dropped["dropped"], 1);
    // Past the settle window (on the paused clock) nothing dropped runs.
    tokio::time::sleep(Duration::from_millis(2000)).await;
    kit.idle(&session).await;
    assert!(kinds(&kit.ok("messages", json!({"botId": bot.id})).await).is_empty());

    kit.ok("send", json!({"botId": bot.id, "text": "keep me"}))
        .await;
    let kept = kit
        .ok("cancel", json!({"sessionId": session, "keepInbox": true}))
        .await;
    assert_eq!(kept["dropped"], 0);
    kit.idle(&session).await;
    let answer = kit.ok("messages", json!({"botId": bot.id})).await;
    assert_eq!(answer["messages"][0]["text"], "keep me");
}

#[tokio::test]
async fn another_members_chat_answers_like_an_unknown_one_and_bad_bodies_are_refused() {
    let kit = Kit::new().await;
    let owner = kit.owner("Owner").await;
    let other = kit.as_member(&owner).invite("Other").await;
    let (owner, other) = (kit.as_member(&owner), kit.as_member(&other));
    let bot = owner.bot("Ada").await.id;
    for endpoint in ["send", "messages", "cancel"] {
        let body = if endpoint == "send" {
            json!({"botId": bot, "text": "hi"})
        } else {
            json!({"botId": bot})
        };
        let answer = other.refused(endpoint, body, "bot/not-found").await;
        assert!(answer["error"]["message"].is_string());
    }
    owner
        .refused("send", json!({"botId": bot, "text": "  "}), "bot/invalid")
        .await;
    owner.refused("messages", json!({}), "bot/invalid").await;
    owner
        .refused(
            "send",
            json!({"botId": bot, "text": "x", "extra": 1}),
            "bot/invalid",
        )
        .await;
}

#[tokio::test(start_paused = true)]
async fn history_pages_back_from_the_newest_lines_with_before_and_limit() {
    let kit = Kit::new().await;
    let bot = kit.bot("Ada").await;
    for text in ["first", "second"] {
        kit.ok("send", json!({"botId": bot.id, "text": text})).await;
        kit.idle(&bot.session).await;
    }
    let newest = kit
        .ok("messages", json!({"botId": bot.id, "limit": 2}))
        .await;
    assert_eq!(kinds(&newest), ["assistant", "turn-end"]);
    assert_eq!(newest["earlier"], true);
    let oldest_seen = newest["messages"][0]["seq"].as_u64().unwrap();
    let earlier = kit
        .ok(
            "messages",
            json!({"botId": bot.id, "before": oldest_seen, "limit": 10}),
        )
        .await;
    assert_eq!(kinds(&earlier), ["user", "assistant", "turn-end", "user"]);
    assert_eq!(earlier["messages"][3]["text"], "second");
    assert_eq!(earlier["earlier"], false);
}

#[tokio::test(start_paused = true)]
/// Rule #1347.
async fn a_failed_turn_carries_its_sentence_never_the_providers_text() {
    let kit = Kit::scripted(json!([
        {"fail": {"status": 401, "code": "invalid_api_key"}}
    ]))
    .await;
    let bot = kit.bot("Ada").await;
    kit.ok("send", json!({"botId": bot.id, "text": "hello"}))
        .await;
    kit.idle(&bot.session).await;
    let answer = kit.ok("messages", json!({"botId": bot.id})).await;
    let end = answer["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["kind"] == "turn-end")
        .unwrap()
        .clone();
    assert_eq!(end["reason"]["kind"], "error", "{end}");
    assert_eq!(
        end["sentence"],
        "The provider refused the API key. Check it in Settings → Models."
    );
}
