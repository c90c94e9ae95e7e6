//! What a room's run has taken, kept so that a restart loses no line it was
//! handed (#83): the line the next round opens on, noted as the run's
//! `opening` in the same look that empties its queue, and a remote line
//! redelivered after a crash, taken again when the run never noted taking
//! it. Without them, a line that reached the log just before a kill was
//! shown in the room and never answered.

use super::logs::{MidPost, RoomLogs, RoomRun};
use flybot_core::rooms::log::{AuthorKind, LineKind};
use flybot_store::room_log::NewLine;
use std::io;

/// How far back a redelivery looks for a line already in the log.
const REDELIVERY_TAIL: usize = 64;

/// A remote line, in the room's log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delivered {
    pub seq: u64,
    /// The run has not taken it: it goes to the round now.
    pub owed: bool,
}

impl RoomRun {
    /// Notes the remote line at `seq` taken by the run (`RoomRun::taken`).
    pub fn take(&mut self, seq: u64) {
        self.taken = self.taken.max(seq);
    }
}

impl RoomLogs {
    /// The line the room's next round opens on, once a round ended (none:
    /// the room is idle now). Lines that waited together are answered by
    /// the newest one, a person's line before a Bot's post queued with it
    /// (#455, #462: a friend's line that came mid-round is not lost behind
    /// a Bot's own post); such posts are posts in that round (#932).
    pub fn next_opener(&self, room_id: &str) -> Option<u64> {
        let (waiting, late_posts) = self.run(room_id, |r| {
            r.round = None;
            // A post that came after the round's last turn opens the next.
            let late_posts = std::mem::take(&mut r.mid_posts);
            let halted = std::mem::take(&mut r.halted);
            r.pending.extend(late_posts.iter().map(|post| post.seq));
            let waiting = std::mem::take(&mut r.pending);
            r.opening = waiting.iter().max().copied().filter(|_| !halted);
            if r.opening.is_none() {
                r.running = false;
                return None;
            }
            Some((waiting, late_posts))
        })?;
        let newest = waiting.iter().max().copied()?;
        let person = (waiting.iter().copied())
            .filter(|seq| {
                self.line_at(room_id, *seq)
                    .is_some_and(|l| l.author_kind == AuthorKind::Human && l.kind == LineKind::Chat)
            })
            .max();
        let opener = person.unwrap_or(newest);
        if opener != newest {
            let behind: Vec<MidPost> = (late_posts.into_iter())
                .filter(|post| post.seq > opener)
                .collect();
            self.run(room_id, |r| {
                r.mid_posts.extend(behind);
                r.opening = Some(opener);
            });
        }
        Some(opener)
    }

    /// Appends a remote `line` unless the log's tail holds it already (a
    /// redelivery after a crash: the same author and text), and says
    /// whether the run still owes it its round: a line appended now, or
    /// one a crash appended before the run noted taking it.
    pub fn deliver(&self, room_id: &str, line: NewLine) -> io::Result<Delivered> {
        let tail = self.recent(room_id, REDELIVERY_TAIL)?;
        let found = (tail.iter().rev())
            .find(|l| l.author_id == line.author_id && l.text == line.text)
            .map(|l| l.seq);
        Ok(match found {
            Some(seq) => Delivered {
                seq,
                owed: self.run(room_id, |r| seq > r.taken),
            },
            None => Delivered {
                seq: self.append(room_id, line)?.seq,
                owed: true,
            },
        })
    }

    /// Opens (or queues) the round of a delivered remote line, noting it
    /// taken in the same look.
    pub fn open_round_taking(&self, room_id: &str, seq: u64) -> bool {
        self.open_round_noting(room_id, seq, |r| r.take(seq))
    }

    /// Notes that the run took the line at `seq` without a round: a quiet
    /// line, or one that calls nobody here.
    pub fn pass_over(&self, room_id: &str, seq: u64) {
        self.run(room_id, |r| r.take(seq));
    }
}

#[cfg(test)]
#[path = "taking_tests.rs"]
mod tests;
