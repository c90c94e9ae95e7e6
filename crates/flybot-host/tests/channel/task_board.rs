//! The Bot task board through the channel (#1058, #1252): updates, columns,
//! reads and who sees what; group jobs and the overall card (#1099).

use flybot_testkit::Kit;
use serde_json::{Value, json};

fn ids(answer: &Value) -> Vec<String> {
    answer["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect()
}

/// `task-update` with `body` as the home's owner is refused with `code`.
async fn update_refused(kit: &Kit, body: Value, code: &str) {
    kit.refused("task-update", body, code).await;
}

#[tokio::test]
/// Rule #1058.
async fn task_update_sets_priority_progress_note_and_walks_columns_forward() {
    let kit = Kit::new().await;
    let bot = kit.bot("Worker").await.id;
    let id = kit.card(&bot, "Ship it").await;
    let answer = kit
        .ok(
            "task-update",
            json!({"id": id, "priority": "urgent", "progress": 40, "note": "first step", "column": "in-progress"}),
        )
        .await;
    let card = &answer["task"];
    assert_eq!(card["status"], "working");
    assert_eq!(card["priority"], "urgent");
    assert_eq!(card["progress"], 40);
    assert_eq!(card["note"], "first step");
    assert!(card["actors"]["claimed"].is_object());
    update_refused(
        &kit,
        json!({"id": id, "column": "not-started"}),
        "bot/stale",
    )
    .await;
    update_refused(&kit, json!({"id": id, "progress": 101}), "bot/invalid").await;
    update_refused(&kit, json!({"id": id, "column": "sideways"}), "bot/invalid").await;
    let (blocked, _) = kit.card_in(&bot, "blocked").await;
    update_refused(&kit, json!({"id": blocked, "column": "done"}), "bot/stale").await;
    let done = kit
        .ok("task-update", json!({"id": id, "column": "done"}))
        .await;
    assert_eq!(done["task"]["status"], "accepted");
    assert!(done["task"]["actors"]["result-ready"].is_object());
    update_refused(&kit, json!({"id": id, "note": "late"}), "bot/stale").await;
}

#[tokio::test]
/// Rule #1058.
async fn the_requester_or_the_bots_owner_updates_and_a_room_admin_does_not() {
    let kit = Kit::new().await;
    let [owner, other] = kit.members(["Ada", "Bob"]).await;
    let bot = kit.as_member(&owner).bot("Worker").await.id;
    let bobs_bot = kit.as_member(&other).bot("Bob's").await.id;
    kit.as_member(&owner)
        .ok(
            "set-grants",
            json!({"botId": bot, "grants": [{"grantee": other.member_id}]}),
        )
        .await;
    // Bob asks Ada's Bot: both Bob (requester) and Ada (owner) may update.
    let id = kit.as_member(&other).card(&bot, "Bob's ask").await;
    kit.as_member(&owner)
        .ok("task-update", json!({"id": id, "progress": 10}))
        .await;
    kit.as_member(&other)
        .ok("task-update", json!({"id": id, "progress": 20}))
        .await;
    // Bob's room with Ada's Bot as admin: Ada admins it, but a card Bob asks
    // of his own Bot there is not hers to update.
    let room_id = kit
        .as_member(&other)
        .room_from(json!({"name": "Bob's room", "members": [bobs_bot, bot], "admin": bot}))
        .await
        .id;
    let card_id = kit
        .as_member(&other)
        .card_from(json!({"botId": bobs_bot, "title": "Room work", "roomId": room_id}))
        .await;
    kit.as_member(&owner)
        .refused(
            "task-update",
            json!({"id": card_id, "progress": 5}),
            "bot/forbidden",
        )
        .await;
}

#[tokio::test]
/// Rule #1252.
async fn reads_default_to_active_work_and_page_the_newest_finished_rows() {
    let kit = Kit::new().await;
    let bot = kit.bot("Worker").await.id;
    let other_bot = kit.bot("Helper").await.id;
    let low = kit
        .card_from(json!({"botId": bot, "title": "low", "priority": "low"}))
        .await;
    let (working, _) = kit.card_in(&bot, "working").await;
    let urgent_open = kit
        .card_from(json!({"botId": bot, "title": "u", "priority": "urgent"}))
        .await;
    let (done_a, _) = kit.card_in(&bot, "accepted").await;
    let (done_b, _) = kit.card_in(&bot, "cancelled").await;
    let (done_other, _) = kit.card_in(&other_bot, "cancelled").await;

    let active = kit.ok("tasks", json!({})).await;
    assert_eq!(
        ids(&active),
        [urgent_open.clone(), working.clone(), low.clone()]
    );
    assert_eq!(active["tasks"][1]["column"], "in-progress");
    assert_eq!(active["tasks"][1]["ownerBotName"], "Worker");

    let all = kit.ok("tasks", json!({"archive": true})).await;
    assert_eq!(ids(&all).len(), 6);

    let page = kit.ok("tasks", json!({"archive": true, "limit": 2})).await;
    assert_eq!(ids(&page), [done_other.clone(), done_b.clone()]);
    // The Bot filter applies before the cut.
    let page = kit
        .ok("tasks", json!({"archive": true, "limit": 2, "botId": bot}))
        .await;
    assert_eq!(ids(&page), [done_b, done_a]);
    kit.refused("tasks", json!({"limit": 2}), "bot/invalid")
        .await;
}

#[tokio::test]
/// Rule #1058.
async fn the_room_view_is_the_admins_only() {
    let kit = Kit::new().await;
    let [owner, other] = kit.members(["Ada", "Bob"]).await;
    let bot = kit.as_member(&owner).bot("Worker").await.id;
    let room_id = kit
        .as_member(&owner)
        .room_from(json!({"name": "Team", "members": [bot], "admin": bot,
               "participants": [{"kind": "human", "memberId": other.member_id}]}))
        .await
        .id;
    let card = kit
        .as_member(&other)
        .ok(
            "task-create",
            json!({"botId": bot, "title": "Bob asks in the room", "roomId": room_id}),
        )
        .await;
    let view = kit
        .as_member(&owner)
        .ok("tasks", json!({"roomId": room_id}))
        .await;
    assert_eq!(view["tasks"][0]["id"], card["task"]["id"]);
    kit.as_member(&other)
        .refused("tasks", json!({"roomId": room_id}), "bot/forbidden")
        .await;
    // Bob still sees what he asked for in his plain list.
    let mine = kit.as_member(&other).ok("tasks", json!({})).await;
    assert_eq!(mine["tasks"].as_array().unwrap().len(), 1);
}

async fn group_room(kit: &Kit) -> (String, String, String, String) {
    let lead = kit.bot("Lead").await.id;
    let dev = kit.bot("Dev").await.id;
    let rev = kit.bot("Rev").await.id;
    kit.set_role(&dev, "Dev").await;
    let room_id = kit
        .room_from(json!({"name": "Crew", "members": [lead, dev, rev], "admin": lead}))
        .await
        .id;
    (room_id, lead, dev, rev)
}

/// The `task-create` body that records `room`'s overall card, owned by `bot`.
fn overall_body(bot: &str, room: &str, title: &str) -> Value {
    json!({"botId": bot, "title": title, "roomId": room, "kind": "group"})
}

/// Records `room`'s overall card, owned by its lead; answers its id.
async fn overall_card(kit: &Kit, lead: &str, room: &str, title: &str) -> String {
    kit.card_from(overall_body(lead, room, title)).await
}

/// Puts a card for `bot` under the overall card `parent`; answers its id.
async fn child_card(kit: &Kit, bot: &str, title: &str, parent: &str) -> String {
    kit.card_from(json!({"botId": bot, "title": title, "parentId": parent}))
        .await
}

#[tokio::test]
/// Rule #1099.
async fn the_overall_card_accepts_with_progress_100_when_every_child_ended_well() {
    let kit = Kit::new().await;
    let (room, lead, dev, rev) = group_room(&kit).await;
    kit.refused(
        "task-create",
        overall_body(&dev, &room, "Plan"),
        "bot/forbidden",
    )
    .await;
    let overall = overall_card(&kit, &lead, &room, "Plan").await;
    // A group keeps one open overall card: recording another updates it.
    let again = kit
        .ok("task-create", overall_body(&lead, &room, "Plan v2"))
        .await;
    assert_eq!(again["task"]["id"], overall.as_str());
    assert_eq!(again["task"]["title"], "Plan v2");
    let a = child_card(&kit, &dev, "Build", &overall).await;
    let b = child_card(&kit, &rev, "Review", &overall).await;
    assert_eq!(kit.record(&a)["roomId"], room.as_str());
    let rows = kit.ok("tasks", json!({"botId": dev})).await;
    assert_eq!(rows["tasks"][0]["parentTitle"], "Plan v2");
    kit.ok("task-update", json!({"id": a, "column": "done"}))
        .await;
    assert_eq!(kit.record(&overall)["status"], "open");
    kit.ok("task-cancel", json!({"id": b})).await;
    let done = kit.record(&overall);
    assert_eq!(done["status"], "accepted");
    assert_eq!(done["progress"], 100);
}

#[tokio::test]
/// Rule #1099.
async fn a_failed_child_fails_the_overall_card_and_a_blocked_one_is_left_alone() {
    let kit = Kit::new().await;
    let (room, lead, dev, _) = group_room(&kit).await;
    let overall = overall_card(&kit, &lead, &room, "Plan").await;
    let a = child_card(&kit, &dev, "Build", &overall).await;
    kit.ok("delete-bot", json!({"id": dev})).await;
    assert_eq!(kit.record(&a)["status"], "failed");
    assert_eq!(kit.record(&overall)["status"], "failed");

    // A blocked overall card waits on its owner.
    let overall = overall_card(&kit, &lead, &room, "Plan 2").await;
    let child = child_card(&kit, &lead, "Part", &overall).await;
    for endpoint in ["task-accept", "task-start"] {
        kit.ok(endpoint, json!({"id": overall})).await;
    }
    kit.ok("task-wait-input", json!({"id": overall, "question": "Go?"}))
        .await;
    kit.ok("task-cancel", json!({"id": child})).await;
    assert_eq!(kit.record(&overall)["status"], "blocked");
}

#[tokio::test]
/// Rule #1252.
async fn finished_cards_are_pruned_after_a_board_write_and_result_ready_stays() {
    use flybot_host::board::prune::{FINISHED_KEPT, PRUNE_SLACK};
    use flybot_protocol::state::{Task, TaskStatus};
    let kit = Kit::new().await;
    let bot = kit.bot("Dev").await.id;
    let (ready, _) = kit.card_in(&bot, "result-ready").await;
    let over = FINISHED_KEPT + PRUNE_SLACK + 1;
    let bot_ = bot.clone();
    kit.host
        .team()
        .mutate("test", move |change| {
            for n in 0..over as u64 {
                change.put_task(&Task {
                    id: format!("task-old-{n:05}"),
                    bot_id: bot_.clone(),
                    title: format!("old {n}"),
                    status: TaskStatus::Accepted,
                    requester_id: None,
                    room_id: None,
                    created_at: 1 + n,
                    updated_at: 1 + n,
                    extra: Default::default(),
                });
            }
            Ok(())
        })
        .await
        .unwrap();
    // Any board write runs the prune after it.
    kit.card(&bot, "fresh").await;
    let ended = |kit: &Kit| {
        kit.host
            .store()
            .read(|s| s.tasks.values().filter(|t| t.status.is_terminal()).count())
    };
    kit.until("the prune keeps the newest finished cards", || {
        ended(&kit) == FINISHED_KEPT
    })
    .await;
    kit.host.store().read(|s| {
        assert!(!s.tasks.contains_key("task-old-00000"), "the oldest went");
        let newest = format!("task-old-{:05}", over - 1);
        assert!(s.tasks.contains_key(&newest), "the newest stayed");
        assert_eq!(s.tasks[&ready].status, TaskStatus::ResultReady);
    });
}
