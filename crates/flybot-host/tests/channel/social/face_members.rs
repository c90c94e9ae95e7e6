//! Membership is the server's (#83), against a real Synapse: Alice's room
//! with Bob's Bolt and Carol's Cyd. Alice's account kicks Bob's home and
//! bans Carol's from the Matrix room (a plain Matrix client of hers, as an
//! admin would): every home marks that home left, its Bots' seats too,
//! though its own part still says it joined; the home put out sees its
//! room left and writes there no more.

use super::face_rooms::{face_of, lines_until, record, refusal, room_of};
use super::raw::RawMatrix;
use super::{home, password};
use flybot_testkit::synapse::start_synapse;
use flybot_testkit::{Kit, Room};
use serde_json::{Value, json};

/// Whether the home's seat `seat` is live in the room on `kit`.
fn live(kit: &Kit, room: &Room, seat: &str) -> bool {
    let seen = record(kit, room);
    (seen["participants"].as_array().cloned().unwrap_or_default())
        .iter()
        .any(|p: &Value| p["id"] == seat && p["leftSeq"].is_null())
}

#[tokio::test]
/// Rules #83, #171.
async fn a_home_kicked_or_banned_from_a_face_room_is_marked_left_on_every_home() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let alice = home(&synapse, "alice").await;
    let bob = home(&synapse, "bob").await;
    let carol = home(&synapse, "carol").await;
    let bolt = bob.kit.bot("Bolt").await;
    let cyd = carol.kit.bot("Cyd").await;
    let made = alice.kit.ok("face-room-create", json!({"bots": []})).await;
    let at_alice = room_of(&made);
    let matrix_room = face_of(&made, "matrixRoomId");
    let code = face_of(&made, "code");
    let joined = json!({"code": code, "bots": [bolt.id]});
    let at_bob = room_of(&bob.kit.ok("face-room-join", joined).await);
    let joined = json!({"code": code, "bots": [cyd.id]});
    let at_carol = room_of(&carol.kit.ok("face-room-join", joined).await);
    let bolt_seat = format!("{}/{}", bob.user, bolt.id);
    let cyd_seat = format!("{}/{}", carol.user, cyd.id);
    lines_until(&alice.kit, &at_alice, "both Bots seated", |_| {
        live(&alice.kit, &at_alice, &bolt_seat) && live(&alice.kit, &at_alice, &cyd_seat)
    })
    .await;
    lines_until(&carol.kit, &at_carol, "Bolt at Carol", |_| {
        live(&carol.kit, &at_carol, &bolt_seat)
    })
    .await;

    let admin = RawMatrix::login(
        &synapse.base_url,
        &synapse.user("alice"),
        &password("alice"),
    )
    .await;
    admin.put_out(&matrix_room, &bob.user, "kick").await;
    for (kit, room) in [(&alice.kit, &at_alice), (&carol.kit, &at_carol)] {
        lines_until(kit, room, "Bob's home left", |_| {
            record(kit, room)["face"]["homes"][&bob.user]["status"] == "left"
        })
        .await;
        assert!(!live(kit, room, &bolt_seat), "Bolt's seat is left too");
    }
    lines_until(&bob.kit, &at_bob, "the kick at Bob", |_| {
        record(&bob.kit, &at_bob)["face"]["status"] == "left"
    })
    .await;
    let kept = bob.kit.room_lines(&at_bob).len();
    let body = json!({"roomId": at_bob.id, "text": "am I still here?"});
    // Bob's sync runs on: the refusal checks the room's lines, not the home.
    refusal(bob.kit.post("send", body).await, "bot/room-ended");
    assert_eq!(bob.kit.room_lines(&at_bob).len(), kept, "nothing appended");

    admin.put_out(&matrix_room, &carol.user, "ban").await;
    lines_until(&alice.kit, &at_alice, "Carol's home left", |_| {
        record(&alice.kit, &at_alice)["face"]["homes"][&carol.user]["status"] == "left"
    })
    .await;
    assert!(!live(&alice.kit, &at_alice, &cyd_seat));
    lines_until(&carol.kit, &at_carol, "the ban at Carol", |_| {
        record(&carol.kit, &at_carol)["face"]["status"] == "left"
    })
    .await;
    // Alice's home is still in its room.
    assert_eq!(record(&alice.kit, &at_alice)["face"]["status"], "open");
}

#[tokio::test]
/// Rules #83, #476.
async fn a_remote_bots_color_and_avatar_ride_its_homes_part_onto_its_seat() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let alice = home(&synapse, "alice").await;
    let made = alice.kit.ok("face-room-create", json!({"bots": []})).await;
    let at_alice = room_of(&made);
    let matrix_room = face_of(&made, "matrixRoomId");
    // Dana's home runs another FlyBot: its part gives each Bot a look,
    // one of them a link the page must never fetch.
    let dana = synapse.register("dana", &password("dana")).await;
    let raw = RawMatrix::login(&synapse.base_url, &synapse.user("dana"), &password("dana")).await;
    raw.join(&matrix_room).await;
    let part = json!({"ownerName": "Dana", "status": "joined", "bots": [
        {"handle": "bot-fox", "name": "Fox", "role": "Scout", "color": "#c05621", "avatar": "🦊"},
        {"handle": "bot-owl", "name": "Owl", "color": "red", "avatar": "https://x.example/owl.png"},
    ]});
    raw.set_state_keyed(&matrix_room, "org.flybot.face.home", &dana, part)
        .await;
    let fox = format!("{dana}/bot-fox");
    let owl = format!("{dana}/bot-owl");
    lines_until(&alice.kit, &at_alice, "Dana's Bots seated", |_| {
        live(&alice.kit, &at_alice, &fox) && live(&alice.kit, &at_alice, &owl)
    })
    .await;
    let seen = record(&alice.kit, &at_alice);
    let seat = |id: &str| {
        (seen["participants"].as_array().unwrap().iter())
            .find(|p| p["id"] == id)
            .cloned()
            .unwrap()
    };
    assert_eq!(seat(&fox)["color"], "#c05621");
    assert_eq!(seat(&fox)["avatar"], "🦊");
    assert_eq!(
        seat(&fox)["roleLabel"],
        "Scout",
        "#476: its role on the seat"
    );
    assert!(seat(&owl)["color"].is_null() && seat(&owl)["avatar"].is_null());
    let kept = &seen["face"]["homes"][&dana]["bots"][1];
    assert!(
        kept["avatar"].is_null(),
        "not kept on the part either: {kept}"
    );
}
