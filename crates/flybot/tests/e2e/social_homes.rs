//! Issue 33 on the real binary, more homes and exact faults: three `flybot
//! serve` homes (three processes, three Matrix users) on one private
//! Synapse; a kill -9 at each exact point of a line's way (the receiving
//! home after the batch came and before it was applied, the sending home
//! after the homeserver took the line and before the outbox knew); and the
//! homeserver away for 30 s. Each line reaches its Bot once, in order.

use crate::social_crash::{connect, delivered, ok, until};
use crate::support::{Served, serve, serve_with_env};
use flybot_testkit::synapse::{Synapse, start_private_synapse, start_synapse};
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

/// The row of the friend's Bot whose title starts with `name`.
fn row(view: &Value, name: &str) -> Value {
    let rows = view["remoteBots"].as_array().cloned().unwrap_or_default();
    rows.into_iter()
        .find(|b| b["title"].as_str().is_some_and(|t| t.starts_with(name)))
        .unwrap_or(Value::Null)
}

fn lines(view: &Value, name: &str) -> Vec<String> {
    let row = row(view, name);
    let lines = row["lines"].as_array().cloned().unwrap_or_default();
    (lines.iter())
        .map(|l| l["text"].as_str().unwrap_or("").to_owned())
        .collect()
}

fn room_of(host: &Served, name: &str) -> Value {
    let seen = until(host, &format!("{name} listed"), |v| {
        row(v, name)["shared"] == true
    });
    row(&seen, name)["roomId"].clone()
}

fn send(host: &Served, room: &Value, text: &str) {
    ok(host, "social-send", json!({"roomId": room, "text": text}));
}

/// Waits for the crash point's marker (the home stopped right there).
fn stopped_at(marker: &Path) {
    for _ in 0..1200 {
        if marker.exists() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("the home never reached its crash point");
}

/// Alice's Helper published to Bob, friends both ways; Alice's home is
/// started with `alice_env`.
struct TwoHomes {
    synapse: Synapse,
    alice_home: tempfile::TempDir,
    bob_home: tempfile::TempDir,
    alice: Served,
    bob: Served,
    room: Value,
}

fn two_homes(runtime: &tokio::runtime::Runtime, alice_env: &[(&str, &str)]) -> Option<TwoHomes> {
    // One of the two tests stops it: a server of their own.
    let synapse = runtime.block_on(start_private_synapse())?;
    let alice_id = runtime.block_on(synapse.register("alice", "pw-alice-1"));
    let bob_id = runtime.block_on(synapse.register("bob", "pw-bob-1"));
    let (alice_home, bob_home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let alice = serve_with_env(alice_home.path(), &[], alice_env);
    let bob = serve(bob_home.path());
    connect(&alice, &synapse, "alice");
    connect(&bob, &synapse, "bob");
    ok(&alice, "social-friend-add", json!({"userId": bob_id}));
    ok(&bob, "social-friend-add", json!({"userId": alice_id}));
    let helper = ok(&alice, "create-bot", json!({"name": "Helper"}))["bot"]["id"].clone();
    let body = json!({"botId": helper, "userId": bob_id});
    ok(&alice, "social-publish", body);
    let room = room_of(&bob, "Helper");
    Some(TwoHomes {
        synapse,
        alice_home,
        bob_home,
        alice,
        bob,
        room,
    })
}

/// The runtime a Matrix end-to-end test drives its Synapse with.
pub(crate) fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_line_arrives_once_across_a_kill_at_each_exact_point_33() {
    let runtime = runtime();
    let marks = tempfile::tempdir().unwrap();
    let received = marks.path().join("received");
    let pause = format!("social-received:{}", received.display());
    let Some(homes) = two_homes(&runtime, &[("FLYBOT_TEST_PAUSE_AT", &pause)]) else {
        return;
    };
    let TwoHomes {
        synapse: _synapse,
        alice_home,
        bob_home,
        alice,
        bob,
        room,
    } = homes;

    // The receiving home dies after the batch came, before applying it.
    send(&bob, &room, "line one");
    stopped_at(&received);
    alice.crash();
    let alice = serve(alice_home.path());
    until(&bob, "the answer to line one", |v| {
        lines(v, "Helper").len() == 2
    });
    assert_eq!(delivered(alice_home.path(), "line one"), 1);

    // The sending home dies after the homeserver took the line, before
    // its outbox knew: the retry is the same transaction, not a second line.
    bob.crash();
    let sent = marks.path().join("sent");
    let pause = format!("social-sent:{}", sent.display());
    let bob = serve_with_env(bob_home.path(), &[], &[("FLYBOT_TEST_PAUSE_AT", &pause)]);
    send(&bob, &room, "line two");
    stopped_at(&sent);
    bob.crash();
    let bob = serve(bob_home.path());
    let seen = until(&bob, "the answer to line two", |v| {
        lines(v, "Helper").len() == 4 && v["pendingCount"] == 0
    });
    assert!(lines(&seen, "Helper")[3].contains("line two"), "{seen}");
    assert_eq!(delivered(alice_home.path(), "line one"), 1);
    assert_eq!(delivered(alice_home.path(), "line two"), 1);
    alice.crash();
    bob.crash();
}

#[test]
fn sends_wait_out_a_30_second_outage_and_go_once_in_order_33() {
    let runtime = runtime();
    let Some(homes) = two_homes(&runtime, &[]) else {
        return;
    };
    let TwoHomes {
        mut synapse,
        alice_home,
        bob_home: _bob_home,
        alice,
        bob,
        room,
    } = homes;
    runtime.block_on(synapse.stop());
    for n in 1..=3 {
        send(&bob, &room, &format!("line {n}"));
    }
    // The homeserver stays away for 30 s: all the while the three lines
    // are kept, acknowledged and waiting, and nothing reaches Alice.
    let down = Instant::now();
    while down.elapsed() < Duration::from_secs(30) {
        let seen = ok(&bob, "social", json!({}));
        assert_eq!(seen["pendingCount"], 3, "{seen}");
        assert_eq!(lines(&seen, "Helper").len(), 3);
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(delivered(alice_home.path(), "line "), 0);
    runtime.block_on(synapse.start());
    let seen = until(&bob, "the three answers", |v| {
        lines(v, "Helper").len() == 6 && v["pendingCount"] == 0
    });
    for n in 1..=3 {
        assert_eq!(delivered(alice_home.path(), &format!("line {n}")), 1);
    }
    // In order: Helper answered line 1, then 2, then 3.
    let answers: Vec<String> = lines(&seen, "Helper").into_iter().skip(3).collect();
    for (n, answer) in answers.iter().enumerate() {
        assert!(answer.contains(&format!("line {}", n + 1)), "{answers:?}");
    }
    alice.crash();
    bob.crash();
}

#[test]
fn three_homes_meet_on_one_synapse_and_an_accepted_invite_is_applied_once_33() {
    let runtime = runtime();
    // On the run's shared server Bob's and Carol's lines can reach Alice's
    // Helper in one sync; each still gets a turn of its own (the inbox's
    // audience rule), which the "carol asks" check below holds.
    let Some(synapse) = runtime.block_on(start_synapse()) else {
        return;
    };
    let ids: Vec<String> = ["alice", "bob", "carol"]
        .iter()
        .map(|n| runtime.block_on(synapse.register(n, &format!("pw-{n}-1"))))
        .collect();
    let (alice_id, bob_id, carol_id) = (&ids[0], &ids[1], &ids[2]);
    let folders: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let alice = serve(folders[0].path());
    let bob = serve(folders[1].path());
    let carol = serve(folders[2].path());
    for (host, name) in [(&alice, "alice"), (&bob, "bob"), (&carol, "carol")] {
        connect(host, &synapse, name);
    }
    ok(&alice, "social-friend-add", json!({"userId": bob_id}));
    ok(&alice, "social-friend-add", json!({"userId": carol_id}));
    ok(&bob, "social-friend-add", json!({"userId": alice_id}));
    ok(&carol, "social-friend-add", json!({"userId": alice_id}));
    let helper = ok(&alice, "create-bot", json!({"name": "Helper"}))["bot"]["id"].clone();
    for friend in [bob_id, carol_id] {
        let body = json!({"botId": helper, "userId": friend});
        ok(&alice, "social-publish", body);
    }
    let bob_helper = room_of(&bob, "Helper");
    let carol_helper = room_of(&carol, "Helper");
    assert_ne!(bob_helper, carol_helper, "one room per Bot and friend");

    // Carol shares her Cat with Bob before Bob knows her: it waits.
    ok(&carol, "social-friend-add", json!({"userId": bob_id}));
    let cat = ok(&carol, "create-bot", json!({"name": "Cat"}))["bot"]["id"].clone();
    ok(
        &carol,
        "social-publish",
        json!({"botId": cat, "userId": bob_id}),
    );
    until(&bob, "Carol's invite waiting", |v| {
        v["invites"] == json!([carol_id])
    });
    assert_eq!(row(&ok(&bob, "social", json!({})), "Cat"), Value::Null);
    ok(&bob, "social-friend-add", json!({"userId": carol_id}));
    let bob_cat = room_of(&bob, "Cat");

    send(&bob, &bob_helper, "bob asks helper");
    send(&carol, &carol_helper, "carol asks helper");
    send(&bob, &bob_cat, "bob asks cat");
    let seen = until(&bob, "both answers at Bob", |v| {
        lines(v, "Helper").len() == 2 && lines(v, "Cat").len() == 2
    });
    let at_carol = until(&carol, "Helper's answer at Carol", |v| {
        lines(v, "Helper").len() == 2
    });
    // Each answer went to its own asker's row only.
    assert!(lines(&seen, "Helper")[1].contains("bob asks helper"));
    assert!(!lines(&seen, "Helper").concat().contains("carol asks"));
    assert!(lines(&seen, "Cat")[1].contains("bob asks cat"));
    assert!(lines(&at_carol, "Helper")[1].contains("carol asks helper"));
    assert!(!lines(&at_carol, "Helper").concat().contains("bob asks"));
    assert_eq!(row(&seen, "Cat")["home"], carol_id.as_str());
    assert_eq!(delivered(folders[0].path(), "bob asks helper"), 1);
    assert_eq!(delivered(folders[0].path(), "carol asks helper"), 1);
    assert_eq!(delivered(folders[2].path(), "bob asks cat"), 1);

    // Accepting again changes nothing: one row, its lines applied once.
    ok(&bob, "social-friend-add", json!({"userId": carol_id}));
    send(&bob, &bob_cat, "and again");
    let seen = until(&bob, "the next answer from Cat", |v| {
        lines(v, "Cat").len() == 4
    });
    let cats = seen["remoteBots"].as_array().unwrap().iter();
    assert_eq!(cats.filter(|b| b["roomId"] == bob_cat).count(), 1);
    assert_eq!(delivered(folders[2].path(), "bob asks cat"), 1);
    assert_eq!(delivered(folders[2].path(), "and again"), 1);
    for host in [alice, bob, carol] {
        host.crash();
    }
}
