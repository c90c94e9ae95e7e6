//! A dispatch is a board assign (#1254): the lead's "@Dev1 fix #12" opens
//! that member's card through the task rules and the task drive wakes it in
//! its own chat; the member takes no round turn for it. A line that is not
//! a dispatch (a question) keeps the round's call.

use super::kit::{host_with, until};
use crate::support::TestHost;
use flybot_agent::session::SessionEvent;
use flybot_core::rooms::log::LineKind;
use flybot_protocol::state::TaskStatus;
use serde_json::{Value, json};

fn user_texts(t: &TestHost, session: &str) -> Vec<String> {
    t.host
        .sessions()
        .transcript(session, 0)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|e| match e.event {
            SessionEvent::UserMessage { text, .. } => Some(text),
            _ => None,
        })
        .collect()
}

async fn team(t: &TestHost) -> (String, [String; 2]) {
    let lead = t.create_bot(None, "Lead").await;
    let dev1 = t.create_bot(None, "Dev1").await;
    let room = t
        .ok(
            None,
            "create-room",
            json!({"name": "Ship", "members": [lead, dev1], "admin": lead}),
        )
        .await;
    (
        room["room"]["id"].as_str().unwrap().to_owned(),
        [lead, dev1],
    )
}

fn scenario() -> Value {
    json!([
        {"when": {"systemContains": "## You are Lead\n", "userContains": "hand it out", "step": 0},
         "reply": {"text": "@Dev1 fix #12 today"}},
        {"when": {"systemContains": "## You are Lead\n", "userContains": "just ask", "step": 0},
         "reply": {"text": "@Dev1 can you fix #12?"}},
        {"when": {"systemContains": "## You are Dev1\n", "userContains": "[Group"},
         "reply": {"text": "on it in the room"}},
        {"reply": {"text": "working"}}
    ])
}

#[tokio::test(start_paused = true)]
async fn the_leads_dispatch_line_is_a_board_assign_that_wakes_the_member_in_its_own_chat_1254() {
    let t = host_with(scenario());
    let (room, [lead, dev1]) = team(&t).await;
    t.ok(None, "send", json!({"roomId": room, "text": "hand it out"}))
        .await;
    let own = t.host.store().read(|s| s.bots[&dev1].session_id.clone());
    until(&t, "Dev1 is woken in its own chat", || {
        user_texts(&t, &own)
            .iter()
            .any(|x| x.starts_with("[Continue task]"))
    })
    .await;
    until(&t, "the room settles", || {
        !t.host.rooms().run(&room, |r| r.running)
    })
    .await;
    let cards: Vec<_> = t.host.store().read(|s| s.tasks.values().cloned().collect());
    let card = cards.iter().find(|c| c.bot_id == dev1).unwrap();
    assert!(card.title.contains("#12"), "{}", card.title);
    assert_eq!(card.room_id.as_deref(), Some(room.as_str()));
    assert_ne!(card.status, TaskStatus::Open);
    // Dev1 took no round turn: its seat's Session never ran, and it has no
    // chat line in the room (the claim line is its voice, not a turn).
    let seat = t
        .host
        .store()
        .read(|s| s.rooms[&room].sessions[&dev1].clone());
    assert!(user_texts(&t, &seat).is_empty());
    let lines = t.host.rooms().lines(&room).unwrap();
    assert!(
        !lines
            .iter()
            .any(|l| l.author_id == dev1 && l.kind == LineKind::Chat),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.author_id == lead && l.text.contains("fix #12"))
    );
}

#[tokio::test(start_paused = true)]
async fn a_question_to_a_member_is_not_a_dispatch_and_keeps_its_round_turn_1254() {
    let t = host_with(scenario());
    let (room, [_lead, dev1]) = team(&t).await;
    t.ok(None, "send", json!({"roomId": room, "text": "just ask"}))
        .await;
    until(&t, "the room settles", || {
        !t.host.rooms().run(&room, |r| r.running)
    })
    .await;
    let lines = t.host.rooms().lines(&room).unwrap();
    assert!(
        lines
            .iter()
            .any(|l| l.author_id == dev1 && l.text == "on it in the room"),
        "{lines:?}"
    );
    assert!(t.host.store().read(|s| s.tasks.is_empty()));
}
