//! Owner-scoped access (#49) and grants (#90) through the channel.

use flybot_testkit::{Kit, Member};
use serde_json::json;

struct Two {
    kit: Kit,
    ada: Member,
    bob: Member,
    ada_bot: String,
    bob_bot: String,
    bob_room: String,
}

async fn two_members() -> Two {
    let kit = Kit::new().await;
    let ada = kit.owner("Ada").await;
    let bob = kit.as_member(&ada).invite("Bob").await;
    let ada_bot = kit.as_member(&ada).bot("Ada helper").await.id;
    let bob_bot = kit.as_member(&bob).bot("Bob helper").await.id;
    let room = kit
        .as_member(&bob)
        .ok(
            "create-room",
            json!({"name": "Bob room", "members": [bob_bot]}),
        )
        .await;
    let bob_room = room["room"]["id"].as_str().unwrap().to_owned();
    Two {
        kit,
        ada,
        bob,
        ada_bot,
        bob_bot,
        bob_room,
    }
}

#[tokio::test]
/// Rule #49.
async fn create_bot_stamps_the_actor_as_owner() {
    let two = two_members().await;
    let bots = two.kit.host.store().read(|s| s.bots.clone());
    assert_eq!(bots[&two.ada_bot].owner_id, two.ada.member_id);
    assert_eq!(bots[&two.bob_bot].owner_id, two.bob.member_id);
}

#[tokio::test]
/// Rule #49.
async fn every_bot_and_room_endpoint_denies_another_owner() {
    let Two {
        kit,
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
        kit.with_token(me)
            .refused(endpoint, body, "bot/forbidden")
            .await;
    }
}

#[tokio::test]
/// Rule #49.
async fn the_view_is_narrowed_to_the_actor() {
    let Two {
        kit,
        ada,
        bob,
        ada_bot,
        bob_bot,
        ..
    } = two_members().await;
    let view = kit.as_member(&ada).state().await.1;
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
/// Rule #90.
async fn a_grant_lets_the_grantee_seat_the_bot_but_not_change_it() {
    let Two {
        kit,
        ada,
        bob,
        ada_bot,
        bob_bot,
        ..
    } = two_members().await;
    kit.as_member(&bob)
        .ok(
            "set-grants",
            json!({"botId": bob_bot, "grants": [{"grantee": ada.member_id}]}),
        )
        .await;
    let room = kit
        .as_member(&ada)
        .ok(
            "create-room",
            json!({"name": "Shared", "members": [ada_bot, bob_bot]}),
        )
        .await;
    assert_eq!(room["room"]["members"], json!([ada_bot, bob_bot]));
    kit.as_member(&ada)
        .refused(
            "update-bot",
            json!({"id": bob_bot, "model": "x"}),
            "bot/forbidden",
        )
        .await;
    // Revoking every grant is an empty list (default deny, #90).
    let answer = kit
        .as_member(&bob)
        .ok("set-grants", json!({"botId": bob_bot, "grants": []}))
        .await;
    assert_eq!(answer["grants"], json!([]));
    assert!(kit.host.store().read(|s| !s.grants.contains_key(&bob_bot)));
}

#[tokio::test]
/// Rule #90.
async fn grants_are_validated() {
    let Two {
        kit, bob, bob_bot, ..
    } = two_members().await;
    let me = Some(bob.token.as_str());
    kit.with_token(me)
        .refused(
            "set-grants",
            json!({"botId": bob_bot, "grants": [{"grantee": "member-nobody"}]}),
            "bot/invalid",
        )
        .await;
    kit.with_token(me)
        .refused(
            "set-grants",
            json!({"botId": bob_bot, "grants": [{"grantee": bob_bot}]}),
            "bot/invalid",
        )
        .await;
    let answer = kit
        .with_token(me)
        .refused(
            "set-grants",
            json!({"botId": bob_bot, "grants": [{"grantee": bob.member_id, "roomId": "room-none"}]}),
            "bot/invalid",
        )
        .await;
    assert_eq!(answer["error"]["details"]["field"], "grants[0].roomId");
    kit.with_token(me)
        .refused(
            "set-grants",
            json!({"botId": "bot-none", "grants": []}),
            "bot/not-found",
        )
        .await;
}

#[tokio::test]
/// Rule #49.
async fn shared_writes_are_blocked_while_more_than_one_member_exists() {
    let kit = Kit::new().await;
    kit.ok("set-prefs", json!({"prefs": {"theme": "dark"}}))
        .await;
    kit.ok("diagnostics", json!({})).await;
    let ada = kit.owner("Ada").await;
    kit.as_member(&ada)
        .ok("set-prefs", json!({"prefs": {"theme": "light"}}))
        .await;
    let bob = kit.as_member(&ada).invite("Bob").await;
    for token in [&ada.token, &bob.token] {
        kit.with_token(Some(token))
            .refused(
                "set-prefs",
                json!({"prefs": {"theme": "x"}}),
                "bot/blocked-shared",
            )
            .await;
        kit.with_token(Some(token))
            .refused("diagnostics", json!({}), "bot/blocked-shared")
            .await;
    }
}

#[tokio::test]
/// Rule #49.
async fn single_owner_behaviour_is_unchanged_without_sessions() {
    let kit = Kit::new().await;
    let view = kit.state().await.1;
    assert_eq!(view["actor"]["singleOwner"], true);
    let bot = kit.bot("Helper").await.id;
    kit.ok(
        "update-bot",
        json!({"id": bot, "instructions": "Be brief."}),
    )
    .await;
    kit.ok("create-room", json!({"name": "Room", "members": [bot]}))
        .await;
}
