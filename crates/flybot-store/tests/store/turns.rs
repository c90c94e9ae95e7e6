//! The turn log through the engine seam (issue 35): Session and room log
//! lines, in-flight and run notes of a store on PostgreSQL are rows of the
//! database, so a home that lost its files, or a standby on a home of its
//! own, has them; on the folder they stay in the home. A leader fenced out
//! of its lease writes no line anywhere.

use crate::engines::{Place, wait_until};
use flybot_store::turn_log::{Record, TurnLog, read_journal_rooms};
use flybot_store::{Store, StoreStatus};
use serde_json::json;
use sqlx::{Connection, Row};
use std::path::Path;

fn line(home: &Path, file: &str, seq: u64) -> Record {
    Record::new(
        home,
        &home.join(file),
        &json!({"seq": seq, "text": format!("line {seq}")}),
    )
    .unwrap()
}

fn seqs(path: &Path) -> Vec<u64> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["seq"]
                .as_u64()
                .unwrap()
        })
        .collect()
}

/// Writes `records` and waits until the log says they are durable.
async fn write(home: &Path, seqs: std::ops::RangeInclusive<u64>) -> std::io::Result<()> {
    let home = home.to_owned();
    tokio::task::spawn_blocking(move || {
        let records = seqs
            .map(|seq| line(&home, "sessions/s1/log.jsonl", seq))
            .collect();
        TurnLog::for_home(&home).write_durable(records, None)
    })
    .await
    .unwrap()
}

async fn room_note(home: &Path, run: serde_json::Value) {
    let home = home.to_owned();
    tokio::task::spawn_blocking(move || {
        let log = TurnLog::for_home(&home);
        log.write_room_run("room-1", Some(&run), flybot_store::turn_log::Urgency::Now)
            .unwrap();
        log.write_durable(Vec::new(), None).unwrap();
    })
    .await
    .unwrap();
}

both_engines!(an_acknowledged_turn_line_outlives_the_home_it_was_written_in);
async fn an_acknowledged_turn_line_outlives_the_home_it_was_written_in(place: Place) {
    let store = place.open();
    write(place.dir.path(), 1..=3).await.unwrap();
    room_note(place.dir.path(), json!({"round": 7})).await;
    let log = place.dir.path().join("sessions/s1/log.jsonl");
    assert_eq!(seqs(&log), [1, 2, 3]);
    store.close().await.unwrap();
    match &place.db {
        // The folder: the home holds them, and a reopen reads them.
        None => {
            let again = place.open();
            write(place.dir.path(), 4..=4).await.unwrap();
            assert_eq!(seqs(&log), [1, 2, 3, 4]);
            again.close().await.unwrap();
        }
        // PostgreSQL: a leader on a new, empty home finds every line and
        // the room's run note, and goes on after the last line.
        Some(_) => {
            let fresh = tempfile::tempdir().unwrap();
            let leader = Store::open(fresh.path(), place.options(false)).unwrap();
            assert_eq!(leader.status(), StoreStatus::Writer);
            write(fresh.path(), 4..=4).await.unwrap();
            assert_eq!(
                seqs(&fresh.path().join("sessions/s1/log.jsonl")),
                [1, 2, 3, 4]
            );
            let rooms = read_journal_rooms(fresh.path()).unwrap();
            assert_eq!(rooms.get("room-1"), Some(&json!({"round": 7})));
            leader.close().await.unwrap();
        }
    }
}

/// How many rows of the turn log hold `seq` for the test's Session file.
async fn rows_with_seq(url: &str, seq: u64) -> i64 {
    let mut conn = sqlx::PgConnection::connect(url).await.unwrap();
    sqlx::query(
        "SELECT count(*) FROM flybot_turns WHERE (line::jsonb -> 'line' ->> 'seq')::bigint = $1",
    )
    .bind(seq as i64)
    .fetch_one(&mut conn)
    .await
    .unwrap()
    .get(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_standby_on_its_own_home_follows_the_transcripts_and_writes_on_after_takeover() {
    let Some(place) = Place::postgres() else {
        return;
    };
    let url = place.db.as_ref().unwrap().url.clone();
    let other = tempfile::tempdir().unwrap();
    let leader = place.open();
    write(place.dir.path(), 1..=2).await.unwrap();
    let standby = Store::open(other.path(), place.options(true)).unwrap();
    let followed = other.path().join("sessions/s1/log.jsonl");
    // The standby's page reads the leader's lines from its own files.
    wait_until(|| seqs(&followed) == [1, 2]).await;
    write(place.dir.path(), 3..=3).await.unwrap();
    room_note(place.dir.path(), json!({"round": 1})).await;
    wait_until(|| seqs(&followed) == [1, 2, 3]).await;
    // A standby does not write the team's logs.
    let refused = write(other.path(), 4..=4).await.unwrap_err();
    assert!(refused.to_string().contains("lease"), "{refused}");
    assert_eq!(rows_with_seq(&url, 4).await, 0);
    leader.close().await.unwrap();
    wait_until(|| standby.status() == StoreStatus::Writer).await;
    // It goes on from the leader's last line, and the cut round's note is
    // there for its pickup.
    write(other.path(), 4..=4).await.unwrap();
    assert_eq!(seqs(&followed), [1, 2, 3, 4]);
    let rooms = read_journal_rooms(other.path()).unwrap();
    assert_eq!(rooms.get("room-1"), Some(&json!({"round": 1})));
    for seq in 1..=4 {
        assert_eq!(rows_with_seq(&url, seq).await, 1, "seq {seq} once");
    }
    standby.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_leader_fenced_out_of_its_lease_writes_no_turn_line_anywhere() {
    let Some(place) = Place::postgres() else {
        return;
    };
    let url = place.db.as_ref().unwrap().url.clone();
    let leader = place.open();
    write(place.dir.path(), 1..=1).await.unwrap();
    // The leader "sleeps" past its lease and another holder takes it (the
    // test itself, for an hour, so the old leader cannot take it back).
    let mut conn = sqlx::PgConnection::connect(&url).await.unwrap();
    sqlx::query(
        "UPDATE flybot_lease SET token = token + 1, holder = 'another FlyBot', \
         expires_at = clock_timestamp() + interval '1 hour'",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    let refused = write(place.dir.path(), 2..=2).await.unwrap_err();
    assert!(refused.to_string().contains("not saved"), "{refused}");
    assert_eq!(rows_with_seq(&url, 2).await, 0);
    assert_eq!(seqs(&place.dir.path().join("sessions/s1/log.jsonl")), [1]);
    // Its store steps down too, at its next write or renewal.
    wait_until(|| leader.status() != StoreStatus::Writer).await;
    let again = write(place.dir.path(), 2..=2).await.unwrap_err();
    assert!(again.to_string().contains("lease"), "{again}");
    assert_eq!(rows_with_seq(&url, 2).await, 0);
    leader.close().await.unwrap();
}
