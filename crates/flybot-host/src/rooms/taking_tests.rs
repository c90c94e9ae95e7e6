#![allow(clippy::unwrap_used)]
use super::Delivered;
use crate::events::Bus;
use crate::rooms::logs::{RoomLogs, RoundStart};
use flybot_core::rooms::log::{AuthorKind, LineKind};
use flybot_store::room_log::NewLine;
use std::path::Path;

/// A start after a kill: the logs read back, the rooms' runs restored.
fn restart(home: &Path) -> (std::sync::Arc<RoomLogs>, Vec<RoundStart>) {
    let logs = RoomLogs::new(home.to_owned());
    let starts = logs.restore();
    (logs, starts)
}

fn fresh_round(room: &str, opener_seq: u64) -> RoundStart {
    RoundStart {
        room_id: room.to_owned(),
        opener_seq,
        resume: None,
    }
}

fn friends_line() -> NewLine {
    NewLine {
        author_id: "@alice:home-a".to_owned(),
        author_kind: AuthorKind::Human,
        kind: LineKind::Chat,
        text: "first line".to_owned(),
        at: 1,
        hop: 0,
    }
}

#[test]
/// Rule #83: the round a line opened survives a kill that comes before the
/// round's driver noted the round.
fn a_round_opened_before_its_driver_noted_it_opens_again_after_a_restart() {
    let home = tempfile::tempdir().unwrap();
    let (logs, _driver_never_ran) = RoomLogs::with_rounds(home.path().to_owned(), Bus::default());
    assert!(logs.open_round("r1", 5));
    drop(logs);

    let (_, starts) = restart(home.path());
    assert_eq!(starts, [fresh_round("r1", 5)]);
}

#[test]
/// Rules #83, #455: the lines that waited for the next round are its
/// opener from the moment the last round ended, also across a kill.
fn the_next_round_of_lines_that_waited_is_noted_when_the_round_before_ends() {
    let home = tempfile::tempdir().unwrap();
    let logs = RoomLogs::new(home.path().to_owned());
    logs.run("r1", |r| {
        r.running = true;
        r.pending.extend([7, 9]);
    });
    assert_eq!(logs.next_opener("r1"), Some(9));
    drop(logs);

    let (logs, starts) = restart(home.path());
    assert_eq!(starts, [fresh_round("r1", 9)]);
    // The restored round ends with nothing waiting: the room is idle.
    assert_eq!(logs.next_opener("r1"), None);
    drop(logs);
    assert!(restart(home.path()).1.is_empty());
}

#[test]
/// Rule #83: a remote line a kill left in the log before the run took it
/// is handed to the round when the sync delivers it again, once; a line
/// the run took is not handed over twice.
fn a_redelivered_remote_line_is_owed_its_round_until_the_run_took_it() {
    let home = tempfile::tempdir().unwrap();
    let logs = RoomLogs::new(home.path().to_owned());
    let first = logs.deliver("r1", friends_line()).unwrap();
    assert!(first.owed);
    drop(logs);

    // Delivered again after the kill: in the log once, and still owed.
    let (logs, starts) = restart(home.path());
    assert!(starts.is_empty());
    let again = logs.deliver("r1", friends_line()).unwrap();
    assert_eq!(again, first);
    assert_eq!(logs.recent("r1", 10).unwrap().len(), 1);
    assert!(logs.open_round_taking("r1", again.seq));
    drop(logs);

    // Taken now: a later redelivery opens nothing more.
    let (logs, starts) = restart(home.path());
    assert_eq!(starts, [fresh_round("r1", first.seq)]);
    let third = logs.deliver("r1", friends_line()).unwrap();
    assert_eq!(
        third,
        Delivered {
            seq: first.seq,
            owed: false
        }
    );
}
