//! The turn log: group commit, files kept open, replay after a crash, the
//! in-flight notes as appended records, one per Session (issues 19, 13).

use super::*;
use crate::inflight::{Inflight, QueuedNote, SessionNote, TurnNote, read_inflight, write_inflight};
use serde_json::json;
use std::fs;

fn record(home: &Path, file: &str, seq: u64) -> Record {
    Record::new(
        home,
        &home.join(file),
        &json!({"seq": seq, "text": format!("line {seq}")}),
    )
    .unwrap()
}

fn lines_of(path: &Path) -> Vec<String> {
    fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Session `s`'s note: turn `turn` running, item m1 queued.
fn note(turn: &str) -> SessionNote {
    SessionNote {
        session_id: "s".into(),
        turn_id: Some(turn.into()),
        items: Vec::new(),
        queued: vec![json!({"id": "m1"})],
    }
}

/// The same as an older home's whole set.
fn notes(turn: &str) -> Inflight {
    Inflight {
        turns: vec![TurnNote {
            session_id: "s".into(),
            turn_id: turn.into(),
            items: Vec::new(),
        }],
        queued: vec![QueuedNote {
            session_id: "s".into(),
            item: json!({"id": "m1"}),
        }],
    }
}

#[test]
fn lines_nobody_waits_on_join_the_next_sync_and_reach_their_files_in_order() {
    let home = tempfile::tempdir().unwrap();
    let log = TurnLog::for_home(home.path());
    let soon: Vec<Record> = (1..=40)
        .map(|seq| record(home.path(), &format!("sessions/s{}.jsonl", seq % 4), seq))
        .collect();
    log.write(soon, None, Urgency::Soon, None).unwrap();
    log.write_durable(vec![record(home.path(), "rooms/r.jsonl", 1)], None)
        .unwrap();
    let counters = log.counters();
    // 41 lines in 5 files, durable with at most two syncs (the Soon
    // lines' deadline may pass before the Now line arrives), never one a line.
    assert!(counters.syncs <= 2, "{counters:?}");
    assert_eq!(counters.lines, 41);
    assert_eq!(counters.opens, 1 + 5, "the journal and each file once");
    let s1 = lines_of(&home.path().join("sessions/s1.jsonl"));
    let seqs: Vec<u64> = s1
        .iter()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["seq"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(seqs, (1..=40).filter(|s| s % 4 == 1).collect::<Vec<_>>());
    assert_eq!(
        lines_of(&home.path().join("rooms/r.jsonl")),
        [r#"{"seq":1,"text":"line 1"}"#]
    );
    // Steady state: more lines to the same files open nothing.
    log.write_durable(vec![record(home.path(), "sessions/s1.jsonl", 41)], None)
        .unwrap();
    assert_eq!(log.counters().opens, 6);
}

use serde_json::Value;

#[test]
fn a_crash_that_left_files_short_is_replayed_from_the_journal_once() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("sessions/a.jsonl");
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    // The file has line 1 whole and line 2 torn; the journal has 1 to 3.
    fs::write(&file, "{\"seq\":1,\"text\":\"one\"}\n{\"seq\":2,\"te").unwrap();
    let journal = [
        r#"{"file":"sessions/a.jsonl","line":{"seq":1,"text":"one"}}"#,
        r#"{"inflight":{"turns":[],"queued":[]}}"#,
        r#"{"file":"sessions/a.jsonl","line":{"seq":2,"text":"two"}}"#,
        r#"{"file":"rooms/r.jsonl","line":{"seq":1,"text":"hi"}}"#,
        r#"{"file":"sessions/a.jsonl","line":{"seq":3,"text":"three"}}"#,
        r#"{"file":"../outside.jsonl","line":{"seq":1}}"#,
        r#"{"inflight":{"turns":[{"sessionId":"s","turnId":"t9"}],"queued":[]}}"#,
        r#"{"file":"sessions/a.jsonl","line":{"seq":4,"te"#,
    ];
    fs::write(home.path().join(JOURNAL_FILE), journal.join("\n")).unwrap();
    let log = TurnLog::for_home(home.path());
    log.open().unwrap();
    assert_eq!(
        lines_of(&file),
        [
            r#"{"seq":1,"text":"one"}"#,
            r#"{"seq":2,"text":"two"}"#,
            r#"{"seq":3,"text":"three"}"#
        ]
    );
    assert_eq!(
        lines_of(&home.path().join("rooms/r.jsonl")),
        [r#"{"seq":1,"text":"hi"}"#]
    );
    assert!(!home.path().parent().unwrap().join("outside.jsonl").exists());
    // The journal starts again from the newest notes only, the older
    // whole set carried as one note per Session.
    assert_eq!(
        lines_of(&home.path().join(JOURNAL_FILE)),
        [r#"{"note":{"sessionId":"s","turnId":"t9"}}"#]
    );
    drop(log);
    // A second start replays nothing twice.
    TurnLog::for_home(home.path()).open().unwrap();
    assert_eq!(lines_of(&file).len(), 3);
}

#[test]
fn the_newest_inflight_notes_win_and_a_clean_stop_keeps_only_them() {
    let home = tempfile::tempdir().unwrap();
    let log = TurnLog::for_home(home.path());
    log.write(Vec::new(), Some(&note("t1")), Urgency::Soon, None)
        .unwrap();
    log.write_durable(
        vec![record(home.path(), "sessions/s.jsonl", 1)],
        Some(&note("t2")),
    )
    .unwrap();
    assert_eq!(read_inflight(home.path()), notes("t2"));
    assert!(!inflight_path_exists(home.path()), "no whole-file rewrite");
    drop(log);
    assert_eq!(lines_of(&home.path().join(JOURNAL_FILE)).len(), 1);
    assert_eq!(read_inflight(home.path()), notes("t2"));
    assert_eq!(lines_of(&home.path().join("sessions/s.jsonl")).len(), 1);
}

fn inflight_path_exists(home: &Path) -> bool {
    crate::inflight::inflight_path(home).exists()
}

#[test]
fn an_older_homes_inflight_json_is_carried_into_the_journal() {
    let home = tempfile::tempdir().unwrap();
    write_inflight(home.path(), &notes("old")).unwrap();
    TurnLog::for_home(home.path()).open().unwrap();
    assert!(!inflight_path_exists(home.path()));
    assert_eq!(read_inflight(home.path()), notes("old"));
}

#[test]
fn a_file_outside_the_home_is_refused() {
    let home = tempfile::tempdir().unwrap();
    let outside = home.path().parent().unwrap().join("x.jsonl");
    assert!(Record::new(home.path(), &outside, &json!({"seq": 1})).is_err());
    assert!(Record::new(home.path(), &home.path().join("../x.jsonl"), &json!({})).is_err());
}

#[tokio::test]
async fn settled_resolves_once_every_earlier_line_is_durable() {
    let home = tempfile::tempdir().unwrap();
    let log = TurnLog::for_home(home.path());
    let (tx, rx) = std::sync::mpsc::channel();
    let done: OnDurable = Box::new(move |result| {
        let _ = tx.send(result.is_ok());
    });
    log.write(
        vec![record(home.path(), "sessions/s.jsonl", 1)],
        None,
        Urgency::Soon,
        Some(done),
    )
    .unwrap();
    log.settled().await.unwrap();
    assert_eq!(rx.try_recv(), Ok(true), "the earlier callback ran first");
}

#[test]
/// Rule #1203.
fn a_rooms_newest_run_note_wins_survives_a_restart_and_null_forgets_it() {
    let home = tempfile::tempdir().unwrap();
    let log = TurnLog::for_home(home.path());
    let run = |n: u64| json!({"pending": [n], "seen": {"b1": n}});
    log.write_room_run("r1", Some(&run(1)), Urgency::Soon)
        .unwrap();
    log.write_room_run("r2", Some(&run(7)), Urgency::Soon)
        .unwrap();
    log.write_room_run("r1", Some(&run(2)), Urgency::Soon)
        .unwrap();
    log.write_room_run("r3", Some(&run(9)), Urgency::Soon)
        .unwrap();
    log.write_room_run("r3", None, Urgency::Soon).unwrap();
    log.write_durable(Vec::new(), Some(&note("t1"))).unwrap();
    let rooms = read_journal_rooms(home.path()).unwrap();
    assert_eq!(rooms.keys().collect::<Vec<_>>(), ["r1", "r2"]);
    assert_eq!(rooms["r1"], run(2));
    // A clean stop (a checkpoint) keeps only the newest notes, one a room.
    drop(log);
    assert_eq!(
        lines_of(&home.path().join(JOURNAL_FILE)),
        [
            r#"{"note":{"sessionId":"s","turnId":"t1","queued":[{"id":"m1"}]}}"#,
            r#"{"room":"r1","run":{"pending":[2],"seen":{"b1":2}}}"#,
            r#"{"room":"r2","run":{"pending":[7],"seen":{"b1":7}}}"#,
        ]
    );
    // A start after a crash carries them too.
    fs::write(
        home.path().join(JOURNAL_FILE),
        [
            r#"{"room":"r1","run":{"pending":[3]}}"#,
            r#"{"room":"r2","run":null}"#,
            r#"{"room":"r1","run":{"pending":[4"#,
        ]
        .join("\n"),
    )
    .unwrap();
    TurnLog::for_home(home.path()).open().unwrap();
    let rooms = read_journal_rooms(home.path()).unwrap();
    assert_eq!(rooms.len(), 1);
    assert_eq!(rooms["r1"], json!({"pending": [3]}));
}

/// A Session's note with `queued` items queued and, if given, a turn.
fn session_note(session: &str, turn: Option<&str>, queued: &[&str]) -> SessionNote {
    SessionNote {
        session_id: session.into(),
        turn_id: turn.map(str::to_owned),
        items: Vec::new(),
        queued: queued.iter().map(|id| json!({ "id": id })).collect(),
    }
}

/// Copies the home as a kill -9 leaves it: the journal as written, no
/// checkpoint.
fn crash_copy(home: &Path) -> tempfile::TempDir {
    let copy = tempfile::tempdir().unwrap();
    fs::copy(home.join(JOURNAL_FILE), copy.path().join(JOURNAL_FILE)).unwrap();
    copy
}

#[test]
fn a_restart_reads_each_sessions_newest_note_and_a_settled_session_is_not_picked_up_13() {
    let home = tempfile::tempdir().unwrap();
    let log = TurnLog::for_home(home.path());
    let write = |note: SessionNote| log.write(Vec::new(), Some(&note), Urgency::Soon, None);
    write(session_note("a", None, &["a1"])).unwrap();
    write(session_note("b", None, &["b1"])).unwrap();
    write(session_note("a", Some("ta"), &["a2"])).unwrap();
    write(session_note("c", Some("tc"), &[])).unwrap();
    log.write_durable(Vec::new(), Some(&session_note("b", Some("tb"), &[])))
        .unwrap();
    // b's turn ends and nothing is queued: it owes nothing any more.
    log.write_durable(Vec::new(), Some(&SessionNote::settled("b")))
        .unwrap();
    let expected = Inflight::from_notes(&[
        session_note("a", Some("ta"), &["a2"]),
        session_note("c", Some("tc"), &[]),
    ]);
    assert_eq!(read_inflight(home.path()), expected);
    // Each note names its own Session's work alone, never another's.
    let journal = lines_of(&home.path().join(JOURNAL_FILE));
    assert!(
        journal
            .iter()
            .all(|line| line.matches("sessionId").count() == 1)
    );
    // kill -9 now: the next start reads the same, b is not picked up, and
    // the fresh journal carries one note for each Session that owes.
    let crashed = crash_copy(home.path());
    assert_eq!(read_inflight(crashed.path()), expected);
    TurnLog::for_home(crashed.path()).open().unwrap();
    assert_eq!(
        lines_of(&crashed.path().join(JOURNAL_FILE)),
        [
            r#"{"note":{"sessionId":"a","turnId":"ta","queued":[{"id":"a2"}]}}"#,
            r#"{"note":{"sessionId":"c","turnId":"tc"}}"#,
        ]
    );
    assert_eq!(read_inflight(crashed.path()), expected);
    // A clean stop carries the same.
    drop(log);
    assert_eq!(read_inflight(home.path()), expected);
    assert_eq!(lines_of(&home.path().join(JOURNAL_FILE)).len(), 2);
}

#[test]
fn an_older_journals_whole_set_is_replaced_by_a_later_sessions_note_13() {
    let home = tempfile::tempdir().unwrap();
    let journal = [
        r#"{"inflight":{"turns":[{"sessionId":"a","turnId":"ta"},{"sessionId":"b","turnId":"tb"}],"queued":[{"sessionId":"a","item":{"id":"a1"}}]}}"#,
        r#"{"note":{"sessionId":"a"}}"#,
    ];
    fs::write(home.path().join(JOURNAL_FILE), journal.join("\n")).unwrap();
    let expected = Inflight::from_notes(&[session_note("b", Some("tb"), &[])]);
    assert_eq!(read_inflight(home.path()), expected);
    TurnLog::for_home(home.path()).open().unwrap();
    assert_eq!(read_inflight(home.path()), expected);
}
