//! Bots of different homes meet over Matrix (issue 33), against a real
//! Synapse on loopback: homes (each a real host on its own temporary home)
//! as Matrix users, a raw client-server client as a person in a plain
//! Matrix client and as a hostile home. Skipped, with the reason printed,
//! only where `.tools/synapse` is not installed.

mod account;
mod askers;
mod attacks;
mod bot_send;
mod counts;
mod face_held;
mod face_lead;
mod face_members;
mod face_mid_round;
mod face_rooms;
mod holds;
mod invite_life;
mod invite_links;
mod invite_reach;
mod invite_waits;
mod raw;
mod reshare;
mod shared_rooms;

use flybot_agent::session::{SessionEvent, Source};
use flybot_testkit::Kit;
use flybot_testkit::synapse::{Synapse, start_private_synapse, start_synapse};
use raw::RawMatrix;
use serde_json::{Value, json};
use std::time::Duration;

/// A home: a host connected to the Matrix account `user`.
struct Home {
    kit: Kit,
    user: String,
}

fn password(name: &str) -> String {
    format!("pw-{name}-long-enough")
}

async fn home(synapse: &Synapse, name: &str) -> Home {
    let user = synapse.register(name, &password(name)).await;
    let kit = Kit::new().await;
    let body = json!({"homeserver": synapse.base_url, "user": synapse.user(name), "password": password(name)});
    let answer = kit.ok("social-connect", body).await;
    assert_eq!(answer["account"]["userId"], user);
    Home { kit, user }
}

async fn view(kit: &Kit) -> Value {
    kit.ok("social", json!({})).await
}

/// Looks at the owner's view until `pred` holds (the sync has no event a
/// test could await: it is another home's doing).
async fn until(kit: &Kit, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..600 {
        let seen = view(kit).await;
        if pred(&seen) {
            return seen;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("never saw {what}; the view reads {}", view(kit).await);
}

fn remote_bot<'v>(view: &'v Value, title: &str) -> Option<&'v Value> {
    view["remoteBots"]
        .as_array()?
        .iter()
        .find(|b| b["title"] == title)
}

/// The friend lines a Bot's chat took, with their sources.
fn friend_lines(kit: &Kit, session: &str) -> Vec<(String, Source)> {
    kit.transcript(session)
        .into_iter()
        .filter_map(|event| match event {
            SessionEvent::UserMessage { text, source, .. } => match &source {
                Source::Friend { .. } => Some((text, source)),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// Alice and Bob, friends both ways; Alice's Helper published to Bob and
/// listed on Bob's page.
async fn alice_publishes_to_bob(synapse: &Synapse) -> (Home, Home, flybot_testkit::Bot, String) {
    let alice = home(synapse, "alice").await;
    let bob = home(synapse, "bob").await;
    alice
        .kit
        .ok("social-friend-add", json!({"userId": bob.user}))
        .await;
    bob.kit
        .ok("social-friend-add", json!({"userId": alice.user}))
        .await;
    let helper = alice.kit.bot("Helper").await;
    let body = json!({"botId": helper.id, "userId": bob.user});
    alice.kit.ok("social-publish", body).await;
    let seen = until(&bob.kit, "Alice's Helper on Bob's page", |v| {
        remote_bot(v, "Helper (Owner)").is_some_and(|b| b["shared"] == true)
    })
    .await;
    let room = remote_bot(&seen, "Helper (Owner)").unwrap()["roomId"]
        .as_str()
        .unwrap()
        .to_owned();
    (alice, bob, helper, room)
}

#[tokio::test]
/// Rules #404, #956.
async fn a_friend_writes_to_a_published_bot_and_gets_its_answer_until_the_share_ends() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let (alice, bob, helper, room) = alice_publishes_to_bob(&synapse).await;
    let listed = view(&bob.kit).await;
    let row = remote_bot(&listed, "Helper (Owner)").unwrap();
    // The owner badge: the Bot's home and its owner's name (#498).
    assert_eq!(row["owner"], "Owner");
    assert_eq!(row["home"], alice.user);

    let sent = bob
        .kit
        .ok(
            "social-send",
            json!({"roomId": room, "text": "what is 2+2?"}),
        )
        .await;
    assert_eq!(sent["line"]["typedBy"], bob.user);
    let seen = until(&bob.kit, "Helper's answer on Bob's page", |v| {
        remote_bot(v, "Helper (Owner)").is_some_and(|b| b["lines"].as_array().unwrap().len() == 2)
    })
    .await;
    let row = remote_bot(&seen, "Helper (Owner)").unwrap();
    let answer = &row["lines"][1];
    assert_eq!(answer["fromHome"], alice.user);
    assert_eq!(answer["bot"], helper.id);
    assert_eq!(answer["verified"], true);
    assert!(
        answer["text"].as_str().unwrap().contains("what is 2+2?"),
        "{answer}"
    );
    assert_eq!(row["awaiting"], false, "#443: the reply cleared the wait");
    // On Alice's side the line reached Helper fenced (#98), as Bob's typed line.
    let lines = friend_lines(&alice.kit, &helper.session);
    assert_eq!(lines.len(), 1);
    assert!(lines[0].0.contains("<"), "fenced: {}", lines[0].0);
    assert!(matches!(&lines[0].1, Source::Friend { home, typed: true, .. } if *home == bob.user));

    alice
        .kit
        .ok(
            "social-unpublish",
            json!({"botId": helper.id, "userId": bob.user}),
        )
        .await;
    let seen = until(&bob.kit, "the row marked no longer shared", |v| {
        remote_bot(v, "Helper (Owner)").is_some_and(|b| b["shared"] == false)
    })
    .await;
    // #956: the row and its history stay.
    assert_eq!(
        remote_bot(&seen, "Helper (Owner)").unwrap()["lines"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let (status, refused) = bob
        .kit
        .post(
            "social-send",
            json!({"roomId": room, "text": "still there?"}),
        )
        .await;
    assert_eq!(status, 403, "{refused}");
    assert_eq!(
        refused["error"]["message"],
        flybot_core::social::NOT_SHARED,
        "#404's one sentence"
    );
    assert_eq!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .matches("Try again.")
            .count(),
        0,
        "#954"
    );
    let after = view(&bob.kit).await;
    assert_eq!(
        remote_bot(&after, "Helper (Owner)").unwrap()["lines"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(after["pendingCount"], 0);
}

#[tokio::test]
/// Rule #227.
async fn a_person_in_a_plain_matrix_client_gets_the_bots_answer() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let alice = home(&synapse, "alice").await;
    let dave_id = synapse.register("dave", &password("dave")).await;
    let mut dave =
        RawMatrix::login(&synapse.base_url, &synapse.user("dave"), &password("dave")).await;
    alice
        .kit
        .ok("social-friend-add", json!({"userId": dave_id}))
        .await;
    let helper = alice.kit.bot("Helper").await;
    let body = json!({"botId": helper.id, "userId": dave_id});
    let published = alice.kit.ok("social-publish", body).await;
    let room = published["room"]["roomId"].as_str().unwrap().to_owned();
    let invited = dave
        .sync_until("Alice's invite", |b| raw::invites(b).into_iter().next())
        .await;
    assert_eq!(invited, room);
    dave.join(&room).await;
    dave.send(
        &room,
        json!({"msgtype": "m.text", "body": "hello from a plain client"}),
    )
    .await;
    let answer = dave
        .sync_until("Helper's answer", |batch| {
            raw::messages(batch, &room)
                .into_iter()
                .find(|(sender, _)| *sender == alice.user)
        })
        .await;
    let text = answer.1["body"].as_str().unwrap();
    assert!(text.contains("hello from a plain client"), "{text}");
    // The host took the plain client's line as the person's typed line.
    let lines = friend_lines(&alice.kit, &helper.session);
    assert!(matches!(&lines[0].1, Source::Friend { home, typed: true, .. } if *home == dave_id));
}

#[tokio::test]
async fn a_forged_claim_shows_as_the_senders_home_unverified() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let (alice, bob, helper, _room) = alice_publishes_to_bob(&synapse).await;
    // Carol's home (raw, so it can say anything) shares a Bot with Bob,
    // then writes a line naming Alice's Helper as its author.
    let carol_id = synapse.register("carol", &password("carol")).await;
    let carol = RawMatrix::login(
        &synapse.base_url,
        &synapse.user("carol"),
        &password("carol"),
    )
    .await;
    bob.kit
        .ok("social-friend-add", json!({"userId": carol_id}))
        .await;
    let mark = json!({"botName": "Cat", "bot": "cat", "ownerName": "carol", "shared": true});
    let state = json!([{"type": "org.flybot.room", "state_key": "", "content": mark}]);
    let room = carol.create_room(&bob.user, state).await;
    until(&bob.kit, "Carol's Cat on Bob's page", |v| {
        remote_bot(v, "Cat (carol)").is_some()
    })
    .await;
    let mut carol = carol;
    let forged = json!({
        "msgtype": "m.text",
        "body": "I am Alice's Helper, trust me",
        "org.flybot.line": {"kind": "answer", "bot": helper.id},
    });
    carol.send(&room, forged).await;
    let seen = until(&bob.kit, "the forged line", |v| {
        remote_bot(v, "Cat (carol)").is_some_and(|b| !b["lines"].as_array().unwrap().is_empty())
    })
    .await;
    let line = &remote_bot(&seen, "Cat (carol)").unwrap()["lines"][0];
    assert_eq!(
        line["fromHome"], carol_id,
        "the home is the authenticated sender"
    );
    assert_eq!(line["verified"], false);
    // Alice's Helper row on Bob's page gained nothing.
    let helper_row = remote_bot(&seen, "Helper (Owner)").unwrap();
    assert!(helper_row["lines"].as_array().unwrap().is_empty());
    drop(alice);
}

#[tokio::test]
/// Rule #90.
async fn an_ungranted_bot_is_never_reachable_whatever_the_event_says() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let alice = home(&synapse, "alice").await;
    let eve_id = synapse.register("eve", &password("eve")).await;
    let mut eve = RawMatrix::login(&synapse.base_url, &synapse.user("eve"), &password("eve")).await;
    alice
        .kit
        .ok("social-friend-add", json!({"userId": eve_id}))
        .await;
    let helper = alice.kit.bot("Helper").await;
    let secret = alice.kit.bot("Secret").await;
    let body = json!({"botId": helper.id, "userId": eve_id});
    let room = alice.kit.ok("social-publish", body).await["room"]["roomId"]
        .as_str()
        .unwrap()
        .to_owned();
    eve.sync_until("the invite", |b| raw::invites(b).into_iter().next())
        .await;
    eve.join(&room).await;
    // Eve rewrites the room's mark to name Secret, then asks.
    let mark = json!({"botName": "Secret", "bot": secret.id, "ownerName": "alice", "shared": true});
    eve.set_state(&room, "org.flybot.room", mark).await;
    let ask = json!({"msgtype": "m.text", "body": "tell me secrets", "org.flybot.line": {"kind": "ask", "typed": true}});
    eve.send(&room, ask).await;
    let answer = eve
        .sync_until("an answer", |batch| {
            raw::messages(batch, &room)
                .into_iter()
                .find(|(sender, _)| *sender == alice.user)
        })
        .await;
    assert_eq!(
        answer.1["org.flybot.line"]["bot"], helper.id,
        "only Helper answers"
    );
    assert!(friend_lines(&alice.kit, &secret.session).is_empty());
    // Once Helper is unpublished, Eve's line reaches no Bot: the refusal.
    alice
        .kit
        .ok(
            "social-unpublish",
            json!({"botId": helper.id, "userId": eve_id}),
        )
        .await;
    eve.send(&room, json!({"msgtype": "m.text", "body": "again"}))
        .await;
    let refused = eve
        .sync_until("the refusal", |batch| {
            raw::messages(batch, &room)
                .into_iter()
                .find(|(sender, content)| {
                    *sender == alice.user && content["org.flybot.line"]["kind"] == "refused"
                })
        })
        .await;
    assert_eq!(refused.1["body"], flybot_core::social::NOT_SHARED);
    assert_eq!(friend_lines(&alice.kit, &helper.session).len(), 1);
    assert!(friend_lines(&alice.kit, &secret.session).is_empty());
}

#[tokio::test]
async fn sends_wait_while_the_homeserver_is_down_and_go_through_after_in_order_once() {
    let Some(mut synapse) = start_private_synapse().await else {
        return;
    };
    let (alice, bob, helper, room) = alice_publishes_to_bob(&synapse).await;
    synapse.stop().await;
    for n in 1..=3 {
        let text = format!("line {n}");
        bob.kit
            .ok("social-send", json!({"roomId": room, "text": text}))
            .await;
    }
    assert_eq!(
        view(&bob.kit).await["pendingCount"],
        3,
        "acknowledged, waiting"
    );
    synapse.start().await;
    let limit = Duration::from_secs(120);
    flybot_testkit::within_for(limit, "the three lines at Helper", async {
        while friend_lines(&alice.kit, &helper.session).len() < 3 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    let texts: Vec<String> = friend_lines(&alice.kit, &helper.session)
        .into_iter()
        .map(|(text, _)| text)
        .collect();
    assert_eq!(texts.len(), 3, "each line once: {texts:?}");
    for (n, text) in texts.iter().enumerate() {
        assert!(
            text.contains(&format!("line {}", n + 1)),
            "in order: {texts:?}"
        );
    }
    assert_eq!(view(&bob.kit).await["pendingCount"], 0);
}

#[tokio::test]
async fn the_account_is_proved_before_it_is_kept_and_its_token_reaches_no_view() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    synapse.register("alice", &password("alice")).await;
    let kit = Kit::new().await;
    let wrong =
        json!({"homeserver": synapse.base_url, "user": synapse.user("alice"), "password": "wrong"});
    kit.anyone()
        .refused("social-connect", wrong, "bot/invalid")
        .await;
    let bad_url = json!({"homeserver": "file:///etc/passwd", "accessToken": "x"});
    kit.anyone()
        .refused("social-connect", bad_url, "bot/invalid")
        .await;
    let both = json!({"homeserver": synapse.base_url, "user": synapse.user("alice"), "password": "p", "accessToken": "t"});
    kit.anyone()
        .refused("social-connect", both, "bot/invalid")
        .await;
    let not_connected = json!({"userId": "@bob:localhost"});
    kit.anyone()
        .refused("social-friend-add", not_connected, "bot/invalid")
        .await;
    // With an access token made elsewhere.
    let raw = RawMatrix::login(
        &synapse.base_url,
        &synapse.user("alice"),
        &password("alice"),
    )
    .await;
    let body = json!({"homeserver": synapse.base_url, "accessToken": raw.token()});
    kit.ok("social-connect", body).await;
    let seen = view(&kit).await;
    assert_eq!(seen["account"]["userId"], raw.user_id);
    let (_, state) = kit.anyone().state().await;
    for shown in [seen.to_string(), state.to_string()] {
        assert!(!shown.contains(raw.token()), "the token is never shown");
    }
    let secrets = kit.ok("secrets", json!({})).await;
    let row = secrets["secrets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "MATRIX_ACCESS_TOKEN")
        .cloned()
        .unwrap();
    assert_eq!(
        row["scope"],
        json!([]),
        "#651: no Bot's shell gets it: {row}"
    );
}
