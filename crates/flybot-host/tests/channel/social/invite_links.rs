//! A local room's invite links (issue 34, #852-#1176) against a real
//! Synapse and three homes that are nobody's friends: Carol joins Alice's
//! room by a link and only the Bots of her claim are seated; a withdrawn
//! link seats nobody new and keeps the seats it made; each refusal of a
//! forged or stale claim is its own code, and nothing is seated by it.

use super::raw::RawMatrix;
use super::{Home, home, password};
use flybot_host::social::invite_links::peers::{TicketPeer, ticket_peers};
use flybot_testkit::synapse::{Synapse, start_synapse};
use flybot_testkit::{Bot, Kit, Room};
use serde_json::{Value, json};
use std::time::Duration;

/// A refusal with `code`. The home's live sync moves its token at any
/// time, so the state a refusal must leave is asserted by each test.
async fn refusal(kit: &Kit, endpoint: &str, body: Value, code: &str) -> Value {
    let (status, answer) = kit.post(endpoint, body).await;
    assert!(
        (400..500).contains(&status),
        "{endpoint}: {status} {answer}"
    );
    assert_eq!(answer["error"]["code"], code, "{endpoint}: {answer}");
    answer
}

/// Waits until `look` finds something (another home's doing).
pub(super) async fn eventually<T>(what: &str, mut look: impl FnMut() -> Option<T>) -> T {
    for _ in 0..600 {
        if let Some(found) = look() {
            return found;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("never saw {what}");
}

pub(super) fn room_record(kit: &Kit, id: &str) -> Value {
    kit.host
        .store()
        .read(|s| serde_json::to_value(s.rooms.get(id)).unwrap())
}

pub(super) fn mirrors(kit: &Kit) -> Vec<Value> {
    kit.host.store().read(|s| {
        (s.rooms.values())
            .map(|r| serde_json::to_value(r).unwrap())
            .filter(|r| r["origin"] == "inbound-share")
            .collect()
    })
}

pub(super) fn live_seat(room: &Value, id: &str) -> bool {
    room["participants"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|p| p["id"] == id && p["leftSeq"].is_null())
}

/// Alice's room "Plans" with her Atlas.
pub(super) async fn alice_plans(synapse: &Synapse) -> (Home, Bot, Room) {
    let alice = home(synapse, "alice").await;
    let atlas = alice.kit.bot("Atlas").await;
    let plans = alice.kit.room("Plans", &[&atlas]).await;
    (alice, atlas, plans)
}

pub(super) async fn mint(alice: &Home, room: &Room, body: Value) -> String {
    let mut body = body;
    body["roomId"] = json!(room.id);
    let links = alice.kit.ok("room-invite-mint", body).await;
    links["minted"]["url"].as_str().unwrap().to_owned()
}

/// `guest` claims `link` for `bots` and waits for the mirror on its home.
pub(super) async fn join_by_link(
    alice: &Home,
    plans: &Room,
    guest: &Home,
    link: &str,
    bots: &[&Bot],
) -> Value {
    let ids: Vec<&str> = bots.iter().map(|b| b.id.as_str()).collect();
    let asked = (guest.kit)
        .ok("room-invite-ask", json!({"link": link, "bots": ids}))
        .await;
    assert_eq!(asked["claimed"], true, "{asked}");
    let seat = format!("{}/{}", guest.user, ids[0]);
    eventually("the guest's seat at Alice's", || {
        live_seat(&room_record(&alice.kit, &plans.id), &seat).then_some(())
    })
    .await;
    let user = alice.user.clone();
    eventually("the room on the guest's home", || {
        mirrors(&guest.kit)
            .into_iter()
            .find(|m| m["sharedFrom"]["home"] == user.as_str())
    })
    .await
}

#[tokio::test]
/// Rules #852, #878, #884, #923.
async fn a_stranger_joins_by_a_link_and_only_the_bots_of_her_claim_are_seated() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let (alice, atlas, plans) = alice_plans(&synapse).await;
    let carol = home(&synapse, "carol").await;
    let cleo = carol.kit.bot("Cleo").await;
    let cato = carol.kit.bot("Cato").await;

    let link = mint(&alice, &plans, json!({})).await;
    let ticket = link.rsplit('/').next().unwrap().to_owned();
    assert_eq!(ticket.len(), 22, "16 bytes in base64url: {link}");
    assert!(link.contains(&format!("/r/{}/", atlas.id)), "{link}");
    // #878: several links live at once.
    let second = mint(&alice, &plans, json!({})).await;
    assert_ne!(second, link);
    let listed = alice
        .kit
        .ok("room-invite", json!({"roomId": plans.id}))
        .await;
    assert_eq!(listed["count"], 2);

    // The preview reads the server's record: a claim is not a seat.
    let preview = (carol.kit)
        .ok("room-invite-preview", json!({"link": link}))
        .await;
    assert_eq!(preview["roomName"], "Plans");
    assert_eq!(preview["leadName"], "Atlas");
    assert_eq!(preview["status"], "open");
    assert_eq!(preview["inviter"], alice.user);
    assert_eq!(
        (preview["claimed"].clone(), preview["joined"].clone()),
        (json!(false), json!(false))
    );

    let mirror = join_by_link(&alice, &plans, &carol, &link, &[&cleo]).await;
    // Only the Bots of her claim: Cleo, not Cato.
    assert_eq!(mirror["members"], json!([cleo.id]));
    let at_alice = room_record(&alice.kit, &plans.id);
    let cleo_seat = format!("{}/{}", carol.user, cleo.id);
    assert!(!live_seat(
        &at_alice,
        &format!("{}/{}", carol.user, cato.id)
    ));
    assert_eq!(
        at_alice["ticketSeats"][&cleo_seat],
        json!({"remote": true, "admittedBy": "ticket", "ticket": ticket, "hostBotId": atlas.id})
    );
    assert_eq!(
        at_alice["localInvites"][0]["homes"][&carol.user],
        json!([cleo.id])
    );
    // Nobody's friend: no published friend on either side.
    for kit in [&alice.kit, &carol.kit] {
        let view = kit.ok("social", json!({})).await;
        assert_eq!(view["friends"], json!([]), "{view}");
        assert_eq!(view["remoteBots"], json!([]), "{view}");
    }
    let preview = (carol.kit)
        .ok("room-invite-preview", json!({"link": link}))
        .await;
    assert_eq!(
        (preview["claimed"].clone(), preview["joined"].clone()),
        (json!(true), json!(true))
    );
    assert_eq!(preview["roomId"], mirror["id"]);

    // #923: the only pairs the link opens, read by both halves.
    let peers = alice.kit.host.store().read(ticket_peers);
    assert_eq!(
        peers,
        vec![TicketPeer {
            from: atlas.id.clone(),
            to_home: carol.user.clone(),
            to_handle: cleo.id.clone(),
            scope: plans.id.clone(),
            ticket: ticket.clone(),
        }]
    );
    let peers = carol.kit.host.store().read(ticket_peers);
    assert_eq!(
        peers,
        vec![TicketPeer {
            from: cleo.id.clone(),
            to_home: alice.user.clone(),
            to_handle: atlas.id.clone(),
            scope: plans.id.clone(),
            ticket: ticket.clone(),
        }]
    );

    // The room works as a shared room: Alice's line reaches Carol's home.
    alice
        .kit
        .ok(
            "send",
            json!({"roomId": plans.id, "text": "welcome, Carol"}),
        )
        .await;
    let shown = Room {
        id: mirror["id"].as_str().unwrap().to_owned(),
        name: "Plans".into(),
    };
    eventually("Alice's line at Carol's", || {
        (carol.kit.room_lines(&shown).into_iter())
            .find(|l| l.text.contains("welcome, Carol"))
            .map(|l| assert!(l.text.contains("<untrusted-message"), "fenced: {}", l.text))
    })
    .await;
}

#[tokio::test]
/// Rules #878, #892.
async fn a_revoked_link_seats_nobody_new_and_keeps_existing_seats() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let (alice, _atlas, plans) = alice_plans(&synapse).await;
    let carol = home(&synapse, "carol").await;
    let cleo = carol.kit.bot("Cleo").await;
    let dave = home(&synapse, "dave").await;
    let dino = dave.kit.bot("Dino").await;
    let link = mint(&alice, &plans, json!({})).await;
    join_by_link(&alice, &plans, &carol, &link, &[&cleo]).await;

    let revoked = (alice.kit)
        .ok("room-invite-revoke", json!({"roomId": plans.id}))
        .await;
    assert_eq!(revoked["count"], 0, "{revoked}");

    // Dave's home sees the link withdrawn and claims nothing.
    let preview = dave
        .kit
        .ok("room-invite-preview", json!({"link": link}))
        .await;
    assert_eq!(preview["status"], "revoked");
    let refused = refusal(
        &dave.kit,
        "room-invite-ask",
        json!({"link": link, "bots": [dino.id]}),
        "bot/forbidden",
    )
    .await;
    assert_eq!(
        refused["error"]["details"]["reason"], "revoked",
        "{refused}"
    );
    assert!(
        dave.kit
            .host
            .store()
            .read(|s| s.social.room_claims.is_empty())
    );

    // A raw knock that skips Dave's host is refused by Alice's: revoked.
    let raw = RawMatrix::login(&synapse.base_url, &synapse.user("dave"), &password("dave")).await;
    let ticket = link.rsplit('/').next().unwrap();
    let lobby = raw
        .resolve(&format!("#flybot-invite-{ticket}:localhost"))
        .await;
    let claim = json!({"flybot": "room-invite", "ticket": ticket, "home": dave.user,
        "bots": [{"id": dino.id, "name": "Dino"}]});
    raw.knock(&lobby, &claim.to_string()).await;
    let user = dave.user.clone();
    eventually("Alice's refusal of Dave's knock", || {
        let links = room_record(&alice.kit, &plans.id);
        (links["inviteRefused"][&user]["code"] == "revoked").then_some(())
    })
    .await;
    // Dave's home reads the answer back from the server.
    let preview = dave
        .kit
        .ok("room-invite-preview", json!({"link": link}))
        .await;
    assert_eq!(preview["refused"], "revoked", "{preview}");
    assert_eq!(preview["joined"], false);
    let at_alice = room_record(&alice.kit, &plans.id);
    assert!(!live_seat(&at_alice, &format!("{}/{}", dave.user, dino.id)));
    // The seat the link made stays, and so does Carol's room.
    assert!(live_seat(&at_alice, &format!("{}/{}", carol.user, cleo.id)));
    assert_eq!(mirrors(&carol.kit)[0]["sharedFrom"]["status"], "open");
    assert!(mirrors(&dave.kit).is_empty());
}

/// Mallory (a plain Matrix client) knocks on `lobby` with `reason` and
/// waits for Alice's answer; answers the code Alice's home kept.
async fn forged_knock(
    alice: &Home,
    plans: &Room,
    mallory: &RawMatrix,
    lobby: &str,
    reason: &str,
) -> String {
    let before =
        room_record(&alice.kit, &plans.id)["inviteRefused"][&mallory.user_id]["at"].clone();
    mallory.knock(lobby, reason).await;
    let user = mallory.user_id.clone();
    let code = eventually("Alice's answer to Mallory's knock", || {
        let refused = room_record(&alice.kit, &plans.id)["inviteRefused"][&user].clone();
        (refused["at"] != before).then(|| {
            let code = refused["code"].as_str();
            code.map(str::to_owned)
                .unwrap_or_else(|| "SEATED".to_owned())
        })
    })
    .await;
    // Denied at the server too: the knock is gone, its reason the code.
    let state = mallory.room_state(lobby).await;
    assert_ne!(code, "SEATED", "{reason} {state}");
    let member = state
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "m.room.member" && e["state_key"] == user.as_str())
        .cloned()
        .unwrap();
    assert_eq!(member["content"]["membership"], "leave", "{member}");
    assert_eq!(member["content"]["reason"], format!("flybot:{code}"));
    code
}

#[tokio::test]
/// Rules #884, #1064.
async fn each_forged_or_stale_claim_is_refused_with_its_own_code_and_seats_nobody() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let (alice, atlas, plans) = alice_plans(&synapse).await;
    let other = alice.kit.room("Other", &[&atlas]).await;
    let link = mint(&alice, &plans, json!({})).await;
    let other_link = mint(&alice, &other, json!({})).await;
    let stale = mint(&alice, &plans, json!({"expiresInMs": 0})).await;
    let ticket = |l: &str| l.rsplit('/').next().unwrap().to_owned();
    synapse.register("mallory", &password("mallory")).await;
    let mallory = RawMatrix::login(
        &synapse.base_url,
        &synapse.user("mallory"),
        &password("mallory"),
    )
    .await;
    let me = mallory.user_id.clone();
    let lobby = mallory
        .resolve(&format!("#flybot-invite-{}:localhost", ticket(&link)))
        .await;
    let claim = |t: &str, home: &str, bots: Value| {
        json!({"flybot": "room-invite", "ticket": t, "home": home, "bots": bots}).to_string()
    };
    let one = json!([{"id": "bot-m", "name": "Mole"}]);
    let cases = [
        ("unclaimed", "let me in".to_owned()),
        (
            "claimed-elsewhere",
            claim(&ticket(&link), "@carol:localhost", one.clone()),
        ),
        ("wrong-room", claim(&ticket(&other_link), &me, one.clone())),
        ("expired", claim(&ticket(&stale), &me, one.clone())),
        ("not-addable", claim(&ticket(&link), &me, json!([]))),
    ];
    for (want, reason) in cases {
        let code = forged_knock(&alice, &plans, &mallory, &lobby, &reason).await;
        assert_eq!(code, want, "{reason}");
    }
    let listed = alice
        .kit
        .ok("room-invite", json!({"roomId": plans.id}))
        .await;
    assert_eq!(listed["waiting"][&me]["code"], "not-addable", "{listed}");
    // Nothing was seated, and no Matrix room was shared with anyone.
    let at_alice = room_record(&alice.kit, &plans.id);
    let remote = at_alice["participants"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["kind"] == "remote-bot")
        .count();
    assert_eq!(remote, 0, "{at_alice}");
    assert!(at_alice["share"].is_null(), "{at_alice}");
    assert!(alice.kit.host.store().read(ticket_peers).is_empty());
    // The stale link is not listed as open (#892: a deadline is kept).
    assert_eq!(listed["count"], 1);
}

#[tokio::test]
/// Rule #876.
async fn a_shared_room_mints_no_link_and_a_claim_names_only_the_homes_own_bots() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let (alice, _atlas, plans) = alice_plans(&synapse).await;
    let carol = home(&synapse, "carol").await;
    let cleo = carol.kit.bot("Cleo").await;
    let link = mint(&alice, &plans, json!({})).await;
    // A Bot of another home, or none, cannot be claimed: nothing is sent.
    refusal(
        &carol.kit,
        "room-invite-ask",
        json!({"link": link, "bots": ["bot-of-alice"]}),
        "bot/not-found",
    )
    .await;
    refusal(
        &carol.kit,
        "room-invite-ask",
        json!({"link": link, "bots": []}),
        "bot/invalid",
    )
    .await;
    assert!(
        carol
            .kit
            .host
            .store()
            .read(|s| s.social.room_claims.is_empty())
    );
    // A bare ticket is no link.
    let bare = link.rsplit('/').next().unwrap();
    refusal(
        &carol.kit,
        "room-invite-preview",
        json!({"link": bare}),
        "bot/invalid",
    )
    .await;
    // Alice's own link is not hers to claim.
    refusal(
        &alice.kit,
        "room-invite-ask",
        json!({"link": link, "bots": [_atlas.id]}),
        "bot/invalid",
    )
    .await;
    // The room Carol holds from Alice has its own invitation.
    let mirror = join_by_link(&alice, &plans, &carol, &link, &[&cleo]).await;
    let refused = refusal(
        &carol.kit,
        "room-invite-mint",
        json!({"roomId": mirror["id"]}),
        "bot/forbidden",
    )
    .await;
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("own invitation")
    );
    assert!(mirrors(&carol.kit)[0]["localInvites"].is_null());
    // A room of Alice's is nobody else's to list or revoke.
    refusal(
        &carol.kit,
        "room-invite",
        json!({"roomId": plans.id}),
        "bot/not-found",
    )
    .await;
    refusal(
        &carol.kit,
        "room-invite-revoke",
        json!({"roomId": plans.id}),
        "bot/not-found",
    )
    .await;
    assert_eq!(
        alice
            .kit
            .ok("room-invite", json!({"roomId": plans.id}))
            .await["count"],
        1
    );
}

#[tokio::test]
/// Rule #904.
async fn a_stranger_and_a_friend_in_one_room_never_see_each_others_bots_in_the_roster() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let s = super::shared_rooms::share_plans(&synapse).await;
    let carol = home(&synapse, "carol").await;
    let cleo = carol.kit.bot("Cleo").await;
    let link = mint(&s.alice, &s.plans, json!({})).await;
    let at_carol = join_by_link(&s.alice, &s.plans, &carol, &link, &[&cleo]).await;
    let bolt_seat = format!("{}/{}", s.bob.user, s.bolt.id);
    let cleo_seat = format!("{}/{}", carol.user, cleo.id);
    let atlas_seat = format!("{}/{}", s.alice.user, s.atlas.id);
    // Each guest home has its own Matrix room: the stranger's is not the
    // friend's.
    let share = room_record(&s.alice.kit, &s.plans.id)["share"].clone();
    assert_ne!(
        share["guestRooms"][&carol.user], share["matrixRoomId"],
        "{share}"
    );
    // Carol's room names Alice's Atlas and never Bob's Bolt...
    assert!(live_seat(&at_carol, &atlas_seat), "{at_carol}");
    let seats = |room: &Value| room["participants"].to_string() + &room["sharedFrom"].to_string();
    assert!(!seats(&at_carol).contains(&s.bolt.id), "{at_carol}");
    // ...and Bob's, refreshed by the same join, never Carol's Cleo.
    let user = s.alice.user.clone();
    let seq = share["joinSeq"].clone();
    let at_bob = eventually("Bob's room after the join that seated Carol", || {
        mirrors(&s.bob.kit)
            .into_iter()
            .find(|m| m["sharedFrom"]["home"] == user.as_str() && m["sharedFrom"]["joinSeq"] == seq)
    })
    .await;
    assert!(live_seat(&at_bob, &atlas_seat));
    assert!(!seats(&at_bob).contains(&cleo.id), "{at_bob}");
    assert!(!seats(&at_bob).contains(&carol.user), "{at_bob}");
    // Lines still reach everyone: Carol's line is relayed to Bob's home,
    // from Alice's, and Bob's seat is live at Alice's.
    let carol_room = Room {
        id: at_carol["id"].as_str().unwrap().to_owned(),
        name: "Plans".into(),
    };
    carol
        .kit
        .ok(
            "send",
            json!({"roomId": carol_room.id, "text": "hello from Carol"}),
        )
        .await;
    let bob_room = Room {
        id: at_bob["id"].as_str().unwrap().to_owned(),
        name: "Plans".into(),
    };
    eventually("Carol's line at Bob's", || {
        (s.bob.kit.room_lines(&bob_room).into_iter()).find(|l| l.text.contains("hello from Carol"))
    })
    .await;
    assert!(live_seat(
        &room_record(&s.alice.kit, &s.plans.id),
        &bolt_seat
    ));
    assert!(live_seat(
        &room_record(&s.alice.kit, &s.plans.id),
        &cleo_seat
    ));
}
