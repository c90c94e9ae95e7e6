//! The write path: a change is on disk when it is answered, a crash loses
//! nothing answered, a refusal writes nothing, and damage fails closed.
//! The promises that are the engine's (a refusal, 32 at once, the save
//! count) run on both engines, and so does damage to the journal's lines
//! (`damage.rs`); damage to `state.json` is the folder's own.

use crate::engines::Place;
use crate::support::{OWNER, add_bot, bot, bot_ids, copy_home, member, options, pretty, read};
use flybot_protocol::{ApiError, ErrorCode};
use flybot_store::{ReadOnlyReason, Store, StoreStatus};
use std::io::Write;
use std::path::Path;

fn damaged_why(store: &Store) -> String {
    match store.status() {
        StoreStatus::ReadOnly(ReadOnlyReason::Damaged { why }) => why,
        other => panic!("expected a damaged home, got {other:?}"),
    }
}

fn journal_lines(home: &Path) -> Vec<String> {
    String::from_utf8(read(&home.join("journal.jsonl")))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn an_answered_change_survives_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let copy = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), options()).unwrap();
    add_bot(&store, "bot-1").await;
    add_bot(&store, "bot-2").await;
    // The files as they are while the store still runs: what a crash leaves.
    copy_home(dir.path(), copy.path());
    let reopened = Store::open(copy.path(), options()).unwrap();
    assert_eq!(reopened.status(), StoreStatus::Writer);
    assert_eq!(bot_ids(&reopened), ["bot-1", "bot-2"]);
    assert_eq!(reopened.revision(), store.revision());
    assert_eq!(
        reopened.read(pretty),
        store.read(pretty),
        "the replayed team is the live team to the byte"
    );

    // Dropped without close: the lock goes with it, the journal has it all.
    drop(store);
    let again = Store::open(dir.path(), options()).unwrap();
    assert_eq!(again.status(), StoreStatus::Writer);
    assert_eq!(bot_ids(&again), ["bot-1", "bot-2"]);
}

#[tokio::test]
async fn a_torn_last_line_is_dropped_and_the_home_stays_writable() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), options()).unwrap();
    add_bot(&store, "bot-1").await;
    drop(store);
    let journal = dir.path().join("journal.jsonl");
    let whole = read(&journal);
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&journal)
        .unwrap();
    file.write_all(br#"{"seq":3,"t":99,"prev":"ab"#).unwrap();
    drop(file);

    let store = Store::open(dir.path(), options()).unwrap();
    assert_eq!(store.status(), StoreStatus::Writer);
    assert_eq!(bot_ids(&store), ["bot-1"]);
    assert_eq!(read(&journal), whole, "the torn tail is cut off the file");
    add_bot(&store, "bot-2").await;
    drop(store);

    // A whole line of garbage at the end is a torn write too.
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&journal)
        .unwrap();
    file.write_all(b"\x00\x00garbage\n").unwrap();
    drop(file);
    let store = Store::open(dir.path(), options()).unwrap();
    assert_eq!(store.status(), StoreStatus::Writer);
    assert_eq!(bot_ids(&store), ["bot-1", "bot-2"]);
}

#[tokio::test]
async fn a_snapshot_off_the_chain_opens_read_only() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), options()).unwrap();
    add_bot(&store, "bot-1").await;
    store.close().await.unwrap();
    let path = dir.path().join("state.json");
    let mut state: serde_json::Value = serde_json::from_slice(&read(&path)).unwrap();
    state["journalDigest"] = "00".repeat(32).into();
    std::fs::write(&path, serde_json::to_vec_pretty(&state).unwrap()).unwrap();
    let store = Store::open(dir.path(), options()).unwrap();
    assert!(damaged_why(&store).contains("journalDigest"));
}

both_engines!(a_refusal_leaves_team_revision_and_files_unchanged);
async fn a_refusal_leaves_team_revision_and_files_unchanged(place: Place) {
    let store = place.open();
    add_bot(&store, "bot-1").await;
    let team = store.read(pretty);
    let revision = store.revision();
    let journal = place.journal().await;
    let state = std::fs::read(place.dir.path().join("state.json")).ok();
    let queued = store.saves_queued();

    let refused = store
        .mutate("host", |change| -> Result<(), ApiError> {
            change.put_bot(&bot("bot-2", OWNER));
            change.remove_bot("bot-1");
            change.put_member(&member("member-other"));
            Err(ApiError::forbidden("not today"))
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::Forbidden);
    store.saves_settled().await;
    assert_eq!(store.read(pretty), team);
    assert_eq!(store.revision(), revision);
    assert_eq!(store.saves_queued(), queued);
    assert_eq!(place.journal().await, journal);
    assert_eq!(
        std::fs::read(place.dir.path().join("state.json")).ok(),
        state
    );
    store.close().await.unwrap();
}

both_engines!(thirty_two_concurrent_changes_commit_in_seq_order);
async fn thirty_two_concurrent_changes_commit_in_seq_order(place: Place) {
    let store = place.open();
    add_bot(&store, "bot-0").await;
    let start = store.revision();
    let mut set = tokio::task::JoinSet::new();
    for i in 1..=32 {
        let store = store.clone();
        set.spawn(async move {
            store
                .mutate("host", |change| {
                    change.put_bot(&bot(&format!("bot-{i:02}"), OWNER));
                    Ok(change.state().journal_seq + 1)
                })
                .await
                .unwrap()
        });
    }
    let mut seqs = Vec::new();
    while let Some(seq) = set.join_next().await {
        seqs.push(seq.unwrap());
    }
    seqs.sort();
    assert_eq!(seqs, (start + 1..=start + 32).collect::<Vec<_>>());
    assert_eq!(store.revision(), start + 32);
    assert_eq!(store.saves_queued(), 33);
    store.close().await.unwrap();
    let reopened = place.open();
    assert_eq!(bot_ids(&reopened).len(), 33);
    assert_eq!(reopened.revision(), start + 32);
    reopened.close().await.unwrap();
}

both_engines!(saves_queued_only_grows_and_saves_settled_waits_for_the_disk);
/// Rule #1368.
async fn saves_queued_only_grows_and_saves_settled_waits_for_the_disk(place: Place) {
    let store = place.open();
    assert_eq!(store.saves_queued(), 0);
    let mut last = 0;
    for i in 0..5 {
        add_bot(&store, &format!("bot-{i}")).await;
        let queued = store.saves_queued();
        assert!(queued > last);
        last = queued;
    }
    store.mutate("host", |_| Ok(())).await.unwrap();
    assert_eq!(store.saves_queued(), last, "an empty change queues nothing");
    store.saves_settled().await;
    let lines = place.journal().await.lines().count();
    assert_eq!(lines, 6, "a base and five changes");
    store.snapshot_now().await.unwrap();
    assert_eq!(store.saves_queued(), last, "a snapshot is not a save");
    store.close().await.unwrap();
}

#[tokio::test]
async fn a_snapshot_trims_the_journal_to_an_anchor() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), options()).unwrap();
    add_bot(&store, "bot-1").await;
    add_bot(&store, "bot-2").await;
    store.snapshot_now().await.unwrap();
    let lines = journal_lines(dir.path());
    assert_eq!(lines.len(), 1);
    let base: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!(base["op"], "base");
    assert_eq!(base["seq"], store.revision());
    assert!(base.get("state").is_none());
    let state: serde_json::Value =
        serde_json::from_slice(&read(&dir.path().join("state.json"))).unwrap();
    assert_eq!(state["journalSeq"], store.revision());
    assert_eq!(state["journalDigest"], base["digest"]);

    add_bot(&store, "bot-3").await;
    let live = store.read(pretty);
    drop(store);
    let reopened = Store::open(dir.path(), options()).unwrap();
    assert_eq!(reopened.read(pretty), live);
}

#[tokio::test]
async fn the_background_snapshot_runs_after_snapshot_after() {
    let dir = tempfile::tempdir().unwrap();
    let options = flybot_store::StoreOptions {
        snapshot_after: std::time::Duration::from_millis(5),
        ..options()
    };
    let store = Store::open(dir.path(), options).unwrap();
    add_bot(&store, "bot-1").await;
    let want = store.revision();
    // Polls, never asserts a duration: the snapshot lands within the test's time.
    for _ in 0..400 {
        let state: serde_json::Value =
            serde_json::from_slice(&read(&dir.path().join("state.json"))).unwrap();
        if state["journalSeq"] == want {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("the background snapshot never ran");
}

/// Trims cut the journal where its writer knows each line starts (issue
/// 38): lines it took over at a restart, lines it wrote, lines shifted by
/// the trim before; every change survives, and the chain still checks.
#[tokio::test]
async fn trims_in_a_row_and_a_restart_between_keep_every_change() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), options()).unwrap();
    add_bot(&store, "bot-1").await;
    add_bot(&store, "bot-2").await;
    drop(store);
    let store = Store::open(dir.path(), options()).unwrap();
    add_bot(&store, "bot-3").await;
    store.snapshot_now().await.unwrap();
    assert_eq!(journal_lines(dir.path()).len(), 1, "the base alone");
    add_bot(&store, "bot-4").await;
    add_bot(&store, "bot-5").await;
    store.snapshot_now().await.unwrap();
    add_bot(&store, "bot-6").await;
    assert_eq!(journal_lines(dir.path()).len(), 2, "the base and bot-6");
    let live = store.read(pretty);
    drop(store);
    let reopened = Store::open(dir.path(), options()).unwrap();
    assert_eq!(reopened.status(), StoreStatus::Writer);
    assert_eq!(reopened.read(pretty), live);
    assert_eq!(bot_ids(&reopened).len(), 6);
}

/// A snapshot taken while changes keep coming trims only the lines it
/// holds; the lines behind it stay, and a restart reads every change.
#[tokio::test]
async fn a_trim_among_changes_keeps_the_lines_after_its_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), options()).unwrap();
    for round in 0..4 {
        let mut changes = tokio::task::JoinSet::new();
        for i in 0..8 {
            let store = store.clone();
            changes.spawn(async move { add_bot(&store, &format!("bot-{round}-{i}")).await });
        }
        store.snapshot_now().await.unwrap();
        while let Some(done) = changes.join_next().await {
            done.unwrap();
        }
    }
    let live = store.read(pretty);
    drop(store);
    let reopened = Store::open(dir.path(), options()).unwrap();
    assert_eq!(reopened.status(), StoreStatus::Writer);
    assert_eq!(reopened.read(pretty), live);
    assert_eq!(bot_ids(&reopened).len(), 32);
}
