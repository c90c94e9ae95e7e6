//! A room's round cut by a failover finishes once (issue 35, #1368, #1027):
//! a six-Bot room on a leader and a standby, real `flybot serve` processes
//! on one PostgreSQL database, each with a home folder of its own. The
//! leader is killed with SIGKILL mid-round; the standby, which followed the
//! room's lines and run notes into its own home, takes over when the lease
//! lapses and finishes the round: every line a client was shown is there,
//! each member speaks once, a cut turn is picked up once. Skips, saying
//! why, without `FLYBOT_TEST_PG`.

use crate::crash_round::{PICKUP_START, announced, busy_room, ok, session_logs, shown};
use crate::support::{live, serve_with};
use flybot_store::engine::test_database::test_database;
use serde_json::json;
use std::time::{Duration, Instant};

#[test]
fn a_round_cut_by_the_leaders_kill_finishes_once_on_a_standby_with_its_own_home() {
    let Some(db) = test_database() else {
        return;
    };
    let (home, other) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let leader = serve_with(home.path(), &["--store", &db.url]);
    let standby = serve_with(other.path(), &["--store", &db.url, "--standby"]);
    let room = busy_room(&leader);
    let warm = ok(
        &leader,
        "send",
        json!({"roomId": room, "text": "@all warm up"}),
    );
    let warm_seq = warm["seq"].as_u64().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while ok(&leader, "messages", json!({"roomId": room}))["running"] == true
        || shown(&leader, &room).last().map(|l| l.0) == Some(warm_seq)
    {
        assert!(Instant::now() < deadline, "the warm-up round never ended");
        std::thread::sleep(Duration::from_millis(10));
    }
    // The standby's page shows the room as the leader does, from the
    // rows it followed into its own home.
    let deadline = Instant::now() + Duration::from_secs(10);
    while shown(&standby, &room) != shown(&leader, &room) {
        assert!(
            Instant::now() < deadline,
            "the standby never showed the room"
        );
        std::thread::sleep(Duration::from_millis(20));
    }

    let mut stream = live(&leader);
    let sent = ok(&leader, "send", json!({"roomId": room, "text": "@all go"}));
    let opener = sent["seq"].as_u64().unwrap();
    let seen = announced(&mut stream, &room, opener, 2);
    let before = shown(&leader, &room);
    leader.crash();
    let killed = Instant::now();

    // The standby takes over and finishes the round: six answers after
    // the opener, the room no longer running.
    let bots = 6;
    let after = loop {
        let after = shown(&standby, &room);
        let answers = after.iter().filter(|l| l.0 > opener).count();
        let running = ok(&standby, "messages", json!({"roomId": room}))["running"] == true;
        if answers >= bots && !running {
            break after;
        }
        assert!(
            killed.elapsed() < Duration::from_secs(40),
            "the round never finished on the standby: {after:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    for line in &before {
        assert!(after.contains(line), "shown line lost: {line:?}");
    }
    for seq in &seen {
        assert!(
            after.iter().any(|l| l.0 == *seq),
            "announced line {seq} lost"
        );
    }
    let mut authors: Vec<&str> = after
        .iter()
        .filter(|l| l.0 > opener)
        .map(|l| l.1.as_str())
        .collect();
    authors.sort_unstable();
    let mut once = authors.clone();
    once.dedup();
    assert_eq!(authors, once, "each member speaks once: {after:?}");
    assert_eq!(authors.len(), bots, "{after:?}");
    // A cut turn is ended once and picked up once, in the standby's own
    // copy of the Session logs.
    for (file, events) in session_logs(other.path()) {
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
        assert!(ends <= 1 && again <= 1, "{file}: {events:?}");
    }
    let (exited, _, _) = standby.terminate();
    assert!(exited);
}
