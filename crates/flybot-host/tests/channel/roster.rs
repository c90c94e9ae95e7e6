//! The roster: Bots, Main Bots, rooms, and what deleting a Bot does.

use crate::support::TestHost;
use flybot_protocol::state::{Task, TaskStatus};
use serde_json::json;

#[tokio::test]
async fn first_state_request_makes_the_first_main_bot_once() {
    let t = TestHost::new();
    let view = t.state(None).await.1;
    let chief = view["bots"][0]["id"].as_str().unwrap().to_owned();
    assert_eq!(view["bots"][0]["name"], "Chief");
    assert_eq!(view["mainBotIds"], json!([chief]));
    assert_eq!(view["designatedChiefId"], chief.as_str());
    t.ok(None, "delete-bot", json!({"id": chief})).await;
    let view = t.state(None).await.1;
    assert_eq!(
        view["bots"],
        json!([]),
        "a home that had members is not fresh"
    );
    assert_eq!(view["mainBotIds"], json!([]));
}

#[tokio::test]
async fn create_bot_is_silent_and_announced_645() {
    let t = TestHost::new();
    let mut events = t.host.subscribe();
    let id = t.create_bot(None, "Helper").await;
    let event = events.try_recv().unwrap();
    assert_eq!(
        event,
        flybot_host::HostEvent::BotCreated {
            bot_id: id.clone(),
            owner_id: t.host.store().read(|s| s.bots[&id].owner_id.clone()),
        }
    );
    assert!(events.try_recv().is_err(), "exactly one event, no message");
    assert!(t.host.store().read(|s| s.tasks.is_empty()));
}

#[tokio::test]
async fn bot_names_are_unique_and_checked() {
    let t = TestHost::new();
    t.create_bot(None, "Helper").await;
    let answer = t
        .refused(None, "create-bot", json!({"name": "helper"}), "bot/invalid")
        .await;
    assert_eq!(answer["error"]["details"]["field"], "name");
    t.refused(None, "create-bot", json!({"name": ""}), "bot/invalid")
        .await;
    t.refused(
        None,
        "create-bot",
        json!({"name": "X", "model": "a b"}),
        "bot/invalid",
    )
    .await;
    t.refused(
        None,
        "update-bot",
        json!({"id": "bot-none", "name": "Y"}),
        "bot/not-found",
    )
    .await;
}

#[tokio::test]
async fn update_and_duplicate_answer_the_record() {
    let t = TestHost::new();
    let id = t.create_bot(None, "Helper").await;
    let answer = t
        .ok(
            None,
            "update-bot",
            json!({"id": id, "model": "deepseek-chat", "instructions": "Be brief."}),
        )
        .await;
    assert_eq!(answer["bot"]["model"], "deepseek-chat");
    let revision = t.host.store().revision();
    t.ok(
        None,
        "update-bot",
        json!({"id": id, "model": "deepseek-chat"}),
    )
    .await;
    assert_eq!(
        t.host.store().revision(),
        revision,
        "a change that changes nothing moves no revision"
    );
    let copy = t.ok(None, "duplicate-bot", json!({"id": id})).await;
    assert_eq!(copy["bot"]["name"], "Helper copy");
    assert_eq!(copy["bot"]["instructions"], "Be brief.");
    assert_ne!(copy["bot"]["id"], id.as_str());
    assert_ne!(copy["bot"]["sessionId"], answer["bot"]["sessionId"]);
    let again = t.ok(None, "duplicate-bot", json!({"id": id})).await;
    assert_eq!(again["bot"]["name"], "Helper copy 2");
}

#[tokio::test]
async fn delete_bot_fails_its_open_tasks_and_retires_its_sessions_1453() {
    let t = TestHost::new();
    let keep = t.create_bot(None, "Keeper").await;
    let gone = t.create_bot(None, "Leaver").await;
    let room = t
        .ok(
            None,
            "create-room",
            json!({"name": "R", "members": [keep, gone], "admin": gone}),
        )
        .await;
    let room_id = room["room"]["id"].as_str().unwrap().to_owned();
    let room_session = room["room"]["sessions"][&gone].as_str().unwrap().to_owned();
    t.ok(None, "set-main", json!({"id": gone})).await;
    t.ok(
        None,
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
    t.host
        .mutate("test", |change| {
            change.put_task(&task("task-open", TaskStatus::Working));
            change.put_task(&task("task-ready", TaskStatus::ResultReady));
            change.put_task(&task("task-done", TaskStatus::Accepted));
            Ok(())
        })
        .await
        .unwrap();
    let own_session = t.host.store().read(|s| s.bots[&gone].session_id.clone());

    let answer = t.ok(None, "delete-bot", json!({"id": gone})).await;
    assert_eq!(answer["deleted"], true);
    let state = t.host.store().read(|s| s.clone());
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
}

#[tokio::test]
async fn set_main_promotes_and_swaps_613() {
    let t = TestHost::new();
    let chief = t.state(None).await.1["bots"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let other = t.create_bot(None, "Second").await;
    let answer = t
        .ok(None, "set-main", json!({"id": other, "replace": chief}))
        .await;
    assert_eq!(answer["mainBotIds"], json!([other]));
    assert_eq!(
        t.host.store().read(|s| s.designated_chief_id.clone()),
        Some(other.clone())
    );
    t.refused(
        None,
        "set-main",
        json!({"id": chief, "replace": "bot-none"}),
        "bot/invalid",
    )
    .await;
}

#[tokio::test]
async fn rooms_need_someone_and_an_admin_among_members() {
    let t = TestHost::new();
    let a = t.create_bot(None, "A").await;
    let b = t.create_bot(None, "B").await;
    t.refused(
        None,
        "create-room",
        json!({"name": "Empty", "members": []}),
        "bot/invalid",
    )
    .await;
    t.refused(
        None,
        "create-room",
        json!({"name": "R", "members": [a], "admin": b}),
        "bot/invalid",
    )
    .await;
    t.refused(
        None,
        "create-room",
        json!({"name": "R", "members": ["bot-none"]}),
        "bot/invalid",
    )
    .await;
    let room = t
        .ok(
            None,
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
    let updated = t
        .ok(None, "update-room", json!({"id": id, "members": [a]}))
        .await;
    assert_eq!(
        updated["room"]["admin"],
        json!(null),
        "an admin who left is no longer admin"
    );
    t.refused(
        None,
        "update-room",
        json!({"id": id, "members": []}),
        "bot/invalid",
    )
    .await;
    t.ok(None, "delete-room", json!({"id": id})).await;
    t.refused(None, "delete-room", json!({"id": id}), "bot/not-found")
        .await;
}

#[tokio::test]
async fn a_bots_queue_role_is_set_and_cleared_through_the_channel_1247() {
    let t = TestHost::new();
    let answer = t
        .ok(None, "create-bot", json!({"name": "Dev1", "role": " Dev "}))
        .await;
    assert_eq!(answer["bot"]["role"], "Dev");
    let id = answer["bot"]["id"].as_str().unwrap().to_owned();
    let answer = t
        .ok(None, "update-bot", json!({"id": id, "role": "Reviewer"}))
        .await;
    assert_eq!(answer["bot"]["role"], "Reviewer");
    let answer = t
        .ok(None, "update-bot", json!({"id": id, "role": ""}))
        .await;
    assert!(answer["bot"].get("role").is_none(), "{answer}");
    t.refused(
        None,
        "update-bot",
        json!({"id": id, "role": "a\nb"}),
        "bot/invalid",
    )
    .await;
}
