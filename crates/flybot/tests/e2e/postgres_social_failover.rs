//! Bot Social on a team with a standby (issue 35, #83, #1027), on the real
//! binary: Alice's team on PostgreSQL with a leader and a standby, Bob's
//! home on a folder, both on a private Synapse. The standby leaves the
//! homeserver to the leader (before, it synced with the leader's account,
//! had every batch refused as read-only and said the sync had stopped).
//! When the leader is killed, the standby takes over and Bob's next line
//! reaches Alice's Bot once, and its answer reaches Bob.

use crate::social_crash::{connect, delivered, lines_of, ok, until};
use crate::support::{serve, serve_with};
use flybot_store::engine::test_database::test_database;
use flybot_testkit::synapse::start_synapse;
use serde_json::json;

#[test]
fn a_standby_leaves_the_homeserver_to_the_leader_and_answers_once_it_takes_over_83() {
    let Some(db) = test_database() else {
        return;
    };
    let runtime = crate::social_homes::runtime();
    let Some(synapse) = runtime.block_on(start_synapse()) else {
        return;
    };
    let alice_id = runtime.block_on(synapse.register("alice", "pw-alice-1"));
    let bob_id = runtime.block_on(synapse.register("bob", "pw-bob-1"));
    let (alice_home, bob_home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let leader = serve_with(alice_home.path(), &["--store", &db.url]);
    let bob = serve(bob_home.path());
    connect(&leader, &synapse, "alice");
    connect(&bob, &synapse, "bob");
    ok(&leader, "social-friend-add", json!({"userId": bob_id}));
    ok(&bob, "social-friend-add", json!({"userId": alice_id}));
    let helper = ok(&leader, "create-bot", json!({"name": "Helper"}))["bot"]["id"].clone();
    let publish = json!({"botId": helper, "userId": bob_id});
    ok(&leader, "social-publish", publish);
    let seen = until(&bob, "Alice's Helper", |v| {
        v["remoteBots"][0]["shared"] == true
    });
    let room = seen["remoteBots"][0]["roomId"].clone();

    // The standby opens on a team already connected to the homeserver.
    let standby = serve_with(alice_home.path(), &["--store", &db.url, "--standby"]);
    ok(
        &bob,
        "social-send",
        json!({"roomId": room, "text": "line one"}),
    );
    until(&bob, "the answer to line one", |v| lines_of(v).len() == 2);
    let view = ok(&standby, "social", json!({}));
    assert_eq!(view["status"], "standby", "{view}");
    assert!(view["lastError"].is_null(), "{view}");

    leader.crash();
    ok(
        &bob,
        "social-send",
        json!({"roomId": room, "text": "line two"}),
    );
    let seen = until(&bob, "the answer to line two", |v| lines_of(v).len() == 4);
    let answer = lines_of(&seen)[3]["text"].as_str().unwrap().to_owned();
    assert!(answer.contains("line two"), "{answer}");
    assert_eq!(delivered(alice_home.path(), "line one"), 1);
    assert_eq!(delivered(alice_home.path(), "line two"), 1);
    let view = ok(&standby, "social", json!({}));
    assert_eq!(view["status"], "ready", "{view}");
    let (ok, lines, _) = standby.terminate();
    assert!(ok);
    let took_over = lines
        .iter()
        .filter(|l| l.contains("this standby took over"));
    assert_eq!(took_over.count(), 1, "{lines:?}");
    bob.crash();
}
