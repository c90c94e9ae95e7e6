//! Issue 33's delivery under faults, on the real binary: two `flybot
//! serve` homes on a private Synapse. Bob's home is killed (SIGKILL) after
//! it acknowledged a line but before the line could go out (the homeserver
//! was down); Alice's home is killed and misses the next line while it is
//! down. Each line reaches Alice's Bot exactly once and its answer reaches
//! Bob once.

use crate::support::{Served, serve};
use flybot_testkit::synapse::{Synapse, start_private_synapse};
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;

pub(crate) fn ok(host: &Served, endpoint: &str, body: Value) -> Value {
    let (status, answer) = host.post(endpoint, &body.to_string(), None);
    assert_eq!(status, 200, "{endpoint}: {answer}");
    answer
}

/// Looks at Bob's view until `pred` holds (the other home's doing has no
/// event this test could await).
pub(crate) fn until(host: &Served, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..1200 {
        let seen = ok(host, "social", json!({}));
        if pred(&seen) {
            return seen;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("never saw {what}: {}", ok(host, "social", json!({})));
}

pub(crate) fn lines_of(view: &Value) -> Vec<Value> {
    view["remoteBots"][0]["lines"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// How many user messages in the home's Session logs carry `text`.
pub(crate) fn delivered(home: &Path, text: &str) -> usize {
    let Ok(dir) = std::fs::read_dir(home.join("sessions")) else {
        return 0;
    };
    dir.filter_map(|entry| std::fs::read_to_string(entry.ok()?.path()).ok())
        .flat_map(|log| {
            log.lines()
                .filter_map(|line| serde_json::from_str::<Value>(line).ok())
                .collect::<Vec<_>>()
        })
        .filter(|event| {
            let event = event.get("event").unwrap_or(event);
            event["type"] == "user/message"
                && event["text"].as_str().is_some_and(|t| t.contains(text))
        })
        .count()
}

/// Connects `host` as the test's user `name` (password `pw-<name>-1`).
pub(crate) fn connect(host: &Served, synapse: &Synapse, name: &str) {
    let body = json!({"homeserver": synapse.base_url, "user": synapse.user(name), "password": format!("pw-{name}-1")});
    ok(host, "social-connect", body);
}

#[test]
fn each_line_arrives_once_across_a_kill_of_either_home_33() {
    let runtime = crate::social_homes::runtime();
    let Some(mut synapse) = runtime.block_on(start_private_synapse()) else {
        return;
    };
    let alice_id = runtime.block_on(synapse.register("alice", "pw-alice-1"));
    let bob_id = runtime.block_on(synapse.register("bob", "pw-bob-1"));
    let (alice_home, bob_home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let alice = serve(alice_home.path());
    let bob = serve(bob_home.path());
    connect(&alice, &synapse, "alice");
    connect(&bob, &synapse, "bob");
    ok(&alice, "social-friend-add", json!({"userId": bob_id}));
    ok(&bob, "social-friend-add", json!({"userId": alice_id}));
    let helper = ok(&alice, "create-bot", json!({"name": "Helper"}))["bot"]["id"].clone();
    ok(
        &alice,
        "social-publish",
        json!({"botId": helper, "userId": bob_id}),
    );
    let seen = until(&bob, "Alice's Helper", |v| {
        v["remoteBots"][0]["shared"] == true
    });
    let room = seen["remoteBots"][0]["roomId"].clone();

    // The sending home dies after the outbox write, before the send.
    runtime.block_on(synapse.stop());
    ok(
        &bob,
        "social-send",
        json!({"roomId": room, "text": "line one"}),
    );
    bob.crash();
    runtime.block_on(synapse.start());
    let bob = serve(bob_home.path());
    let seen = until(&bob, "the answer to line one", |v| lines_of(v).len() == 2);
    assert!(
        lines_of(&seen)[1]["text"]
            .as_str()
            .unwrap()
            .contains("line one")
    );
    assert_eq!(delivered(alice_home.path(), "line one"), 1);

    // The receiving home is down when the next line is sent.
    alice.crash();
    ok(
        &bob,
        "social-send",
        json!({"roomId": room, "text": "line two"}),
    );
    let alice = serve(alice_home.path());
    let seen = until(&bob, "the answer to line two", |v| lines_of(v).len() == 4);
    assert!(
        lines_of(&seen)[3]["text"]
            .as_str()
            .unwrap()
            .contains("line two")
    );
    // Settled: nothing more arrives, at either home.
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(delivered(alice_home.path(), "line one"), 1);
    assert_eq!(delivered(alice_home.path(), "line two"), 1);
    assert_eq!(lines_of(&ok(&bob, "social", json!({}))).len(), 4);
    assert_eq!(ok(&bob, "social", json!({}))["pendingCount"], 0);
    alice.crash();
    bob.crash();
}
