//! Memory files, decisions, interop journals and the usage ledger on both
//! engines (issue 35): what the team's one writer records, a second host
//! of the team reads (the same home's files, or a standby's copy of the
//! database's rows), and a second host that does not lead writes none.

use crate::engines::{Place, wait_until};
use crate::support::add_bot;
use flybot_core::memory::{MemoryEntry, Scope};
use flybot_protocol::{ApiError, ErrorCode};
use flybot_store::decisions::{append_decision, append_decision_within, read_decisions};
use flybot_store::interop_journal::InteropFiles;
use flybot_store::memory::MemoryFiles;
use flybot_store::usage::{CallFilter, CallRow, TokenUsage, UsageError, UsageLedger};
use flybot_store::{Store, StoreStatus};
use serde_json::json;
use std::path::Path;
use std::time::Duration;

/// The home a second host of the team reads: the same home on the folder
/// engine, the standby's own home on PostgreSQL.
fn second_home<'a>(place: &'a Place, other: &'a Path) -> &'a Path {
    if place.db.is_some() {
        other
    } else {
        place.dir.path()
    }
}

fn entry(id: &str, text: &str) -> MemoryEntry {
    MemoryEntry {
        id: id.into(),
        topic: "deploy".into(),
        by: "bot-1".into(),
        at: 5,
        text: text.into(),
    }
}

fn refused(e: std::io::Error) -> ApiError {
    ApiError::new(ErrorCode::ReadOnly, e.to_string())
}

async fn remember(store: &Store, home: &Path, entries: &[MemoryEntry]) -> Result<(), ApiError> {
    let files = MemoryFiles::new(home);
    store
        .mutate("host", |change| {
            files
                .write(change, &Scope::bot("bot-1"), entries)
                .map_err(refused)
        })
        .await
}

/// Waits until `second` leads (the folder: its next write; PostgreSQL:
/// the lease the first let go).
async fn take_over(second: &Store) {
    for _ in 0..200 {
        let wrote = second
            .mutate("host", |c| {
                c.set_pref("after", Some(&json!(true)));
                Ok(())
            })
            .await;
        if wrote.is_ok() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the second host never took over");
}

both_engines!(memory_reaches_a_second_host_and_its_archive_moves_there_too);
async fn memory_reaches_a_second_host_and_its_archive_moves_there_too(place: Place) {
    let other = tempfile::tempdir().unwrap();
    let first = place.open();
    add_bot(&first, "bot-1").await;
    let second = place.open_second(other.path());
    let home = place.dir.path().to_owned();
    remember(&first, &home, &[entry("mem-1", "Deploys on Fridays.")])
        .await
        .unwrap();
    let theirs = MemoryFiles::new(second_home(&place, other.path()));
    wait_until(|| {
        theirs.read(&Scope::bot("bot-1")).unwrap() == [entry("mem-1", "Deploys on Fridays.")]
    })
    .await;
    // A second host that does not lead writes no memory, and its copy
    // keeps the leader's entry.
    let refused = remember(&second, second_home(&place, other.path()), &[])
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::ReadOnly);
    assert_eq!(theirs.read(&Scope::bot("bot-1")).unwrap().len(), 1);
    // A deleted Bot's memory is archived on the second host's side too.
    let ours = MemoryFiles::new(&home);
    let archived = ours.archive("bot-1", 99).unwrap().unwrap();
    assert!(archived.ends_with("memory/archive/bot-1-99"));
    let their_archive = second_home(&place, other.path()).join("memory/archive/bot-1-99/MEMORY.md");
    wait_until(|| their_archive.exists()).await;
    wait_until(|| theirs.read(&Scope::bot("bot-1")).unwrap().is_empty()).await;
    // The second host takes over and writes memory of its own.
    first.close().await.unwrap();
    take_over(&second).await;
    remember(
        &second,
        second_home(&place, other.path()),
        &[entry("mem-2", "Mondays now.")],
    )
    .await
    .unwrap();
    assert_eq!(
        theirs.read(&Scope::bot("bot-1")).unwrap(),
        [entry("mem-2", "Mondays now.")]
    );
    second.close().await.unwrap();
}

both_engines!(decisions_keep_the_newest_lines_and_reach_a_second_host);
async fn decisions_keep_the_newest_lines_and_reach_a_second_host(place: Place) {
    let other = tempfile::tempdir().unwrap();
    let first = place.open();
    let second = place.open_second(other.path());
    let home = place.dir.path().to_owned();
    let written = home.clone();
    tokio::task::spawn_blocking(move || {
        for n in 0..6 {
            append_decision_within(&written, &json!({"n": n}), 4, 1 << 20).unwrap();
        }
        append_decision(&written, &json!({"n": 6})).unwrap();
    })
    .await
    .unwrap();
    // Trimmed to four lines by the bounded appends; the last (the real
    // bounds) only appends.
    let newest: Vec<_> = (2..=6).map(|n| json!({"n": n})).collect();
    assert_eq!(read_decisions(&home).unwrap(), newest[..]);
    let theirs = second_home(&place, other.path()).to_owned();
    wait_until(|| read_decisions(&theirs).unwrap() == newest[..]).await;
    if place.db.is_some() {
        // A standby records no decision, and its copy is unchanged.
        let standby = other.path().to_owned();
        let refused = tokio::task::spawn_blocking(move || {
            append_decision(&standby, &json!({"n": "standby"}))
        })
        .await
        .unwrap();
        assert!(refused.is_err());
        assert_eq!(read_decisions(other.path()).unwrap(), newest[..]);
    }
    first.close().await.unwrap();
    second.close().await.unwrap();
}

both_engines!(interop_records_and_side_files_reach_a_second_host);
async fn interop_records_and_side_files_reach_a_second_host(place: Place) {
    let other = tempfile::tempdir().unwrap();
    let first = place.open();
    let second = place.open_second(other.path());
    let folder = "interop/bot-1/card-1/journal";
    let dir = place.dir.path().join(folder);
    let written = dir.clone();
    // The first host's folder stays open (its one writer) throughout.
    let ours = tokio::task::spawn_blocking(move || {
        let mut files = InteropFiles::open_dir(&written).unwrap();
        files.append(b"{\"a\":1}").unwrap();
        files.append(b"{\"b\":2}").unwrap();
        files.write_side_file("inbox.cursor", b"7").unwrap();
        files
    })
    .await
    .unwrap();
    let theirs = second_home(&place, other.path()).join(folder);
    wait_until(|| {
        std::fs::read(theirs.join("journal.jsonl")).ok().as_deref()
            == Some(&b"{\"a\":1}\n{\"b\":2}\n"[..])
            && std::fs::read(theirs.join("inbox.cursor")).ok().as_deref() == Some(&b"7"[..])
    })
    .await;
    // The second host writes no record: the folder's one writer is the
    // first (its lock), a standby is fenced; either way nothing changes.
    let attempt = tokio::task::spawn_blocking(move || {
        let mut files = InteropFiles::open_dir(&theirs)?;
        files.append(b"{\"c\":3}")
    })
    .await
    .unwrap();
    assert!(attempt.is_err(), "the second host wrote a record");
    drop(ours);
    let mut ours = InteropFiles::open_dir(&dir).unwrap();
    assert_eq!(ours.read_lines().unwrap().len(), 2);
    drop(ours);
    first.close().await.unwrap();
    second.close().await.unwrap();
}

fn call(id: &str, at_ms: i64) -> CallRow {
    CallRow {
        id: id.to_owned(),
        session_id: "session-1".to_owned(),
        bot_id: "bot-1".to_owned(),
        at_ms,
        provider: "mock".to_owned(),
        model: "mock-1".to_owned(),
        usage: TokenUsage {
            input_tokens: Some(10),
            output_tokens: None,
            cached_tokens: Some(0),
            reasoning_tokens: None,
        },
        harness: "default".to_owned(),
        issue_pr: "#35".to_owned(),
        tool_calls: Some(1),
        wall_ms: Some(120),
    }
}

both_engines!(usage_rows_are_kept_once_and_a_second_host_reads_them);
async fn usage_rows_are_kept_once_and_a_second_host_reads_them(place: Place) {
    let other = tempfile::tempdir().unwrap();
    let first = place.open();
    let second = place.open_second(other.path());
    let ledger = UsageLedger::open(place.dir.path()).await.unwrap();
    ledger.record(call("call-1", 100)).await.unwrap();
    ledger.record(call("call-1", 100)).await.unwrap();
    ledger.record(call("call-2", 200)).await.unwrap();
    let incomplete = CallRow {
        wall_ms: None,
        ..call("call-3", 300)
    };
    assert!(matches!(
        ledger.record(incomplete).await,
        Err(UsageError::IncompleteRow { .. })
    ));
    let theirs = UsageLedger::open(second_home(&place, other.path()))
        .await
        .unwrap();
    let rows = theirs.rows(&CallFilter::default()).await.unwrap();
    assert_eq!(rows, [call("call-1", 100), call("call-2", 200)]);
    assert_eq!(rows[0].usage.output_tokens, None, "unknown stays unknown");
    let since = CallFilter {
        since_ms: Some(150),
        ..CallFilter::default()
    };
    assert_eq!(theirs.rows(&since).await.unwrap(), [call("call-2", 200)]);
    assert_eq!(theirs.newest_at_ms().await.unwrap(), Some(200));
    if place.db.is_some() {
        assert!(matches!(
            theirs.record(call("call-9", 900)).await,
            Err(UsageError::Standby)
        ));
        assert_eq!(ledger.rows(&CallFilter::default()).await.unwrap().len(), 2);
    }
    assert_eq!(first.status(), StoreStatus::Writer);
    first.close().await.unwrap();
    second.close().await.unwrap();
}

/// One of each: a memory file, a pinned block, an archived Bot's memory,
/// two decisions, an interop journal with a side file, two usage rows
/// (eight records), written the way the host writes them.
pub async fn every_kind_of_record(store: &Store, home: &Path) {
    add_bot(store, "bot-1").await;
    remember(store, home, &[entry("mem-1", "Deploys on Fridays.")])
        .await
        .unwrap();
    let files = MemoryFiles::new(home);
    store
        .mutate("host", |change| {
            files
                .write_pinned(change, "bot-2", "Call me Ada.")
                .map_err(refused)
        })
        .await
        .unwrap();
    files.archive("bot-2", 7).unwrap().unwrap();
    let at = home.to_owned();
    tokio::task::spawn_blocking(move || {
        append_decision(&at, &json!({"decision": "ship"})).unwrap();
        append_decision(&at, &json!({"decision": "wait"})).unwrap();
        let mut interop = InteropFiles::open_dir(&at.join("interop/bot-1/card-1/journal")).unwrap();
        interop.append(b"{\"a\":1}").unwrap();
        interop.write_side_file("inbox.cursor", b"7").unwrap();
    })
    .await
    .unwrap();
    let ledger = UsageLedger::open(home).await.unwrap();
    ledger.record(call("call-1", 100)).await.unwrap();
    ledger.record(call("call-2", 200)).await.unwrap();
}
