//! A dispatch is a board assign (#1254): the lead's "@Dev1 fix #12" opens
//! that member's card through the task rules and the task drive wakes it in
//! its own chat; the member takes no round turn for it. A line that is not
//! a dispatch (a question) keeps the round's call.

use flybot_core::rooms::log::LineKind;
use flybot_protocol::state::TaskStatus;
use flybot_testkit::{Bot, Kit, Room};
use serde_json::{Value, json};

/// Lead (admin) and Dev1 in "Ship".
async fn team(kit: &Kit) -> (Room, [Bot; 2]) {
    let [lead, dev1] = kit.bots(["Lead", "Dev1"]).await;
    let room = kit.room("Ship", &[&lead, &dev1]).await;
    (room, [lead, dev1])
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
/// Rule #1254.
async fn the_leads_dispatch_line_is_a_board_assign_that_wakes_the_member_in_its_own_chat() {
    let kit = Kit::scripted(scenario()).await;
    let (room, [lead, dev1]) = team(&kit).await;
    kit.ok("send", json!({"roomId": room.id, "text": "hand it out"}))
        .await;
    kit.until("Dev1 is woken in its own chat", || {
        kit.user_texts(&dev1.session)
            .iter()
            .any(|x| x.starts_with("[Continue task]"))
    })
    .await;
    kit.round_ended(&room).await;
    let cards: Vec<_> = kit
        .host
        .store()
        .read(|s| s.tasks.values().cloned().collect());
    let card = cards.iter().find(|c| c.bot_id == dev1.id).unwrap();
    assert!(card.title.contains("#12"), "{}", card.title);
    assert_eq!(card.room_id.as_deref(), Some(room.id.as_str()));
    assert_ne!(card.status, TaskStatus::Open);
    // Dev1 took no round turn: its seat's Session never ran, and it has no
    // chat line in the room (the claim line is its voice, not a turn).
    assert!(kit.user_texts(&kit.seat(&room, &dev1)).is_empty());
    let lines = kit.room_lines(&room);
    assert!(
        !lines
            .iter()
            .any(|l| l.author_id == dev1.id && l.kind == LineKind::Chat),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.author_id == lead.id && l.text.contains("fix #12"))
    );
}

#[tokio::test(start_paused = true)]
/// Rule #1254.
async fn a_question_to_a_member_is_not_a_dispatch_and_keeps_its_round_turn() {
    let kit = Kit::scripted(scenario()).await;
    let (room, [_lead, dev1]) = team(&kit).await;
    kit.ok("send", json!({"roomId": room.id, "text": "just ask"}))
        .await;
    kit.round_ended(&room).await;
    let lines = kit.room_lines(&room);
    assert!(
        lines
            .iter()
            .any(|l| l.author_id == dev1.id && l.text == "on it in the room"),
        "{lines:?}"
    );
    assert!(kit.host.store().read(|s| s.tasks.is_empty()));
}
