//! `post_to_group` (#557): a Bot posts its own line into a group it sits
//! in from its own chat, and that line opens a round there; a Bot speaking
//! in a room never posts into that same room (its reply is its line).

use super::kit::{host_with, until};
use crate::support::TestHost;
use flybot_agent::session::{ItemKind, SessionEvent, Source};
use serde_json::{Value, json};

fn tool_results(t: &TestHost, session: &str) -> Vec<String> {
    t.host
        .sessions()
        .transcript(session, 0)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|e| match e.event {
            SessionEvent::ToolResult { text, .. } => Some(text),
            _ => None,
        })
        .collect()
}

fn scenario() -> Value {
    json!([
        {"when": {"userContains": "post it", "step": 0},
         "reply": {"toolCalls": [{"name": "post_to_group", "arguments": {"group": "Build", "text": "@Bo please look"}}]}},
        {"when": {"userContains": "loop it", "step": 0},
         "reply": {"toolCalls": [{"name": "post_to_group", "arguments": {"group": "Build", "text": "again"}}]}},
        {"when": {"afterTool": "*"}, "reply": {"text": "done"}},
        {"reply": {"text": "looked"}}
    ])
}

async fn room(t: &TestHost) -> (String, String, String) {
    let ada = t.create_bot(None, "Ada").await;
    let bo = t.create_bot(None, "Bo").await;
    let room = t
        .ok(
            None,
            "create-room",
            json!({"name": "Build", "members": [ada, bo], "admin": bo}),
        )
        .await;
    (room["room"]["id"].as_str().unwrap().to_owned(), ada, bo)
}

#[tokio::test(start_paused = true)]
async fn post_to_group_from_an_own_chat_opens_a_round_in_the_group_557() {
    let t = host_with(scenario());
    let (room, ada, bo) = room(&t).await;
    let own = t.host.store().read(|s| s.bots[&ada].session_id.clone());
    t.host
        .sessions()
        .deliver(
            &own,
            "post it",
            Source::User { member_id: None },
            ItemKind::NextTurn,
        )
        .unwrap();
    until(&t, "Bo answers the post in the group", || {
        t.host
            .rooms()
            .lines(&room)
            .unwrap()
            .iter()
            .any(|l| l.author_id == bo && l.text == "looked")
    })
    .await;
    let lines = t.host.rooms().lines(&room).unwrap();
    assert_eq!(lines[0].author_id, ada);
    assert_eq!(lines[0].text, "@Bo please look");
    assert_eq!(lines[0].hop, 1);
    assert!(tool_results(&t, &own).contains(&"Posted to the group.".to_owned()));
}

#[tokio::test(start_paused = true)]
async fn a_bot_never_posts_into_the_room_it_is_speaking_in_557() {
    let t = host_with(scenario());
    let (room, _ada, bo) = room(&t).await;
    t.ok(None, "send", json!({"roomId": room, "text": "loop it"}))
        .await;
    until(&t, "the room settles", || {
        !t.host.rooms().run(&room, |r| r.running)
    })
    .await;
    let seat = t
        .host
        .store()
        .read(|s| s.rooms[&room].sessions[&bo].clone());
    let results = tool_results(&t, &seat);
    assert!(
        results
            .iter()
            .any(|r| r.contains("do not post_to_group into it")),
        "{results:?}"
    );
    let lines = t.host.rooms().lines(&room).unwrap();
    assert!(!lines.iter().any(|l| l.text == "again"), "{lines:?}");
}
