//! Issue 13 ("Memory stays bounded"): a Session holds only its newest
//! entries, and reads older ones back from its file on demand.

use super::SessionLog;
use crate::session::event::{LogEntry, SessionEvent, Source};
use flybot_store::turn_log::{TurnLog, Urgency};
use std::path::Path;

fn line(n: u64) -> SessionEvent {
    SessionEvent::UserMessage {
        turn_id: format!("turn-{n}"),
        message_id: format!("msg-{n}"),
        text: format!("line {n}"),
        source: Source::User { member_id: None },
        attachments: Vec::new(),
    }
}

/// A log of `count` durable entries, all released from memory.
fn written(home: &Path, count: u64) -> (SessionLog, TurnLog) {
    let turn_log = TurnLog::for_home(home);
    let mut log = SessionLog::open(home, "s1").unwrap();
    for n in 1..=count {
        log.append(&turn_log, n, vec![line(n)], Urgency::Soon, None)
            .unwrap();
    }
    turn_log.write_durable(Vec::new(), None).unwrap();
    log.release_through(count);
    (log, turn_log)
}

fn seqs(entries: &[LogEntry]) -> Vec<u64> {
    entries.iter().map(|e| e.seq).collect()
}

#[test]
fn a_released_log_holds_nothing_and_reads_its_history_back_from_the_file() {
    let home = tempfile::tempdir().unwrap();
    let (log, _turn_log) = written(home.path(), 5);
    assert_eq!(log.held_bytes(), 0);
    assert_eq!(seqs(&log.suffix(2).unwrap()), [3, 4, 5]);
    assert_eq!(seqs(&log.between(1, 3).unwrap()), [2, 3]);
    assert_eq!(seqs(&log.latest(2).unwrap()), [4, 5]);
    assert_eq!(log.held_bytes(), 0, "reading on demand holds nothing");
}

#[test]
fn a_reopened_log_numbers_on_from_its_last_entry_without_holding_history() {
    let home = tempfile::tempdir().unwrap();
    let (log, turn_log) = written(home.path(), 4);
    drop(log);
    let mut log = SessionLog::open(home.path(), "s1").unwrap();
    assert_eq!(log.last_seq_after(0), 4);
    assert_eq!(log.held_bytes(), 0);
    log.append(&turn_log, 9, vec![line(5)], Urgency::Soon, None)
        .unwrap();
    assert_eq!(log.last_seq_after(0), 5);
    // Memory holds the entry not yet durable; the file the rest.
    assert_eq!(seqs(log.held_after(0)), [5]);
    assert_eq!(seqs(&log.suffix(0).unwrap()), [1, 2, 3, 4, 5]);
    assert_eq!(seqs(&log.latest(3).unwrap()), [3, 4, 5]);
}

#[test]
fn a_loaded_window_stays_until_it_is_released() {
    let home = tempfile::tempdir().unwrap();
    let (mut log, turn_log) = written(home.path(), 6);
    log.append(&turn_log, 7, vec![line(7)], Urgency::Soon, None)
        .unwrap();
    log.load_after(3).unwrap();
    assert_eq!(seqs(log.held_after(0)), [4, 5, 6, 7]);
    let held = log.held_bytes();
    assert!(held > 0);
    turn_log.write_durable(Vec::new(), None).unwrap();
    log.release_through(7);
    assert_eq!(log.held_bytes(), 0);
    assert_eq!(seqs(&log.suffix(5).unwrap()), [6, 7]);
}

#[test]
fn a_cursor_past_the_end_reads_nothing() {
    let home = tempfile::tempdir().unwrap();
    let (mut log, _turn_log) = written(home.path(), 3);
    assert!(log.suffix(u64::MAX).unwrap().is_empty());
    assert!(log.between(u64::MAX, u64::MAX).unwrap().is_empty());
    log.load_after(u64::MAX).unwrap();
    assert!(log.held_after(u64::MAX).is_empty());
    assert_eq!(seqs(&log.latest(10).unwrap()), [1, 2, 3]);
}

/// A turn's start and its line, as a turn writes them.
fn turn_of(n: u64, turn: &str) -> Vec<SessionEvent> {
    let said = SessionEvent::UserMessage {
        turn_id: turn.to_owned(),
        message_id: format!("msg-{n}"),
        text: format!("line {n}"),
        source: Source::User { member_id: None },
        attachments: Vec::new(),
    };
    let start = SessionEvent::TurnStart {
        turn_id: turn.to_owned(),
    };
    vec![start, said]
}

/// Issue 38: the usage ledger folds a turn at its end; the turn's entries
/// come from memory while held, and from the file only back to its start.
#[test]
fn a_turns_entries_come_from_memory_or_from_the_file_back_to_its_start_38() {
    let home = tempfile::tempdir().unwrap();
    let (mut log, turn_log) = written(home.path(), 3);
    log.append(&turn_log, 4, turn_of(4, "turn-a"), Urgency::Soon, None)
        .unwrap();
    log.append(&turn_log, 6, turn_of(6, "turn-b"), Urgency::Soon, None)
        .unwrap();
    turn_log.write_durable(Vec::new(), None).unwrap();
    // Held in memory: the file is not read (it is gone).
    let file = home.path().join("sessions/s1.jsonl");
    let bytes = std::fs::read(&file).unwrap();
    std::fs::remove_file(&file).unwrap();
    assert_eq!(seqs(&log.turn_entries("turn-b", 7).unwrap()), [6, 7]);
    assert_eq!(seqs(&log.turn_entries("turn-a", 5).unwrap()), [4, 5]);
    assert_eq!(
        seqs(&log.turn_entries("turn-b", 6).unwrap()),
        [6],
        "up to durable"
    );
    // Let go of: read back from the file, no further than the turn's start.
    std::fs::write(&file, bytes).unwrap();
    log.release_through(6);
    assert_eq!(seqs(&log.turn_entries("turn-b", 7).unwrap()), [6, 7]);
    assert_eq!(seqs(&log.turn_entries("turn-a", 7).unwrap()), [4, 5, 6, 7]);
    assert_eq!(
        seqs(&log.turn_entries("turn-gone", 7).unwrap()),
        [1, 2, 3, 4, 5, 6, 7],
        "a turn whose start is not found reads the whole log"
    );
}

/// Issue 38: a tool reads its own running turn, from the last durable
/// `turn/start`, without the history before it.
#[test]
fn the_running_turn_is_read_from_its_last_durable_start_38() {
    let home = tempfile::tempdir().unwrap();
    let (mut log, turn_log) = written(home.path(), 3);
    assert_eq!(
        seqs(&log.last_turn_entries(3).unwrap()),
        [1, 2, 3],
        "no turn yet: all"
    );
    log.append(&turn_log, 4, turn_of(4, "turn-a"), Urgency::Soon, None)
        .unwrap();
    log.append(&turn_log, 6, turn_of(6, "turn-b"), Urgency::Soon, None)
        .unwrap();
    turn_log.write_durable(Vec::new(), None).unwrap();
    assert_eq!(seqs(&log.last_turn_entries(7).unwrap()), [6, 7]);
    assert_eq!(
        seqs(&log.last_turn_entries(5).unwrap()),
        [4, 5],
        "a start not yet durable is not the running turn's"
    );
    log.release_through(7);
    assert_eq!(
        seqs(&log.last_turn_entries(7).unwrap()),
        [6, 7],
        "read back"
    );
    assert_eq!(seqs(&log.last_turn_entries(5).unwrap()), [4, 5]);
}
