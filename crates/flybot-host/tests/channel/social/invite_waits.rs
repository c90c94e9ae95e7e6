//! Why a home waits on a link (#1064), against a real Synapse: a seat
//! whose notice waits on the owner's approval is `held` (the link's Bot
//! asks first) until the room's admin says Seat them; one whose notice the
//! homeserver does not take is tried a few times, then waits
//! `not-delivered`, and Seat them tries it again with its tries reset.
//! Each names the Bots the claim brings, and seats nobody meanwhile.

use super::invite_links::{
    alice_plans, eventually, join_by_link, live_seat, mint, mirrors, room_record,
};
use super::password;
use super::raw::RawMatrix;
use flybot_testkit::synapse::start_synapse;
use serde_json::json;

#[tokio::test]
/// Rule #1064.
async fn a_seat_waiting_on_approval_is_held_until_the_admin_seats_them() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let (alice, atlas, plans) = alice_plans(&synapse).await;
    let body = json!({"botId": atlas.id, "policy": "ask-first"});
    alice.kit.ok("social-policy", body).await;
    let carol = super::home(&synapse, "carol").await;
    let cleo = carol.kit.bot("Cleo").await;
    let link = mint(&alice, &plans, json!({})).await;
    let asked = (carol.kit)
        .ok("room-invite-ask", json!({"link": link, "bots": [cleo.id]}))
        .await;
    assert_eq!(asked["claimed"], true);

    let user = carol.user.clone();
    let waiting = eventually("Carol's seat held", || {
        let listed = room_record(&alice.kit, &plans.id)["inviteRefused"][&user].clone();
        (listed["code"] == "held").then_some(listed)
    })
    .await;
    assert_eq!(waiting["bots"], json!(["Cleo"]));
    let seat = format!("{}/{}", carol.user, cleo.id);
    assert!(!live_seat(&room_record(&alice.kit, &plans.id), &seat));
    assert!(mirrors(&carol.kit).is_empty());
    // Held is no refusal: nothing is answered at the server.
    let preview = (carol.kit)
        .ok("room-invite-preview", json!({"link": link}))
        .await;
    assert!(preview["refused"].is_null(), "{preview}");
    let listed = (alice.kit)
        .ok("room-invite", json!({"roomId": plans.id}))
        .await;
    assert_eq!(listed["waiting"][&carol.user]["code"], "held");

    // Seat them is the owner's approval: Cleo is seated, nothing waits.
    let seated = (alice.kit)
        .ok("room-invite-seat", json!({"roomId": plans.id}))
        .await;
    assert!(seated["waiting"][&carol.user].is_null(), "{seated}");
    assert!(live_seat(&room_record(&alice.kit, &plans.id), &seat));
    let user = alice.user.clone();
    eventually("the room on Carol's home", || {
        (mirrors(&carol.kit).into_iter()).find(|m| m["sharedFrom"]["home"] == user.as_str())
    })
    .await;
}

#[tokio::test]
/// Rule #1064.
async fn a_notice_the_homeserver_does_not_take_waits_not_delivered_after_a_few_tries() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let (alice, _, plans) = alice_plans(&synapse).await;
    let carol = super::home(&synapse, "carol").await;
    let cleo = carol.kit.bot("Cleo").await;
    let dave = super::home(&synapse, "dave").await;
    let dino = dave.kit.bot("Dino").await;
    let link = mint(&alice, &plans, json!({})).await;
    join_by_link(&alice, &plans, &carol, &link, &[&cleo]).await;
    // Alice's account leaves the share's Matrix room on another device:
    // the homeserver no longer takes a notice the room's join writes there.
    let share = room_record(&alice.kit, &plans.id)["share"].clone();
    let broken = share["matrixRoomId"].as_str().unwrap().to_owned();
    let raw = RawMatrix::login(
        &synapse.base_url,
        &synapse.user("alice"),
        &password("alice"),
    )
    .await;
    raw.leave(&broken).await;

    let asked = (dave.kit)
        .ok("room-invite-ask", json!({"link": link, "bots": [dino.id]}))
        .await;
    assert_eq!(asked["claimed"], true);
    let user = dave.user.clone();
    let waiting = eventually("Dave's notice not delivered", || {
        let listed = room_record(&alice.kit, &plans.id)["inviteRefused"][&user].clone();
        (listed["code"] == "not-delivered").then_some(listed)
    })
    .await;
    assert_eq!(waiting["bots"], json!(["Dino"]));
    let at_alice = room_record(&alice.kit, &plans.id);
    assert_eq!(at_alice["inviteTries"][&dave.user], 3, "{at_alice}");
    assert!(!live_seat(&at_alice, &format!("{}/{}", dave.user, dino.id)));
    assert!(live_seat(&at_alice, &format!("{}/{}", carol.user, cleo.id)));
    assert!(mirrors(&dave.kit).is_empty());

    // Seat them reads again with the tries reset: one more try, still
    // not taken, and still waiting with its reason.
    let again = (alice.kit)
        .ok("room-invite-seat", json!({"roomId": plans.id}))
        .await;
    assert_eq!(again["waiting"][&dave.user]["code"], "not-delivered");
    let at_alice = room_record(&alice.kit, &plans.id);
    assert_eq!(at_alice["inviteTries"][&dave.user], 1, "{at_alice}");
    assert!(!live_seat(&at_alice, &format!("{}/{}", dave.user, dino.id)));
}
