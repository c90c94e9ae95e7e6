//! Work handed out from a group (#550, #553): a room card's question shows
//! in the room in the asking Bot's voice, once, and the handed-out cards
//! show per Bot in the state view's `work`; work handed over with
//! `message_bot` runs hidden in the Bot's own chat and its reply goes back
//! to the group (`handed`); a question on it waits in the group's dock and
//! is answered or dismissed there (`dock`).

mod dock;
mod handed;
mod work_view;

use flybot_protocol::state::TaskStatus;
use flybot_testkit::Kit;
use serde_json::json;
use std::time::Duration;

const QUESTION: &str = "Question on \"Ask first\": Postgres or SQLite?";

#[tokio::test(start_paused = true)]
/// Rules #550, #553.
async fn a_room_cards_question_shows_in_the_room_once_and_the_work_view_lists_handed_out_cards() {
    let kit = Kit::scripted(json!([
        {"when": {"userContains": "split", "step": 0},
         "reply": {"toolCalls": [{"name": "track_tasks", "arguments": {"tasks": [
             {"title": "Idle work", "assignee": "Dev1"},
             {"title": "Ask first", "assignee": "Dev2"}]}}]}},
        {"when": {"systemContains": "## You are Dev2\n", "userContains": "[Continue task]", "step": 0},
         "reply": {"toolCalls": [{"name": "track_tasks", "arguments": {"tasks": [
             {"title": "Ask first", "ask": "Postgres or SQLite?"}]}}]}},
        {"when": {"afterTool": "track_tasks"}, "reply": {"text": "Noted."}},
        {"reply": {"text": "[PASS]"}}
    ]))
    .await;
    let [lead, dev1, dev2] = kit.bots(["Lead", "Dev1", "Dev2"]).await;
    let room = kit.room("Ship", &[&lead, &dev1, &dev2]).await;
    kit.ok("send", json!({"roomId": room.id, "text": "split"}))
        .await;
    let asked = |kit: &Kit| {
        kit.room_lines(&room)
            .into_iter()
            .filter(|l| l.text == QUESTION)
            .collect::<Vec<_>>()
    };
    kit.until("the question shows in the room", || !asked(&kit).is_empty())
        .await;
    let line = &asked(&kit)[0];
    assert_eq!(line.author_id, dev2.id, "in the asking Bot's voice");
    // More writes and wakes later: still one line for the one question.
    tokio::time::sleep(Duration::from_secs(5 * 60)).await;
    kit.round_ended(&room).await;
    assert_eq!(asked(&kit).len(), 1);

    let (status, state) = kit.state().await;
    assert_eq!(status, 200);
    let handed = &state["work"]["handed"];
    let ask = &handed[&dev2.id][0];
    assert_eq!(ask["title"], "Ask first");
    assert_eq!(ask["roomId"], json!(room.id));
    assert_eq!(ask["status"], json!(TaskStatus::Blocked));
    assert_eq!(ask["waitingFor"], "input");
    assert_eq!(handed[&dev1.id][0]["title"], "Idle work");
    assert!(handed.get(&lead.id).is_none(), "{handed}");
}
