//! A room's rounds through the channel (issue 5): three Bots on the mock
//! model; `send {roomId}` opens a round, `messages {roomId}` follows it.

use crate::support::TestHost;
use serde_json::{Value, json};
use std::time::Duration;

async fn room_of_three(t: &TestHost) -> (String, [String; 3]) {
    let ada = t.create_bot(None, "Ada").await;
    let bo = t.create_bot(None, "Bo").await;
    let cy = t.create_bot(None, "Cy").await;
    let room = t
        .ok(
            None,
            "create-room",
            json!({"name": "Build", "members": [ada, bo, cy], "admin": bo}),
        )
        .await;
    let id = room["room"]["id"].as_str().unwrap().to_owned();
    (id, [ada, bo, cy])
}

/// Waits until the room's rounds are over and answers its lines.
async fn settled(t: &TestHost, room: &str) -> Vec<Value> {
    for _ in 0..400 {
        let answer = t.ok(None, "messages", json!({"roomId": room})).await;
        if answer["running"] == json!(false) {
            return answer["messages"].as_array().unwrap().clone();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the room never settled");
}

fn authors(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .map(|l| l["authorId"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(start_paused = true)]
async fn a_plain_line_is_a_routed_round_the_admin_answers_first_and_ends_it() {
    let t = TestHost::new();
    let (room, [_ada, bo, _cy]) = room_of_three(&t).await;
    let sent = t
        .ok(None, "send", json!({"roomId": room, "text": "hello team"}))
        .await;
    assert_eq!(sent["queued"], "round");
    let lines = settled(&t, &room).await;
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["authorKind"], "human");
    assert_eq!(lines[1]["authorId"], bo.as_str());
    assert_eq!(lines[1]["authorKind"], "local-bot");
    assert!(lines[1]["text"].as_str().unwrap().contains("mock"));
}

#[tokio::test(start_paused = true)]
async fn at_all_is_answered_by_each_member_in_speaking_order_and_after_reads_newer_lines() {
    let t = TestHost::new();
    let (room, [ada, bo, cy]) = room_of_three(&t).await;
    t.ok(
        None,
        "send",
        json!({"roomId": room, "text": "@all status please"}),
    )
    .await;
    let lines = settled(&t, &room).await;
    let who = authors(&lines);
    assert_eq!(who[1..], [bo.clone(), ada.clone(), cy.clone()], "{lines:?}");
    let after = lines[1]["seq"].as_u64().unwrap();
    let newer = t
        .ok(None, "messages", json!({"roomId": room, "after": after}))
        .await;
    assert_eq!(newer["messages"].as_array().unwrap().len(), 2);
}

#[tokio::test(start_paused = true)]
async fn an_at_name_calls_only_that_member() {
    let t = TestHost::new();
    let (room, [_ada, _bo, cy]) = room_of_three(&t).await;
    t.ok(
        None,
        "send",
        json!({"roomId": room, "text": "@Cy what is left?"}),
    )
    .await;
    let lines = settled(&t, &room).await;
    assert_eq!(authors(&lines)[1..], [cy], "{lines:?}");
}

#[tokio::test(start_paused = true)]
async fn a_room_the_actor_is_not_in_answers_like_an_unknown_one_50() {
    let t = TestHost::new();
    let owner = t.sign_in_owner("Alice").await;
    let other = t.invite_member(&owner.token, "Bob").await;
    let ada = t.create_bot(Some(&owner.token), "Ada").await;
    let room = t
        .ok(
            Some(&owner.token),
            "create-room",
            json!({"name": "Mine", "members": [ada]}),
        )
        .await;
    let id = room["room"]["id"].as_str().unwrap();
    let (status, _) = t
        .call(Some(&other.token), "messages", json!({"roomId": id}))
        .await;
    assert_eq!(status, 404);
    let (status, _) = t
        .call(
            Some(&other.token),
            "send",
            json!({"roomId": id, "text": "hi"}),
        )
        .await;
    assert_eq!(status, 404);
}

mod board;
mod dispatch;
mod held;
mod kit;
mod post;
mod questions;
mod reach;
mod steering;
