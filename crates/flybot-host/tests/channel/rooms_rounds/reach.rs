//! Reach judged by the host (#90): revoking a grant evicts the Bot from a
//! room of several owners, and a Bot's message is judged again when a turn
//! takes it, so a revoked grant stops a message already queued.

use flybot_agent::session::{ItemKind, Source};
use flybot_testkit::{Bot, Kit, Member};
use serde_json::json;

/// Ada and Bob, each owning a Bot the other may use.
async fn granted_pair(kit: &Kit) -> (Member, Member, Bot, Bot) {
    let ada = kit.owner("Ada").await;
    let bob = kit.as_member(&ada).invite("Bob").await;
    let ada_bot = kit.as_member(&ada).bot("Ada helper").await;
    let bob_bot = kit.as_member(&bob).bot("Bob helper").await;
    let grant =
        |bot: &Bot, grantee: &str| json!({"botId": bot.id, "grants": [{"grantee": grantee}]});
    kit.as_member(&bob)
        .ok("set-grants", grant(&bob_bot, &ada.member_id))
        .await;
    kit.as_member(&ada)
        .ok("set-grants", grant(&ada_bot, &bob.member_id))
        .await;
    (ada, bob, ada_bot, bob_bot)
}

#[tokio::test]
/// Rule #90.
async fn revoking_a_grant_evicts_the_bot_from_a_room_of_several_owners() {
    let kit = Kit::new().await;
    let (ada, bob, ada_bot, bob_bot) = granted_pair(&kit).await;
    let room = kit
        .as_member(&ada)
        .room_from(json!({"name": "Shared", "members": [ada_bot.id, bob_bot.id]}))
        .await;
    kit.as_member(&bob)
        .ok("set-grants", json!({"botId": bob_bot.id, "grants": []}))
        .await;
    let room = kit.host.store().read(|s| s.rooms[&room.id].clone());
    assert_eq!(room.members, vec![ada_bot.id.clone()]);
    let left = room
        .participants
        .iter()
        .any(|p| p["id"] == json!(bob_bot.id) && p.get("leftSeq").is_some_and(|v| !v.is_null()));
    assert!(left, "{:?}", room.participants);
}

#[tokio::test]
/// Rule #90.
async fn a_bot_message_is_judged_again_at_delivery_and_a_revoked_grant_stops_it() {
    let kit = Kit::new().await;
    let (_ada, bob, ada_bot, bob_bot) = granted_pair(&kit).await;
    let session = bob_bot.session.clone();
    let from_ada = Source::Bot {
        bot_id: ada_bot.id.clone(),
        hops: 1,
        room_id: None,
        origin: None,
    };
    let sessions = kit.host.sessions().clone();
    sessions
        .deliver(
            &session,
            "granted line",
            from_ada.clone(),
            ItemKind::NextTurn,
        )
        .unwrap();
    kit.idle(&session).await;
    assert_eq!(kit.user_texts(&session), vec!["granted line"]);
    // Bob revokes; a message from Ada's Bot queued now never reaches it.
    kit.as_member(&bob)
        .ok("set-grants", json!({"botId": bob_bot.id, "grants": []}))
        .await;
    sessions
        .deliver(&session, "revoked line", from_ada, ItemKind::NextTurn)
        .unwrap();
    kit.idle(&session).await;
    assert_eq!(kit.user_texts(&session), vec!["granted line"]);
    // A person's line still goes.
    kit.say(&session, "owner line");
    kit.idle(&session).await;
    assert_eq!(kit.user_texts(&session), vec!["granted line", "owner line"]);
}
