//! Disk room reserved ahead of the two journals synced at every batch
//! (issue 38): `journal.jsonl` and the turn log's `turns.jsonl`. Their
//! appends land in blocks already allocated, so a commit's fsync allocates
//! none; the files still hold exactly their lines, for a reader, a replay
//! and a start.

use crate::support::{add_bot, bot_ids, options};
use flybot_store::Store;
use flybot_store::turn_log::{Record, TurnLog};
use serde_json::json;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// What the filesystem allocated to the file, against its length.
fn allocated_and_len(path: &Path) -> (u64, u64) {
    let meta = std::fs::metadata(path).unwrap();
    (meta.blocks() * 512, meta.len())
}

/// Every line of the file is whole JSON and nothing follows the last.
fn assert_only_lines(path: &Path) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(bytes.last(), Some(&b'\n'), "{} ends a line", path.display());
    for line in bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        serde_json::from_slice::<serde_json::Value>(line).unwrap();
    }
}

fn assert_room_ahead(path: &Path) {
    let (allocated, len) = allocated_and_len(path);
    assert!(
        allocated >= len + 512 * 1024,
        "{}: {allocated} bytes allocated for {len} bytes of lines",
        path.display()
    );
    assert_only_lines(path);
}

#[tokio::test]
async fn the_state_journal_commits_into_room_reserved_ahead_also_after_a_trim() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("journal.jsonl");
    let store = Store::open(dir.path(), options()).unwrap();
    add_bot(&store, "bot-1").await;
    assert_room_ahead(&journal);

    // A snapshot rewrites the journal: the new file gets its room too.
    store.snapshot_now().await.unwrap();
    add_bot(&store, "bot-2").await;
    assert_room_ahead(&journal);

    drop(store);
    let again = Store::open(dir.path(), options()).unwrap();
    assert_eq!(bot_ids(&again), ["bot-1", "bot-2"]);
}

#[test]
fn the_turn_logs_journal_syncs_into_room_reserved_ahead() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let log_path = home.join("sessions/s1/log.jsonl");
    let record = Record::new(home, &log_path, &json!({"seq": 1})).unwrap();
    // Held while looking: the last handle gone checkpoints the journal.
    let log = TurnLog::for_home(home);
    log.write_durable(vec![record], None).unwrap();
    assert_room_ahead(&home.join("turns.jsonl"));
    let (log_allocated, _) = allocated_and_len(&log_path);
    assert!(
        log_allocated < 512 * 1024,
        "a Session log, synced only at a checkpoint, reserves nothing ({log_allocated} bytes)"
    );
    drop(log);
}
