//! A room shared from another home, shared on (issue 34, #848, #883): Bob
//! adds his friend Dave's Bot to the room Alice shared with him. Dave's home
//! projects it as "Shared room from" Alice's inviter, never Bob (a re-share
//! keeps its own inviter), a line Bob writes there reaches both Alice's
//! room and Dave's, and the inviter's own Bots are not Bob's to remove.

use super::shared_rooms::{lines_until, rooms, share_plans};
use super::{home, remote_bot, until};
use flybot_testkit::Room;
use flybot_testkit::synapse::start_synapse;
use serde_json::{Value, json};
use std::time::Duration;

#[tokio::test]
/// Rules #848, #883.
async fn a_reshared_room_keeps_its_own_inviter_and_its_lines_reach_both_homes() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let s = share_plans(&synapse).await;
    // Bob's own name, so a re-share that named him would show it.
    s.bob
        .kit
        .host
        .team()
        .mutate("test", |change| {
            let owner = flybot_core::access::host_owner_id(change.state()).unwrap();
            let mut me = change.state().members[&owner].clone();
            me.name = "Bob".into();
            change.put_member(&me);
            Ok(())
        })
        .await
        .unwrap();
    let dave = home(&synapse, "dave").await;
    s.bob
        .kit
        .ok("social-friend-add", json!({"userId": dave.user}))
        .await;
    dave.kit
        .ok("social-friend-add", json!({"userId": s.bob.user}))
        .await;
    let dino = dave.kit.bot("Dino").await;
    dave.kit
        .ok(
            "social-publish",
            json!({"botId": dino.id, "userId": s.bob.user}),
        )
        .await;
    let seen = until(&s.bob.kit, "Dave's Dino on Bob's page", |v| {
        remote_bot(v, "Dino (Owner)").is_some_and(|b| b["shared"] == true)
    })
    .await;
    let dino_row = remote_bot(&seen, "Dino (Owner)").unwrap()["roomId"].clone();
    s.bob
        .kit
        .ok(
            "room-share-add",
            json!({"roomId": s.mirror.id, "friendBot": dino_row}),
        )
        .await;
    let mut mirror: Option<Value> = None;
    for _ in 0..600 {
        mirror = rooms(&dave.kit)
            .into_iter()
            .find(|r| r["origin"] == "inbound-share");
        if mirror.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mirror = mirror.expect("the room never appeared on Dave's home");
    // #883: the inviter Alice's share named, not Bob who shared it on.
    assert_eq!(mirror["sharedFrom"]["inviterName"], "Owner", "{mirror}");
    assert_eq!(mirror["sharedFrom"]["home"], s.bob.user);
    assert_eq!(mirror["members"], json!([dino.id]));

    // A line Bob writes goes back to Alice's room and on to Dave's.
    s.bob
        .kit
        .ok(
            "send",
            json!({"roomId": s.mirror.id, "text": "hello both homes"}),
        )
        .await;
    lines_until(&s.alice.kit, &s.plans, "Bob's line at Alice's", |l| {
        l.iter().any(|t| t.contains("hello both homes"))
    })
    .await;
    let at_dave = Room {
        id: mirror["id"].as_str().unwrap().to_owned(),
        name: "Plans".into(),
    };
    lines_until(&dave.kit, &at_dave, "Bob's line at Dave's", |l| {
        l.iter().any(|t| t.contains("hello both homes"))
    })
    .await;

    // Alice's Atlas sits in Bob's copy, but is not Bob's to remove.
    let atlas_seat = format!("{}/{}", s.alice.user, s.atlas.id);
    let (status, answer) = s
        .bob
        .kit
        .post(
            "room-share-remove",
            json!({"roomId": s.mirror.id, "seat": atlas_seat}),
        )
        .await;
    assert_eq!(status, 404, "{answer}");
    assert_eq!(answer["error"]["code"], "bot/not-found");
    let copy = rooms(&s.bob.kit)
        .into_iter()
        .find(|r| r["id"] == s.mirror.id.as_str())
        .unwrap();
    let atlas = copy["participants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == atlas_seat.as_str())
        .cloned()
        .unwrap();
    assert!(atlas["leftSeq"].is_null(), "{atlas}");
}
