//! A page's live stream across a takeover (issue 35, #1027): a client
//! that read the live stream from a leader on PostgreSQL, and reconnects
//! with its Last-Event-ID to the standby that took over when the leader
//! was killed, is resumed there: handed the revisions after the last one
//! it saw, up to the newest, none it had already seen, and no resync. The
//! standby refused a chat line before it took over.
//! Real `flybot serve` processes; skips, saying why, without `FLYBOT_TEST_PG`.

use crate::support::{Served, live_after, serve_with};
use flybot_store::engine::test_database::test_database;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// One server-sent event: its name, data and id.
struct Sse {
    event: String,
    data: Value,
    id: Option<String>,
}

/// Reads the next whole event (skipping the HTTP head and keep-alives).
fn next_event(reader: &mut BufReader<TcpStream>) -> Sse {
    let (mut event, mut data, mut id) = (None, Value::Null, None);
    loop {
        let mut line = String::new();
        let n = reader.read_line(&mut line).unwrap();
        assert!(n > 0, "the live stream ended");
        let line = line.trim_end();
        if let Some(name) = line.strip_prefix("event: ") {
            event = Some(name.to_owned());
        } else if let Some(text) = line.strip_prefix("data: ") {
            data = serde_json::from_str(text).unwrap_or(Value::Null);
        } else if let Some(text) = line.strip_prefix("id: ") {
            id = Some(text.to_owned());
        } else if line.is_empty()
            && let Some(event) = event.take()
        {
            return Sse {
                event,
                data,
                id: id.take(),
            };
        }
    }
}

fn revision_of(host: &Served) -> u64 {
    let (status, view) = host.state();
    assert_eq!(status, 200, "{view}");
    view["revision"].as_u64().unwrap()
}

fn create_bot(host: &Served, name: &str) {
    let (status, answer) = host.post("create-bot", &json!({ "name": name }).to_string(), None);
    assert_eq!(status, 200, "{answer}");
}

/// Rule #1027.
#[test]
fn a_live_client_of_a_killed_leader_resumes_on_the_new_leader_without_gap_or_repeat() {
    let Some(db) = test_database() else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let leader = serve_with(home.path(), &["--store", &db.url]);
    let standby = serve_with(home.path(), &["--store", &db.url, "--standby"]);

    // The client reads the leader's stream up to the second Bot's revision.
    let mut live = live_after(&leader.address, &leader.owner_token, None);
    let hello = next_event(&mut live);
    assert_eq!(hello.event, "hello");
    create_bot(&leader, "One");
    create_bot(&leader, "Two");
    let seen = revision_of(&leader);
    let mut last_id = hello.id.clone();
    loop {
        let event = next_event(&mut live);
        if event.id.is_some() {
            last_id = event.id.clone();
        }
        if event.event == "revision" && event.data["revision"].as_u64() == Some(seen) {
            break;
        }
    }
    drop(live);
    let last_id = last_id.unwrap();
    // A standby takes no chat line (its turn would run nowhere).
    let (_, view) = leader.state();
    let bot_id = view["bots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "One")
        .map(|b| b["id"].as_str().unwrap().to_owned())
        .unwrap();
    let line = json!({ "botId": bot_id, "text": "to the standby" }).to_string();
    let (status, refusal) = standby.post("send", &line, None);
    assert_eq!(status, 409, "{refusal}");
    assert_eq!(refusal["error"]["code"], "bot/read-only");

    // Changes the client never read, then the leader dies.
    create_bot(&leader, "Three");
    create_bot(&leader, "Four");
    let behind = revision_of(&leader);
    let followed = Instant::now();
    while revision_of(&standby) < behind {
        assert!(
            followed.elapsed() < Duration::from_secs(10),
            "never followed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    leader.crash();
    let killed = Instant::now();
    loop {
        let body = json!({ "name": "Five" }).to_string();
        let (status, answer) = standby.post("create-bot", &body, None);
        if status == 200 {
            break;
        }
        assert_eq!(answer["error"]["code"], "bot/read-only", "{answer}");
        assert!(
            killed.elapsed() < Duration::from_secs(20),
            "never took over"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let newest = revision_of(&standby);

    // The client reconnects to the new leader with the old one's last id.
    let mut live = live_after(&standby.address, &standby.owner_token, Some(&last_id));
    let hello = next_event(&mut live);
    assert_eq!(hello.event, "hello");
    assert_eq!(hello.data["resumed"], true, "{}", hello.data);
    let mut handed = Vec::new();
    while handed.last() != Some(&newest) {
        let event = next_event(&mut live);
        assert_ne!(
            event.event, "resync",
            "the client had to reload: {handed:?}"
        );
        if event.event == "revision" {
            handed.push(event.data["revision"].as_u64().unwrap());
        }
    }
    assert!(
        handed.iter().all(|r| *r > seen),
        "a revision the client had seen came again: {handed:?} after {seen}"
    );
    // In order; the takeover itself may say the same revision again (the
    // store's status moved: the page reads the view and drops its notice).
    assert!(handed.windows(2).all(|w| w[0] <= w[1]), "{handed:?}");
    assert!(
        handed.iter().any(|r| *r >= behind && *r < newest),
        "the changes it missed before the takeover were not handed: {handed:?}"
    );
    drop(live);
    let (ok, _, _) = standby.terminate();
    assert!(ok);
}
