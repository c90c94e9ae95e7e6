//! A room's round cut by a failover finishes once (issue 35, #1368, #1027):
//! a three-Bot room on a leader and a standby, real `flybot serve`
//! processes on one PostgreSQL database, each with a home folder of its
//! own and the same config. The second member's model call hangs and the
//! leader is killed with SIGKILL; the standby, which followed the room's
//! lines and run note into its own home, takes over when the lease lapses
//! and finishes the round: the cut member's turn once, then the third; the
//! first is not asked again; every line once. Skips, saying why, without
//! `FLYBOT_TEST_PG`.

use crate::restart_round::{Provider, bot, call_for, settled};
use crate::support::{Served, serve_with};
use flybot_store::engine::test_database::test_database;
use serde_json::{Value, json};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

fn ok(host: &Served, endpoint: &str, body: Value) -> Value {
    let (status, answer) = host.post(endpoint, &body.to_string(), None);
    assert_eq!(status, 200, "{endpoint}: {answer}");
    answer
}

/// The room's lines as `host` shows them: (author, text); empty while it
/// does not know the room yet.
fn lines(host: &Served, room: &str) -> Vec<(String, String)> {
    let (status, read) = host.post("messages", &json!({"roomId": room}).to_string(), None);
    if status != 200 {
        return Vec::new();
    }
    read["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["author"].as_str().unwrap().to_owned(),
                l["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_round_cut_by_the_leaders_kill_finishes_once_on_a_standby_with_its_own_home() {
    let Some(db) = test_database() else {
        return;
    };
    let provider = Provider::start();
    let config = format!(
        "defaultModel = \"loop\"\n[modelFor]\nbusy-ack = \"mock\"\n[providers.loop]\nbaseUrl = \"{}\"\n[models.loop]\nprovider = \"loop\"\nmodel = \"m\"\ncontextWindow = 64000\nthinking = []\n",
        provider.base_url
    );
    let (home, other) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for dir in [&home, &other] {
        std::fs::write(dir.path().join("config.toml"), &config).unwrap();
    }
    let leader = serve_with(home.path(), &["--store", &db.url]);
    let standby = serve_with(other.path(), &["--store", &db.url, "--standby"]);
    let members = [
        bot(&leader, "One"),
        bot(&leader, "Two"),
        bot(&leader, "Three"),
    ];
    let room = ok(
        &leader,
        "create-room",
        json!({"name": "Busy", "members": members}),
    )["room"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    ok(
        &leader,
        "send",
        json!({"roomId": room, "text": "@all report in"}),
    );
    // One has answered; Two is speaking (its model call hangs).
    call_for(&provider, "Two");
    // The standby's page shows the room as far as the leader got, from the
    // rows it followed into its own home.
    let deadline = Instant::now() + Duration::from_secs(10);
    while lines(&standby, &room).len() < 2 {
        assert!(
            Instant::now() < deadline,
            "the standby never showed One's line"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    leader.crash();
    let killed = Instant::now();
    let before = provider.calls();
    provider.hang_two.store(false, Ordering::SeqCst);

    // The standby takes over within the lease and resumes the round.
    while standby.post("create-bot", r#"{"name": "After"}"#, None).0 != 200 {
        assert!(
            killed.elapsed() < Duration::from_secs(20),
            "never took over"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    while lines(&standby, &room).len() < 4 {
        assert!(
            Instant::now() < deadline,
            "the round never finished on the standby: {:?}",
            lines(&standby, &room)
        );
        std::thread::sleep(Duration::from_millis(25));
    }
    let shown = settled(&standby, &room);
    let after: Vec<String> = provider.calls()[before.len()..]
        .iter()
        .map(|c| c.member.clone())
        .collect();
    assert_eq!(after, ["Two", "Three"], "the round went on from Two");
    assert_eq!(
        shown,
        [
            ("Owner".to_owned(), "@all report in".to_owned()),
            ("One".to_owned(), "One answer 1".to_owned()),
            ("Two".to_owned(), "Two answer 2".to_owned()),
            ("Three".to_owned(), "Three answer 1".to_owned()),
        ],
        "every line once, in order"
    );
    let (exited, said, _) = standby.terminate();
    assert!(exited);
    assert!(
        said.iter().any(|l| l.contains("resuming 1 room round")),
        "{said:?}"
    );
}
