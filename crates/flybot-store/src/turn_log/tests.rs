//! The turn log: group commit, files kept open, replay after a crash, the
//! in-flight notes as appended records (issue 19).

use super::*;
use crate::inflight::{QueuedNote, TurnNote, read_inflight, write_inflight};
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
    // The journal starts again from the newest notes only.
    assert_eq!(
        lines_of(&home.path().join(JOURNAL_FILE)),
        [r#"{"inflight":{"turns":[{"sessionId":"s","turnId":"t9"}],"queued":[]}}"#]
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
    log.write(Vec::new(), Some(&notes("t1")), Urgency::Soon, None)
        .unwrap();
    log.write_durable(
        vec![record(home.path(), "sessions/s.jsonl", 1)],
        Some(&notes("t2")),
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
fn a_rooms_newest_run_note_wins_survives_a_restart_and_null_forgets_it_1203() {
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
    log.write_durable(Vec::new(), Some(&notes("t1"))).unwrap();
    let rooms = read_journal_rooms(home.path()).unwrap();
    assert_eq!(rooms.keys().collect::<Vec<_>>(), ["r1", "r2"]);
    assert_eq!(rooms["r1"], run(2));
    // A clean stop (a checkpoint) keeps only the newest notes, one a room.
    drop(log);
    assert_eq!(
        lines_of(&home.path().join(JOURNAL_FILE)),
        [
            r#"{"inflight":{"turns":[{"sessionId":"s","turnId":"t1"}],"queued":[{"sessionId":"s","item":{"id":"m1"}}]}}"#,
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
