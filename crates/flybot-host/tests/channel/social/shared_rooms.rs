//! Inbound shared rooms (issue 34, #825-#949) against a real Synapse: a
//! room of Alice's that gains Bob's published Bot is projected on Bob's
//! home at once, with its history copied once and no turn started; a line
//! travels both ways and each home's called Bot answers it once; a forged
//! join from a home that does not own the room is refused `not-inviter`
//! and a line for a room no join projected `unknown-room`, with nothing
//! changed.

use super::face_rooms::refusal;
use super::raw::{RawMatrix, messages};
use super::{Home, home, password, remote_bot, until};
use flybot_testkit::synapse::{Synapse, start_synapse};
use flybot_testkit::{Bot, Kit, Room};
use serde_json::{Value, json};
use std::time::Duration;

/// Alice's room "Plans" with her Atlas, shared with Bob's Bolt; the mirror
/// on Bob's home.
pub(super) struct Shared {
    pub(super) alice: Home,
    pub(super) bob: Home,
    pub(super) atlas: Bot,
    pub(super) bolt: Bot,
    pub(super) plans: Room,
    pub(super) mirror: Room,
}

/// The room records of a home.
pub(super) fn rooms(kit: &Kit) -> Vec<Value> {
    kit.host.store().read(|s| {
        s.rooms
            .values()
            .map(|r| serde_json::to_value(r).unwrap())
            .collect()
    })
}

fn mirror_of(kit: &Kit) -> Option<Value> {
    rooms(kit)
        .into_iter()
        .find(|r| r["origin"] == "inbound-share")
}

/// Waits until `pred` holds of the home's room lines (another home's doing).
pub(super) async fn lines_until(
    kit: &Kit,
    room: &Room,
    what: &str,
    pred: impl Fn(&[String]) -> bool,
) -> Vec<(String, String)> {
    for _ in 0..600 {
        let lines: Vec<(String, String)> = kit
            .room_lines(room)
            .into_iter()
            .map(|l| (l.author_id, l.text))
            .collect();
        let texts: Vec<String> = lines.iter().map(|(a, t)| format!("{a}: {t}")).collect();
        if pred(&texts) {
            return lines;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("never saw {what}: {:?}", kit.room_lines(room));
}

fn by(lines: &[(String, String)], author: &str) -> usize {
    lines.iter().filter(|(a, _)| a == author).count()
}

pub(super) async fn share_plans(synapse: &Synapse) -> Shared {
    let alice = home(synapse, "alice").await;
    let bob = home(synapse, "bob").await;
    alice
        .kit
        .ok("social-friend-add", json!({"userId": bob.user}))
        .await;
    bob.kit
        .ok("social-friend-add", json!({"userId": alice.user}))
        .await;
    let bolt = bob.kit.bot("Bolt").await;
    let body = json!({"botId": bolt.id, "userId": alice.user});
    bob.kit.ok("social-publish", body).await;
    let seen = until(&alice.kit, "Bob's Bolt on Alice's page", |v| {
        remote_bot(v, "Bolt (Owner)").is_some_and(|b| b["shared"] == true)
    })
    .await;
    let bolt_row = remote_bot(&seen, "Bolt (Owner)").unwrap()["roomId"].clone();
    let atlas = alice.kit.bot("Atlas").await;
    let plans = alice.kit.room("Plans", &[&atlas]).await;
    // A line before the share: the join carries it as history.
    alice
        .kit
        .ok(
            "send",
            json!({"roomId": plans.id, "text": "kickoff before sharing"}),
        )
        .await;
    lines_until(&alice.kit, &plans, "Atlas's first answer", |l| {
        l.iter().any(|t| t.starts_with(&format!("{}:", atlas.id)))
    })
    .await;
    let shared = alice
        .kit
        .ok(
            "room-share-add",
            json!({"roomId": plans.id, "friendBot": bolt_row}),
        )
        .await;
    let seat = format!("{}/{}", bob.user, bolt.id);
    assert!(
        shared["room"]["participants"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["id"] == seat),
        "{shared}"
    );
    let mut mirror = None;
    for _ in 0..600 {
        mirror = mirror_of(&bob.kit);
        if mirror.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mirror = mirror.expect("the shared room never appeared on Bob's home");
    let mirror = Room {
        id: mirror["id"].as_str().unwrap().to_owned(),
        name: mirror["name"].as_str().unwrap().to_owned(),
    };
    Shared {
        alice,
        bob,
        atlas,
        bolt,
        plans,
        mirror,
    }
}

#[tokio::test]
/// Rules #848, #904.
async fn a_room_that_gains_a_friends_bot_appears_on_the_friends_home_at_once() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let s = share_plans(&synapse).await;
    let mirror = mirror_of(&s.bob.kit).unwrap();
    assert_eq!(mirror["name"], "Plans");
    assert_eq!(mirror["members"], json!([s.bolt.id]));
    // #848: the person of the room is the inviter; the transport's sender
    // is the home it is bound to (#873).
    assert_eq!(mirror["sharedFrom"]["inviterName"], "Owner");
    assert_eq!(mirror["sharedFrom"]["home"], s.alice.user);
    assert_eq!(mirror["sharedFrom"]["remoteRoomId"], s.plans.id);
    // #904: Alice's Atlas rides the join's roster as a remote seat.
    let atlas_seat = format!("{}/{}", s.alice.user, s.atlas.id);
    let seats = mirror["participants"].as_array().unwrap();
    assert!(
        seats
            .iter()
            .any(|p| p["id"] == atlas_seat && p["kind"] == "remote-bot"),
        "{mirror}"
    );
    // History on join: copied once into the empty mirror, fenced (#98),
    // and no turn started for it.
    let lines = lines_until(&s.bob.kit, &s.mirror, "the history", |l| {
        l.iter().any(|t| t.contains("kickoff before sharing"))
    })
    .await;
    let kickoff: Vec<_> = lines
        .iter()
        .filter(|(a, t)| *a == s.alice.user && t.contains("kickoff before sharing"))
        .collect();
    assert_eq!(kickoff.len(), 1);
    assert!(kickoff[0].1.contains("<untrusted-message"), "{kickoff:?}");
    let seat = s.bob.kit.seat(&s.mirror, &s.bolt);
    assert!(
        s.bob.kit.user_texts(&seat).is_empty(),
        "no turn for history"
    );
    // The page's view shows it as a shared room.
    let (_, state) = s.bob.kit.state().await;
    let shown = state["rooms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == s.mirror.id)
        .cloned();
    assert_eq!(shown.unwrap()["sharedFrom"]["inviterName"], "Owner");
}

#[tokio::test]
/// Rule #825.
async fn a_line_travels_both_ways_and_only_the_called_bot_answers_once() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let s = share_plans(&synapse).await;
    let bolt_at_alice = format!("{}/{}", s.bob.user, s.bolt.id);
    let atlas_at_bob = format!("{}/{}", s.alice.user, s.atlas.id);

    // Alice calls Bob's Bolt: her Atlas answers at home, Bolt on Bob's.
    s.alice
        .kit
        .ok(
            "send",
            json!({"roomId": s.plans.id, "text": "@Bolt what is 2+2?"}),
        )
        .await;
    let at_alice = lines_until(&s.alice.kit, &s.plans, "Bolt's answer at Alice", |l| {
        l.iter()
            .any(|t| t.starts_with(&format!("{bolt_at_alice}:")))
    })
    .await;
    assert_eq!(by(&at_alice, &bolt_at_alice), 1);
    let at_bob = lines_until(&s.bob.kit, &s.mirror, "Bolt's answer at Bob", |l| {
        l.iter().any(|t| t.starts_with(&format!("{}:", s.bolt.id)))
    })
    .await;
    assert_eq!(by(&at_bob, &s.bolt.id), 1, "Bolt answered once: {at_bob:?}");
    // A line naming only a friend's Bot opens no round for Atlas: its one
    // line here is its answer to the kickoff, from the history.
    s.alice.kit.round_ended(&s.plans).await;
    let atlas_at_home = (s.alice.kit.room_lines(&s.plans).iter())
        .filter(|l| l.author_id == s.atlas.id)
        .count();
    assert_eq!(atlas_at_home, 1, "{:?}", s.alice.kit.room_lines(&s.plans));
    assert_eq!(by(&at_bob, &atlas_at_bob), 1, "{at_bob:?}");
    let asked: Vec<_> = at_bob
        .iter()
        .filter(|(_, t)| t.contains("what is 2+2?"))
        .collect();
    assert_eq!(asked.len(), 1, "the line shown once: {at_bob:?}");
    assert!(asked[0].1.contains("<untrusted-message"), "fenced (#98)");
    assert_eq!(
        s.bob
            .kit
            .user_texts(&s.bob.kit.seat(&s.mirror, &s.bolt))
            .len(),
        1
    );

    // Bob calls Alice's Atlas from his mirror: the way back.
    s.bob
        .kit
        .ok(
            "send",
            json!({"roomId": s.mirror.id, "text": "@Atlas and you?"}),
        )
        .await;
    let at_alice = lines_until(&s.alice.kit, &s.plans, "Atlas's answer to Bob", |l| {
        l.iter()
            .filter(|t| t.starts_with(&format!("{}:", s.atlas.id)))
            .count()
            == 2
    })
    .await;
    let from_bob: Vec<_> = at_alice
        .iter()
        .filter(|(_, t)| t.contains("and you?"))
        .collect();
    assert_eq!(from_bob.len(), 1, "{at_alice:?}");
    assert_eq!(from_bob[0].0, s.bob.user, "a person of Bob's home");
    s.alice.kit.round_ended(&s.plans).await;
    s.bob.kit.round_ended(&s.mirror).await;
    let at_alice: Vec<_> = s.alice.kit.room_lines(&s.plans);
    let atlas_lines = at_alice
        .iter()
        .filter(|l| l.author_id == s.atlas.id)
        .count();
    assert_eq!(atlas_lines, 2, "kickoff and \"and you\": one answer each");
    // Nor did Bob's line naming only Atlas open a round for Bolt.
    let bolt_at_home = (s.bob.kit.room_lines(&s.mirror).iter())
        .filter(|l| l.author_id == s.bolt.id)
        .count();
    assert_eq!(bolt_at_home, 1, "{:?}", s.bob.kit.room_lines(&s.mirror));
    // The answer to a remote line is one hop on (#825).
    let last_atlas = at_alice
        .iter()
        .rev()
        .find(|l| l.author_id == s.atlas.id)
        .unwrap();
    assert_eq!(last_atlas.hop, 1);
}

#[tokio::test]
/// Rules #873, #909.
async fn a_forged_join_from_a_home_that_does_not_own_the_room_is_refused_not_inviter() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let s = share_plans(&synapse).await;
    let before = mirror_of(&s.bob.kit).unwrap();
    // Carol, Bob's friend but not the room's home, forges Alice's room.
    let carol_id = synapse.register("carol", &password("carol")).await;
    s.bob
        .kit
        .ok("social-friend-add", json!({"userId": carol_id}))
        .await;
    let mut carol = RawMatrix::login(
        &synapse.base_url,
        &synapse.user("carol"),
        &password("carol"),
    )
    .await;
    let forged = json!({
        "op": "join", "roomId": s.plans.id, "name": "Plans (forged)",
        "inviterName": "Alice", "joinSeq": 99,
        "roster": [{"handle": s.bolt.id, "home": s.bob.user, "name": "Bolt", "ownerName": "Bob"}],
    });
    let state = json!([{"type": "org.flybot.share", "state_key": "", "content": forged}]);
    let room = carol.create_room(&s.bob.user, state).await;
    let refusal = |code: &'static str| {
        let room = room.clone();
        move |batch: &Value| {
            messages(batch, &room).into_iter().find_map(|(_, content)| {
                (content["org.flybot.share"]["code"] == code).then_some(content)
            })
        }
    };
    let refused = carol
        .sync_until("Bob's refusal", refusal("not-inviter"))
        .await;
    assert_eq!(refused["org.flybot.share"]["op"], "refused");
    assert!(!refused["body"].as_str().unwrap().is_empty());
    // Nothing changed: one mirror, still bound to Alice, named as before.
    let after: Vec<Value> = rooms(&s.bob.kit)
        .into_iter()
        .filter(|r| r["origin"] == "inbound-share")
        .collect();
    assert_eq!(after.len(), 1);
    for key in [
        "home",
        "remoteRoomId",
        "matrixRoomId",
        "inviterName",
        "joinSeq",
    ] {
        assert_eq!(
            after[0]["sharedFrom"][key], before["sharedFrom"][key],
            "{key}"
        );
    }
    assert_eq!(after[0]["name"], "Plans");

    // A line for a room no join projected opens nothing: unknown-room.
    let line = json!({"msgtype": "m.text", "body": "let me in",
        "org.flybot.share": {"op": "line", "roomId": s.plans.id, "seq": 1, "who": "Carol",
            "authorKind": "human", "hop": 0, "calls": [s.bolt.id]}});
    carol.send(&room, line).await;
    carol
        .sync_until("Bob's second refusal", refusal("unknown-room"))
        .await;
    let seat = s.bob.kit.seat(&s.mirror, &s.bolt);
    assert!(
        s.bob.kit.user_texts(&seat).is_empty(),
        "no turn for a forged line"
    );
    assert!(
        !s.bob
            .kit
            .room_lines(&s.mirror)
            .iter()
            .any(|l| l.text.contains("let me in"))
    );
}

/// The mirror's `sharedFrom.status` on Bob's home.
fn mirror_status(kit: &Kit) -> Value {
    mirror_of(kit).map_or(Value::Null, |m| m["sharedFrom"]["status"].clone())
}

async fn status_until(kit: &Kit, want: &str) {
    for _ in 0..600 {
        if mirror_status(kit) == want {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the mirror never became {want}: {:?}", mirror_of(kit));
}

#[tokio::test]
/// Rule #1167: a shared room its owner deletes ends for its guests too (a
/// leave, as a removed Bot's), and a member who may not delete it ends
/// nothing there.
async fn a_deleted_shared_room_marks_the_guests_mirror_left_and_a_refused_delete_ends_nothing() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let s = share_plans(&synapse).await;
    status_until(&s.bob.kit, "open").await;
    let [_, mia] = s.alice.kit.members(["Owner", "Mia"]).await;
    let (status, answer) = (s.alice.kit.as_member(&mia))
        .post("delete-room", json!({"id": s.plans.id}))
        .await;
    assert!((400..500).contains(&status), "{status} {answer}");
    // A line said after the refused delete reaches Bob behind anything
    // that delete could have sent: the mirror is still open when it shows.
    let after = "said after Mia's delete was refused";
    let body = json!({"roomId": s.plans.id, "text": after});
    s.alice.kit.ok("send", body).await;
    lines_until(
        &s.bob.kit,
        &s.mirror,
        "the line after the refused delete",
        |l| l.iter().any(|t| t.contains(after)),
    )
    .await;
    assert_eq!(mirror_status(&s.bob.kit), "open");

    s.alice
        .kit
        .ok("delete-room", json!({"id": s.plans.id}))
        .await;
    status_until(&s.bob.kit, "left").await;
    // Bob keeps what was said there.
    let kept = s.bob.kit.room_lines(&s.mirror);
    assert!(kept.iter().any(|l| l.text.contains(after)), "{kept:?}");
}

#[tokio::test]
/// Rule #1167.
async fn a_removed_bot_marks_the_mirror_left_and_a_newer_join_reopens_it() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let s = share_plans(&synapse).await;
    let seat = format!("{}/{}", s.bob.user, s.bolt.id);
    let removed = s
        .alice
        .kit
        .ok(
            "room-share-remove",
            json!({"roomId": s.plans.id, "seat": seat}),
        )
        .await;
    let gone = removed["room"]["participants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == seat);
    assert!(gone.unwrap()["leftSeq"].is_u64(), "{removed}");
    status_until(&s.bob.kit, "left").await;
    // A line while the mirror is left is refused there (room-left).
    let sent = s
        .alice
        .kit
        .ok(
            "send",
            json!({"roomId": s.plans.id, "text": "said while Bob was away"}),
        )
        .await;
    // It has left Alice's home before the next join is set.
    let seq = sent["seq"].as_u64().unwrap();
    let plans = s.plans.id.clone();
    let fanned = |kit: &Kit| {
        rooms(kit).into_iter().find(|r| r["id"] == plans).unwrap()["share"]["fannedSeq"]
            .as_u64()
            .unwrap_or(0)
    };
    for _ in 0..600 {
        let out = super::view(&s.alice.kit).await["pendingCount"] == 0;
        if fanned(&s.alice.kit) >= seq && out {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // A newer join reopens it; the line said while left never shows.
    let seen = until(&s.alice.kit, "Bolt still listed", |v| {
        remote_bot(v, "Bolt (Owner)").is_some_and(|b| b["shared"] == true)
    })
    .await;
    let bolt_row = remote_bot(&seen, "Bolt (Owner)").unwrap()["roomId"].clone();
    s.alice
        .kit
        .ok(
            "room-share-add",
            json!({"roomId": s.plans.id, "friendBot": bolt_row}),
        )
        .await;
    status_until(&s.bob.kit, "open").await;
    s.alice
        .kit
        .ok(
            "send",
            json!({"roomId": s.plans.id, "text": "welcome back"}),
        )
        .await;
    let lines = lines_until(&s.bob.kit, &s.mirror, "the line after reopening", |l| {
        l.iter().any(|t| t.contains("welcome back"))
    })
    .await;
    assert!(
        !lines
            .iter()
            .any(|(_, t)| t.contains("said while Bob was away")),
        "{lines:?}"
    );
    assert_eq!(
        rooms(&s.bob.kit)
            .iter()
            .filter(|r| r["origin"] == "inbound-share")
            .count(),
        1
    );
}

#[tokio::test]
/// Rule #918.
async fn a_line_whose_author_does_not_trace_to_its_sender_shows_as_unverified() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let s = share_plans(&synapse).await;
    let matrix_room = rooms(&s.alice.kit)
        .into_iter()
        .find(|r| r["id"] == s.plans.id)
        .unwrap()["share"]["matrixRoomId"]
        .as_str()
        .unwrap()
        .to_owned();
    // Alice's home names a Bot its roster never had: kept, not attributed.
    let mut forger = RawMatrix::login(
        &synapse.base_url,
        &synapse.user("alice"),
        &password("alice"),
    )
    .await;
    let line = json!({"msgtype": "m.text", "body": "trust me, I am Bob's Bolt",
        "org.flybot.share": {"op": "line", "roomId": s.plans.id, "seq": 999, "who": "Bolt",
            "authorKind": "local-bot", "handle": s.bolt.id, "hop": 0, "calls": []}});
    forger.send(&matrix_room, line).await;
    let lines = lines_until(&s.bob.kit, &s.mirror, "the forged line", |l| {
        l.iter().any(|t| t.contains("trust me"))
    })
    .await;
    let forged = lines.iter().find(|(_, t)| t.contains("trust me")).unwrap();
    assert_eq!(
        forged.0, s.alice.user,
        "shown as the home that delivered it"
    );
    let page = s
        .bob
        .kit
        .ok("messages", json!({"roomId": s.mirror.id}))
        .await;
    let shown = page["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["text"].as_str().unwrap().contains("trust me"))
        .cloned()
        .unwrap();
    assert!(
        shown["author"].as_str().unwrap().contains("unverified"),
        "{shown}"
    );
    // It called nobody: Bolt took no turn for it.
    assert!(
        s.bob
            .kit
            .user_texts(&s.bob.kit.seat(&s.mirror, &s.bolt))
            .is_empty()
    );
}

#[tokio::test]
/// Rule #1167.
async fn the_owner_hides_a_shared_room_and_a_revoked_grant_hides_it_too() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let s = share_plans(&synapse).await;
    // Only the owner's mirror of another home's room can be hidden. Bob's
    // sync runs on (the history copy may still land), so the refusal checks
    // the state it protects, the mirror's status, not the whole home.
    let nope = json!({"roomId": "room-nope"});
    refusal(
        s.bob.kit.post("room-share-hide", nope).await,
        "bot/not-found",
    );
    assert_eq!(mirror_status(&s.bob.kit), "open");
    let hidden = s
        .bob
        .kit
        .ok("room-share-hide", json!({"roomId": s.mirror.id}))
        .await;
    assert_eq!(hidden["room"]["sharedFrom"]["status"], "hidden");
    assert_eq!(mirror_status(&s.bob.kit), "hidden");
    // A newer join from the inviter opens it again.
    let seat = format!("{}/{}", s.bob.user, s.bolt.id);
    s.alice
        .kit
        .ok(
            "room-share-remove",
            json!({"roomId": s.plans.id, "seat": seat}),
        )
        .await;
    let seen = super::view(&s.alice.kit).await;
    let bolt_row = remote_bot(&seen, "Bolt (Owner)").unwrap()["roomId"].clone();
    s.alice
        .kit
        .ok(
            "room-share-add",
            json!({"roomId": s.plans.id, "friendBot": bolt_row}),
        )
        .await;
    status_until(&s.bob.kit, "open").await;
    // Bob stops sharing Bolt with Alice: the grant is gone, so is the room.
    s.bob
        .kit
        .ok(
            "social-unpublish",
            json!({"botId": s.bolt.id, "userId": s.alice.user}),
        )
        .await;
    status_until(&s.bob.kit, "hidden").await;
}
