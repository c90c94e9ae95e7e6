//! Work driven by the board, in process (issue 5): `track_tasks` from a
//! room seat and from an own chat, the claim line (#1253), and the task
//! drive's wakes and waits (#1109, #1205) on the in-process mock model
//! following a scenario.

use flybot_core::rooms::WAKE_BACKOFF_MS;
use flybot_host::board::drive::Pass;
use flybot_protocol::state::{Task, TaskStatus};
use flybot_testkit::{Bot, Kit, Room};
use serde_json::{Value, json};
use std::time::Duration;

/// Lead (admin), Dev1 and Dev2 in one room.
async fn team(kit: &Kit) -> (Room, [Bot; 3]) {
    let [lead, dev1, dev2] = kit.bots(["Lead", "Dev1", "Dev2"]).await;
    let room = kit.room("Ship", &[&lead, &dev1, &dev2]).await;
    (room, [lead, dev1, dev2])
}

fn tasks(kit: &Kit) -> Vec<Task> {
    kit.host
        .store()
        .read(|s| s.tasks.values().cloned().collect())
}

/// The texts delivered to a Session that carry the wake header.
fn wakes(kit: &Kit, session: &str) -> usize {
    kit.user_texts(session)
        .iter()
        .filter(|text| text.starts_with("[Continue task]"))
        .count()
}

fn finish(bot: &str, title: &str, note: &str) -> Value {
    json!({"when": {"systemContains": format!("## You are {bot}\n"), "userContains": "[Continue task]", "step": 0},
           "reply": {"toolCalls": [{"name": "track_tasks", "arguments": {"tasks": [
               {"title": title, "column": "done", "progress": 100, "note": note}]}}]}})
}

#[tokio::test(start_paused = true)]
/// Rules #1182, #1205, #1253.
async fn the_lead_assigns_two_subtasks_that_wake_the_assignees_and_the_overall_card_settles() {
    let kit = Kit::scripted(json!([
        {"when": {"systemContains": "## You are Lead\n", "userContains": "split the work", "step": 0},
         "reply": {"toolCalls": [{"name": "track_tasks", "arguments": {"tasks": [
             {"title": "Ship v1", "overall": true},
             {"title": "Build API #12", "assignee": "Dev1", "note": "write the handler"},
             {"title": "Build UI", "assignee": "Dev2", "note": "draw the page"}]}}]}},
        finish("Dev1", "Build API #12", "handler merged"),
        finish("Dev2", "Build UI", "page done"),
        {"when": {"afterTool": "track_tasks"}, "reply": {"text": "On the board."}},
        {"reply": {"text": "[PASS]"}}
    ]))
    .await;
    let (room, [lead, dev1, dev2]) = team(&kit).await;
    kit.ok("send", json!({"roomId": room.id, "text": "split the work"}))
        .await;
    kit.until("the overall card settles", || {
        tasks(&kit)
            .iter()
            .any(|c| c.title == "Ship v1" && c.status == TaskStatus::Accepted)
    })
    .await;
    let cards = tasks(&kit);
    let api = cards.iter().find(|c| c.title == "Build API #12").unwrap();
    assert_eq!(api.bot_id, dev1.id);
    assert_eq!(api.status, TaskStatus::Accepted);
    let ui = cards.iter().find(|c| c.title == "Build UI").unwrap();
    assert_eq!(ui.bot_id, dev2.id);
    // Each assignee was woken in its own chat, once, with its own card.
    assert_eq!(wakes(&kit, &dev1.session), 1);
    assert_eq!(wakes(&kit, &dev2.session), 1);
    assert_eq!(wakes(&kit, &lead.session), 0);
    kit.round_ended(&room).await;
    let lines = kit.room_lines(&room);
    let said: Vec<(String, String)> = lines
        .iter()
        .map(|l| (l.author_id.clone(), l.text.clone()))
        .collect();
    // The claims are in the members' voices; no round opened for them.
    assert!(
        said.contains(&(
            dev1.id.clone(),
            "接了 #12，第一步是 write the handler".into()
        )),
        "{said:?}"
    );
    assert!(
        said.contains(&(
            dev2.id.clone(),
            "接了 Build UI，第一步是 draw the page".into()
        )),
        "{said:?}"
    );
    assert!(
        said.contains(&(lead.id.clone(), "On the board.".into())),
        "{said:?}"
    );
    assert_eq!(lines.len(), 4, "{said:?}");
}

#[tokio::test(start_paused = true)]
/// Rule #1109.
async fn a_wake_that_changed_nothing_waits_30s_then_2min_and_a_card_waiting_on_an_answer_never_wakes()
 {
    let kit = Kit::scripted(json!([
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
    ]))
    .await;
    let (room, [_lead, dev1, dev2]) = team(&kit).await;
    let (s1, s2) = (dev1.session, dev2.session);
    kit.ok("send", json!({"roomId": room.id, "text": "split"}))
        .await;
    let drive = kit.host.task_drive();
    // The paused clock may jump to the next timer whenever the store's
    // writer thread fsyncs, so the test may look only after a later wake.
    // The waits are read from the drive's own stamps instead: each wait
    // starts when its wake's turn ended, which is not before the previous
    // wait ran out, so between two looks the wait's end moves on by at
    // least every wait in between (30 s, 2 min, 10 min, 30 min).
    let look = async |after: u32| {
        kit.until("a wake that changed nothing", || {
            drive
                .wait_of(&s1, Pass::Work)
                .is_some_and(|w| w.strikes > after)
        })
        .await;
        drive.wait_of(&s1, Pass::Work).unwrap()
    };
    let wait =
        |strikes: u32| WAKE_BACKOFF_MS[(strikes as usize - 1).min(WAKE_BACKOFF_MS.len() - 1)];
    let first = look(0).await;
    assert!(first.until.saturating_sub(drive.now()) <= wait(first.strikes));
    let later = look(first.strikes).await;
    let between: u64 = (first.strikes + 1..=later.strikes).map(wait).sum();
    assert!(
        later.until >= first.until + between,
        "woken inside a wait: strike {} waits until {}, strike {} until {}",
        later.strikes,
        later.until,
        first.strikes,
        first.until
    );
    let woken = wakes(&kit, &s1);
    assert!(woken >= later.strikes as usize, "{woken} wakes");
    // Dev2 asked once; its card waits on the answer and is never woken again.
    tokio::time::sleep(Duration::from_secs(40 * 60)).await;
    assert_eq!(wakes(&kit, &s2), 1);
    let ask = tasks(&kit)
        .into_iter()
        .find(|c| c.title == "Ask first")
        .unwrap();
    assert_eq!(ask.status, TaskStatus::Blocked);
}

#[tokio::test(start_paused = true)]
/// Rule #1172.
async fn a_decision_comment_wakes_its_bot_at_most_twice() {
    let kit = Kit::scripted(json!([{"reply": {"text": "Later."}}])).await;
    let bot = kit.bot("Dev1").await;
    let id = kit
        .card_from(json!({"botId": bot.id, "title": "Fix the login", "target": "acme/app#42"}))
        .await;
    for endpoint in ["task-accept", "task-start"] {
        kit.ok(endpoint, json!({"id": id})).await;
    }
    kit.ok("task-return", json!({"id": id, "summary": "Fixed."}))
        .await;
    kit.ok("task-accept-result", json!({"id": id})).await;
    let reminders = |kit: &Kit| {
        kit.user_texts(&bot.session)
            .iter()
            .filter(|text| text.contains("Post the decision comment"))
            .count()
    };
    // The paused clock may jump to the drive's next timer while the writer
    // thread fsyncs, so the second reminder may already be out when the
    // test looks: the cap is what is asserted, after an hour.
    kit.until("the first reminder", || reminders(&kit) >= 1)
        .await;
    // Each reminder that went out is counted on the card, so the cap
    // holds after a restart (the drive's own count is process memory).
    let wakes = |kit: &Kit| {
        kit.host.team().read(|s| {
            flybot_protocol::task::TaskFields::read(&s.tasks[&id])
                .write_back
                .map(|wb| wb.wakes)
        })
    };
    kit.until("the first reminder is counted", || {
        wakes(&kit).is_some_and(|n| n >= 1)
    })
    .await;
    tokio::time::sleep(Duration::from_secs(60 * 60)).await;
    assert_eq!(reminders(&kit), 2, "reminders stop after two");
    assert_eq!(wakes(&kit), Some(2));
}

/// `boardCoversCue` (#1109): the lead's @ of a member whose open card
/// already says the line is a pass with no model turn; its question still
/// gets one.
#[tokio::test(start_paused = true)]
/// Rule #1109.
async fn a_bots_at_that_the_members_card_already_says_costs_no_model_turn() {
    let kit = Kit::scripted(json!([
        {"when": {"systemContains": "## You are Lead\n", "userContains": "check in", "step": 0},
         "reply": {"text": "@Dev1 what is the status?"}},
        {"when": {"systemContains": "## You are Lead\n", "userContains": "plan it", "step": 0},
         "reply": {"toolCalls": [{"name": "track_tasks", "arguments": {"tasks": [
             {"title": "Build API #12", "assignee": "Dev1", "note": "write the handler"}]}}]}},
        {"when": {"systemContains": "## You are Lead\n", "afterTool": "track_tasks"},
         "reply": {"text": "@Dev1 write the handler"}},
        {"when": {"systemContains": "## You are Dev1\n", "userContains": "[Continue task]"},
         "reply": {"text": "On it."}},
        {"when": {"systemContains": "## You are Dev1\n", "userContains": "status"},
         "reply": {"text": "Halfway there."}},
        {"reply": {"text": "[PASS]"}}
    ]))
    .await;
    let (room, [lead, dev1, _dev2]) = team(&kit).await;
    let group = kit
        .host
        .store()
        .read(|s| s.rooms[&room.id].sessions[&dev1.id].clone());
    kit.ok("send", json!({"roomId": room.id, "text": "@Lead plan it"}))
        .await;
    kit.round_ended(&room).await;
    let said = |kit: &Kit| -> Vec<(String, String)> {
        kit.room_lines(&room)
            .iter()
            .map(|l| (l.author_id.clone(), l.text.clone()))
            .collect()
    };
    assert!(
        said(&kit).contains(&(lead.id.clone(), "@Dev1 write the handler".into())),
        "{:?}",
        said(&kit)
    );
    assert!(
        kit.user_texts(&group).is_empty(),
        "a covered @ starts no turn: {:?}",
        kit.user_texts(&group)
    );
    // A question is not covered: Dev1 answers it in the room.
    kit.ok("send", json!({"roomId": room.id, "text": "@Lead check in"}))
        .await;
    kit.round_ended(&room).await;
    assert_eq!(kit.user_texts(&group).len(), 1);
    assert!(
        said(&kit).contains(&(dev1.id.clone(), "Halfway there.".into())),
        "{:?}",
        said(&kit)
    );
}
