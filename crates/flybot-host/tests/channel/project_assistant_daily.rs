//! The Project Assistant's hidden Bot and its daily digest (#1712): one
//! hidden assistant and exactly one 09:00 Asia/Shanghai task per Project,
//! made by `project-create` and removed by `project-delete`; the task runs
//! the digest on the host's injected clock, once a Shanghai day, and with
//! no connector signed in it writes nothing and escalates to the owner as
//! a notice of its own (the work view's ended turns).

use flybot_protocol::schedule::{RunResult, Timing};
use flybot_testkit::{Kit, ManualClock};
use serde_json::{Value, json};
use std::time::Duration;

/// 2026-12-07 00:58 UTC is 08:58 in Shanghai.
const BEFORE_NINE: u64 = 1_796_605_080_000;

/// The task's run once it settled (the scheduler's own loop runs it).
async fn settled(kit: &Kit, task: &str) -> flybot_protocol::schedule::ScheduleRun {
    kit.until_some("the digest's run settles", async || {
        kit.host
            .store()
            .read(|s| s.schedule_runs.get(task).cloned())
            .filter(|run| run.result != RunResult::Running)
    })
    .await
}

async fn project(kit: &Kit) -> (String, String) {
    let answer = kit.ok("project-create", json!({"name": "Site"})).await;
    let project = &answer["project"];
    let id = project["id"].as_str().unwrap().to_owned();
    let assistant = project["assistantBotId"].as_str().unwrap().to_owned();
    (id, assistant)
}

#[tokio::test]
/// Rule #1712.
async fn project_create_makes_one_hidden_assistant_with_one_0900_shanghai_task_and_delete_removes_them()
 {
    let kit = Kit::new().await;
    let (id, assistant) = project(&kit).await;
    let (bot, tasks) = kit.host.store().read(|s| {
        let bot = s.bots[&assistant].clone();
        let tasks: Vec<_> = s
            .schedules
            .values()
            .filter(|t| t.session_id == bot.session_id)
            .cloned()
            .collect();
        (bot, tasks)
    });
    assert!(bot.hidden && !bot.run, "a hidden Bot of the team");
    assert_eq!(bot.name, "Project Assistant (Site)");
    assert_eq!(tasks.len(), 1, "exactly one task on its Session");
    assert_eq!(
        tasks[0].when,
        Timing::Daily {
            time: "09:00".into(),
            zone: Some("Asia/Shanghai".into())
        }
    );
    // The roster's lists leave it out: no Bot sees it as a teammate.
    let (_, state) = kit.anyone().state().await;
    let shown = state["bots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["id"] == assistant.as_str())
        .cloned()
        .unwrap_or(Value::Null);
    assert!(shown.is_null() || shown["hidden"] == true, "{shown}");
    // A second Project has its own.
    let (_, other) = project(&kit).await;
    assert_ne!(other, assistant);
    kit.ok("project-delete", json!({"project": id})).await;
    let (gone_bot, gone_tasks) = kit.host.store().read(|s| {
        (
            s.bots.contains_key(&assistant),
            s.schedules.values().any(|t| t.session_id == bot.session_id),
        )
    });
    assert!(
        !gone_bot && !gone_tasks,
        "the assistant and its task went with it"
    );
    assert!(kit.host.store().read(|s| s.bots.contains_key(&other)));
}

#[tokio::test]
/// Rule #1712.
async fn the_daily_task_at_0900_shanghai_escalates_as_a_notice_with_nothing_written_when_no_connector_is_signed_in()
 {
    let clock = ManualClock::at(BEFORE_NINE);
    let kit = Kit::with_config(|c| c.schedule_clock = clock.schedule_clock()).await;
    let (id, assistant) = project(&kit).await;
    let task = kit.host.store().read(|s| {
        let session = &s.bots[&assistant].session_id;
        s.schedules
            .values()
            .find(|t| &t.session_id == session)
            .map(|t| t.id.clone())
            .unwrap()
    });
    // 08:59: not yet.
    kit.advance(&clock, Duration::from_secs(60));
    kit.host.scheduler().tick().await;
    assert!(
        kit.host
            .store()
            .read(|s| !s.schedule_runs.contains_key(&task))
    );
    // 09:00 Shanghai: the digest runs, refuses (no connector) and escalates.
    kit.advance(&clock, Duration::from_secs(120));
    let run = settled(&kit, &task).await;
    assert_eq!(run.result, RunResult::Failed);
    assert!(
        run.reason
            .as_deref()
            .unwrap_or("")
            .contains("GitHub connector"),
        "{run:?}"
    );
    // Nothing written: no digest in the Project's memory.
    let memory = kit.ok("project-memory", json!({"project": id})).await;
    assert_eq!(memory["memory"]["digest"], Value::Null);
    // The owner's notice, apart from the run's record.
    let (_, state) = kit.anyone().state().await;
    let notice = state["work"]["ended"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["botId"] == assistant.as_str())
        .cloned()
        .unwrap_or(Value::Null);
    let said = notice["failed"].as_str().unwrap_or("");
    assert!(
        said.starts_with("The Project Assistant did not post today's digest:")
            && said.contains("GitHub connector"),
        "{notice}"
    );
    // Its next time is tomorrow's 09:00, once a day.
    let next = kit
        .host
        .store()
        .read(|s| s.schedules[&task].next_run_at)
        .unwrap();
    assert_eq!(next, BEFORE_NINE + 2 * 60 * 1000 + 24 * 60 * 60 * 1000);
}

#[tokio::test]
/// Rule #1712.
async fn the_daily_task_stores_one_digest_a_shanghai_day_as_the_connector_account_with_the_project_state_files()
 {
    let Some(server) = crate::connectors::everything() else {
        return;
    };
    let clock = ManualClock::at(BEFORE_NINE);
    let kit = Kit::with_config(|c| c.schedule_clock = clock.schedule_clock()).await;
    kit.ok(
        "secret-set",
        json!({"name": "GITHUB_TOKEN", "value": "ghp_test"}),
    )
    .await;
    let row = kit
        .ok(
            "connector-connect",
            json!({"id": "github", "command": ["node", server, "stdio"],
                   "env": {"GITHUB_LOGIN": "ada-gh"}}),
        )
        .await;
    assert_eq!(row["connector"]["status"], "ready", "{row}");
    let (id, assistant) = project(&kit).await;
    // The Project State: the files the assistant keeps in its folder.
    let folder = flybot_store::workspaces::bot_workspace(kit.home(), &assistant).unwrap();
    std::fs::write(folder.join("PROJECT.md"), "# Site\n").unwrap();
    let dev = kit.bot("Dev").await;
    kit.ok("project-bind", json!({"botId": dev.id, "project": id}))
        .await;
    kit.card(&dev.id, "Write the parser").await;
    let task = kit.host.store().read(|s| {
        let session = &s.bots[&assistant].session_id;
        s.schedules
            .values()
            .find(|t| &t.session_id == session)
            .map(|t| t.id.clone())
            .unwrap()
    });
    kit.advance(&clock, Duration::from_secs(3 * 60));
    let run = settled(&kit, &task).await;
    assert_eq!(run.result, RunResult::Ran, "{run:?}");
    let memory = kit.ok("project-memory", json!({"project": id})).await;
    let note = memory["memory"]["digest"].clone();
    let text = note["text"].as_str().unwrap_or_default();
    assert_eq!(note["day"], "2026-12-07");
    assert!(
        text.contains("Next slice:\n- Write the parser — Dev"),
        "{text}"
    );
    assert!(text.contains("Project State: PROJECT.md"), "{text}");
    assert!(text.ends_with("Posted-for: ada-gh"), "{text}");
    // The same Shanghai day again (the owner's own run): skipped, one note.
    let again = kit.ok("project-digest", json!({"project": id})).await;
    assert_eq!(again["skipped"], true);
    assert_eq!(again["digest"], note);
}

#[tokio::test]
/// Rule #1712.
async fn the_daily_task_is_no_ordinary_scheduled_task_and_the_project_shows_its_escalation() {
    let clock = ManualClock::at(BEFORE_NINE);
    let kit = Kit::with_config(|c| c.schedule_clock = clock.schedule_clock()).await;
    let (id, assistant) = project(&kit).await;
    let (session, task) = kit.host.store().read(|s| {
        let session = s.bots[&assistant].session_id.clone();
        let task = s
            .schedules
            .values()
            .find(|t| t.session_id == session)
            .map(|t| t.id.clone())
            .unwrap();
        (session, task)
    });
    // The owner's schedule list leaves it out, and it is no place to put a
    // task or a task to change: it goes with its Project.
    let list = kit.ok("schedules", json!({})).await;
    assert_eq!(list["schedules"], json!([]), "{list}");
    let before = kit.host.store().read(|s| s.schedules[&task].clone());
    for (endpoint, body) in [
        ("schedule-delete", json!({"sessionId": session, "id": task})),
        ("schedule-pause", json!({"sessionId": session, "id": task})),
        (
            "schedule-update",
            json!({"sessionId": session, "id": task, "title": "Mine now"}),
        ),
    ] {
        let refused = kit.refused(endpoint, body, "bot/not-found").await;
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap_or("")
                .contains("Project Assistant's daily digest"),
            "{endpoint}: {refused}"
        );
    }
    let body = json!({"botId": assistant, "title": "Extra", "prompt": "p",
                      "when": {"kind": "daily", "time": "10:00"}});
    kit.refused("schedule-create", body, "bot/not-found").await;
    let after = kit.host.store().read(|s| {
        let on_session = s
            .schedules
            .values()
            .filter(|t| t.session_id == session)
            .count();
        (s.schedules[&task].clone(), on_session)
    });
    assert_eq!(after, (before, 1), "nothing changed");

    // The Project's page reads it: when it runs, and once it escalated,
    // the failed run and its reason.
    let read = kit.ok("project-read", json!({"project": id})).await;
    assert_eq!(read["daily"]["when"]["time"], "09:00", "{read}");
    assert_eq!(read["daily"]["lastRun"], Value::Null);
    kit.advance(&clock, Duration::from_secs(180));
    settled(&kit, &task).await;
    let read = kit.ok("project-read", json!({"project": id})).await;
    let last = &read["daily"]["lastRun"];
    assert_eq!(last["result"], "failed", "{read}");
    assert!(
        last["reason"]
            .as_str()
            .unwrap_or("")
            .contains("GitHub connector"),
        "{read}"
    );
}
