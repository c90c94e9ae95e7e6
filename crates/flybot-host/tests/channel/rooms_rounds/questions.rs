//! Work handed out from a group (#550, #553): a room card's question shows
//! in the room in the asking Bot's voice, once, and the handed-out cards
//! show per Bot in the state view's `work`.

use super::kit::{host_with, until};
use crate::support::TestHost;
use flybot_protocol::state::TaskStatus;
use serde_json::json;
use std::time::Duration;

const QUESTION: &str = "Question on \"Ask first\": Postgres or SQLite?";

#[tokio::test(start_paused = true)]
async fn a_room_cards_question_shows_in_the_room_once_and_the_work_view_lists_handed_out_cards_550_553()
 {
    let t = host_with(json!([
        {"when": {"userContains": "split", "step": 0},
         "reply": {"toolCalls": [{"name": "track_tasks", "arguments": {"tasks": [
             {"title": "Idle work", "assignee": "Dev1"},
             {"title": "Ask first", "assignee": "Dev2"}]}}]}},
        {"when": {"systemContains": "## You are Dev2\n", "userContains": "[Continue task]", "step": 0},
         "reply": {"toolCalls": [{"name": "track_tasks", "arguments": {"tasks": [
             {"title": "Ask first", "ask": "Postgres or SQLite?"}]}}]}},
        {"when": {"afterTool": "track_tasks"}, "reply": {"text": "Noted."}},
        {"reply": {"text": "[PASS]"}}
    ]));
    let lead = t.create_bot(None, "Lead").await;
    let dev1 = t.create_bot(None, "Dev1").await;
    let dev2 = t.create_bot(None, "Dev2").await;
    let room = t
        .ok(
            None,
            "create-room",
            json!({"name": "Ship", "members": [lead, dev1, dev2], "admin": lead}),
        )
        .await["room"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    t.ok(None, "send", json!({"roomId": room, "text": "split"}))
        .await;
    let asked = |t: &TestHost| {
        t.host
            .rooms()
            .lines(&room)
            .unwrap()
            .into_iter()
            .filter(|l| l.text == QUESTION)
            .collect::<Vec<_>>()
    };
    until(&t, "the question shows in the room", || {
        !asked(&t).is_empty()
    })
    .await;
    let line = &asked(&t)[0];
    assert_eq!(line.author_id, dev2, "in the asking Bot's voice");
    // More writes and wakes later: still one line for the one question.
    tokio::time::sleep(Duration::from_secs(5 * 60)).await;
    until(&t, "the room settles", || {
        !t.host.rooms().run(&room, |r| r.running)
    })
    .await;
    assert_eq!(asked(&t).len(), 1);

    let (status, state) = t.state(None).await;
    assert_eq!(status, 200);
    let handed = &state["work"]["handed"];
    let ask = &handed[&dev2][0];
    assert_eq!(ask["title"], "Ask first");
    assert_eq!(ask["roomId"], json!(room));
    assert_eq!(ask["status"], json!(TaskStatus::Blocked));
    assert_eq!(ask["waitingFor"], "input");
    assert_eq!(handed[&dev1][0]["title"], "Idle work");
    assert!(handed.get(&lead).is_none(), "{handed}");
}
