//! The end of a claim and of a room's links (#884), against a real
//! Synapse: Carol's claim is given back at the server when the last of
//! its Bots leaves Alice's room (and the same link seats her again), and
//! dropped a day after nobody answered
//! it (a hand-moved store clock); deleting Alice's room withdraws every
//! link of it there first, so a later ask answers `revoked` and the
//! claims the lobby held are answered `revoked` too.

use super::invite_links::{alice_plans, eventually, join_by_link, mint, mirrors, room_record};
use super::raw::RawMatrix;
use super::{Home, password};
use flybot_host::social::invite_links::life::CLAIM_UNANSWERED_MS;
use flybot_host::social::invite_links::peers::ticket_peers;
use flybot_host::{Host, HostConfig};
use flybot_store::{Store, StoreOptions};
use flybot_testkit::Kit;
use flybot_testkit::synapse::{Synapse, start_synapse};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// `user`'s membership in the lobby of `link`, as Alice's account reads it
/// at the server: (membership, reason).
async fn membership_at_server(synapse: &Synapse, link: &str, user: &str) -> (String, String) {
    let alice = RawMatrix::login(
        &synapse.base_url,
        &synapse.user("alice"),
        &password("alice"),
    )
    .await;
    let ticket = link.rsplit('/').next().unwrap();
    let lobby = (alice)
        .resolve(&format!("#flybot-invite-{ticket}:localhost"))
        .await;
    let state = alice.room_state(&lobby).await;
    let member = (state.as_array().unwrap().iter())
        .find(|e| e["type"] == "m.room.member" && e["state_key"] == user)
        .cloned()
        .unwrap_or(Value::Null);
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    (
        text(&member["content"]["membership"]),
        text(&member["content"]["reason"]),
    )
}

fn claims(kit: &Kit) -> usize {
    kit.host.store().read(|s| s.social.room_claims.len())
}

#[tokio::test]
/// Rules #884, #923.
async fn a_claim_is_given_back_at_the_server_when_its_last_bot_leaves() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let (alice, _, plans) = alice_plans(&synapse).await;
    let carol = super::home(&synapse, "carol").await;
    let cleo = carol.kit.bot("Cleo").await;
    let link = mint(&alice, &plans, json!({})).await;
    join_by_link(&alice, &plans, &carol, &link, &[&cleo]).await;
    assert_eq!(claims(&carol.kit), 1);
    let held = membership_at_server(&synapse, &link, &carol.user).await;
    assert_eq!(held.0, "knock", "{held:?}");

    // Alice takes Cleo out: Carol's room is left and her claim given back.
    let seat = format!("{}/{}", carol.user, cleo.id);
    let body = json!({"roomId": plans.id, "seat": seat});
    alice.kit.ok("room-share-remove", body).await;
    eventually("Carol's claim given back", || {
        (claims(&carol.kit) == 0).then_some(())
    })
    .await;
    let (membership, reason) = membership_at_server(&synapse, &link, &carol.user).await;
    assert_eq!(membership, "leave");
    assert!(!reason.starts_with("flybot:"), "not a refusal: {reason}");
    assert!(carol.kit.host.store().read(ticket_peers).is_empty());
    let preview = (carol.kit)
        .ok("room-invite-preview", json!({"link": link}))
        .await;
    assert_eq!(
        (preview["claimed"].clone(), preview["joined"].clone()),
        (json!(false), json!(false)),
        "{preview}"
    );
    // The link stays open, for others and for Carol: a seat that ended
    // frees its home's place on the link, so the same link seats her again.
    assert_eq!(preview["status"], "open");
    join_by_link(&alice, &plans, &carol, &link, &[&cleo]).await;
    let alice_home = alice.user.clone();
    eventually("Carol's room open again", || {
        (mirrors(&carol.kit).into_iter())
            .find(|m| m["sharedFrom"]["home"] == alice_home.as_str())
            .filter(|m| m["sharedFrom"]["status"] == "open")
    })
    .await;
    let pairs = alice.kit.host.store().read(ticket_peers);
    assert_eq!(pairs.len(), 1, "{pairs:?}");
    assert_eq!(pairs[0].to_handle, cleo.id);
}

/// A home whose store reads a clock the test moves by hand.
async fn home_on_clock(synapse: &Synapse, name: &str, now: &Arc<AtomicU64>) -> Home {
    let user = synapse.register(name, &password(name)).await;
    let dir = tempfile::tempdir().unwrap();
    let read = now.clone();
    let options = StoreOptions {
        clock: Arc::new(move || read.load(Ordering::SeqCst)),
        ..StoreOptions::default()
    };
    let store = Store::open(dir.path(), options).unwrap();
    let config = HostConfig::new(dir.path().to_owned());
    let kit = Kit::around(Host::open(store, config).await, dir);
    let body = json!({"homeserver": synapse.base_url, "user": synapse.user(name), "password": password(name)});
    kit.ok("social-connect", body).await;
    Home { kit, user }
}

#[tokio::test]
/// Rule #884.
async fn a_claim_nobody_answers_is_dropped_after_a_day() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let (alice, _, plans) = alice_plans(&synapse).await;
    let link = mint(&alice, &plans, json!({})).await;
    // Alice's home goes away: nobody reads the lobby now.
    alice.kit.ok("social-disconnect", json!({})).await;
    let now = Arc::new(AtomicU64::new(flybot_store::system_now_ms()));
    let carol = home_on_clock(&synapse, "carol", &now).await;
    let cleo = carol.kit.bot("Cleo").await;
    let asked = (carol.kit)
        .ok("room-invite-ask", json!({"link": link, "bots": [cleo.id]}))
        .await;
    assert_eq!(asked["claimed"], true, "{asked}");
    assert_eq!(claims(&carol.kit), 1);

    now.fetch_add(CLAIM_UNANSWERED_MS, Ordering::SeqCst);
    eventually("Carol's unanswered claim dropped", || {
        (claims(&carol.kit) == 0).then_some(())
    })
    .await;
    let (membership, _) = membership_at_server(&synapse, &link, &carol.user).await;
    assert_eq!(membership, "leave", "the knock is taken back");
    assert!(carol.kit.host.store().read(ticket_peers).is_empty());
}

#[tokio::test]
/// Rules #884, #892, #49.
async fn deleting_a_room_withdraws_its_links_so_a_later_ask_answers_revoked() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let (alice, _, plans) = alice_plans(&synapse).await;
    let carol = super::home(&synapse, "carol").await;
    let cleo = carol.kit.bot("Cleo").await;
    let dave = super::home(&synapse, "dave").await;
    let dino = dave.kit.bot("Dino").await;
    let used = mint(&alice, &plans, json!({})).await;
    let unused = mint(&alice, &plans, json!({})).await;
    join_by_link(&alice, &plans, &carol, &used, &[&cleo]).await;

    // Another member of Alice's home may not delete it, and so withdraws
    // nothing: the links stay open at the server.
    let [_, mia] = alice.kit.members(["Owner", "Mia"]).await;
    let (status, answer) = (alice.kit.as_member(&mia))
        .post("delete-room", json!({"id": plans.id}))
        .await;
    assert!((400..500).contains(&status), "{status} {answer}");
    assert!(!room_record(&alice.kit, &plans.id).is_null());
    let preview = (dave.kit)
        .ok("room-invite-preview", json!({"link": unused}))
        .await;
    assert_eq!(preview["status"], "open", "{preview}");

    alice.kit.ok("delete-room", json!({"id": plans.id})).await;
    assert!(room_record(&alice.kit, &plans.id).is_null());

    // Every link of the room reads revoked, the used one and the other.
    for link in [&used, &unused] {
        let preview = (dave.kit)
            .ok("room-invite-preview", json!({"link": link}))
            .await;
        assert_eq!(preview["status"], "revoked", "{preview}");
    }
    let (status, refused) = (dave.kit)
        .post(
            "room-invite-ask",
            json!({"link": unused, "bots": [dino.id]}),
        )
        .await;
    assert_eq!(status, 403, "{refused}");
    assert_eq!(refused["error"]["details"]["reason"], "revoked");
    assert_eq!(claims(&dave.kit), 0);
    // The claim the lobby held is answered revoked at the server.
    let (membership, reason) = membership_at_server(&synapse, &used, &carol.user).await;
    assert_eq!(
        (membership.as_str(), reason.as_str()),
        ("leave", "flybot:revoked")
    );
    let preview = (carol.kit)
        .ok("room-invite-preview", json!({"link": used}))
        .await;
    assert_eq!(preview["refused"], "revoked", "{preview}");
}
