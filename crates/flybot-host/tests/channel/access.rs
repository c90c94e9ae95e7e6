//! Owner-scoped access (#49) and grants (#90) through the channel.

use crate::support::{Session, TestHost};
use serde_json::json;

struct Two {
    t: TestHost,
    ada: Session,
    bob: Session,
    ada_bot: String,
    bob_bot: String,
    bob_room: String,
}

async fn two_members() -> Two {
    let t = TestHost::new();
    let ada = t.sign_in_owner("Ada").await;
    let bob = t.invite_member(&ada.token, "Bob").await;
    let ada_bot = t.create_bot(Some(&ada.token), "Ada helper").await;
    let bob_bot = t.create_bot(Some(&bob.token), "Bob helper").await;
    let room = t
        .ok(
            Some(&bob.token),
            "create-room",
            json!({"name": "Bob room", "members": [bob_bot]}),
        )
        .await;
    let bob_room = room["room"]["id"].as_str().unwrap().to_owned();
    Two {
        t,
        ada,
        bob,
        ada_bot,
        bob_bot,
        bob_room,
    }
}

#[tokio::test]
async fn create_bot_stamps_the_actor_as_owner_49() {
    let two = two_members().await;
    let bots = two.t.host.store().read(|s| s.bots.clone());
    assert_eq!(bots[&two.ada_bot].owner_id, two.ada.member_id);
    assert_eq!(bots[&two.bob_bot].owner_id, two.bob.member_id);
}

#[tokio::test]
async fn every_bot_and_room_endpoint_denies_another_owner_49() {
    let Two {
        t,
        ada,
        bob_bot,
        bob_room,
        ada_bot,
        ..
    } = two_members().await;
    let me = Some(ada.token.as_str());
    for (endpoint, body) in [
        ("update-bot", json!({"id": bob_bot, "name": "Mine now"})),
        ("duplicate-bot", json!({"id": bob_bot})),
        ("delete-bot", json!({"id": bob_bot})),
        ("set-main", json!({"id": bob_bot})),
        (
            "set-grants",
            json!({"botId": bob_bot, "grants": [{"grantee": ada.member_id}]}),
        ),
        (
            "create-room",
            json!({"name": "Steal", "members": [ada_bot, bob_bot]}),
        ),
        ("update-room", json!({"id": bob_room, "name": "Mine"})),
        ("delete-room", json!({"id": bob_room})),
    ] {
        t.refused(me, endpoint, body, "bot/forbidden").await;
    }
}

#[tokio::test]
async fn the_view_is_narrowed_to_the_actor_49() {
    let Two {
        t,
        ada,
        bob,
        ada_bot,
        bob_bot,
        ..
    } = two_members().await;
    let view = t.state(Some(&ada.token)).await.1;
    let ids: Vec<&str> = view["bots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&ada_bot.as_str()));
    assert!(!ids.contains(&bob_bot.as_str()));
    assert!(view["rooms"].as_array().unwrap().is_empty());
    assert_eq!(view["authSessions"].as_array().unwrap().len(), 1);
    let text = view.to_string();
    assert!(!text.contains("tokenHash") && !text.contains("codeHash"));
    assert!(!text.contains(&bob.session_id));
}

#[tokio::test]
async fn a_grant_lets_the_grantee_seat_the_bot_but_not_change_it_90() {
    let Two {
        t,
        ada,
        bob,
        ada_bot,
        bob_bot,
        ..
    } = two_members().await;
    t.ok(
        Some(&bob.token),
        "set-grants",
        json!({"botId": bob_bot, "grants": [{"grantee": ada.member_id}]}),
    )
    .await;
    let room = t
        .ok(
            Some(&ada.token),
            "create-room",
            json!({"name": "Shared", "members": [ada_bot, bob_bot]}),
        )
        .await;
    assert_eq!(room["room"]["members"], json!([ada_bot, bob_bot]));
    t.refused(
        Some(&ada.token),
        "update-bot",
        json!({"id": bob_bot, "model": "x"}),
        "bot/forbidden",
    )
    .await;
    // Revoking every grant is an empty list (default deny, #90).
    let answer = t
        .ok(
            Some(&bob.token),
            "set-grants",
            json!({"botId": bob_bot, "grants": []}),
        )
        .await;
    assert_eq!(answer["grants"], json!([]));
    assert!(t.host.store().read(|s| !s.grants.contains_key(&bob_bot)));
}

#[tokio::test]
async fn grants_are_validated_90() {
    let Two {
        t, bob, bob_bot, ..
    } = two_members().await;
    let me = Some(bob.token.as_str());
    t.refused(
        me,
        "set-grants",
        json!({"botId": bob_bot, "grants": [{"grantee": "member-nobody"}]}),
        "bot/invalid",
    )
    .await;
    t.refused(
        me,
        "set-grants",
        json!({"botId": bob_bot, "grants": [{"grantee": bob_bot}]}),
        "bot/invalid",
    )
    .await;
    let answer = t
        .refused(
            me,
            "set-grants",
            json!({"botId": bob_bot, "grants": [{"grantee": bob.member_id, "roomId": "room-none"}]}),
            "bot/invalid",
        )
        .await;
    assert_eq!(answer["error"]["details"]["field"], "grants[0].roomId");
    t.refused(
        me,
        "set-grants",
        json!({"botId": "bot-none", "grants": []}),
        "bot/not-found",
    )
    .await;
}

#[tokio::test]
async fn shared_writes_are_blocked_while_more_than_one_member_exists_49() {
    let t = TestHost::new();
    t.ok(None, "set-prefs", json!({"prefs": {"theme": "dark"}}))
        .await;
    t.ok(None, "diagnostics", json!({})).await;
    let ada = t.sign_in_owner("Ada").await;
    t.ok(
        Some(&ada.token),
        "set-prefs",
        json!({"prefs": {"theme": "light"}}),
    )
    .await;
    let bob = t.invite_member(&ada.token, "Bob").await;
    for token in [&ada.token, &bob.token] {
        t.refused(
            Some(token),
            "set-prefs",
            json!({"prefs": {"theme": "x"}}),
            "bot/blocked-shared",
        )
        .await;
        t.refused(Some(token), "diagnostics", json!({}), "bot/blocked-shared")
            .await;
    }
}

#[tokio::test]
async fn single_owner_behaviour_is_unchanged_without_sessions_49() {
    let t = TestHost::new();
    let view = t.state(None).await.1;
    assert_eq!(view["actor"]["singleOwner"], true);
    let bot = t.create_bot(None, "Helper").await;
    t.ok(
        None,
        "update-bot",
        json!({"id": bot, "instructions": "Be brief."}),
    )
    .await;
    t.ok(
        None,
        "create-room",
        json!({"name": "Room", "members": [bot]}),
    )
    .await;
}
