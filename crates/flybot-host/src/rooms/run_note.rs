//! A room's run note: the part of its run state a restart must not lose —
//! the lines waiting for the next round, the round running now (who spoke,
//! who is next, its caps, and the member turn in flight), each member's
//! seen cursor (#1203), the late-round count (#557), the closing reports
//! owed (#913) and the posts waiting for the round's next head (#932).
//! `RoomLogs::run` writes it to the turn log whenever it changes; a start
//! reads it back (`RoomLogs::restore`) and finishes the round.

use super::logs::{MidPost, RoomRun};
use flybot_core::rooms::round::Round;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The round a room is running.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RoundNote {
    /// The seq of the line that opened it.
    pub opener_seq: u64,
    pub round: Round,
    /// The member turn in flight, if one is.
    #[serde(default)]
    pub turn: Option<TurnMark>,
}

/// Where a member's turn began: its Session log's last seq and the room's,
/// so a restart reads that turn's answer instead of asking the model again,
/// and sees whether its line was already posted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnMark {
    pub bot_id: String,
    pub session_id: String,
    pub session_after: u64,
    pub room_after: u64,
}

/// What the turn log keeps of one room's run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RunNote {
    pub round: Option<RoundNote>,
    pub pending: Vec<u64>,
    pub seen: BTreeMap<String, u64>,
    pub late_rounds: u32,
    pub report_back: BTreeSet<u64>,
    pub mid_posts: Vec<MidPost>,
    pub stopped: bool,
    pub halted: bool,
    pub opening: Option<u64>,
    pub taken: u64,
}

impl RunNote {
    /// The note of `run`; `None` when nothing of it is owed after a restart.
    pub fn of(run: &RoomRun) -> Option<RunNote> {
        let note = RunNote {
            round: run.round.clone(),
            pending: run.pending.clone(),
            seen: run.seen.clone(),
            late_rounds: run.late_rounds,
            report_back: run.report_back.clone(),
            mid_posts: run.mid_posts.clone(),
            stopped: run.stopped,
            halted: run.halted,
            opening: run.opening,
            taken: run.taken,
        };
        (note != RunNote::default()).then_some(note)
    }

    /// The run state a restart starts the room from: nothing runs yet.
    pub fn into_run(self) -> RoomRun {
        RoomRun {
            round: self.round,
            pending: self.pending,
            seen: self.seen,
            late_rounds: self.late_rounds,
            report_back: self.report_back,
            mid_posts: self.mid_posts,
            stopped: self.stopped,
            halted: self.halted,
            opening: self.opening,
            taken: self.taken,
            ..RoomRun::default()
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::logs::RoomLogs;

    #[test]
    /// Rules #1203, #557.
    fn seen_cursors_late_rounds_and_queued_lines_survive_a_restart() {
        let home = tempfile::tempdir().unwrap();
        let logs = RoomLogs::new(home.path().to_owned());
        logs.run("r1", |r| {
            r.seen.insert("bot-a".into(), 4);
            r.late_rounds = 3;
        });
        logs.run("r2", |r| {
            r.running = true;
            r.pending.extend([7, 9, 8]);
        });
        drop(logs);

        let logs = RoomLogs::new(home.path().to_owned());
        let starts = logs.restore();
        // The room with waiting lines opens a round on the newest (its turn
        // text shows the others); the idle room opens none.
        assert_eq!(starts.len(), 1);
        assert_eq!(
            (starts[0].room_id.as_str(), starts[0].opener_seq),
            ("r2", 9)
        );
        assert!(starts[0].resume.is_none());
        assert!(logs.run("r2", |r| r.running && r.pending.is_empty()));
        let (seen, late) = logs.run("r1", |r| (r.seen.get("bot-a").copied(), r.late_rounds));
        assert_eq!((seen, late), (Some(4), 3));
        assert!(!logs.run("r1", |r| r.running));
    }
}
