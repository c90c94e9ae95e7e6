//! A face-to-face room's lead and its close (#476), against a real
//! Synapse: the lead's notes reach the Bots' prompts on every home; the
//! home that made the room changes the lead (`face-room-lead`), and the
//! next round on another home asks the new lead first with the lead's
//! notes; it closes the room (`face-room-close`): every home's `send`
//! refuses `bot/room-ended` with nothing appended and keeps its
//! transcript. Another home may do neither, and a state event from a
//! Matrix user who did not make the room, even one the homeserver let
//! through, changes nothing.

use super::face_rooms::{
    by, face_of, home_on, lines, lines_until, record, refusal, room_of, saying, settled,
};
use super::raw::RawMatrix;
use super::{home, password};
use flybot_testkit::synapse::start_synapse;
use serde_json::{Value, json};

/// The Bots answer by the note their standing section carries.
fn scenario() -> Value {
    json!([
        {"when": {"systemContains": "You lead this face-to-face room"},
         "reply": {"text": "As the lead, I take it."}},
        {"when": {"systemContains": "## You are Pia\n"}, "reply": {"text": "[PASS]"}},
        {"when": {"systemContains": "leads this face-to-face room. Do only your part"},
         "reply": {"text": "I do my part."}},
        {"reply": {"text": "No lead here."}}
    ])
}

#[tokio::test]
/// Rule #476.
async fn the_maker_changes_the_lead_and_the_next_round_on_another_home_asks_it_first_with_its_notes()
 {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let alice = home_on(&synapse, "alice", scenario()).await;
    let bob = home_on(&synapse, "bob", scenario()).await;
    let atlas = alice.kit.bot("Atlas").await;
    let [pia, quinn] = bob.kit.bots(["Pia", "Quinn"]).await;
    let body = json!({"bots": [atlas.id], "lead": atlas.id});
    let made = alice.kit.ok("face-room-create", body).await;
    let at_alice = room_of(&made);
    let code = face_of(&made, "code");
    let joined = json!({"code": code, "bots": [pia.id, quinn.id]});
    let at_bob = room_of(&bob.kit.ok("face-room-join", joined).await);
    lines_until(&alice.kit, &at_alice, "Bob's part", |_| {
        record(&alice.kit, &at_alice)["face"]["homes"][&bob.user].is_object()
    })
    .await;
    assert_eq!(
        record(&bob.kit, &at_bob)["face"]["lead"]["handle"],
        atlas.id
    );
    assert!(
        record(&bob.kit, &at_bob)["admin"].is_null(),
        "the lead is Alice's"
    );

    // Atlas leads: Bob's Bots are told so, and answer as members.
    let first = json!({"roomId": at_alice.id, "text": "who checks the launch list?"});
    alice.kit.ok("send", first).await;
    let quinn_seat = format!("{}/{}", bob.user, quinn.id);
    lines_until(&alice.kit, &at_alice, "Quinn as a member", |l| {
        saying(l, &quinn_seat, "I do my part.") == 1
    })
    .await;
    settled(&bob.kit, &at_bob).await;

    // Another home may not change the lead; the maker may.
    let theirs = json!({"roomId": at_bob.id, "lead": quinn.id});
    refusal(
        bob.kit.post("face-room-lead", theirs).await,
        "bot/forbidden",
    );
    let nobody = json!({"roomId": at_alice.id, "lead": "@nobody:localhost/bot-x"});
    refusal(
        alice.kit.post("face-room-lead", nobody).await,
        "bot/invalid",
    );
    // The lead is not a team role: update-room changes no face room's
    // admin or Bots (#476).
    let as_team = json!({"id": at_alice.id, "admin": ""});
    refusal(alice.kit.post("update-room", as_team).await, "bot/invalid");
    let as_team = json!({"id": at_bob.id, "members": [pia.id]});
    refusal(bob.kit.post("update-room", as_team).await, "bot/invalid");
    assert_eq!(record(&alice.kit, &at_alice)["admin"], atlas.id.as_str());
    assert_eq!(
        record(&bob.kit, &at_bob)["members"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let changed = json!({"roomId": at_alice.id, "lead": quinn_seat});
    let answer = alice.kit.ok("face-room-lead", changed).await;
    assert_eq!(answer["room"]["face"]["lead"]["handle"], quinn.id);
    assert!(answer["room"]["admin"].is_null(), "Quinn is Bob's Bot");
    lines_until(&bob.kit, &at_bob, "Quinn as Bob's lead", |_| {
        record(&bob.kit, &at_bob)["admin"] == quinn.id.as_str()
    })
    .await;

    // The next round on Bob's home: Quinn first, with the lead's notes;
    // his answer ends the routed round, so Pia is not asked again.
    let second = json!({"roomId": at_alice.id, "text": "and who plans the launch?"});
    alice.kit.ok("send", second).await;
    let seen = lines_until(&alice.kit, &at_alice, "Quinn as the lead", |l| {
        saying(l, &quinn_seat, "As the lead, I take it.") == 1
    })
    .await;
    settled(&bob.kit, &at_bob).await;
    let pia_seat = format!("{}/{}", bob.user, pia.id);
    assert_eq!(by(&seen, &pia_seat), 0, "{seen:?}");
    let pia_session = record(&bob.kit, &at_bob)["sessions"][&pia.id]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(bob.kit.end_reasons(&pia_session).len(), 1, "Pia only once");
}

#[tokio::test]
/// Rule #476.
async fn the_maker_closes_the_room_and_no_home_writes_there_any_more_nor_does_a_forged_state() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let alice = home(&synapse, "alice").await;
    let bob = home(&synapse, "bob").await;
    let bolt = bob.kit.bot("Bolt").await;
    let made = alice.kit.ok("face-room-create", json!({"bots": []})).await;
    let at_alice = room_of(&made);
    let matrix_room = face_of(&made, "matrixRoomId");
    let code = face_of(&made, "code");
    let joined = json!({"code": code, "bots": [bolt.id]});
    let at_bob = room_of(&bob.kit.ok("face-room-join", joined).await);
    let hello = json!({"roomId": at_alice.id, "text": "hello Bob"});
    alice.kit.ok("send", hello).await;
    lines_until(&bob.kit, &at_bob, "Alice's line", |l| {
        by(l, &alice.user) == 1
    })
    .await;
    settled(&bob.kit, &at_bob).await;

    // Bob's home did not make the room: it may not close it.
    let theirs = json!({"roomId": at_bob.id});
    refusal(
        bob.kit.post("face-room-close", theirs).await,
        "bot/forbidden",
    );
    assert_eq!(record(&bob.kit, &at_bob)["face"]["status"], "open");

    // Mallory gets the power to set the room's state from a second login
    // of Alice's account (the homeserver lets her through), and closes
    // the room and makes herself the lead: neither home takes it.
    synapse.register("mallory", &password("mallory")).await;
    let mallory = RawMatrix::login(
        &synapse.base_url,
        &synapse.user("mallory"),
        &password("mallory"),
    )
    .await;
    mallory.join(&matrix_room).await;
    let alice_raw = RawMatrix::login(
        &synapse.base_url,
        &synapse.user("alice"),
        &password("alice"),
    )
    .await;
    let state = alice_raw.room_state(&matrix_room).await;
    let mut levels = (state.as_array().unwrap().iter())
        .find(|e| e["type"] == "m.room.power_levels")
        .unwrap()["content"]
        .clone();
    levels["users"][&mallory.user_id] = json!(100);
    alice_raw
        .set_state(&matrix_room, "m.room.power_levels", levels)
        .await;
    let forged = json!({"code": code, "name": "", "createdAt": 1, "closed": true,
        "lead": {"home": mallory.user_id, "handle": "bot-m"}});
    mallory
        .set_state(&matrix_room, "org.flybot.face", forged)
        .await;
    // A line after the forgery: once a home shows it, its sync went past.
    let after = json!({"roomId": at_alice.id, "text": "still open?"});
    alice.kit.ok("send", after).await;
    lines_until(&bob.kit, &at_bob, "the line after", |l| {
        by(l, &alice.user) == 2
    })
    .await;
    for (kit, room) in [(&alice.kit, &at_alice), (&bob.kit, &at_bob)] {
        let seen = record(kit, room);
        assert_eq!(seen["face"]["status"], "open", "{seen}");
        assert!(seen["face"]["lead"].is_null(), "{seen}");
    }
    settled(&bob.kit, &at_bob).await;

    // A home that joins after the forgery, when the forged state is the
    // room's current one, reads the maker from the room's create event: it
    // joins an open room with no lead, and its maker is Alice.
    // Mallory talks on, so the forged state falls before the first lines
    // a joining home's sync hands over: it is then all the room's state
    // the sync shows Carol.
    let mut mallory = mallory;
    for i in 0..15 {
        let chat = json!({"msgtype": "m.text", "body": format!("chatter {i}")});
        mallory.send(&matrix_room, chat).await;
    }
    let carol = home(&synapse, "carol").await;
    let cleo = carol.kit.bot("Cleo").await;
    let joined = json!({"code": code, "bots": [cleo.id]});
    let at_carol = room_of(&carol.kit.ok("face-room-join", joined).await);
    let welcome = json!({"roomId": at_alice.id, "text": "welcome Carol"});
    alice.kit.ok("send", welcome).await;
    lines_until(&carol.kit, &at_carol, "Alice's line at Carol", |l| {
        l.iter().any(|(_, text)| text.contains("welcome Carol"))
    })
    .await;
    let seen = record(&carol.kit, &at_carol);
    assert_eq!(seen["face"]["status"], "open", "{seen}");
    assert!(seen["face"]["lead"].is_null(), "{seen}");
    assert_eq!(seen["face"]["maker"], alice.user.as_str(), "{seen}");
    settled(&carol.kit, &at_carol).await;
    settled(&bob.kit, &at_bob).await;

    // A second member of the maker's home is not its owner: neither the
    // lead nor the close is theirs, and the room stays as it was.
    let [_, mia] = alice.kit.members(["Owner", "Mia"]).await;
    let as_mia = alice.kit.as_member(&mia);
    let lead = json!({"roomId": at_alice.id, "lead": null});
    refusal(as_mia.post("face-room-lead", lead).await, "bot/forbidden");
    let close = json!({"roomId": at_alice.id});
    refusal(as_mia.post("face-room-close", close).await, "bot/forbidden");
    assert_eq!(record(&alice.kit, &at_alice)["face"]["status"], "open");

    // The maker closes it: every home refuses to write there, keeps its
    // lines, and the room does not reopen.
    let closed = json!({"roomId": at_alice.id});
    let answer = alice.kit.ok("face-room-close", closed).await;
    assert_eq!(answer["room"]["face"]["status"], "closed");
    lines_until(&bob.kit, &at_bob, "the close at Bob", |_| {
        record(&bob.kit, &at_bob)["face"]["status"] == "closed"
    })
    .await;
    for (kit, room) in [(&alice.kit, &at_alice), (&bob.kit, &at_bob)] {
        let kept = lines(kit, room);
        assert!(!kept.is_empty());
        let body = json!({"roomId": room.id, "text": "anyone?"});
        refusal(kit.post("send", body).await, "bot/room-ended");
        assert_eq!(lines(kit, room), kept, "nothing appended");
    }
    let again = json!({"roomId": at_bob.id, "bots": [bolt.id]});
    refusal(
        bob.kit.post("face-room-join", again).await,
        "bot/room-ended",
    );
    let closed = json!({"roomId": at_alice.id});
    refusal(
        alice.kit.post("face-room-close", closed).await,
        "bot/room-ended",
    );

    // A home that comes by the number after the close is refused (its sync
    // may still have seen the room's state while it looked), and seats no
    // Bot there.
    let dave = home(&synapse, "dave").await;
    let dino = dave.kit.bot("Dino").await;
    let late = json!({"code": code, "bots": [dino.id]});
    refusal(
        dave.kit.post("face-room-join", late).await,
        "bot/room-ended",
    );
    let seated = dave
        .kit
        .host
        .store()
        .read(|s| s.rooms.values().any(|r| r.members.contains(&dino.id)));
    assert!(!seated, "Dino was seated in a closed room");
}
