//! Memory through the channel and a Bot's turns: the owner's endpoints
//! (#450: the own entries capped at 200, an append through the ordinary
//! path), the team scope's `teamAllowedFrom` (#53), deleting a Bot archives
//! its memory first and retiring keeps it (#638), and the scenario: a fact
//! saved in one part is recalled in the next.

use flybot_agent::model::config::{ModelConfig, ModelsConfig, ProviderRegistry};
use flybot_agent::model::mock::{MockModel, Scenario};
use flybot_agent::session::SessionEvent;
use flybot_agent::tools::memory::MemoryAccess;
use flybot_core::memory::MemoryEntry;
use flybot_core::memory::markdown::format_file;
use flybot_host::memory::HostMemoryTools;
use flybot_testkit::Kit;
use serde_json::{Value, json};
use std::sync::Arc;

fn memory_file(kit: &Kit, bot_id: &str) -> String {
    std::fs::read_to_string(
        kit.home()
            .join("memory/bots")
            .join(bot_id)
            .join("MEMORY.md"),
    )
    .unwrap_or_default()
}

#[tokio::test]
/// Rule #450.
async fn the_owner_appends_edits_and_deletes_a_bot_s_memory() {
    let kit = Kit::new().await;
    let bot = kit.bot("Ada").await;
    let added = kit
        .ok(
            "memory-append",
            json!({"botId": bot.id, "text": "Deploys go out on Fridays.", "topic": "deploy"}),
        )
        .await;
    let id = added["entry"]["id"].as_str().unwrap().to_owned();
    assert_eq!(added["entry"]["by"], "owner");
    let file = memory_file(&kit, &bot.id);
    assert!(
        file.contains(&format!("### {id} · by: owner · at: ")),
        "{file}"
    );
    assert!(
        file.ends_with("· topic: deploy\nDeploys go out on Fridays.\n"),
        "{file}"
    );
    let edited = kit
        .ok(
            "memory-edit",
            json!({"botId": bot.id, "id": id, "text": "Deploys go out on Thursdays."}),
        )
        .await;
    assert_eq!(edited["entry"]["topic"], "deploy");
    let read = kit.ok("memory", json!({"botId": bot.id})).await;
    assert_eq!(read["total"], 1);
    assert_eq!(read["entries"][0]["text"], "Deploys go out on Thursdays.");
    kit.ok(
        "memory-pin",
        json!({"botId": bot.id, "text": "The user is Ada."}),
    )
    .await;
    assert_eq!(
        kit.ok("memory", json!({"botId": bot.id})).await["pinned"],
        "The user is Ada."
    );
    kit.ok("memory-delete", json!({"botId": bot.id, "id": id}))
        .await;
    assert_eq!(kit.ok("memory", json!({"botId": bot.id})).await["total"], 0);
}

#[tokio::test]
async fn memory_refusals_change_nothing_secret_shaped_unknown_and_another_owner_s_bot() {
    let kit = Kit::new().await;
    let [ada, bo] = kit.members(["Ada", "Bo"]).await;
    let bot = kit.as_member(&ada).bot("Scout").await;
    kit.as_member(&ada)
        .ok(
            "memory-append",
            json!({"botId": bot.id, "text": "A plain fact."}),
        )
        .await;
    let before = memory_file(&kit, &bot.id);
    let secret = kit
        .as_member(&ada)
        .refused(
            "memory-append",
            json!({"botId": bot.id, "text": "the key is sk-abcdefghijklmnop1234"}),
            "bot/invalid",
        )
        .await;
    assert!(
        secret["error"]["message"]
            .as_str()
            .unwrap()
            .contains("never stores secrets")
    );
    kit.as_member(&ada)
        .refused(
            "memory-edit",
            json!({"botId": bot.id, "id": "mem-nope", "text": "x"}),
            "bot/not-found",
        )
        .await;
    kit.as_member(&ada)
        .refused(
            "memory-append",
            json!({"botId": bot.id, "text": "x".repeat(2_001)}),
            "bot/invalid",
        )
        .await;
    kit.as_member(&bo)
        .refused(
            "memory-append",
            json!({"botId": bot.id, "text": "Bo was here."}),
            "bot/forbidden",
        )
        .await;
    kit.as_member(&bo)
        .refused("memory", json!({"botId": bot.id}), "bot/forbidden")
        .await;
    kit.as_member(&ada)
        .refused(
            "memory",
            json!({"botId": bot.id, "extra": 1}),
            "bot/invalid",
        )
        .await;
    assert_eq!(memory_file(&kit, &bot.id), before);
}

#[tokio::test]
/// Rule #450.
async fn memory_reads_at_most_200_of_a_bot_s_own_entries_newest_kept() {
    let kit = Kit::new().await;
    let bot = kit.bot("Ada").await;
    let entries: Vec<MemoryEntry> = (0..205)
        .map(|n| MemoryEntry {
            id: format!("mem-{n}"),
            topic: "t".into(),
            by: bot.id.clone(),
            at: n,
            text: format!("fact {n}"),
        })
        .collect();
    let folder = kit.home().join("memory/bots").join(&bot.id);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("MEMORY.md"), format_file("Memory", &entries)).unwrap();
    let read = kit.ok("memory", json!({"botId": bot.id})).await;
    let listed = read["entries"].as_array().unwrap();
    assert_eq!((read["total"].as_u64(), listed.len()), (Some(205), 200));
    assert_eq!(listed[0]["id"], "mem-5");
}

#[tokio::test]
/// Rule #638.
async fn deleting_a_bot_archives_its_memory_first_and_retiring_keeps_it() {
    let kit = Kit::new().await;
    let [ada, kept] = kit.bots(["Ada", "Kept"]).await;
    for bot in [&ada, &kept] {
        kit.ok(
            "memory-append",
            json!({"botId": bot.id, "text": format!("{} likes tea.", bot.name)}),
        )
        .await;
    }
    kit.ok("delete-bot", json!({"id": ada.id})).await;
    assert!(!kit.home().join("memory/bots").join(&ada.id).exists());
    let archived: Vec<_> = std::fs::read_dir(kit.home().join("memory/archive"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(archived.len(), 1);
    assert!(archived[0].starts_with(&format!("{}-", ada.id)));
    let file = kit
        .home()
        .join("memory/archive")
        .join(&archived[0])
        .join("MEMORY.md");
    assert!(
        std::fs::read_to_string(file)
            .unwrap()
            .contains("Ada likes tea.")
    );
    kit.ok("retire-bot", json!({"id": kept.id})).await;
    let read = kit.ok("memory", json!({"botId": kept.id})).await;
    assert_eq!(read["entries"][0]["text"], "Kept likes tea.");
}

#[tokio::test]
/// Rule #53.
async fn team_allowed_from_keeps_another_owner_s_entries_out_of_the_team_scope() {
    let kit = Kit::new().await;
    let [ada, bo] = kit.members(["Ada", "Bo"]).await;
    let ada_bot = kit.as_member(&ada).bot("Scout").await;
    let bo_bot = kit.as_member(&bo).bot("Rover").await;
    let tools = HostMemoryTools {
        memory: kit.host.memory(),
    };
    tools
        .save(
            &ada_bot.id,
            true,
            Some("plans".into()),
            "Ada's team ships on Monday.".into(),
        )
        .await
        .unwrap();
    tools
        .save(&bo_bot.id, true, None, "Bo's team ships on Tuesday.".into())
        .await
        .unwrap();
    let texts = async |bot: &str| -> Vec<String> {
        let index = tools.recall_index(bot).await.unwrap();
        index.entries().iter().map(|e| e.text.clone()).collect()
    };
    assert_eq!(
        texts(&ada_bot.id).await,
        vec!["Ada's team ships on Monday."]
    );
    assert_eq!(texts(&bo_bot.id).await, vec!["Bo's team ships on Tuesday."]);
    let refused = tools
        .save(&ada_bot.id, false, None, "password= hunter2hunter".into())
        .await
        .unwrap_err();
    assert!(refused.contains("never stores secrets"), "{refused}");
}

/// A host whose `small` model runs on the mock with a 3,000-token window.
async fn small_window_kit(scenario: Value) -> Kit {
    let mock = MockModel::with_scenario(Scenario::from_json(&scenario.to_string()).unwrap());
    let mut models = ModelsConfig::default();
    models.models.insert(
        "small".into(),
        ModelConfig {
            provider: "mock".into(),
            model: "mock".into(),
            context_window: 3_000,
            thinking: Vec::new(),
            thinking_switch: false,
            max_output_tokens: Some(400),
            image_input: false,
        },
    );
    let registry = Arc::new(ProviderRegistry::from_config(&models, mock).unwrap());
    Kit::with_config(|config| config.models = registry).await
}

fn tool_results(kit: &Kit, session: &str) -> Vec<String> {
    kit.transcript(session)
        .into_iter()
        .filter_map(|e| match e {
            SessionEvent::ToolResult { text, .. } => Some(text),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_fact_saved_in_one_part_is_recalled_in_the_next_part() {
    let kit = small_window_kit(json!([
        {"when": {"userContains": "remember the launch", "step": 0},
         "reply": {"toolCalls": [{"name": "remember", "arguments": {"text": "The launch code name is Bluebird.", "topic": "launch"}}]}},
        {"when": {"userContains": "code name", "step": 0},
         "reply": {"toolCalls": [{"name": "recall", "arguments": {"query": "launch code", "mode": "semantic"}}]}},
        {"when": {"userContains": "search", "step": 0},
         "reply": {"toolCalls": [{"name": "session_search", "arguments": {"query": "launch"}}]}},
        {"when": {"afterTool": "*"}, "reply": {"text": "Done."}},
        {"reply": {"text": "Noted."}}
    ]))
    .await;
    let bot = kit
        .anyone()
        .bot_from(json!({"name": "Ada", "model": "small"}))
        .await;
    kit.say(&bot.session, "Please remember the launch details.");
    kit.idle(&bot.session).await;
    assert!(
        tool_results(&kit, &bot.session)[0]
            .starts_with("Remembered: - [launch] The launch code name is Bluebird.")
    );
    let sessions = kit.host.sessions();
    let mut n = 0;
    while sessions.current_part(&bot.session).unwrap() == 1 {
        kit.say(
            &bot.session,
            &format!("note {n}: {}", "filler words for the log ".repeat(40)),
        );
        kit.idle(&bot.session).await;
        n += 1;
        assert!(n < 40, "the conversation never moved to a fresh part");
    }
    // #1245: the Session id stays the Bot's (whatever is keyed by it moves
    // with the part), and the earlier part stays readable through `messages`.
    let session_now = kit
        .host
        .store()
        .read(|s| s.bots[&bot.id].session_id.clone());
    assert_eq!(session_now, bot.session);
    let lines = kit.ok("messages", json!({"botId": bot.id})).await;
    let first = lines["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["kind"] == "user");
    assert_eq!(
        first.unwrap()["text"],
        "Please remember the launch details."
    );
    kit.say(&bot.session, "What was the code name again?");
    kit.idle(&bot.session).await;
    let results = tool_results(&kit, &bot.session);
    let recalled = results.last().unwrap();
    assert!(
        recalled.contains("The launch code name is Bluebird."),
        "{recalled}"
    );
    // session_search finds the line in the earlier part, still archived in the log.
    kit.say(&bot.session, "search the earlier lines");
    kit.idle(&bot.session).await;
    let found = tool_results(&kit, &bot.session).pop().unwrap();
    assert!(
        found.contains(&format!("{} part 1 #", bot.session)),
        "{found}"
    );
    assert!(found.contains("remember the launch details"), "{found}");
}

#[tokio::test]
/// Rule #1445.
async fn a_run_bot_is_refused_recall_and_the_team_scope_but_keeps_its_own_memory() {
    let kit = Kit::scripted(json!([
        {"when": {"userContains": "look it up", "step": 0},
         "reply": {"toolCalls": [{"name": "recall", "arguments": {"query": "tea"}}]}},
        {"when": {"userContains": "share it", "step": 0},
         "reply": {"toolCalls": [{"name": "remember", "arguments": {"text": "Tea at four.", "team": true}}]}},
        {"when": {"userContains": "keep it", "step": 0},
         "reply": {"toolCalls": [{"name": "remember", "arguments": {"text": "Tea at four."}}]}},
        {"reply": {"text": "Done."}}
    ]))
    .await;
    let bot = kit.bot("Runner").await;
    kit.host
        .team()
        .mutate("test", |change| {
            let mut record = change.state().bots[&bot.id].clone();
            record.run = true;
            change.put_bot(&record);
            Ok(())
        })
        .await
        .unwrap();
    for line in ["look it up", "share it", "keep it"] {
        kit.say(&bot.session, line);
        kit.idle(&bot.session).await;
    }
    let results = tool_results(&kit, &bot.session);
    assert_eq!(results[0], "A running Bot is not a team member.");
    assert_eq!(results[1], "A running Bot is not a team member.");
    assert!(results[2].starts_with("Remembered:"), "{results:?}");
    assert!(!kit.home().join("memory/team").exists());
}

/// #1245 across issues 15 and 16: a Bot's scheduled task stays in place
/// when its conversation moves to a fresh part: same id, same next run,
/// same owning Session.
#[tokio::test]
/// Rule #1245.
async fn a_scheduled_task_moves_with_the_part_in_place() {
    let kit = small_window_kit(json!([{"reply": {"text": "Noted."}}])).await;
    let bot = kit
        .anyone()
        .bot_from(json!({"name": "Ada", "model": "small"}))
        .await;
    let made = kit
        .ok(
            "schedule-create",
            json!({"botId": bot.id, "title": "Hourly", "prompt": "Check in.",
                   "when": {"kind": "every", "seconds": 3600}}),
        )
        .await;
    let row = async || {
        let list = kit.ok("schedules", json!({})).await;
        list["schedules"][0].clone()
    };
    let before = row().await;
    assert_eq!(before["id"], made["schedule"]["id"], "{made}");
    let sessions = kit.host.sessions();
    let mut n = 0;
    while sessions.current_part(&bot.session).unwrap() == 1 {
        kit.say(
            &bot.session,
            &format!("note {n}: {}", "filler words for the log ".repeat(40)),
        );
        kit.idle(&bot.session).await;
        n += 1;
        assert!(n < 40, "the conversation never moved to a fresh part");
    }
    let after = row().await;
    assert!(before["nextRunAt"].is_u64(), "{before}");
    assert_eq!(before["sessionId"], bot.session.as_str());
    for key in ["id", "sessionId", "nextRunAt", "title"] {
        assert_eq!(after[key], before[key], "{key}: {before} -> {after}");
    }
}

/// The recall index is kept between recalls and never answers from files
/// that changed: an edit through the channel, a hand edit of the Markdown
/// file (the files are the only source of truth) and a deletion are all
/// seen by the next recall.
#[tokio::test]
async fn recall_keeps_its_index_until_the_memory_files_change() {
    let kit = Kit::new().await;
    let bot = kit.bot("Ada").await;
    let tools = HostMemoryTools {
        memory: kit.host.memory(),
    };
    let added = kit
        .ok(
            "memory-append",
            json!({"botId": bot.id, "text": "Deploys go out on Fridays.", "topic": "deploy"}),
        )
        .await;
    let id = added["entry"]["id"].as_str().unwrap().to_owned();
    let first = tools.recall_index(&bot.id).await.unwrap();
    let again = tools.recall_index(&bot.id).await.unwrap();
    assert!(
        Arc::ptr_eq(&first, &again),
        "an unchanged file reuses the index"
    );
    assert_eq!(first.exact("fridays", 5)[0].id, id);

    kit.ok(
        "memory-edit",
        json!({"botId": bot.id, "id": id, "text": "Deploys go out on Thursdays."}),
    )
    .await;
    let edited = tools.recall_index(&bot.id).await.unwrap();
    assert!(edited.exact("fridays", 5).is_empty());
    assert_eq!(edited.semantic("thursdays deploys", 5)[0].id, id);

    let by_hand = MemoryEntry {
        id: "mem-by-hand".into(),
        topic: "lunch".into(),
        by: "owner".into(),
        at: 9,
        text: "Lunch is at noon.".into(),
    };
    let mut entries = edited.entries().to_vec();
    entries.push(by_hand);
    let path = kit
        .home()
        .join("memory/bots")
        .join(&bot.id)
        .join("MEMORY.md");
    std::fs::write(&path, format_file("Memory", &entries)).unwrap();
    let hand_edited = tools.recall_index(&bot.id).await.unwrap();
    assert_eq!(hand_edited.exact("noon", 5)[0].id, "mem-by-hand");

    kit.ok("memory-delete", json!({"botId": bot.id, "id": id}))
        .await;
    let deleted = tools.recall_index(&bot.id).await.unwrap();
    assert!(deleted.exact("thursdays", 5).is_empty());
    assert_eq!(deleted.entries().len(), 1);
}
