//! The scheduler on paused time (#354, #378, #473, #1166): a due task is a
//! `schedule`-source turn in its chat or the room's round, its last run is
//! recorded, quiet hours hold a run, automation can be off, and a host
//! stopped across two due times runs exactly one missed run after start.

use super::{BASE, every, row, settled_run, timed_kit};
use flybot_agent::session::{SessionEvent, Source};
use flybot_testkit::{Kit, ManualClock};
use serde_json::json;
use std::time::Duration;

/// The task ids of the Session's `schedule`-source messages, oldest first.
fn schedule_messages(kit: &Kit, session: &str) -> Vec<(String, String)> {
    kit.transcript(session)
        .into_iter()
        .filter_map(|event| match event {
            SessionEvent::UserMessage {
                source: Source::Schedule { task_id },
                text,
                ..
            } => Some((task_id, text)),
            _ => None,
        })
        .collect()
}

#[tokio::test(start_paused = true)]
/// Rule #473.
async fn a_due_task_runs_as_a_schedule_turn_in_its_chat_and_records_ran() {
    let (kit, clock) = timed_kit(None).await;
    let ada = kit.bot("Ada").await;
    let task = every(&kit, &ada.id, 60).await;
    let id = task["id"].as_str().unwrap();
    kit.advance(&clock, Duration::from_secs(60));
    let last = settled_run(&kit, id).await;
    assert_eq!(last["result"], "ran");
    assert_eq!(last.get("missed"), None);
    let messages = schedule_messages(&kit, &ada.session);
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].0, id);
    assert_eq!(
        messages[0].1,
        format!("[Scheduled task \"Standup\" ({id})]\nPost the standup.")
    );
    let next = row(&kit, id).await["nextRunAt"].as_u64().unwrap();
    assert_eq!(next, task["nextRunAt"].as_u64().unwrap() + 60_000);
}

#[tokio::test(start_paused = true)]
/// Rule #473.
async fn a_failed_turn_records_failed_with_the_turns_error() {
    let (kit, clock) = timed_kit(Some(
        json!([{"fail": {"status": 401, "code": "invalid_api_key"}}]),
    ))
    .await;
    let ada = kit.bot("Ada").await;
    let id = every(&kit, &ada.id, 60).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    kit.advance(&clock, Duration::from_secs(60));
    let last = settled_run(&kit, &id).await;
    assert_eq!(last["result"], "failed");
    assert!(!last["reason"].as_str().unwrap().is_empty());
}

#[tokio::test(start_paused = true)]
/// Rule #473.
async fn a_task_that_cannot_be_delivered_fails_once_per_time_in_the_ended_turns() {
    let (kit, clock) = timed_kit(None).await;
    let [_, bo] = kit.bots(["Ada", "Bo"]).await;
    let id = every(&kit, &bo.id, 60).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    kit.ok("retire-bot", json!({"id": bo.id})).await;
    kit.advance(&clock, Duration::from_secs(60));
    let last = settled_run(&kit, &id).await;
    assert_eq!(last["result"], "failed");
    assert_eq!(
        last["reason"],
        "Scheduled task \"Standup\" was not delivered"
    );
    let ended = kit.host.sessions().ended_turns();
    let noted: Vec<_> = ended
        .iter()
        .filter(|t| t.session_id == bo.session)
        .collect();
    assert_eq!(noted.len(), 1);
    assert_eq!(
        noted[0].failed.as_deref(),
        Some("Scheduled task \"Standup\" was not delivered")
    );
    assert!(schedule_messages(&kit, &bo.session).is_empty());
}

#[tokio::test(start_paused = true)]
/// Rule #473.
async fn a_group_task_runs_the_rooms_round_with_its_prompt() {
    let (kit, clock) = timed_kit(None).await;
    let [ada, bo] = kit.bots(["Ada", "Bo"]).await;
    let room = kit.room("Build", &[&ada, &bo]).await;
    let task = kit
        .ok(
            "schedule-create",
            json!({"roomId": room.id, "title": "Sync", "prompt": "@all say where you are.",
                                      "when": {"kind": "every", "seconds": 60}}),
        )
        .await;
    let id = task["schedule"]["id"].as_str().unwrap().to_owned();
    assert_eq!(task["schedule"]["roomId"], room.id.as_str());
    kit.advance(&clock, Duration::from_secs(60));
    let last = settled_run(&kit, &id).await;
    assert_eq!(last["result"], "ran");
    let lines = kit.room_lines(&room);
    assert_eq!(
        lines[0].text,
        format!("[Scheduled task \"Sync\" ({id})]\n@all say where you are.")
    );
    assert!(
        !kit.said(&room, &ada).is_empty(),
        "the room's round ran: {lines:?}"
    );
}

#[tokio::test(start_paused = true)]
/// Rule #1166.
async fn quiet_hours_hold_a_due_run_record_it_and_run_once_at_the_windows_end() {
    let (kit, clock) = timed_kit(None).await;
    let ada = kit.bot("Ada").await;
    kit.ok(
        "set-prefs",
        json!({"prefs": {"quietHours": {"on": true, "from": "10:00", "to": "10:05"}}}),
    )
    .await;
    let id = every(&kit, &ada.id, 60).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // 10:01 to 10:04 fall inside the window: each is held and recorded.
    for minute in 1..=4 {
        kit.advance(&clock, Duration::from_secs(60));
        kit.until_some(&format!("{minute} runs suppressed"), async || {
            (row(&kit, &id).await["suppressed"] == minute).then_some(())
        })
        .await;
        if minute == 2 {
            // A person's direct line inside the window is never held.
            kit.say(&ada.session, "are you there?");
            kit.turns_ended(&ada.session, 1).await;
        }
    }
    assert!(
        schedule_messages(&kit, &ada.session).is_empty(),
        "held, not fired"
    );
    let (_, state) = kit.state().await;
    assert_eq!(state["automation"]["suppressed"], 4);
    let held = row(&kit, &id).await;
    assert_eq!(held["heldUntil"], BASE + 300_000);
    // 10:05, the window's end: the held run goes, once.
    kit.advance(&clock, Duration::from_secs(60));
    let last = settled_run(&kit, &id).await;
    assert_eq!(last["result"], "ran");
    kit.settled().await;
    assert_eq!(
        schedule_messages(&kit, &ada.session).len(),
        1,
        "the held run, once"
    );
    assert_eq!(row(&kit, &id).await["nextRunAt"], BASE + 360_000);
}

#[tokio::test(start_paused = true)]
/// Rule #378.
async fn automation_tasks_off_runs_nothing_and_the_view_says_so() {
    let clock = ManualClock::at(BASE);
    let kit = Kit::with_config(|config| {
        config.schedule_clock = clock.schedule_clock();
        config.automation_tasks = false;
    })
    .await;
    let ada = kit.bot("Ada").await;
    let id = every(&kit, &ada.id, 60).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    kit.advance(&clock, Duration::from_secs(600));
    kit.settled().await;
    assert!(schedule_messages(&kit, &ada.session).is_empty());
    assert_eq!(row(&kit, &id).await.get("lastRun"), None);
    let (_, state) = kit.state().await;
    assert_eq!(state["automation"]["tasks"], false);
    let list = kit.ok("schedules", json!({})).await;
    assert_eq!(list["automation"], false);
}

#[tokio::test(start_paused = true)]
/// Rule #473.
async fn retry_sends_the_prompt_once_now_and_leaves_the_tasks_times() {
    let (kit, _clock) = timed_kit(None).await;
    let ada = kit.bot("Ada").await;
    let task = every(&kit, &ada.id, 3600).await;
    let id = task["id"].as_str().unwrap();
    let retried = kit
        .ok(
            "schedule-retry",
            json!({"sessionId": ada.session, "id": id}),
        )
        .await;
    assert_eq!(retried["schedule"]["nextRunAt"], task["nextRunAt"]);
    assert_eq!(settled_run(&kit, id).await["result"], "ran");
    assert_eq!(schedule_messages(&kit, &ada.session).len(), 1);
    assert_eq!(row(&kit, id).await["nextRunAt"], task["nextRunAt"]);
}

#[tokio::test(start_paused = true)]
/// Rule #354.
async fn missed_runs_a_one_minute_task_stopped_across_two_due_times_runs_once_after_start() {
    let clock = ManualClock::at(BASE);
    let kit = Kit::with_config(|config| config.schedule_clock = clock.schedule_clock()).await;
    let ada = kit.bot("Ada").await;
    let id = every(&kit, &ada.id, 60).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    kit.advance(&clock, Duration::from_secs(30));
    kit.settled().await;
    // The host stops at 10:00:30; 10:01 and 10:02 pass while it is down.
    kit.host.begin_stop();
    clock.advance(Duration::from_secs(120));
    let kit = kit
        .restart_with(|config| config.schedule_clock = clock.schedule_clock())
        .await;
    let last = settled_run(&kit, &id).await;
    assert_eq!(
        (last["result"].clone(), last["missed"].clone()),
        (json!("ran"), json!(true))
    );
    kit.settled().await;
    assert_eq!(
        schedule_messages(&kit, &ada.session).len(),
        1,
        "exactly one missed run"
    );
    let runs = kit
        .host
        .store()
        .read(|s| s.schedule_runs.get(&id).cloned())
        .unwrap();
    assert_eq!(
        runs.scheduled_for,
        BASE + 120_000,
        "for its latest missed time"
    );
    // Then it waits for its next future time: 10:03, not missed.
    kit.advance(&clock, Duration::from_secs(30));
    kit.until_some("the 10:03 run", async || {
        let run = kit
            .host
            .store()
            .read(|s| s.schedule_runs.get(&id).cloned())?;
        (run.scheduled_for == BASE + 180_000
            && run.result != flybot_protocol::schedule::RunResult::Running)
            .then_some(())
    })
    .await;
    assert_eq!(schedule_messages(&kit, &ada.session).len(), 2);
}

#[tokio::test(start_paused = true)]
/// Rule #354.
async fn tasks_survive_a_kill_9_once_acknowledged() {
    let (kit, clock) = timed_kit(None).await;
    let ada = kit.bot("Ada").await;
    let id = every(&kit, &ada.id, 60).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    kit.advance(&clock, Duration::from_secs(60));
    settled_run(&kit, &id).await;
    kit.ok(
        "schedule-pause",
        json!({"sessionId": ada.session, "id": id}),
    )
    .await;
    // The home's files as a kill -9 leaves them: no clean stop, no snapshot.
    let copy = tempfile::tempdir().unwrap();
    for name in ["journal.jsonl", "state.json"] {
        let from = kit.home().join(name);
        if from.exists() {
            std::fs::copy(&from, copy.path().join(name)).unwrap();
        }
    }
    let live = kit
        .host
        .store()
        .read(|s| (s.schedules.clone(), s.schedule_runs.clone()));
    let store =
        flybot_store::Store::open(copy.path(), flybot_store::StoreOptions::default()).unwrap();
    let reopened = store.read(|s| (s.schedules.clone(), s.schedule_runs.clone()));
    assert_eq!(reopened, live);
    assert_eq!(
        reopened.0[&id].status,
        flybot_protocol::schedule::ScheduleStatus::Paused
    );
    assert_eq!(
        reopened.1[&id].result,
        flybot_protocol::schedule::RunResult::Ran
    );
}

#[tokio::test(start_paused = true)]
/// Rule #1245.
async fn part_move_tasks_are_keyed_by_the_bots_own_chat_session_so_they_stay_in_place() {
    // A Bot's own-chat Session id is the one its parts keep (issue 16): a
    // task keyed by it keeps its id, next run and history whatever the Bot's
    // record does around it.
    let (kit, clock) = timed_kit(None).await;
    let ada = kit.bot("Ada").await;
    let id = every(&kit, &ada.id, 60).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    kit.advance(&clock, Duration::from_secs(60));
    settled_run(&kit, &id).await;
    let before = row(&kit, &id).await;
    assert_eq!(before["sessionId"], ada.session.as_str());
    kit.ok(
        "update-bot",
        json!({"id": ada.id, "name": "Ada Two", "instructions": "New part, same chat."}),
    )
    .await;
    let after = row(&kit, &id).await;
    assert_eq!(after, before, "same id, same next run, same last run");
}
