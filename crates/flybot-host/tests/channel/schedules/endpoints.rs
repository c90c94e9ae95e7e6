//! The schedule endpoints and their refusals; every refusal is checked to
//! leave the journal, the snapshot, the revision and the team unchanged.

use super::{BASE, every, row, timed_kit};
use serde_json::json;
use std::time::Duration;

#[tokio::test(start_paused = true)]
/// Rule #354.
async fn schedule_create_lists_the_task_with_its_next_run_and_the_view_counts_it() {
    let (kit, _clock) = timed_kit(None).await;
    let ada = kit.bot("Ada").await;
    let made = every(&kit, &ada.id, 90).await;
    let id = made["id"].as_str().unwrap();
    assert!(id.starts_with("schedule-"));
    let listed = row(&kit, id).await;
    assert_eq!(listed["status"], "active");
    assert_eq!(listed["sessionId"], ada.session.as_str());
    assert_eq!(listed["botId"], ada.id.as_str());
    assert_eq!(listed["nextRunAt"], BASE + 90_000, "now + 90 s");
    let (_, state) = kit.state().await;
    assert_eq!(
        state["automation"],
        json!({"tasks": true, "active": 1, "suppressed": 0})
    );
}

#[tokio::test(start_paused = true)]
/// Rule #1651.
async fn every_outside_a_minute_to_a_week_is_refused_and_writes_nothing() {
    let (kit, _clock) = timed_kit(None).await;
    let ada = kit.bot("Ada").await;
    for when in [
        json!({"kind": "every", "seconds": 59}),
        json!({"kind": "every", "seconds": 604_801}),
    ] {
        let answer = kit
            .refused(
                "schedule-create",
                json!({"botId": ada.id, "title": "t", "prompt": "p", "when": when}),
                "bot/invalid",
            )
            .await;
        assert_eq!(
            answer["error"]["message"],
            "Repeat every 60 seconds to 7 days (604800 seconds)."
        );
    }
    // The older minutes form still works, and 90 seconds survives an edit.
    let made = kit
        .ok("schedule-create", json!({"botId": ada.id, "title": "t", "prompt": "p", "when": {"kind": "every", "minutes": 2}}))
        .await;
    let id = made["schedule"]["id"].clone();
    let edited = kit
        .ok(
            "schedule-update",
            json!({"sessionId": ada.session, "id": id, "when": {"kind": "every", "seconds": 90}}),
        )
        .await;
    assert_eq!(
        edited["schedule"]["when"],
        json!({"kind": "every", "seconds": 90})
    );
}

#[tokio::test(start_paused = true)]
/// Rule #1166.
async fn quiet_hours_refuse_a_time_inside_and_flag_every_and_cron_tasks() {
    let (kit, _clock) = timed_kit(None).await;
    let ada = kit.bot("Ada").await;
    kit.refused(
        "set-prefs",
        json!({"prefs": {"quietHours": {"on": true, "from": "25:00", "to": "07:00"}}}),
        "bot/invalid",
    )
    .await;
    kit.ok(
        "set-prefs",
        json!({"prefs": {"quietHours": {"on": true, "from": "22:00", "to": "07:00"}}}),
    )
    .await;
    let inside = json!({"botId": ada.id, "title": "Night", "prompt": "p",
                        "when": {"kind": "at", "at": "2026-12-03T23:00", "zone": "UTC"}});
    let refusal = kit
        .refused("schedule-create", inside, "bot/quiet-hours")
        .await;
    assert_eq!(
        refusal["error"]["message"],
        "That time is inside the team's quiet hours, which end at 07:00; pick a time outside them."
    );
    kit.ok("schedule-create", json!({"botId": ada.id, "title": "Morning", "prompt": "p",
                                     "when": {"kind": "at", "at": "2026-12-04T07:00", "zone": "UTC"}}))
        .await;
    let list = kit.ok("schedules", json!({})).await;
    assert_eq!(
        list.get("quietUnchecked"),
        None,
        "no every or cron task yet"
    );
    every(&kit, &ada.id, 600).await;
    let list = kit.ok("schedules", json!({})).await;
    assert_eq!(list["quietUnchecked"], true);
}

#[tokio::test(start_paused = true)]
/// Rule #354.
async fn schedule_update_keeps_the_id_and_next_run_when_only_the_text_changes() {
    let (kit, clock) = timed_kit(None).await;
    let [ada, bo] = kit.bots(["Ada", "Bo"]).await;
    let made = every(&kit, &ada.id, 3600).await;
    let id = made["id"].as_str().unwrap().to_owned();
    kit.advance(&clock, Duration::from_secs(600));
    let renamed = kit
        .ok("schedule-update", json!({"sessionId": ada.session, "id": id, "title": "Daily standup", "when": {"kind": "keep"}}))
        .await;
    assert_eq!(renamed["schedule"]["id"], id.as_str());
    assert_eq!(renamed["schedule"]["nextRunAt"], made["nextRunAt"]);
    assert_eq!(renamed["schedule"]["title"], "Daily standup");
    // Moved to another Bot: a new task there, the old one gone.
    let moved = kit
        .ok(
            "schedule-update",
            json!({"sessionId": ada.session, "id": id, "botId": bo.id}),
        )
        .await;
    assert_ne!(moved["schedule"]["id"], id.as_str());
    assert_eq!(moved["schedule"]["sessionId"], bo.session.as_str());
    assert_eq!(moved["schedule"]["nextRunAt"], made["nextRunAt"]);
    assert_eq!(row(&kit, &id).await, serde_json::Value::Null);
}

#[tokio::test(start_paused = true)]
/// Rule #1287.
async fn copy_keeps_the_sources_next_run_with_an_empty_history_and_refuses_the_same_chat() {
    let (kit, clock) = timed_kit(None).await;
    let [ada, bo] = kit.bots(["Ada", "Bo"]).await;
    let source = every(&kit, &ada.id, 3600).await;
    kit.advance(&clock, Duration::from_secs(1800));
    let from = json!({"sessionId": ada.session, "id": source["id"]});
    let copy = kit
        .ok("schedule-create", json!({"botId": bo.id, "copyFrom": from}))
        .await;
    assert_eq!(
        copy["schedule"]["nextRunAt"], source["nextRunAt"],
        "not now + interval"
    );
    assert_eq!(copy["schedule"]["title"], "Standup");
    assert_eq!(copy["schedule"].get("lastRun"), None);
    let same = kit
        .refused(
            "schedule-create",
            json!({"botId": ada.id, "copyFrom": from}),
            "bot/invalid",
        )
        .await;
    assert_eq!(
        same["error"]["message"],
        "The task is already on that chat; pick another Bot or group chat to copy it to."
    );
    let unknown = kit
        .refused(
            "schedule-create",
            json!({"botId": bo.id, "copyFrom": {"sessionId": ada.session, "id": "schedule-x"}}),
            "bot/not-found",
        )
        .await;
    assert_eq!(unknown["error"]["message"], "No such task.");
    let no_session = kit
        .refused(
            "schedule-create",
            json!({"botId": bo.id, "copyFrom": {"sessionId": "nowhere", "id": source["id"]}}),
            "bot/not-found",
        )
        .await;
    assert_ne!(no_session["error"]["message"], unknown["error"]["message"]);
    let no_target = kit
        .refused(
            "schedule-create",
            json!({"botId": "bot-nobody", "copyFrom": from}),
            "bot/not-found",
        )
        .await;
    assert_eq!(
        no_target["error"]["message"],
        "No such Bot or group chat to put the task on."
    );
}

#[tokio::test(start_paused = true)]
/// Rules #354, #473.
async fn pause_resume_and_retry_refuse_with_their_sentences() {
    let (kit, clock) = timed_kit(None).await;
    let ada = kit.bot("Ada").await;
    let once = kit
        .ok(
            "schedule-create",
            json!({"botId": ada.id, "title": "Once", "prompt": "p",
                                      "when": {"kind": "at", "at": "2026-12-03T10:05:00Z"}}),
        )
        .await;
    let key = json!({"sessionId": ada.session, "id": once["schedule"]["id"]});
    let paused = kit.ok("schedule-pause", key.clone()).await;
    assert_eq!(paused["schedule"]["status"], "paused");
    assert_eq!(paused["schedule"]["nextRunAt"], serde_json::Value::Null);
    let retry = kit
        .refused("schedule-retry", key.clone(), "bot/invalid")
        .await;
    assert_eq!(retry["error"]["message"], "Resume the task first.");
    kit.advance(&clock, Duration::from_secs(600));
    let resume = kit
        .refused("schedule-resume", key.clone(), "bot/invalid")
        .await;
    assert_eq!(
        resume["error"]["message"],
        "A one-time task whose time has passed cannot resume; edit its time first."
    );
    let gone = kit.ok("schedule-delete", key.clone()).await;
    assert_eq!(gone["schedule"], serde_json::Value::Null);
    let again = kit.refused("schedule-delete", key, "bot/not-found").await;
    assert_eq!(again["error"]["message"], "No such task.");
}

#[tokio::test(start_paused = true)]
/// Rule #1321.
async fn same_user_another_members_task_answers_exactly_as_an_unknown_one() {
    let (kit, _clock) = timed_kit(None).await;
    let [ann, ben] = kit.members(["Ann", "Ben"]).await;
    let (ann, ben) = (kit.as_member(&ann), kit.as_member(&ben));
    let bens_bot = ben.bot("Bo").await;
    let anns_bot = ann.bot("Ada").await;
    let task = ben
        .ok(
            "schedule-create",
            json!({"botId": bens_bot.id, "title": "Secret plan", "prompt": "p",
                                      "when": {"kind": "every", "seconds": 600}}),
        )
        .await;
    let id = task["schedule"]["id"].clone();
    let peer = json!({"sessionId": bens_bot.session, "id": id});
    let unknown = json!({"sessionId": bens_bot.session, "id": "schedule-none"});
    let copy_peer = ann
        .refused(
            "schedule-create",
            json!({"botId": anns_bot.id, "copyFrom": peer}),
            "bot/not-found",
        )
        .await;
    let copy_unknown = ann
        .refused(
            "schedule-create",
            json!({"botId": anns_bot.id, "copyFrom": unknown}),
            "bot/not-found",
        )
        .await;
    assert_eq!(copy_peer, copy_unknown);
    let edit_peer = ann
        .refused(
            "schedule-update",
            json!({"sessionId": bens_bot.session, "id": id, "title": "x"}),
            "bot/not-found",
        )
        .await;
    assert_eq!(edit_peer["error"]["message"], "No such task.");
    assert!(!edit_peer.to_string().contains("Secret plan"));
    for endpoint in ["schedule-pause", "schedule-delete", "schedule-retry"] {
        ann.refused(endpoint, peer.clone(), "bot/not-found").await;
    }
    let anns_list = ann.ok("schedules", json!({})).await;
    assert_eq!(anns_list["schedules"], json!([]));
    // The owner's own copy still lands.
    let bens_second = ben.bot("Cy").await;
    ben.ok(
        "schedule-create",
        json!({"botId": bens_second.id, "copyFrom": peer}),
    )
    .await;
}
