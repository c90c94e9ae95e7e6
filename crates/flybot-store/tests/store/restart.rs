//! PostgreSQL itself restarted under load (issue 35): `pg_ctl restart` of a
//! cluster of this test's own while writers change the team and write
//! Session log lines. Writes wait for the server (or are refused, saying
//! why); nothing is torn or written twice: every acknowledged change and
//! line is there once, the chain replays to the live team, and the store
//! and its turn log write again afterwards on new connections.

use crate::support::{OWNER, add_bot, bot, options};
use flybot_store::engine::postgres::journal_text;
use flybot_store::engine::test_cluster::TestCluster;
use flybot_store::turn_log::{Record, TurnLog};
use flybot_store::{Engine, PostgresOptions, Store, StoreOptions, StoreStatus, replay_to};
use serde_json::json;
use sqlx::{Connection, Row};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Writes Session lines one batch at a time until `stop`; answers the
/// acknowledged seqs and the refusals' sentences.
fn turn_writer(home: &Path, stop: &AtomicBool) -> (Vec<u64>, Vec<String>) {
    let log = TurnLog::for_home(home);
    let (mut acked, mut refused) = (Vec::new(), Vec::new());
    let mut seq = 0;
    while !stop.load(Ordering::SeqCst) || seq < 20 {
        seq += 1;
        let record = Record::new(
            home,
            &home.join("sessions/s1/log.jsonl"),
            &json!({"seq": seq, "text": format!("line {seq}")}),
        )
        .unwrap();
        match log.write_durable(vec![record], None) {
            Ok(()) => acked.push(seq),
            Err(e) => refused.push(e.to_string()),
        }
    }
    (acked, refused)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_restarted_under_load_tears_nothing_and_the_store_reconnects() {
    let Some(cluster) = TestCluster::start() else {
        return;
    };
    let url = cluster.database("team");
    let home = tempfile::tempdir().unwrap();
    let store_options = StoreOptions {
        state_journal: true,
        engine: Engine::Postgres(PostgresOptions::new(url.clone())),
        ..options()
    };
    let store = Store::open(home.path(), store_options).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let turns = {
        let (home, stop) = (home.path().to_owned(), stop.clone());
        std::thread::spawn(move || turn_writer(&home, &stop))
    };
    let acked = Arc::new(Mutex::new(Vec::new()));
    let refusals = Arc::new(Mutex::new(Vec::new()));
    let mut writers = Vec::new();
    for w in 0..16 {
        let (store, acked, refusals) = (store.clone(), acked.clone(), refusals.clone());
        writers.push(tokio::spawn(async move {
            for n in 0..10 {
                let id = format!("bot-{w:02}-{n}");
                let made = store
                    .mutate("host", |c| {
                        c.put_bot(&bot(&id, OWNER));
                        Ok(())
                    })
                    .await;
                match made {
                    Ok(()) => acked.lock().unwrap().push(id),
                    Err(e) => refusals.lock().unwrap().push(e.message),
                }
            }
        }));
    }
    let restarted = tokio::task::spawn_blocking(move || {
        let done = cluster.restart();
        (cluster, done)
    });
    let (cluster, done) = restarted.await.unwrap();
    assert!(done, "pg_ctl restart failed");
    for w in writers {
        w.await.unwrap();
    }
    stop.store(true, Ordering::SeqCst);
    let (lines, line_refusals) = turns.join().unwrap();
    // A refusal, if any, says what happened in a sentence.
    for why in refusals.lock().unwrap().iter().chain(&line_refusals) {
        assert!(why.contains("database") || why.contains("lease"), "{why}");
    }
    // The store and its turn log write again on new connections.
    assert_eq!(store.status(), StoreStatus::Writer);
    add_bot(&store, "bot-after").await;
    let live = store.read(|t| t.clone());
    for id in acked.lock().unwrap().iter() {
        assert!(live.bots.contains_key(id), "{id} was acknowledged");
    }
    store.close().await.unwrap();
    let text = journal_text(&url).await.unwrap();
    let replayed = replay_to(&text, live.journal_seq).unwrap();
    assert_eq!(
        serde_json::to_value(&replayed).unwrap(),
        serde_json::to_value(&live).unwrap(),
        "the database holds exactly the acknowledged team"
    );
    // Every acknowledged line is a row once and in the file once.
    let mut conn = sqlx::PgConnection::connect(&url).await.unwrap();
    let rows: Vec<i64> = sqlx::query(
        "SELECT (line::jsonb -> 'line' ->> 'seq')::bigint FROM flybot_turns \
         WHERE line::jsonb ? 'file' ORDER BY id",
    )
    .fetch_all(&mut conn)
    .await
    .unwrap()
    .iter()
    .map(|r| r.get(0))
    .collect();
    let file: Vec<u64> = std::fs::read_to_string(home.path().join("sessions/s1/log.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["seq"]
                .as_u64()
                .unwrap()
        })
        .collect();
    for seq in &lines {
        assert_eq!(
            rows.iter().filter(|r| **r == *seq as i64).count(),
            1,
            "row {seq}"
        );
        assert_eq!(file.iter().filter(|s| **s == *seq).count(), 1, "line {seq}");
    }
    drop(conn);
    drop(cluster);
}
