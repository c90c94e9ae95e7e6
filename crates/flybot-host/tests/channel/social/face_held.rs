//! Held Bot lines of a face-to-face room (#456, #52), against a real
//! Synapse: Bob's Bolt on Ask first answers Alice's line in their face
//! room; the line is in Bob's room, held: Alice's home sees nothing, Bob's
//! approvals list has it, and Bob's room view carries it `pending` in
//! `heldLines`. The hold survives a restart of Bob's home; Send lets it go
//! once; Don't send keeps it here for good, marked `rejected`.

use super::face_rooms::{by, face_of, lines, lines_until, record, room_of, scripted_home, settled};
use super::holds::{friend_holds, until_held};
use super::{Home, view};
use flybot_testkit::synapse::start_synapse;
use flybot_testkit::{Kit, Room, scripted_models};
use serde_json::{Value, json};

/// The room as the page's state view shows it.
async fn room_view(kit: &Kit, room: &Room) -> Value {
    let (status, state) = kit.state().await;
    assert_eq!(status, 200, "{state}");
    let rooms = state["rooms"].as_array().cloned().unwrap_or_default();
    rooms
        .into_iter()
        .find(|r| r["id"] == room.id.as_str())
        .unwrap()
}

/// Bob's mock after his restart: each list its own answer (the newest
/// line first: a round's prompt carries the lines before it).
fn answers() -> Value {
    json!([
        {"when": {"userContains": "third list"}, "reply": {"text": "The third list is done."}},
        {"when": {"userContains": "second list"}, "reply": {"text": "The second list is done."}},
        {"reply": {"text": "I can take that."}}
    ])
}

#[tokio::test]
/// Rules #456, #52.
async fn a_bots_face_line_held_by_ask_first_reaches_the_other_home_only_when_the_owner_says_send() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let alice = scripted_home(&synapse, "alice").await;
    let Home {
        kit: bob,
        user: bob_user,
    } = scripted_home(&synapse, "bob").await;
    let bolt = bob.bot("Bolt").await;
    let made = alice.kit.ok("face-room-create", json!({"bots": []})).await;
    let code = face_of(&made, "code");
    let at_alice = room_of(&made);
    let joined = json!({"code": code, "bots": [bolt.id]});
    let at_bob = room_of(&bob.ok("face-room-join", joined).await);
    let policy = json!({"botId": bolt.id, "policy": "ask-first"});
    bob.ok("social-policy", policy).await;
    let bolt_seat = format!("{bob_user}/{}", bolt.id);
    lines_until(&alice.kit, &at_alice, "Bob's part", |_| {
        record(&alice.kit, &at_alice)["face"]["homes"][&bob_user].is_object()
    })
    .await;

    let first = json!({"roomId": at_alice.id, "text": "Bob, can Bolt check the list?"});
    alice.kit.ok("send", first).await;
    let held = until_held(&bob, "Bolt's face line held").await;
    assert_eq!(held["kind"], "friend-hold");
    assert_eq!(held["botId"], bolt.id);
    assert_eq!(held["roomId"], at_bob.id.as_str());
    assert_eq!(held["to"], record(&bob, &at_bob)["name"]);
    let id = held["id"].as_str().unwrap().to_owned();
    // Bolt's line is in Bob's room, waiting; the view carries it pending.
    settled(&bob, &at_bob).await;
    let at_bob_lines = lines(&bob, &at_bob);
    assert_eq!(by(&at_bob_lines, &bolt.id), 1, "{at_bob_lines:?}");
    let shown = room_view(&bob, &at_bob).await;
    let pending = shown["heldLines"].as_array().unwrap();
    assert_eq!(pending.len(), 1, "{shown}");
    assert_eq!(pending[0]["status"], "pending");
    assert_eq!(pending[0]["botId"], bolt.id);
    let held_text = pending[0]["text"].as_str().unwrap().to_owned();
    assert!(
        at_bob_lines
            .iter()
            .any(|(a, t)| a == &bolt.id && t.contains(&held_text))
    );
    assert_eq!(view(&bob).await["pendingCount"], 0, "not in the outbox");
    assert_eq!(by(&lines(&alice.kit, &at_alice), &bolt_seat), 0);

    // Bob's home restarts between the hold and the answer: still held.
    let bob = bob
        .restart_with(|config| config.models = scripted_models(&answers().to_string()))
        .await;
    let held = until_held(&bob, "the hold after the restart").await;
    assert_eq!(held["id"], id.as_str());
    assert_eq!(
        room_view(&bob, &at_bob).await["heldLines"][0]["status"],
        "pending"
    );
    assert_eq!(by(&lines(&alice.kit, &at_alice), &bolt_seat), 0);

    // Send: Alice's home shows it once, and the record is gone.
    let sent = bob
        .ok("social-hold-answer", json!({"id": id, "send": true}))
        .await;
    assert_eq!(sent["status"], "approved");
    lines_until(&alice.kit, &at_alice, "Bolt's line let go", |l| {
        by(l, &bolt_seat) == 1
    })
    .await;
    assert!(room_view(&bob, &at_bob).await["heldLines"].is_null());
    assert!(friend_holds(&bob).await.is_empty());

    // Don't send: marked rejected here, never sent. Bolt then goes back to
    // Auto-send and answers a third line: that one arrives, alone.
    let second = json!({"roomId": at_alice.id, "text": "and the second list?"});
    alice.kit.ok("send", second).await;
    let held = until_held(&bob, "the second line held").await;
    let second = held["id"].as_str().unwrap().to_owned();
    let kept = bob
        .ok("social-hold-answer", json!({"id": second, "send": false}))
        .await;
    assert_eq!(kept["status"], "rejected");
    let shown = room_view(&bob, &at_bob).await;
    assert_eq!(shown["heldLines"][0]["status"], "rejected", "{shown}");
    let policy = json!({"botId": bolt.id, "policy": "auto-send"});
    bob.ok("social-policy", policy).await;
    let third = json!({"roomId": at_alice.id, "text": "@all one more: the third list?"});
    alice.kit.ok("send", third).await;
    let said = |l: &[(String, String)], what: &str| {
        l.iter().any(|(a, t)| a == &bolt_seat && t.contains(what))
    };
    let seen = lines_until(&alice.kit, &at_alice, "Bolt's third answer", |l| {
        said(l, "The third list is done.")
    })
    .await;
    // The outbox sends in order: had the rejected line gone, it would be here.
    assert!(!said(&seen, "The second list"), "{seen:?}");
    assert_eq!(by(&seen, &bolt_seat), 2, "{seen:?}");
    let at_bob_lines = lines(&bob, &at_bob);
    let kept_here =
        (at_bob_lines.iter()).any(|(a, t)| a == &bolt.id && t.contains("The second list"));
    assert!(
        kept_here,
        "the rejected line stays in Bob's room: {at_bob_lines:?}"
    );
}
