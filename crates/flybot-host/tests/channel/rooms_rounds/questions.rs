//! Work handed out from a group (#550, #553): a room card's question shows
//! in the room in the asking Bot's voice, once, and the handed-out cards
//! show per Bot in the state view's `work`.

use crate::support::TestHost;
use flybot_agent::model::config::ProviderRegistry;
use flybot_agent::model::mock::{MockModel, Scenario};
use flybot_host::{Host, HostConfig};
use flybot_protocol::state::TaskStatus;
use flybot_store::{Store, StoreOptions};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

fn host_with(scenario: Value) -> TestHost {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), StoreOptions::default()).unwrap();
    let mut config = HostConfig::new(dir.path().to_owned());
    let scenario = Scenario::from_json(&scenario.to_string()).unwrap();
    config.models = Arc::new(ProviderRegistry::with_mock(MockModel::with_scenario(
        scenario,
    )));
    TestHost {
        host: Host::new(store, config),
        dir,
    }
}

/// Polls `done`; the paused clock steps only once the store's writes are
/// on disk.
async fn until(t: &TestHost, what: &str, mut done: impl FnMut() -> bool) {
    for _ in 0..2_000 {
        if done() {
            return;
        }
        t.host.store().saves_settled().await;
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("never: {what}");
}

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
