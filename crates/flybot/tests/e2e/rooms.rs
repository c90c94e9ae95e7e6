//! Issue 5's scenario on the real binary: `flybot serve` with three Bots on
//! the mock model (served by `flybot mock-model serve` with the scenario
//! fixture `tests/fixtures/rooms_scenario.json`, named in config.toml), all
//! checked through the channel: speaking order (the admin first), a pass,
//! an @mention, a routed round ending after the first answer, a stop
//! mid-turn, and the lead assigning two subtasks that wake the assignees in
//! their own chats, both claiming and returning results, and the overall
//! card settling.

use crate::support::{Served, flybot, serve};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// `flybot mock-model serve` on the fixture; killed when dropped.
struct MockModel {
    child: Child,
    base_url: String,
}

impl MockModel {
    fn start(scenario: &Path) -> MockModel {
        let mut child = flybot()
            .args([
                "mock-model",
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--scenario",
            ])
            .arg(scenario)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let base_url = loop {
            let line = lines
                .next()
                .expect("the mock model printed no URL")
                .unwrap();
            if let Some(url) = line.split("base URL is ").nth(1) {
                break url.trim().to_owned();
            }
        };
        MockModel { child, base_url }
    }
}

impl Drop for MockModel {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn ok(host: &Served, endpoint: &str, body: Value) -> Value {
    let (status, answer) = host.post(endpoint, &body.to_string(), None);
    assert_eq!(status, 200, "{endpoint}: {answer}");
    answer
}

fn bot(host: &Served, name: &str) -> String {
    ok(host, "create-bot", json!({"name": name}))["bot"]["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Sends a person's line and waits for the room's rounds to end; answers
/// the lines from that one on.
fn say(host: &Served, room: &str, text: &str) -> Vec<Value> {
    let sent = ok(host, "send", json!({"roomId": room, "text": text}));
    let seq = sent["seq"].as_u64().unwrap();
    settled(host, room, seq)
}

fn settled(host: &Served, room: &str, from: u64) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let read = ok(host, "messages", json!({"roomId": room}));
        if read["running"] == json!(false) {
            return read["messages"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|l| l["seq"].as_u64().unwrap() >= from)
                .cloned()
                .collect();
        }
        assert!(Instant::now() < deadline, "the room never settled: {read}");
        std::thread::sleep(Duration::from_millis(25));
    }
}

fn said(lines: &[Value]) -> Vec<(String, String)> {
    lines
        .iter()
        .map(|l| {
            (
                l["author"].as_str().unwrap().to_owned(),
                l["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn pair(who: &str, text: &str) -> (String, String) {
    (who.to_owned(), text.to_owned())
}

#[test]
fn a_room_of_three_bots_runs_rounds_and_the_board_drives_the_work() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rooms_scenario.json");
    let mock = MockModel::start(&fixture);
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        format!(
            "defaultModel = \"scn\"\n[providers.scn]\nbaseUrl = \"{}\"\n[models.scn]\nprovider = \"scn\"\nmodel = \"mock\"\ncontextWindow = 64000\nthinking = []\n",
            mock.base_url
        ),
    )
    .unwrap();
    let host = serve(home.path());
    let (dev1, lead, dev2) = (bot(&host, "Dev1"), bot(&host, "Lead"), bot(&host, "Dev2"));
    let room = ok(
        &host,
        "create-room",
        json!({"name": "Ship", "members": [dev1, lead, dev2], "admin": lead}),
    )["room"]["id"]
        .as_str()
        .unwrap()
        .to_owned();

    // Speaking order: the admin first, then the room's order; a pass posts
    // nothing.
    let lines = say(&host, &room, "@all roll call");
    assert_eq!(
        said(&lines)[1..],
        [pair("Lead", "Lead here."), pair("Dev1", "Dev1 here.")],
        "{lines:?}"
    );

    // An @mention calls that member only.
    let lines = say(&host, &room, "@Dev2 status?");
    assert_eq!(said(&lines)[1..], [pair("Dev2", "Dev2: all good.")]);

    // A routed round: the admin passes, the first answer ends the round, and
    // Dev2 is never asked.
    let lines = say(&host, &room, "who can help with the release");
    assert_eq!(said(&lines)[1..], [pair("Dev1", "Dev1 can help.")]);

    // A stop mid-turn: Dev1's turn waits on a command's approval; "stop"
    // cancels it and nothing it said is posted.
    let sent = ok(
        &host,
        "send",
        json!({"roomId": room, "text": "@Dev1 run the long job"}),
    );
    let long = sent["seq"].as_u64().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while ok(&host, "messages", json!({"roomId": room}))["speaking"] != json!(dev1) {
        assert!(Instant::now() < deadline, "Dev1 never spoke");
        std::thread::sleep(Duration::from_millis(25));
    }
    // Dev1's turn is parked on the command's approval once the ask exists.
    while ok(&host, "approvals", json!({}))["approvals"]
        .as_array()
        .is_none_or(|asks| asks.is_empty())
    {
        assert!(Instant::now() < deadline, "Dev1 never asked to run the job");
        std::thread::sleep(Duration::from_millis(25));
    }
    let stop = ok(&host, "send", json!({"roomId": room, "text": "stop"}));
    assert_eq!(
        stop["queued"],
        "stop",
        "{stop} {}",
        ok(&host, "messages", json!({"roomId": room}))
    );
    let lines = settled(&host, &room, long);
    let stop_seq = stop["seq"].as_u64().unwrap();
    assert!(
        !lines
            .iter()
            .any(|l| l["authorId"] == json!(dev1) && l["seq"].as_u64().unwrap() < stop_seq),
        "the stopped turn posted: {lines:?}"
    );

    // The lead records the overall card and assigns two subtasks; each
    // assignee is woken in its own chat, claims (its line in its own voice),
    // returns its result, and the overall card settles.
    let lines = say(&host, &room, "split the work");
    assert!(
        said(&lines).contains(&pair("Lead", "Parts are on the board.")),
        "{lines:?}"
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    let cards = loop {
        let read = ok(&host, "tasks", json!({"roomId": room, "archive": true}));
        let cards = read["tasks"].as_array().unwrap().clone();
        let settled = cards
            .iter()
            .any(|c| c["title"] == "Ship v1" && c["status"] == "accepted");
        if settled {
            break cards;
        }
        assert!(
            Instant::now() < deadline,
            "the overall card never settled: {read}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    for (title, owner) in [("Build API #12", &dev1), ("Build UI", &dev2)] {
        let card = cards.iter().find(|c| c["title"] == title).unwrap();
        assert_eq!(card["status"], "accepted", "{card}");
        assert_eq!(card["botId"], json!(owner), "{card}");
    }
    let log = settled(&host, &room, 0);
    let claims: Vec<(String, String)> = said(
        &log.iter()
            .filter(|l| l["kind"] == "claim")
            .cloned()
            .collect::<Vec<_>>(),
    );
    assert_eq!(
        claims,
        [
            pair("Dev1", "接了 #12，第一步是 write the handler"),
            pair("Dev2", "接了 Build UI，第一步是 draw the page"),
        ]
    );
    // The wakes ran in the assignees' own chats, not in the room, each read
    // as one event line naming its card (issue 31).
    for (assignee, title) in [(&dev1, "Build API #12"), (&dev2, "Build UI")] {
        let chat = ok(&host, "messages", json!({"botId": assignee}));
        let events: Vec<&Value> = chat["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|l| l["kind"] == "event")
            .collect();
        assert!(
            events
                .iter()
                .any(|l| l["text"] == format!("Working on '{title}'")),
            "{chat}"
        );
        assert!(!chat.to_string().contains("[Continue task]"), "{chat}");
    }
    assert!(
        !log.iter().any(|l| l["text"] == "Done; the card says so."),
        "a wake's reply went into the room: {log:?}"
    );
    let (clean, _, stderr) = host.terminate();
    assert!(clean, "{stderr}");
}
