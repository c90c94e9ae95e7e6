//! The roster: Bots, Main Bots, rooms, and what deleting a Bot does.

use flybot_protocol::state::{Task, TaskStatus};
use flybot_testkit::Kit;
use serde_json::json;

#[tokio::test]
async fn first_state_request_makes_the_first_main_bot_once() {
    let kit = Kit::new().await;
    let view = kit.state().await.1;
    let chief = view["bots"][0]["id"].as_str().unwrap().to_owned();
    assert_eq!(view["bots"][0]["name"], "Chief");
    assert_eq!(view["mainBotIds"], json!([chief]));
    assert_eq!(view["designatedChiefId"], chief.as_str());
    kit.ok("delete-bot", json!({"id": chief})).await;
    let view = kit.state().await.1;
    assert_eq!(
        view["bots"],
        json!([]),
        "a home that had members is not fresh"
    );
    assert_eq!(view["mainBotIds"], json!([]));
}

#[tokio::test]
/// Rule #645.
async fn create_bot_is_silent_and_announced() {
    let kit = Kit::new().await;
    let mut events = kit.host.team().bus().subscribe();
    let id = kit.bot("Helper").await.id;
    let event = events.try_recv().unwrap();
    assert_eq!(
        event,
        flybot_host::HostEvent::BotCreated {
            bot_id: id.clone(),
            owner_id: kit.host.store().read(|s| s.bots[&id].owner_id.clone()),
        }
    );
    assert!(events.try_recv().is_err(), "exactly one event, no message");
    assert!(kit.host.store().read(|s| s.tasks.is_empty()));
}

#[tokio::test]
async fn bot_names_are_unique_and_checked() {
    let kit = Kit::new().await;
    kit.bot("Helper").await;
    let answer = kit
        .refused("create-bot", json!({"name": "helper"}), "bot/invalid")
        .await;
    assert_eq!(answer["error"]["details"]["field"], "name");
    kit.refused("create-bot", json!({"name": ""}), "bot/invalid")
        .await;
    kit.refused(
        "create-bot",
        json!({"name": "X", "model": "a b"}),
        "bot/invalid",
    )
    .await;
    kit.refused(
        "update-bot",
        json!({"id": "bot-none", "name": "Y"}),
        "bot/not-found",
    )
    .await;
}

#[tokio::test]
async fn update_and_duplicate_answer_the_record() {
    let kit = Kit::new().await;
    let id = kit.bot("Helper").await.id;
    let answer = kit
        .ok(
            "update-bot",
            json!({"id": id, "model": "mock", "instructions": "Be brief."}),
        )
        .await;
    assert_eq!(answer["bot"]["model"], "mock");
    assert_eq!(answer["bot"]["instructions"], "Be brief.");
    let revision = kit.host.store().revision();
    kit.ok("update-bot", json!({"id": id, "model": "mock"}))
        .await;
    assert_eq!(
        kit.host.store().revision(),
        revision,
        "a change that changes nothing moves no revision"
    );
    let copy = kit.ok("duplicate-bot", json!({"id": id})).await;
    assert_eq!(copy["bot"]["name"], "Helper copy");
    assert_eq!(copy["bot"]["instructions"], "Be brief.");
    assert_ne!(copy["bot"]["id"], id.as_str());
    assert_ne!(copy["bot"]["sessionId"], answer["bot"]["sessionId"]);
    let again = kit.ok("duplicate-bot", json!({"id": id})).await;
    assert_eq!(again["bot"]["name"], "Helper copy 2");
}

#[tokio::test]
/// Rule #1453.
async fn delete_bot_fails_its_open_tasks_and_retires_its_sessions() {
    let kit = Kit::new().await;
    let keep = kit.bot("Keeper").await.id;
    let gone = kit.bot("Leaver").await.id;
    let room = kit
        .ok(
            "create-room",
            json!({"name": "R", "members": [keep, gone], "admin": gone}),
        )
        .await;
    let room_id = room["room"]["id"].as_str().unwrap().to_owned();
    let room_session = room["room"]["sessions"][&gone].as_str().unwrap().to_owned();
    kit.ok("set-main", json!({"id": gone})).await;
    kit.ok(
        "set-grants",
        json!({"botId": keep, "grants": [{"grantee": gone}]}),
    )
    .await;
    let task = |id: &str, status| Task {
        id: id.into(),
        bot_id: gone.clone(),
        title: id.into(),
        status,
        requester_id: None,
        room_id: None,
        created_at: 1,
        updated_at: 1,
        extra: Default::default(),
    };
    kit.host
        .team()
        .mutate("test", |change| {
            change.put_task(&task("task-open", TaskStatus::Working));
            change.put_task(&task("task-ready", TaskStatus::ResultReady));
            change.put_task(&task("task-done", TaskStatus::Accepted));
            Ok(())
        })
        .await
        .unwrap();
    let own_session = kit.host.store().read(|s| s.bots[&gone].session_id.clone());

    let answer = kit.ok("delete-bot", json!({"id": gone})).await;
    assert_eq!(answer["deleted"], true);
    let state = kit.host.store().read(|s| s.clone());
    assert_eq!(state.tasks["task-open"].status, TaskStatus::Failed);
    assert_eq!(state.tasks["task-ready"].status, TaskStatus::ResultReady);
    assert_eq!(state.tasks["task-done"].status, TaskStatus::Accepted);
    assert_eq!(state.retired_sessions[&own_session], gone);
    assert_eq!(state.retired_sessions[&room_session], gone);
    assert_eq!(state.rooms[&room_id].members, vec![keep.clone()]);
    assert_eq!(state.rooms[&room_id].admin, None);
    assert!(!state.main_bot_ids.contains(&gone));
    assert!(
        !state.grants.contains_key(&keep),
        "a grant to the deleted Bot goes with it"
    );
    assert!(!state.bots.contains_key(&gone));
    // The retired record answers whose the Session was (#1453).
    let closed = kit
        .refused(
            "messages",
            json!({"sessionId": own_session}),
            "bot/not-found",
        )
        .await;
    assert!(
        closed["error"]["message"]
            .as_str()
            .unwrap()
            .contains("was deleted")
    );
}

#[tokio::test]
async fn a_fresh_homes_first_request_makes_the_first_main_bot_even_a_create_bot() {
    // A host built without `Host::open`: the edge makes the Main Bot.
    let home = tempfile::tempdir().unwrap();
    let store = flybot_store::Store::open(home.path(), Default::default()).unwrap();
    let host = flybot_host::Host::new(store, flybot_host::HostConfig::new(home.path().into()));
    host.start();
    let kit = Kit::around(host, home);
    let made = kit.bot("Helper").await.id;
    let view = kit.state().await.1;
    let main = view["mainBotIds"].as_array().unwrap();
    assert_eq!(main.len(), 1);
    assert_ne!(main[0], made.as_str());
    assert_eq!(view["bots"].as_array().unwrap().len(), 2);
}

#[tokio::test]
/// Rule #1582.
async fn a_bot_a_person_makes_records_the_person_not_a_parent() {
    let kit = Kit::new().await;
    let id = kit.bot("Helper").await.id;
    let owner = kit.host.store().read(|s| s.bots[&id].owner_id.clone());
    let record = kit.host.store().read(|s| s.bots[&id].clone());
    assert_eq!(record.created_by, None);
    assert_eq!(record.made_by_member.as_deref(), Some(owner.as_str()));
    let copy = kit.ok("duplicate-bot", json!({"id": id})).await;
    assert!(copy["bot"].get("createdBy").is_none());
    assert_eq!(copy["bot"]["madeByMember"], owner.as_str());
}

#[tokio::test]
/// Rule #613.
async fn set_main_promotes_and_swaps() {
    let kit = Kit::new().await;
    let chief = kit.state().await.1["bots"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let other = kit.bot("Second").await.id;
    let answer = kit
        .ok("set-main", json!({"id": other, "replace": chief}))
        .await;
    assert_eq!(answer["mainBotIds"], json!([other]));
    assert_eq!(
        kit.host.store().read(|s| s.designated_chief_id.clone()),
        Some(other.clone())
    );
    kit.refused(
        "set-main",
        json!({"id": chief, "replace": "bot-none"}),
        "bot/invalid",
    )
    .await;
}

#[tokio::test]
async fn rooms_need_someone_and_an_admin_among_members() {
    let kit = Kit::new().await;
    let a = kit.bot("A").await.id;
    let b = kit.bot("B").await.id;
    kit.refused(
        "create-room",
        json!({"name": "Empty", "members": []}),
        "bot/invalid",
    )
    .await;
    kit.refused(
        "create-room",
        json!({"name": "R", "members": [a], "admin": b}),
        "bot/invalid",
    )
    .await;
    kit.refused(
        "create-room",
        json!({"name": "R", "members": ["bot-none"]}),
        "bot/invalid",
    )
    .await;
    let room = kit
        .ok(
            "create-room",
            json!({"name": "R", "members": [a, b, a], "admin": b}),
        )
        .await;
    assert_eq!(
        room["room"]["members"],
        json!([a, b]),
        "repeats are dropped, order kept"
    );
    let id = room["room"]["id"].as_str().unwrap();
    let updated = kit
        .ok("update-room", json!({"id": id, "members": [a]}))
        .await;
    assert_eq!(
        updated["room"]["admin"],
        json!(null),
        "an admin who left is no longer admin"
    );
    kit.refused(
        "update-room",
        json!({"id": id, "members": []}),
        "bot/invalid",
    )
    .await;
    kit.ok("delete-room", json!({"id": id})).await;
    kit.refused("delete-room", json!({"id": id}), "bot/not-found")
        .await;
}

#[tokio::test]
/// Rule #1247.
async fn a_bots_queue_role_is_set_and_cleared_through_the_channel() {
    let kit = Kit::new().await;
    let answer = kit
        .ok("create-bot", json!({"name": "Dev1", "role": " Dev "}))
        .await;
    assert_eq!(answer["bot"]["role"], "Dev");
    let id = answer["bot"]["id"].as_str().unwrap().to_owned();
    let answer = kit
        .ok("update-bot", json!({"id": id, "role": "Reviewer"}))
        .await;
    assert_eq!(answer["bot"]["role"], "Reviewer");
    let answer = kit.ok("update-bot", json!({"id": id, "role": ""})).await;
    assert!(answer["bot"].get("role").is_none(), "{answer}");
    kit.refused(
        "update-bot",
        json!({"id": id, "role": "a\nb"}),
        "bot/invalid",
    )
    .await;
}

#[tokio::test]
/// Rules #894, #1720.
async fn update_room_sets_the_standing_notice_and_the_task_lead() {
    let kit = flybot_testkit::Kit::new().await;
    let [ada, bo] = kit.bots(["Ada", "Bo"]).await;
    let room = kit.room("Build", &[&ada, &bo]).await;
    let answer = kit
        .ok(
            "update-room",
            serde_json::json!({"id": room.id, "notice": "Ship by Friday", "taskLead": bo.id}),
        )
        .await;
    assert_eq!(answer["room"]["notice"], "Ship by Friday");
    assert_eq!(answer["room"]["taskLead"], bo.id.as_str());
    kit.anyone()
        .refused(
            "update-room",
            serde_json::json!({"id": room.id, "taskLead": "bot-nobody"}),
            "bot/invalid",
        )
        .await;
}

#[tokio::test]
/// Rule #638.
async fn retire_bot_keeps_the_record_hidden_and_a_second_retire_is_not_found() {
    let kit = flybot_testkit::Kit::new().await;
    let ada = kit.bot("Ada").await;
    let answer = kit
        .ok("retire-bot", serde_json::json!({"id": ada.id}))
        .await;
    assert_eq!(answer["bot"]["retired"], true);
    assert_eq!(answer["bot"]["hidden"], true);
    kit.anyone()
        .refused(
            "retire-bot",
            serde_json::json!({"id": ada.id}),
            "bot/not-found",
        )
        .await;
}
