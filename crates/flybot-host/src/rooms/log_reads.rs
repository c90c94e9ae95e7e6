//! Reading a room's log by window (issue 38): its newest lines are held in
//! memory, older ones read back from the file, so what a read costs is the
//! lines it answers, not the room's length. Every read here walks the log
//! newest first and stops as soon as it has its answer.

use super::logs::RoomLogs;
use flybot_core::rooms::log::RoomLine;
use flybot_core::sync::lock;
use std::io;

/// A page of lines read from the end: the newest `limit` lines of a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinePage {
    /// The first seq the reader may see (its window's start, #50).
    pub from: u64,
    /// Only lines after this seq (`after`, the page's live catch-up).
    pub after: Option<u64>,
    /// Only lines before this seq (`before`, "Load earlier").
    pub before: Option<u64>,
    pub limit: usize,
}

impl RoomLogs {
    /// Every stored line, durable or not, oldest first, for the host's own
    /// reading of a whole room (search, the pilot, `read_group_chat`); the
    /// lines older than the held window come from the file.
    pub fn lines(&self, room_id: &str) -> io::Result<Vec<RoomLine>> {
        self.with_log(room_id, |log| log.read_all())?
    }

    /// The lines after seq `after`, oldest first.
    pub fn lines_after(&self, room_id: &str, after: u64) -> io::Result<Vec<RoomLine>> {
        let mut lines = Vec::new();
        self.with_log(room_id, |log| {
            log.read_back(|line| {
                let newer = line.seq > after;
                if newer {
                    lines.push(line.clone());
                }
                newer
            })
        })??;
        lines.reverse();
        Ok(lines)
    }

    /// The newest `n` lines, oldest first.
    pub fn recent(&self, room_id: &str, n: usize) -> io::Result<Vec<RoomLine>> {
        let mut lines = Vec::new();
        self.with_log(room_id, |log| {
            log.read_back(|line| {
                if lines.len() < n {
                    lines.push(line.clone());
                }
                lines.len() < n
            })
        })??;
        lines.reverse();
        Ok(lines)
    }

    /// The newest line after seq `floor` that `wanted` picks.
    pub fn find_back(
        &self,
        room_id: &str,
        floor: u64,
        wanted: impl Fn(&RoomLine) -> bool,
    ) -> Option<RoomLine> {
        let mut found = None;
        let read = self.with_log(room_id, |log| {
            log.read_back(|line| {
                if line.seq > floor && wanted(line) {
                    found = Some(line.clone());
                }
                found.is_none() && line.seq > floor + 1
            })
        });
        if let Ok(Err(e)) | Err(e) = read {
            tracing::warn!("the lines of {room_id} could not be read back: {e}");
        }
        found
    }

    /// The line at `seq`.
    pub fn line_at(&self, room_id: &str, seq: u64) -> Option<RoomLine> {
        self.find_back(room_id, seq.saturating_sub(1), |l| l.seq == seq)
    }

    /// The durable lines of `page`, oldest first, and whether older lines
    /// of the window are left before them.
    pub fn shown_page(&self, room_id: &str, page: LinePage) -> io::Result<(Vec<RoomLine>, bool)> {
        let mark = lock(&self.shown).get(room_id).copied();
        let mut lines = Vec::new();
        let mut earlier = false;
        let floor = page.from.max(page.after.map_or(0, |a| a + 1));
        self.with_log(room_id, |log| {
            let mark = mark.unwrap_or_else(|| log.last_seq());
            log.read_back(|line| {
                if line.seq < floor {
                    return false;
                }
                let shown = line.seq <= mark && page.before.is_none_or(|b| line.seq < b);
                if shown && lines.len() == page.limit {
                    earlier = true;
                    return false;
                }
                if shown {
                    lines.push(line.clone());
                }
                true
            })
        })??;
        lines.reverse();
        Ok((lines, earlier))
    }
}
