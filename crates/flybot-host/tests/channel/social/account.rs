//! The home's account over time (issue 33): an invite from a stranger is
//! declined and never joined; an access token the homeserver lets expire
//! is renewed with the refresh token, and lines still go both ways.

use super::raw::{self, RawMatrix};
use super::{alice_publishes_to_bob, home, password, remote_bot, until, view};
use flybot_testkit::Kit;
use flybot_testkit::synapse::{start_synapse, start_synapse_with};
use serde_json::{Value, json};
use std::time::Duration;

/// The `secrets` row of `name` (never its value).
async fn secret_row(kit: &Kit, name: &str) -> Value {
    let secrets = kit.ok("secrets", json!({})).await;
    let rows = secrets["secrets"].as_array().cloned().unwrap_or_default();
    rows.into_iter()
        .find(|s| s["name"] == name)
        .unwrap_or(Value::Null)
}

#[tokio::test]
async fn an_invite_from_a_stranger_is_declined_and_never_joined() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let alice = home(&synapse, "alice").await;
    let carol_id = synapse.register("carol", &password("carol")).await;
    let mut carol = RawMatrix::login(
        &synapse.base_url,
        &synapse.user("carol"),
        &password("carol"),
    )
    .await;
    let mark = json!({"botName": "Cat", "bot": "cat", "ownerName": "carol", "shared": true});
    let state = json!([{"type": "org.flybot.room", "state_key": "", "content": mark}]);
    let room = carol.create_room(&alice.user, state).await;
    until(&alice.kit, "Carol's invite waiting", |v| {
        v["invites"] == json!([carol_id])
    })
    .await;
    let declined = alice
        .kit
        .ok("social-friend-decline", json!({"userId": carol_id}))
        .await;
    assert_eq!(declined["declined"], 1);
    let left = carol
        .sync_until("Alice's home declining", |batch| {
            raw::left(batch, &room).into_iter().next()
        })
        .await;
    assert_eq!(left, alice.user);
    let after = view(&alice.kit).await;
    assert_eq!(after["invites"], json!([]));
    assert_eq!(
        after["friends"],
        json!([]),
        "a declined stranger is no friend"
    );
    assert!(remote_bot(&after, "Cat (carol)").is_none(), "never joined");
    // Nothing waits any more: a second decline names what is missing.
    let body = json!({"userId": carol_id});
    alice
        .kit
        .anyone()
        .refused("social-friend-decline", body, "bot/not-found")
        .await;
}

#[tokio::test]
async fn an_expired_token_is_renewed_with_the_refresh_token_and_lines_still_go() {
    // Tokens that live two seconds: every sync after the first outlives one.
    let short = "refreshable_access_token_lifetime: 2s";
    let Some(synapse) = start_synapse_with(short).await else {
        return;
    };
    let (_alice, bob, _helper, room) = alice_publishes_to_bob(&synapse).await;
    // #651: the refresh token, like the access token, is for no Bot.
    let refresh = secret_row(&bob.kit, "MATRIX_REFRESH_TOKEN").await;
    assert_eq!(refresh["scope"], json!([]), "{refresh}");
    let first = secret_row(&bob.kit, "MATRIX_ACCESS_TOKEN").await["updatedAt"].clone();
    flybot_testkit::within_for(Duration::from_secs(60), "the token renewed", async {
        while secret_row(&bob.kit, "MATRIX_ACCESS_TOKEN").await["updatedAt"] == first {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    let body = json!({"roomId": room, "text": "still signed in?"});
    bob.kit.ok("social-send", body).await;
    let seen = until(&bob.kit, "the answer after a renewal", |v| {
        remote_bot(v, "Helper (Owner)").is_some_and(|b| b["lines"].as_array().unwrap().len() == 2)
    })
    .await;
    assert_eq!(seen["status"], "ready", "{seen}");
    assert_eq!(seen["lastError"], Value::Null);
}
