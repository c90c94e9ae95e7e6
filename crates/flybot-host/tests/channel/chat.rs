//! A Bot's own chat through the channel: a person sends a line, the mock
//! model answers, `messages` shows it; the settle window; cancel with and
//! without keepInbox; owner-scoped access; the work view in the state view.

use crate::support::TestHost;
use serde_json::{Value, json};

async fn session_of(t: &TestHost, token: Option<&str>, bot_id: &str) -> String {
    let answer = t.ok(token, "messages", json!({"botId": bot_id})).await;
    answer["sessionId"].as_str().unwrap().to_owned()
}

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
    let t = TestHost::new();
    let bot = t.create_bot(None, "Ada").await;
    let sent = t
        .ok(None, "send", json!({"botId": bot, "text": "hello there"}))
        .await;
    assert_eq!(sent["queued"], "held");
    let second = t
        .ok(None, "send", json!({"botId": bot, "text": "and more"}))
        .await;
    assert_eq!(second["queued"], "held");
    let session = sent["sessionId"].as_str().unwrap().to_owned();
    tokio::time::sleep(std::time::Duration::from_millis(1600)).await;
    t.host.sessions().wait_idle(&session).await.unwrap();
    let answer = t.ok(None, "messages", json!({"botId": bot})).await;
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
    let newer = t
        .ok(
            None,
            "messages",
            json!({"sessionId": session, "after": after}),
        )
        .await;
    assert_eq!(kinds(&newer), ["turn-end"]);
    // The ended turn is in the state view's work view.
    let (_, state) = t.state(None).await;
    assert_eq!(state["work"]["ended"][0]["botId"], bot.as_str());
    assert_eq!(state["work"]["ended"][0]["kind"], "completed");
}

#[tokio::test(start_paused = true)]
async fn cancel_without_keep_inbox_drops_held_lines_and_with_it_keeps_them() {
    let t = TestHost::new();
    let bot = t.create_bot(None, "Ada").await;
    let session = session_of(&t, None, &bot).await;
    let idle = t.ok(None, "cancel", json!({"botId": bot})).await;
    assert_eq!(
        (idle["wasRunning"].clone(), idle["dropped"].clone()),
        (json!(false), json!(0))
    );

    t.ok(None, "send", json!({"botId": bot, "text": "never mind"}))
        .await;
    let dropped = t.ok(None, "cancel", json!({"botId": bot})).await;
    assert_eq!(dropped["dropped"], 1);
    tokio::time::sleep(std::time::Duration::from_millis(2000)).await;
    t.host.sessions().wait_idle(&session).await.unwrap();
    assert!(kinds(&t.ok(None, "messages", json!({"botId": bot})).await).is_empty());

    t.ok(None, "send", json!({"botId": bot, "text": "keep me"}))
        .await;
    let kept = t
        .ok(
            None,
            "cancel",
            json!({"sessionId": session, "keepInbox": true}),
        )
        .await;
    assert_eq!(kept["dropped"], 0);
    tokio::time::sleep(std::time::Duration::from_millis(2000)).await;
    t.host.sessions().wait_idle(&session).await.unwrap();
    let answer = t.ok(None, "messages", json!({"botId": bot})).await;
    assert_eq!(answer["messages"][0]["text"], "keep me");
}

#[tokio::test]
async fn another_members_chat_answers_like_an_unknown_one_and_bad_bodies_are_refused() {
    let t = TestHost::new();
    let owner = t.sign_in_owner("Owner").await;
    let other = t.invite_member(&owner.token, "Other").await;
    let bot = t.create_bot(Some(&owner.token), "Ada").await;
    for endpoint in ["send", "messages", "cancel"] {
        let body = if endpoint == "send" {
            json!({"botId": bot, "text": "hi"})
        } else {
            json!({"botId": bot})
        };
        let answer = t
            .refused(Some(&other.token), endpoint, body, "bot/not-found")
            .await;
        assert!(answer["error"]["message"].is_string());
    }
    t.refused(
        Some(&owner.token),
        "send",
        json!({"botId": bot, "text": "  "}),
        "bot/invalid",
    )
    .await;
    t.refused(Some(&owner.token), "messages", json!({}), "bot/invalid")
        .await;
    t.refused(
        Some(&owner.token),
        "send",
        json!({"botId": bot, "text": "x", "extra": 1}),
        "bot/invalid",
    )
    .await;
}
