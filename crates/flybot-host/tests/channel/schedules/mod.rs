//! Scheduled tasks through the channel (#354, #378, #473, #628, #1166,
//! #1237, #1245, #1287, #1321, #1651): the endpoints and their refusals
//! (each writing nothing), the scheduler on paused time, the missed-run
//! scenario across a restart, and the Bots' schedule tools.

mod endpoints;
mod runs;
mod tools;

use flybot_testkit::{Kit, ManualClock};
use serde_json::{Value, json};

/// 2026-12-03T10:00:00Z, the test clock's start.
pub const BASE: u64 = 1_796_292_000_000;

/// A host whose scheduler reads a hand-moved clock from `BASE`, in UTC.
pub async fn timed_kit(scenario: Option<Value>) -> (Kit, ManualClock) {
    let models = scenario.map(|s| flybot_testkit::scripted_models(&s.to_string()));
    let clock = ManualClock::at(BASE);
    let kit = Kit::with_config(|config| {
        config.schedule_clock = clock.schedule_clock();
        config.host_zone = "UTC".to_owned();
        if let Some(models) = models {
            config.models = models;
        }
    })
    .await;
    (kit, clock)
}

/// The one row of `schedules` with this id.
pub async fn row(kit: &Kit, id: &str) -> Value {
    let list = kit.ok("schedules", json!({})).await;
    list["schedules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["id"] == id)
        .cloned()
        .unwrap_or(Value::Null)
}

/// Creates an `every` task on a Bot's own chat; answers its row.
pub async fn every(kit: &Kit, bot_id: &str, seconds: u64) -> Value {
    let answer = kit
        .ok(
            "schedule-create",
            json!({"botId": bot_id, "title": "Standup", "prompt": "Post the standup.",
                   "when": {"kind": "every", "seconds": seconds}}),
        )
        .await;
    answer["schedule"].clone()
}

/// Awaits the task's last run reaching a result other than `running`.
pub async fn settled_run(kit: &Kit, id: &str) -> Value {
    kit.until_some(&format!("task {id}'s run settles"), async || {
        let last = row(kit, id).await["lastRun"].clone();
        (last.is_object() && last["result"] != "running").then_some(last)
    })
    .await
}
