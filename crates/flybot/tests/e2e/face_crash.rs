//! Face-to-face rooms (issue 34) under kill -9, on the real binary: three
//! `flybot serve` homes on a private Synapse in one face room (Carol's
//! with no Bot, so no other home's answer ends Bob's rounds). Bob's home
//! is killed at the exact point where the batch with Alice's line came and
//! was not applied yet, then again right after a line reached his room,
//! while its round may still run. After each restart every line is in
//! every home's room once, and Bob's Bolt answered each line once.

use crate::social_crash::{connect, ok};
use crate::support::{Served, serve, serve_with_env};
use flybot_testkit::synapse::start_synapse;
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;

/// The room's lines on a home: (author id, text).
fn lines(host: &Served, room: &str) -> Vec<(String, String)> {
    let answer = ok(host, "messages", json!({"roomId": room}));
    (answer["messages"].as_array().cloned().unwrap_or_default())
        .iter()
        .map(|l| {
            let text = l["text"].as_str().unwrap_or("").to_owned();
            (l["authorId"].as_str().unwrap_or("").to_owned(), text)
        })
        .collect()
}

fn count(lines: &[(String, String)], author: &str) -> usize {
    lines.iter().filter(|(a, _)| a == author).count()
}

fn lines_until(
    host: &Served,
    room: &str,
    what: &str,
    pred: impl Fn(&[(String, String)]) -> bool,
) -> Vec<(String, String)> {
    for _ in 0..1200 {
        let seen = lines(host, room);
        if pred(&seen) {
            return seen;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("never saw {what}: {:?}", lines(host, room));
}

fn stopped_at(marker: &Path) {
    for _ in 0..1200 {
        if marker.exists() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("the home never reached its crash point");
}

fn room_id(answer: &Value) -> String {
    answer["room"]["id"].as_str().unwrap().to_owned()
}

#[test]
/// Rules #83, #456.
fn every_face_line_arrives_once_across_a_kill_of_a_home_mid_round() {
    let runtime = crate::social_homes::runtime();
    let Some(synapse) = runtime.block_on(start_synapse()) else {
        return;
    };
    let users: Vec<String> = ["alice", "bob", "carol"]
        .iter()
        .map(|n| runtime.block_on(synapse.register(n, &format!("pw-{n}-1"))))
        .collect();
    let folders: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let marks = tempfile::tempdir().unwrap();
    let received = marks.path().join("received");
    let pause = format!("social-received:{}", received.display());
    let alice = serve(folders[0].path());
    let bob = serve_with_env(folders[1].path(), &[], &[("FLYBOT_TEST_PAUSE_AT", &pause)]);
    let carol = serve(folders[2].path());
    for (host, name) in [(&alice, "alice"), (&bob, "bob"), (&carol, "carol")] {
        connect(host, &synapse, name);
    }
    let bolt = ok(&bob, "create-bot", json!({"name": "Bolt"}))["bot"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let made = ok(&alice, "face-room-create", json!({"bots": []}));
    let code = made["room"]["face"]["code"].clone();
    let at_alice = room_id(&made);
    let at_bob = room_id(&ok(
        &bob,
        "face-room-join",
        json!({"code": code, "bots": [bolt]}),
    ));
    let at_carol = room_id(&ok(
        &carol,
        "face-room-join",
        json!({"code": code, "bots": []}),
    ));

    // Bob's home stops once the batch with Alice's line came, unapplied.
    ok(
        &alice,
        "send",
        json!({"roomId": at_alice, "text": "first line"}),
    );
    stopped_at(&received);
    bob.crash();
    let bob = serve(folders[1].path());
    let bolt_seat = format!("{}/{bolt}", users[1]);
    lines_until(&alice, &at_alice, "Bolt's first answer", |l| {
        count(l, &bolt_seat) == 1
    });

    // Killed again right after the next line reached Bob's room.
    ok(
        &alice,
        "send",
        json!({"roomId": at_alice, "text": "second line"}),
    );
    lines_until(&bob, &at_bob, "the second line at Bob", |l| {
        count(l, &users[0]) == 2
    });
    bob.crash();
    let bob = serve(folders[1].path());
    let at_alice_lines = lines_until(&alice, &at_alice, "Bolt's second answer", |l| {
        count(l, &bolt_seat) == 2
    });
    let at_bob_lines = lines_until(&bob, &at_bob, "Bolt's two lines", |l| count(l, &bolt) == 2);
    let at_carol_lines = lines_until(&carol, &at_carol, "Bolt's two lines at Carol", |l| {
        count(l, &bolt_seat) == 2
    });
    // Nothing twice, however long we look.
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(
        count(&lines(&alice, &at_alice), &bolt_seat),
        2,
        "{at_alice_lines:?}"
    );
    assert_eq!(
        count(&lines(&bob, &at_bob), &users[0]),
        2,
        "{at_bob_lines:?}"
    );
    assert_eq!(count(&lines(&bob, &at_bob), &bolt), 2);
    assert_eq!(
        count(&lines(&carol, &at_carol), &users[0]),
        2,
        "{at_carol_lines:?}"
    );
    assert_eq!(count(&lines(&carol, &at_carol), &bolt_seat), 2);
    for host in [alice, bob, carol] {
        host.crash();
    }
}
