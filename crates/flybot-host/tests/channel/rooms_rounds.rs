//! A room's rounds through the channel (issue 5): three Bots on the mock
//! model; `send {roomId}` opens a round, `messages {roomId}` follows it.

use flybot_testkit::{Bot, Kit, Room};
use serde_json::{Value, json};

/// Ada, Bo and Cy in the room "Build", Bo its admin though listed second.
pub(crate) async fn room_of_three(kit: &Kit) -> (Room, [Bot; 3]) {
    let [ada, bo, cy] = kit.bots(["Ada", "Bo", "Cy"]).await;
    let room = kit
        .room_from(json!({"name": "Build", "members": [ada.id, bo.id, cy.id], "admin": bo.id}))
        .await;
    (room, [ada, bo, cy])
}

/// Waits until the room's rounds are over and answers its lines.
pub(crate) async fn settled(kit: &Kit, room: &Room) -> Vec<Value> {
    kit.round_ended(room).await;
    let answer = kit.ok("messages", json!({"roomId": room.id})).await;
    assert_eq!(answer["running"], false);
    answer["messages"].as_array().unwrap().clone()
}

fn authors(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .map(|l| l["authorId"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(start_paused = true)]
async fn a_plain_line_is_a_routed_round_the_admin_answers_first_and_ends_it() {
    let kit = Kit::new().await;
    let (room, [_ada, bo, _cy]) = room_of_three(&kit).await;
    let sent = kit
        .ok("send", json!({"roomId": room.id, "text": "hello team"}))
        .await;
    assert_eq!(sent["queued"], "round");
    let lines = settled(&kit, &room).await;
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["authorKind"], "human");
    assert_eq!(lines[1]["authorId"], bo.id.as_str());
    assert_eq!(lines[1]["authorKind"], "local-bot");
    assert!(lines[1]["text"].as_str().unwrap().contains("mock"));
}

#[tokio::test(start_paused = true)]
async fn at_all_is_answered_by_each_member_in_speaking_order_and_after_reads_newer_lines() {
    let kit = Kit::new().await;
    let (room, [ada, bo, cy]) = room_of_three(&kit).await;
    kit.ok(
        "send",
        json!({"roomId": room.id, "text": "@all status please"}),
    )
    .await;
    let lines = settled(&kit, &room).await;
    let who = authors(&lines);
    assert_eq!(who[1..], [bo.id, ada.id, cy.id], "{lines:?}");
    let after = lines[1]["seq"].as_u64().unwrap();
    let newer = kit
        .ok("messages", json!({"roomId": room.id, "after": after}))
        .await;
    assert_eq!(newer["messages"].as_array().unwrap().len(), 2);
}

#[tokio::test(start_paused = true)]
async fn an_at_name_calls_only_that_member() {
    let kit = Kit::new().await;
    let (room, [_ada, _bo, cy]) = room_of_three(&kit).await;
    kit.ok(
        "send",
        json!({"roomId": room.id, "text": "@Cy what is left?"}),
    )
    .await;
    let lines = settled(&kit, &room).await;
    assert_eq!(authors(&lines)[1..], [cy.id], "{lines:?}");
}

#[tokio::test(start_paused = true)]
/// Rule #50.
async fn a_room_the_actor_is_not_in_answers_like_an_unknown_one() {
    let kit = Kit::new().await;
    let owner = kit.owner("Alice").await;
    let other = kit.as_member(&owner).invite("Bob").await;
    let alice = kit.as_member(&owner);
    let ada = alice.bot("Ada").await;
    let room = alice
        .room_from(json!({"name": "Mine", "members": [ada.id]}))
        .await;
    let bob = kit.as_member(&other);
    let (status, _) = bob.post("messages", json!({"roomId": room.id})).await;
    assert_eq!(status, 404);
    let (status, _) = bob
        .post("send", json!({"roomId": room.id, "text": "hi"}))
        .await;
    assert_eq!(status, 404);
}

mod board;
mod dispatch;
mod held;
mod paging;
mod post;
mod questions;
mod reach;
mod round_rules;
mod steering;
