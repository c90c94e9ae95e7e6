//! The Bot task board through the channel (#1058, #1252): updates, columns,
//! reads and who sees what; group jobs and the overall card (#1099).

use crate::support::TestHost;
use crate::task_kit::{
    ada_bob_and_worker, card_in, create, create_from, create_room, record, set_role,
};
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
async fn update_refused(t: &TestHost, body: Value, code: &str) {
    t.refused(None, "task-update", body, code).await;
}

#[tokio::test]
async fn task_update_sets_priority_progress_note_and_walks_columns_forward_1058() {
    let t = TestHost::new();
    let bot = t.create_bot(None, "Worker").await;
    let id = create(&t, None, &bot, "Ship it").await;
    let answer = t
        .ok(
            None,
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
    update_refused(&t, json!({"id": id, "column": "not-started"}), "bot/stale").await;
    update_refused(&t, json!({"id": id, "progress": 101}), "bot/invalid").await;
    update_refused(&t, json!({"id": id, "column": "sideways"}), "bot/invalid").await;
    let (blocked, _) = card_in(&t, None, &bot, "blocked").await;
    update_refused(&t, json!({"id": blocked, "column": "done"}), "bot/stale").await;
    let done = t
        .ok(None, "task-update", json!({"id": id, "column": "done"}))
        .await;
    assert_eq!(done["task"]["status"], "accepted");
    assert!(done["task"]["actors"]["result-ready"].is_object());
    update_refused(&t, json!({"id": id, "note": "late"}), "bot/stale").await;
}

#[tokio::test]
async fn the_requester_or_the_bots_owner_updates_and_a_room_admin_does_not_1058() {
    let t = TestHost::new();
    let (owner, other, bot) = ada_bob_and_worker(&t).await;
    let bobs_bot = t.create_bot(Some(&other.token), "Bob's").await;
    t.ok(
        Some(&owner.token),
        "set-grants",
        json!({"botId": bot, "grants": [{"grantee": other.member_id}]}),
    )
    .await;
    // Bob asks Ada's Bot: both Bob (requester) and Ada (owner) may update.
    let id = create(&t, Some(&other.token), &bot, "Bob's ask").await;
    t.ok(
        Some(&owner.token),
        "task-update",
        json!({"id": id, "progress": 10}),
    )
    .await;
    t.ok(
        Some(&other.token),
        "task-update",
        json!({"id": id, "progress": 20}),
    )
    .await;
    // Bob's room with Ada's Bot as admin: Ada admins it, but a card Bob asks
    // of his own Bot there is not hers to update.
    let room_id = create_room(
        &t,
        Some(&other.token),
        json!({"name": "Bob's room", "members": [bobs_bot, bot], "admin": bot}),
    )
    .await;
    let card_id = create_from(
        &t,
        Some(&other.token),
        json!({"botId": bobs_bot, "title": "Room work", "roomId": room_id}),
    )
    .await;
    t.refused(
        Some(&owner.token),
        "task-update",
        json!({"id": card_id, "progress": 5}),
        "bot/forbidden",
    )
    .await;
}

#[tokio::test]
async fn reads_default_to_active_work_and_page_the_newest_finished_rows_1252() {
    let t = TestHost::new();
    let bot = t.create_bot(None, "Worker").await;
    let other_bot = t.create_bot(None, "Helper").await;
    let low = create_from(
        &t,
        None,
        json!({"botId": bot, "title": "low", "priority": "low"}),
    )
    .await;
    let (working, _) = card_in(&t, None, &bot, "working").await;
    let urgent_open = create_from(
        &t,
        None,
        json!({"botId": bot, "title": "u", "priority": "urgent"}),
    )
    .await;
    let (done_a, _) = card_in(&t, None, &bot, "accepted").await;
    let (done_b, _) = card_in(&t, None, &bot, "cancelled").await;
    let (done_other, _) = card_in(&t, None, &other_bot, "cancelled").await;

    let active = t.ok(None, "tasks", json!({})).await;
    assert_eq!(
        ids(&active),
        [urgent_open.clone(), working.clone(), low.clone()]
    );
    assert_eq!(active["tasks"][1]["column"], "in-progress");
    assert_eq!(active["tasks"][1]["ownerBotName"], "Worker");

    let all = t.ok(None, "tasks", json!({"archive": true})).await;
    assert_eq!(ids(&all).len(), 6);

    let page = t
        .ok(None, "tasks", json!({"archive": true, "limit": 2}))
        .await;
    assert_eq!(ids(&page), [done_other.clone(), done_b.clone()]);
    // The Bot filter applies before the cut.
    let page = t
        .ok(
            None,
            "tasks",
            json!({"archive": true, "limit": 2, "botId": bot}),
        )
        .await;
    assert_eq!(ids(&page), [done_b, done_a]);
    t.refused(None, "tasks", json!({"limit": 2}), "bot/invalid")
        .await;
}

#[tokio::test]
async fn the_room_view_is_the_admins_only_1058() {
    let t = TestHost::new();
    let (owner, other, bot) = ada_bob_and_worker(&t).await;
    let room_id = create_room(
        &t,
        Some(&owner.token),
        json!({"name": "Team", "members": [bot], "admin": bot,
               "participants": [{"kind": "human", "memberId": other.member_id}]}),
    )
    .await;
    let card = t
        .ok(
            Some(&other.token),
            "task-create",
            json!({"botId": bot, "title": "Bob asks in the room", "roomId": room_id}),
        )
        .await;
    let view = t
        .ok(Some(&owner.token), "tasks", json!({"roomId": room_id}))
        .await;
    assert_eq!(view["tasks"][0]["id"], card["task"]["id"]);
    t.refused(
        Some(&other.token),
        "tasks",
        json!({"roomId": room_id}),
        "bot/forbidden",
    )
    .await;
    // Bob still sees what he asked for in his plain list.
    let mine = t.ok(Some(&other.token), "tasks", json!({})).await;
    assert_eq!(mine["tasks"].as_array().unwrap().len(), 1);
}

async fn group_room(t: &TestHost) -> (String, String, String, String) {
    let lead = t.create_bot(None, "Lead").await;
    let dev = t.create_bot(None, "Dev").await;
    let rev = t.create_bot(None, "Rev").await;
    set_role(t, &dev, "Dev").await;
    let room_id = create_room(
        t,
        None,
        json!({"name": "Crew", "members": [lead, dev, rev], "admin": lead}),
    )
    .await;
    (room_id, lead, dev, rev)
}

/// The `task-create` body that records `room`'s overall card, owned by `bot`.
fn overall_body(bot: &str, room: &str, title: &str) -> Value {
    json!({"botId": bot, "title": title, "roomId": room, "kind": "group"})
}

/// Records `room`'s overall card, owned by its lead; answers its id.
async fn overall_card(t: &TestHost, lead: &str, room: &str, title: &str) -> String {
    create_from(t, None, overall_body(lead, room, title)).await
}

/// Puts a card for `bot` under the overall card `parent`; answers its id.
async fn child_card(t: &TestHost, bot: &str, title: &str, parent: &str) -> String {
    create_from(
        t,
        None,
        json!({"botId": bot, "title": title, "parentId": parent}),
    )
    .await
}

#[tokio::test]
async fn the_overall_card_accepts_with_progress_100_when_every_child_ended_well_1099() {
    let t = TestHost::new();
    let (room, lead, dev, rev) = group_room(&t).await;
    t.refused(
        None,
        "task-create",
        overall_body(&dev, &room, "Plan"),
        "bot/forbidden",
    )
    .await;
    let overall = overall_card(&t, &lead, &room, "Plan").await;
    // A group keeps one open overall card: recording another updates it.
    let again = t
        .ok(None, "task-create", overall_body(&lead, &room, "Plan v2"))
        .await;
    assert_eq!(again["task"]["id"], overall.as_str());
    assert_eq!(again["task"]["title"], "Plan v2");
    let a = child_card(&t, &dev, "Build", &overall).await;
    let b = child_card(&t, &rev, "Review", &overall).await;
    assert_eq!(record(&t, &a)["roomId"], room.as_str());
    let rows = t.ok(None, "tasks", json!({"botId": dev})).await;
    assert_eq!(rows["tasks"][0]["parentTitle"], "Plan v2");
    t.ok(None, "task-update", json!({"id": a, "column": "done"}))
        .await;
    assert_eq!(record(&t, &overall)["status"], "open");
    t.ok(None, "task-cancel", json!({"id": b})).await;
    let done = record(&t, &overall);
    assert_eq!(done["status"], "accepted");
    assert_eq!(done["progress"], 100);
}

#[tokio::test]
async fn a_failed_child_fails_the_overall_card_and_a_blocked_one_is_left_alone_1099() {
    let t = TestHost::new();
    let (room, lead, dev, _) = group_room(&t).await;
    let overall = overall_card(&t, &lead, &room, "Plan").await;
    let a = child_card(&t, &dev, "Build", &overall).await;
    t.ok(None, "delete-bot", json!({"id": dev})).await;
    assert_eq!(record(&t, &a)["status"], "failed");
    assert_eq!(record(&t, &overall)["status"], "failed");

    // A blocked overall card waits on its owner.
    let overall = overall_card(&t, &lead, &room, "Plan 2").await;
    let child = child_card(&t, &lead, "Part", &overall).await;
    for endpoint in ["task-accept", "task-start"] {
        t.ok(None, endpoint, json!({"id": overall})).await;
    }
    t.ok(
        None,
        "task-wait-input",
        json!({"id": overall, "question": "Go?"}),
    )
    .await;
    t.ok(None, "task-cancel", json!({"id": child})).await;
    assert_eq!(record(&t, &overall)["status"], "blocked");
}
