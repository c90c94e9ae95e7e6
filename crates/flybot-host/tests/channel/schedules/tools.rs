//! The Bots' schedule tools in real turns (the mock's script): a Bot makes
//! and lists a task on its own chat, `bot_schedules` answers Bot-wide and
//! says so (#628), and a room's member turn carries none of them (#1237).

use flybot_testkit::Kit;
use serde_json::json;

const SCRIPT: &str = r#"[
  {"when": {"userContains": "make one", "step": 0},
   "reply": {"toolCalls": [{"name": "schedule_create", "arguments": {"title": "Water", "prompt": "Water the plants.", "when": {"kind": "every", "seconds": 3600}}}]}},
  {"when": {"userContains": "list all", "step": 0},
   "reply": {"toolCalls": [{"name": "bot_schedules", "arguments": {}}]}},
  {"when": {"userContains": "in the room", "step": 0},
   "reply": {"toolCalls": [{"name": "schedule_list", "arguments": {}}]}},
  {"reply": {"text": "done"}}
]"#;

#[tokio::test]
/// Rules #354, #628.
async fn schedule_tools_make_a_task_on_the_own_chat_and_list_it_bot_wide() {
    let kit = Kit::scripted(serde_json::from_str(SCRIPT).unwrap()).await;
    let [ada, bo] = kit.bots(["Ada", "Bo"]).await;
    let room = kit.room("Build", &[&ada, &bo]).await;
    kit.ok(
        "schedule-create",
        json!({"roomId": room.id, "title": "Sync", "prompt": "p",
                                     "when": {"kind": "every", "seconds": 600}}),
    )
    .await;
    kit.say(&ada.session, "make one");
    kit.idle(&ada.session).await;
    let list = kit.ok("schedules", json!({"botId": ada.id})).await;
    assert_eq!(list["schedules"].as_array().unwrap().len(), 1);
    assert_eq!(list["schedules"][0]["title"], "Water");
    assert_eq!(list["schedules"][0]["sessionId"], ada.session.as_str());
    kit.say(&ada.session, "list all");
    kit.idle(&ada.session).await;
    let results = kit.tool_results(&ada.session);
    let (text, is_error) = results.last().unwrap();
    assert!(!is_error, "{text}");
    assert!(text.starts_with("Bot-wide:"), "{text}");
    assert!(
        text.contains("Water") && text.contains("Sync"),
        "its own chat and its room: {text}"
    );
}

#[tokio::test]
/// Rule #1237.
async fn schedule_tools_are_not_given_to_a_rooms_member_turn() {
    let kit = Kit::scripted(serde_json::from_str(SCRIPT).unwrap()).await;
    let [ada, bo] = kit.bots(["Ada", "Bo"]).await;
    let room = kit.room("Build", &[&ada, &bo]).await;
    kit.ok(
        "send",
        json!({"roomId": room.id, "text": "@Ada list yours in the room"}),
    )
    .await;
    kit.round_ended(&room).await;
    let seat = kit.seat(&room, &ada);
    let results = kit.tool_results(&seat);
    assert_eq!(results.len(), 1, "{results:?}");
    let (text, is_error) = &results[0];
    assert!(is_error);
    assert!(text.contains("not available in a group room"), "{text}");
}
