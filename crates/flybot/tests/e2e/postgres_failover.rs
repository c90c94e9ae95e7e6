//! A team on PostgreSQL with a standby (issue 35, #14, #1027): real
//! `flybot serve` processes on one database. The leader is killed with
//! SIGKILL in the middle of 32 writers; the standby takes over once the
//! lease lapses, every acknowledged change is there once, and the journal's
//! digest chain replays whole. Skips, saying why, without `FLYBOT_TEST_PG`.

use crate::support::{Served, serve_with};
use flybot_store::engine::postgres::journal_text;
use flybot_store::engine::test_database::test_database;
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn bot_names(host: &Served) -> Vec<String> {
    let (status, view) = host.state();
    assert_eq!(status, 200, "{view}");
    view["bots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap().to_owned())
        .collect()
}

/// Posts `create-bot` on `address` as `token` until one is refused.
fn writer(address: String, token: String, who: usize, acked: Arc<Mutex<Vec<String>>>) {
    for n in 0..40 {
        let name = format!("W{who}n{n}");
        let body = json!({ "name": name }).to_string();
        let answer = crate::support::try_request(
            &address,
            "POST",
            "/api/bot/create-bot",
            &body,
            Some(&token),
        );
        // The leader was killed: this one was never acknowledged.
        let Some((200, _)) = answer else {
            return;
        };
        acked.lock().unwrap().push(name);
    }
}

#[test]
fn the_leader_killed_mid_burst_loses_nothing_acknowledged_and_the_standby_takes_over() {
    let Some(db) = test_database() else {
        return;
    };
    // One config and owner token, as two machines given the same home.
    let home = tempfile::tempdir().unwrap();
    let leader = serve_with(home.path(), &["--store", &db.url]);
    let standby = serve_with(home.path(), &["--store", &db.url, "--standby"]);
    // The standby reads and refuses writes, saying who leads.
    let (status, refusal) = standby.post("create-bot", r#"{"name": "Nope"}"#, None);
    assert_eq!(status, 409, "{refusal}");
    assert_eq!(refusal["error"]["code"], "bot/read-only");
    assert!(
        refusal["error"]["message"]
            .as_str()
            .unwrap()
            .contains("standby"),
        "{refusal}"
    );

    let acked = Arc::new(Mutex::new(Vec::new()));
    let writers: Vec<_> = (0..32)
        .map(|who| {
            let (address, token) = (leader.address.clone(), leader.owner_token.clone());
            let acked = acked.clone();
            std::thread::spawn(move || writer(address, token, who, acked))
        })
        .collect();
    while acked.lock().unwrap().len() < 64 {
        std::thread::sleep(Duration::from_millis(5));
    }
    leader.crash();
    let killed = Instant::now();
    for w in writers {
        w.join().unwrap();
    }

    // The standby takes over within the lease (5 s) and a few looks.
    let took_over = loop {
        let (status, answer) = standby.post("create-bot", r#"{"name": "After"}"#, None);
        if status == 200 {
            break killed.elapsed();
        }
        assert_eq!(answer["error"]["code"], "bot/read-only", "{answer}");
        assert!(
            killed.elapsed() < Duration::from_secs(20),
            "never took over"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    eprintln!("failover: leader killed to the standby's first acknowledged write in {took_over:?}");
    assert!(took_over < Duration::from_secs(10), "{took_over:?}");

    let names = bot_names(&standby);
    for name in acked.lock().unwrap().iter() {
        let times = names.iter().filter(|n| *n == name).count();
        assert_eq!(times, 1, "{name} is there {times} times");
    }
    assert!(names.contains(&"After".to_owned()));
    // The chain replays whole, to the team the standby shows.
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let text = runtime.block_on(journal_text(&db.url)).unwrap();
    let last = text.lines().count() as u64 - 1;
    let replayed = flybot_store::replay_to(&text, last).unwrap();
    assert_eq!(replayed.bots.len(), names.len());
    let (ok, lines, stderr) = standby.terminate();
    assert!(ok);
    // It said so once, and ran a start's pickup as a restart does (#1041).
    let said = lines
        .iter()
        .filter(|l| l.contains("this standby took over"))
        .count();
    assert_eq!(said, 1, "{lines:?}");
    assert_eq!(
        stderr.matches("now saves the Bot team").count(),
        1,
        "{stderr}"
    );
}

fn signal(host: &Served, name: &str) {
    let status = std::process::Command::new("kill")
        .args([name, &host.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Posts `create-bot` named `name` on `host` until it is acknowledged.
fn write_when_leading(host: &Served, name: &str, since: Instant) -> Duration {
    loop {
        let body = json!({ "name": name }).to_string();
        let (status, answer) = host.post("create-bot", &body, None);
        if status == 200 {
            return since.elapsed();
        }
        assert_eq!(answer["error"]["code"], "bot/read-only", "{answer}");
        assert!(since.elapsed() < Duration::from_secs(20), "never took over");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_leader_frozen_past_its_lease_is_fenced_when_it_wakes_and_loses_nothing() {
    let Some(db) = test_database() else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let leader = serve_with(home.path(), &["--store", &db.url]);
    let standby = serve_with(home.path(), &["--store", &db.url, "--standby"]);
    let (status, _) = leader.post("create-bot", r#"{"name": "Before"}"#, None);
    assert_eq!(status, 200);
    // SIGSTOP: the leader keeps its connections open but renews nothing.
    signal(&leader, "-STOP");
    let frozen = Instant::now();
    write_when_leading(&standby, "By the standby", frozen);
    signal(&leader, "-CONT");
    // Awake, the old leader's writes are refused by the fence; it follows.
    let (status, refusal) = leader.post("create-bot", r#"{"name": "Stale"}"#, None);
    assert_eq!(status, 409, "{refusal}");
    assert_eq!(refusal["error"]["code"], "bot/read-only");
    let followed = Instant::now();
    loop {
        let names = bot_names(&leader);
        if names.contains(&"By the standby".to_owned()) {
            assert!(names.contains(&"Before".to_owned()));
            assert!(!names.contains(&"Stale".to_owned()), "{names:?}");
            break;
        }
        assert!(followed.elapsed() < Duration::from_secs(10), "{names:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
    let names = bot_names(&standby);
    assert!(names.contains(&"Before".to_owned()), "{names:?}");
    assert!(!names.contains(&"Stale".to_owned()), "{names:?}");
    leader.crash();
    let (ok, _, _) = standby.terminate();
    assert!(ok);
}
