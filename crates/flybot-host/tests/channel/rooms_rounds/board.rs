//! Work driven by the board, in process (issue 5): `track_tasks` from a
//! room seat and from an own chat, the claim line (#1253), and the task
//! drive's wakes and waits (#1109, #1205) on the in-process mock model
//! following a scenario.

use super::kit::{host_with, until};
use crate::support::TestHost;
use flybot_agent::session::SessionEvent;
use flybot_host::board::drive::Pass;
use flybot_protocol::state::{Task, TaskStatus};
use serde_json::{Value, json};
use std::time::Duration;

/// Lead (admin), Dev1 and Dev2 in one room.
async fn team(t: &TestHost) -> (String, [String; 3]) {
    let lead = t.create_bot(None, "Lead").await;
    let dev1 = t.create_bot(None, "Dev1").await;
    let dev2 = t.create_bot(None, "Dev2").await;
    let room = t
        .ok(
            None,
            "create-room",
            json!({"name": "Ship", "members": [lead, dev1, dev2], "admin": lead}),
        )
        .await;
    let id = room["room"]["id"].as_str().unwrap().to_owned();
    (id, [lead, dev1, dev2])
}

fn tasks(t: &TestHost) -> Vec<Task> {
    t.host.store().read(|s| s.tasks.values().cloned().collect())
}

fn session_of(t: &TestHost, bot: &str) -> String {
    t.host.store().read(|s| s.bots[bot].session_id.clone())
}

/// The texts delivered to a Session that carry the wake header.
fn wakes(t: &TestHost, session: &str) -> usize {
    t.host
        .sessions()
        .transcript(session, 0)
        .unwrap()
        .iter()
        .filter(|e| {
            matches!(&e.event, SessionEvent::UserMessage { text, .. } if text.starts_with("[Continue task]"))
        })
        .count()
}

fn finish(bot: &str, title: &str, note: &str) -> Value {
    json!({"when": {"systemContains": format!("## You are {bot}\n"), "userContains": "[Continue task]", "step": 0},
           "reply": {"toolCalls": [{"name": "track_tasks", "arguments": {"tasks": [
               {"title": title, "column": "done", "progress": 100, "note": note}]}}]}})
}

#[tokio::test(start_paused = true)]
async fn the_lead_assigns_two_subtasks_that_wake_the_assignees_and_the_overall_card_settles_1182_1205_1253()
 {
    let t = host_with(json!([
        {"when": {"systemContains": "## You are Lead\n", "userContains": "split the work", "step": 0},
         "reply": {"toolCalls": [{"name": "track_tasks", "arguments": {"tasks": [
             {"title": "Ship v1", "overall": true},
             {"title": "Build API #12", "assignee": "Dev1", "note": "write the handler"},
             {"title": "Build UI", "assignee": "Dev2", "note": "draw the page"}]}}]}},
        finish("Dev1", "Build API #12", "handler merged"),
        finish("Dev2", "Build UI", "page done"),
        {"when": {"afterTool": "track_tasks"}, "reply": {"text": "On the board."}},
        {"reply": {"text": "[PASS]"}}
    ]));
    let (room, [lead, dev1, dev2]) = team(&t).await;
    t.ok(
        None,
        "send",
        json!({"roomId": room, "text": "split the work"}),
    )
    .await;
    until(&t, "the overall card settles", || {
        tasks(&t)
            .iter()
            .any(|c| c.title == "Ship v1" && c.status == TaskStatus::Accepted)
    })
    .await;
    let cards = tasks(&t);
    let api = cards.iter().find(|c| c.title == "Build API #12").unwrap();
    assert_eq!(api.bot_id, dev1);
    assert_eq!(api.status, TaskStatus::Accepted);
    let ui = cards.iter().find(|c| c.title == "Build UI").unwrap();
    assert_eq!(ui.bot_id, dev2);
    // Each assignee was woken in its own chat, once, with its own card.
    assert_eq!(wakes(&t, &session_of(&t, &dev1)), 1);
    assert_eq!(wakes(&t, &session_of(&t, &dev2)), 1);
    assert_eq!(wakes(&t, &session_of(&t, &lead)), 0);
    until(&t, "the room settles", || {
        !t.host.rooms().run(&room, |r| r.running)
    })
    .await;
    let lines = t.host.rooms().lines(&room).unwrap();
    let said: Vec<(String, String)> = lines
        .iter()
        .map(|l| (l.author_id.clone(), l.text.clone()))
        .collect();
    // The claims are in the members' voices; no round opened for them.
    assert!(
        said.contains(&(dev1.clone(), "接了 #12，第一步是 write the handler".into())),
        "{said:?}"
    );
    assert!(
        said.contains(&(dev2.clone(), "接了 Build UI，第一步是 draw the page".into())),
        "{said:?}"
    );
    assert!(
        said.contains(&(lead.clone(), "On the board.".into())),
        "{said:?}"
    );
    assert_eq!(lines.len(), 4, "{said:?}");
}

#[tokio::test(start_paused = true)]
async fn a_wake_that_changed_nothing_waits_30s_then_2min_and_a_card_waiting_on_an_answer_never_wakes_1109()
 {
    let t = host_with(json!([
        {"when": {"systemContains": "## You are Lead\n", "userContains": "split", "step": 0},
         "reply": {"toolCalls": [{"name": "track_tasks", "arguments": {"tasks": [
             {"title": "Idle work", "assignee": "Dev1"},
             {"title": "Ask first", "assignee": "Dev2"}]}}]}},
        {"when": {"systemContains": "## You are Dev2\n", "userContains": "[Continue task]", "step": 0},
         "reply": {"toolCalls": [{"name": "track_tasks", "arguments": {"tasks": [
             {"title": "Ask first", "ask": "Postgres or SQLite?"}]}}]}},
        {"when": {"afterTool": "track_tasks"}, "reply": {"text": "Noted."}},
        {"when": {"systemContains": "## You are Dev1\n", "userContains": "[Continue task]"},
         "reply": {"text": "Still thinking."}},
        {"reply": {"text": "[PASS]"}}
    ]));
    let (room, [_lead, dev1, dev2]) = team(&t).await;
    let (s1, s2) = (session_of(&t, &dev1), session_of(&t, &dev2));
    t.ok(None, "send", json!({"roomId": room, "text": "split"}))
        .await;
    let drive = t.host.task_drive();
    until(&t, "the first wake waits", || {
        drive
            .wait_of(&s1, Pass::Work)
            .is_some_and(|w| w.strikes == 1)
    })
    .await;
    let first = drive.wait_of(&s1, Pass::Work).unwrap();
    assert!(first.until - drive.now() <= 30_000);
    assert_eq!(wakes(&t, &s1), 1);
    tokio::time::sleep(Duration::from_secs(20)).await;
    assert_eq!(wakes(&t, &s1), 1, "woken inside the 30 s wait");
    until(&t, "the second wake waits 2 min", || {
        drive
            .wait_of(&s1, Pass::Work)
            .is_some_and(|w| w.strikes == 2)
    })
    .await;
    assert_eq!(wakes(&t, &s1), 2);
    let second = drive.wait_of(&s1, Pass::Work).unwrap();
    assert!(second.until - drive.now() > 60_000);
    // Dev2 asked once; its card waits on the answer and is never woken again.
    tokio::time::sleep(Duration::from_secs(40 * 60)).await;
    assert_eq!(wakes(&t, &s2), 1);
    let ask = tasks(&t)
        .into_iter()
        .find(|c| c.title == "Ask first")
        .unwrap();
    assert_eq!(ask.status, TaskStatus::Blocked);
}

#[tokio::test(start_paused = true)]
async fn a_decision_comment_wakes_its_bot_at_most_twice_1172() {
    let t = host_with(json!([{"reply": {"text": "Later."}}]));
    let bot = t.create_bot(None, "Dev1").await;
    let session = session_of(&t, &bot);
    let created = t
        .ok(
            None,
            "task-create",
            json!({"botId": bot, "title": "Fix the login", "target": "acme/app#42"}),
        )
        .await;
    let id = created["task"]["id"].as_str().unwrap().to_owned();
    for endpoint in ["task-accept", "task-start"] {
        t.ok(None, endpoint, json!({"id": id})).await;
    }
    t.ok(None, "task-return", json!({"id": id, "summary": "Fixed."}))
        .await;
    t.ok(None, "task-accept-result", json!({"id": id})).await;
    let reminders = |t: &TestHost| {
        t.host
            .sessions()
            .transcript(&session, 0)
            .unwrap()
            .iter()
            .filter(|e| {
                matches!(&e.event, SessionEvent::UserMessage { text, .. } if text.contains("Post the decision comment"))
            })
            .count()
    };
    until(&t, "the first reminder", || reminders(&t) == 1).await;
    tokio::time::sleep(Duration::from_secs(60 * 60)).await;
    assert_eq!(reminders(&t), 2, "reminders stop after two");
}
