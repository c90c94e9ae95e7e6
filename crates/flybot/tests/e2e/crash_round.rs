//! Issue 19's durability check on the real binary: SIGKILL at a random
//! point of a busy @all round in a six-Bot room, then a restart. Every room
//! line a client was shown (announced on the live stream, or read with
//! `messages`) is still there, and a member turn the kill cut is picked up
//! exactly once: one `interrupted` end and one pickup turn (or, cut before
//! its `turn/start`, its own input again), the round finishes, and a second
//! restart picks up nothing.

use crate::support::{Served, live, serve};
use serde_json::{Value, json};
use std::io::BufRead;
use std::path::Path;
use std::time::{Duration, Instant};

pub(crate) const PICKUP_START: &str = "The host restarted while your last turn was running";

pub(crate) fn ok(host: &Served, endpoint: &str, body: Value) -> Value {
    let (status, answer) = host.post(endpoint, &body.to_string(), None);
    assert_eq!(status, 200, "{endpoint}: {answer}");
    answer
}

/// A six-Bot room; answers its id.
pub(crate) fn busy_room(host: &Served) -> String {
    let bots: Vec<Value> = (0..6)
        .map(|i| ok(host, "create-bot", json!({"name": format!("Bot{i}")}))["bot"]["id"].clone())
        .collect();
    ok(
        host,
        "create-room",
        json!({"name": "Busy", "members": bots}),
    )["room"]["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The room's lines a client is shown: (seq, author, text).
pub(crate) fn shown(host: &Served, room: &str) -> Vec<(u64, String, String)> {
    ok(host, "messages", json!({"roomId": room}))["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["seq"].as_u64().unwrap(),
                l["authorId"].as_str().unwrap().to_owned(),
                l["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// Every Session log of the home, as (file, events).
pub(crate) fn session_logs(home: &Path) -> Vec<(String, Vec<Value>)> {
    let Ok(dir) = std::fs::read_dir(home.join("sessions")) else {
        return Vec::new();
    };
    dir.map(|entry| {
        let path = entry.unwrap().path();
        let events = std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        (path.display().to_string(), events)
    })
    .collect()
}

/// Whether every turn a log started has ended.
fn all_ended(events: &[Value]) -> bool {
    let starts = events.iter().filter(|e| e["type"] == "turn/start").count();
    let ends = events.iter().filter(|e| e["type"] == "turn/end").count();
    starts == ends
}

pub(crate) fn picked_up(host: &Served) -> usize {
    host.before
        .iter()
        .find_map(|line| {
            let rest = line.strip_prefix("picked up ")?;
            rest.split_whitespace().next()?.parse().ok()
        })
        .unwrap_or(0)
}

/// Reads the live stream until `count` room lines after `opener` were
/// announced for `room` (or the round ended); answers their seqs.
pub(crate) fn announced(
    stream: &mut impl BufRead,
    room: &str,
    opener: u64,
    count: usize,
) -> Vec<u64> {
    let mut seqs = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    while seqs.len() < count && Instant::now() < deadline {
        let mut line = String::new();
        if stream.read_line(&mut line).unwrap() == 0 || line.starts_with("event: round.ended") {
            break;
        }
        let Some(data) = line.strip_prefix("data: ") else {
            continue;
        };
        let event: Value = serde_json::from_str(data).unwrap_or(Value::Null);
        if event["roomId"] == json!(room)
            && let Some(seq) = event["seq"].as_u64()
            && seq > opener
        {
            seqs.push(seq);
        }
    }
    seqs
}

fn crash_mid_round(seed: u64) {
    let home = tempfile::tempdir().unwrap();
    let host = serve(home.path());
    let room = busy_room(&host);
    let warm = ok(
        &host,
        "send",
        json!({"roomId": room, "text": "@all warm up"}),
    );
    let warm_seq = warm["seq"].as_u64().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while ok(&host, "messages", json!({"roomId": room}))["running"] == true
        || shown(&host, &room).last().map(|l| l.0) == Some(warm_seq)
    {
        assert!(Instant::now() < deadline, "the warm-up round never ended");
        std::thread::sleep(Duration::from_millis(10));
    }
    // The kill lands after `wait_for` announced member lines plus a few
    // milliseconds: before the first answer, mid-round, or after it.
    let wait_for = (seed * 7 % 6) as usize;
    let mut stream = live(&host);
    let sent = ok(&host, "send", json!({"roomId": room, "text": "@all go"}));
    let opener = sent["seq"].as_u64().unwrap();
    let seen = announced(&mut stream, &room, opener, wait_for);
    std::thread::sleep(Duration::from_millis(seed % 4));
    let before = shown(&host, &room);
    host.crash();

    let host = serve(home.path());
    let after = shown(&host, &room);
    for line in &before {
        assert!(
            after.contains(line),
            "seed {seed}: shown line lost: {line:?}"
        );
    }
    for seq in &seen {
        assert!(
            after.iter().any(|l| l.0 == *seq),
            "seed {seed}: announced line {seq} lost"
        );
    }
    let cut = picked_up(&host);
    assert!(cut <= 1, "seed {seed}: one member speaks at a time: {cut}");
    // The pickup turns run and end; then count, per Session, the cut ends
    // and the pickups.
    let deadline = Instant::now() + Duration::from_secs(30);
    let (interrupted, pickups) = loop {
        let (mut interrupted, mut pickups, mut ended) = (0, 0, true);
        for (file, events) in session_logs(home.path()) {
            let ends = events
                .iter()
                .filter(|e| e["type"] == "turn/end" && e["reason"]["kind"] == "interrupted")
                .count();
            let again = events
                .iter()
                .filter(|e| {
                    e["text"]
                        .as_str()
                        .is_some_and(|t| t.starts_with(PICKUP_START))
                })
                .count();
            assert!(ends <= 1 && again <= 1, "seed {seed}: {file}: {events:?}");
            interrupted += ends;
            pickups += again;
            ended &= all_ended(&events);
        }
        // A cut turn that had started is picked up with the pickup note;
        // one that never reached its log runs its own input again.
        let room_done = ok(&host, "messages", json!({"roomId": room}))["running"] == false;
        if ended && room_done && pickups >= interrupted {
            break (interrupted, pickups);
        }
        assert!(
            Instant::now() < deadline,
            "seed {seed}: the pickup never ended"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    eprintln!(
        "seed {seed}: killed after {} shown lines; {cut} cut turn(s) picked up",
        before.len()
    );
    assert!(
        pickups <= cut,
        "seed {seed}: each cut turn is picked up once"
    );
    assert_eq!(interrupted, pickups, "seed {seed}: one pickup per cut end");
    host.terminate();

    let host = serve(home.path());
    assert_eq!(picked_up(&host), 0, "seed {seed}: picked up twice");
    let last = shown(&host, &room);
    for line in &before {
        assert!(
            last.contains(line),
            "seed {seed}: shown line lost: {line:?}"
        );
    }
    host.terminate();
}

#[test]
fn a_kill_mid_round_keeps_every_shown_line_and_picks_a_cut_turn_up_once() {
    for seed in 1..=5 {
        crash_mid_round(seed);
    }
}
