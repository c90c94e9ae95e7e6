//! Reach judged by the host (#90): revoking a grant evicts the Bot from a
//! room of several owners, and a Bot's message is judged again when a turn
//! takes it, so a revoked grant stops a message already queued.

use crate::support::TestHost;
use flybot_agent::session::{ItemKind, SessionEvent, Source};
use serde_json::json;

#[tokio::test]
async fn revoking_a_grant_evicts_the_bot_from_a_room_of_several_owners_90() {
    let t = TestHost::new();
    let ada = t.sign_in_owner("Ada").await;
    let bob = t.invite_member(&ada.token, "Bob").await;
    let ada_bot = t.create_bot(Some(&ada.token), "Ada helper").await;
    let bob_bot = t.create_bot(Some(&bob.token), "Bob helper").await;
    t.ok(
        Some(&bob.token),
        "set-grants",
        json!({"botId": bob_bot, "grants": [{"grantee": ada.member_id}]}),
    )
    .await;
    t.ok(
        Some(&ada.token),
        "set-grants",
        json!({"botId": ada_bot, "grants": [{"grantee": bob.member_id}]}),
    )
    .await;
    let room = t
        .ok(
            Some(&ada.token),
            "create-room",
            json!({"name": "Shared", "members": [ada_bot, bob_bot]}),
        )
        .await;
    let id = room["room"]["id"].as_str().unwrap().to_owned();
    t.ok(
        Some(&bob.token),
        "set-grants",
        json!({"botId": bob_bot, "grants": []}),
    )
    .await;
    let room = t.host.store().read(|s| s.rooms[&id].clone());
    assert_eq!(room.members, vec![ada_bot.clone()]);
    let left = room
        .participants
        .iter()
        .any(|p| p["id"] == json!(bob_bot) && p.get("leftSeq").is_some_and(|v| !v.is_null()));
    assert!(left, "{:?}", room.participants);
}

fn user_lines(t: &TestHost, session: &str) -> Vec<String> {
    t.host
        .sessions()
        .transcript(session, 0)
        .unwrap()
        .into_iter()
        .filter_map(|e| match e.event {
            SessionEvent::UserMessage { text, .. } => Some(text),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_bot_message_is_judged_again_at_delivery_and_a_revoked_grant_stops_it_90() {
    let t = TestHost::new();
    let ada = t.sign_in_owner("Ada").await;
    let bob = t.invite_member(&ada.token, "Bob").await;
    let ada_bot = t.create_bot(Some(&ada.token), "Ada helper").await;
    let bob_bot = t.create_bot(Some(&bob.token), "Bob helper").await;
    let grant = |bot: &str, grantee: &str| json!({"botId": bot, "grants": [{"grantee": grantee}]});
    t.ok(
        Some(&bob.token),
        "set-grants",
        grant(&bob_bot, &ada.member_id),
    )
    .await;
    t.ok(
        Some(&ada.token),
        "set-grants",
        grant(&ada_bot, &bob.member_id),
    )
    .await;
    let session = t.host.store().read(|s| s.bots[&bob_bot].session_id.clone());
    let from_ada = Source::Bot {
        bot_id: ada_bot.clone(),
        hops: 1,
    };
    let sessions = t.host.sessions().clone();
    sessions
        .deliver(
            &session,
            "granted line",
            from_ada.clone(),
            ItemKind::NextTurn,
        )
        .unwrap();
    sessions.wait_idle(&session).await.unwrap();
    assert_eq!(user_lines(&t, &session), vec!["granted line"]);
    // Bob revokes; a message from Ada's Bot queued now never reaches it.
    t.ok(
        Some(&bob.token),
        "set-grants",
        json!({"botId": bob_bot, "grants": []}),
    )
    .await;
    sessions
        .deliver(&session, "revoked line", from_ada, ItemKind::NextTurn)
        .unwrap();
    sessions.wait_idle(&session).await.unwrap();
    assert_eq!(user_lines(&t, &session), vec!["granted line"]);
    // A person's line still goes.
    sessions
        .deliver(
            &session,
            "owner line",
            Source::User { member_id: None },
            ItemKind::NextTurn,
        )
        .unwrap();
    sessions.wait_idle(&session).await.unwrap();
    assert_eq!(user_lines(&t, &session), vec!["granted line", "owner line"]);
}
