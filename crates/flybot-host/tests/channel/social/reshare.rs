//! A room shared from another home, shared on (issue 34, #848, #883): Bob
//! adds his friend Dave's Bot to the room Alice shared with him. Dave's home
//! projects it as "Shared room from" Alice's inviter, never Bob (a re-share
//! keeps its own inviter), a line Bob writes there reaches both Alice's
//! room and Dave's, and the inviter's own Bots are not Bob's to remove.

use super::shared_rooms::{Shared, lines_until, rooms, share_plans};
use super::{Home, home, remote_bot, until};
use flybot_testkit::synapse::{Synapse, start_synapse};
use flybot_testkit::{Bot, Room};
use serde_json::{Value, json};
use std::time::Duration;

/// Alice's room shared with Bob's Bolt, and Bob's copy shared on with
/// his friend Dave's Dino: the three homes and Dave's mirror record.
struct Reshared {
    s: Shared,
    dave: Home,
    dino: Bot,
    mirror: Value,
}

async fn reshare_to_dave(synapse: &Synapse) -> Reshared {
    let s = share_plans(synapse).await;
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
    let dave = home(synapse, "dave").await;
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
    Reshared {
        s,
        dave,
        dino,
        mirror,
    }
}

#[tokio::test]
/// Rules #848, #883.
async fn a_reshared_room_keeps_its_own_inviter_and_its_lines_reach_both_homes() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let Reshared {
        s,
        dave,
        dino,
        mirror,
    } = reshare_to_dave(&synapse).await;
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

#[tokio::test]
/// Rules #848, #883, #918.
async fn a_reshared_room_relays_each_way_once_and_keeps_the_authors_it_can_trace() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let Reshared {
        s,
        dave,
        dino,
        mirror,
    } = reshare_to_dave(&synapse).await;
    let at_dave = Room {
        id: mirror["id"].as_str().unwrap().to_owned(),
        name: "Plans".into(),
    };
    let atlas_seat = format!("{}/{}", s.alice.user, s.atlas.id);
    let dino_seat = format!("{}/{}", dave.user, dino.id);
    // Alice and her Atlas write in her room. Bob's copy takes both and
    // relays them on to Dave's, where Atlas traces to the inviter.
    (s.alice.kit)
        .ok(
            "send",
            json!({"roomId": s.plans.id, "text": "news from Alice"}),
        )
        .await;
    (s.alice.kit.host.rooms())
        .post_bot_line(&s.plans.id, &s.atlas.id, "atlas reports in", 1, false)
        .unwrap();
    let lines = lines_until(&dave.kit, &at_dave, "Atlas's line at Dave's", |l| {
        l.iter().any(|t| t.contains("atlas reports in"))
            && l.iter().any(|t| t.contains("news from Alice"))
    })
    .await;
    let by_atlas: Vec<_> = (lines.iter())
        .filter(|(_, t)| t.contains("atlas reports in") && !t.contains("I received"))
        .collect();
    assert_eq!(by_atlas.len(), 1, "{lines:?}");
    assert_eq!(by_atlas[0].0, atlas_seat, "verified: {lines:?}");
    assert!(!by_atlas[0].1.contains("unverified"), "{lines:?}");
    // No line Alice's Atlas wrote reads as Bob's home's.
    let unverified = (lines.iter())
        .filter(|(_, t)| t.contains("unverified"))
        .count();
    assert_eq!(unverified, 0, "{lines:?}");
    let alice_said = (lines.iter())
        .filter(|(_, t)| t.contains("news from Alice") && !t.contains("I received"))
        .count();
    assert_eq!(alice_said, 1, "{lines:?}");

    // Dave writes in his copy: Bob's room takes it and relays it back to
    // Alice's, once, from Bob's home (Dave is no seat of Alice's room).
    (dave.kit)
        .ok(
            "send",
            json!({"roomId": at_dave.id, "text": "news from Dave"}),
        )
        .await;
    let lines = lines_until(&s.alice.kit, &s.plans, "Dave's line at Alice's", |l| {
        l.iter().any(|t| t.contains("news from Dave"))
    })
    .await;
    let from_dave: Vec<_> = (lines.iter())
        .filter(|(_, t)| t.contains("news from Dave") && !t.contains("I received"))
        .collect();
    assert_eq!(from_dave.len(), 1, "{lines:?}");
    assert_eq!(from_dave[0].0, s.bob.user, "{lines:?}");
    let at_bob = lines_until(&s.bob.kit, &s.mirror, "Dave's line at Bob's", |l| {
        l.iter().any(|t| t.contains("news from Dave"))
    })
    .await;
    let once = (at_bob.iter())
        .filter(|(_, t)| t.contains("news from Dave"))
        .count();
    assert_eq!(once, 1, "{at_bob:?}");

    // Bob calls Dave's Dino: its answer is Dino's at Bob's (its seat
    // there), and at Alice's the relaying home's, unverified (#918).
    (s.bob.kit)
        .ok(
            "send",
            json!({"roomId": s.mirror.id, "text": "@Dino please report"}),
        )
        .await;
    lines_until(&s.bob.kit, &s.mirror, "Dino's answer at Bob's", |l| {
        l.iter().any(|t| t.starts_with(&format!("{dino_seat}: ")))
    })
    .await;
    let lines = lines_until(&s.alice.kit, &s.plans, "Dino's answer at Alice's", |l| {
        l.iter().any(|t| t.contains("Dino (unverified, from"))
    })
    .await;
    let relayed: Vec<_> = (lines.iter())
        .filter(|(_, t)| t.contains("Dino (unverified, from"))
        .collect();
    assert_eq!(relayed.len(), 1, "{lines:?}");
    assert_eq!(relayed[0].0, s.bob.user);
    assert!(!lines.iter().any(|(a, _)| *a == dino_seat), "{lines:?}");
}
