//! How long the journal writer holds a batch open for more lines before its
//! one write and fsync (group commit). A lone change is written at once. A
//! change being made right now (`making` > 0, counting a change waiting
//! for the team another one holds) is waited for: its line is microseconds
//! away. And while the team is busy (the last batch carried
//! several lines, and ended moments ago) a batch also waits a short quiet
//! gap for the next change of the burst, so a burst shares one fsync
//! instead of the first few paying one and the rest queueing behind it for
//! a second. Every wait is bounded by the last measured fsync: holding a
//! batch open never costs more than the fsync it saves.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError};
use std::time::{Duration, Instant};

/// How long the writer waits for another line when no change is being
/// made and the team is quiet: covers two requests handled back to back.
const GATHER_GRACE: Duration = Duration::from_micros(8);
/// The most a quiet team's batch waits for followers in all.
const GATHER_MAX: Duration = Duration::from_micros(400);
/// While busy: the shortest and longest quiet gap a batch waits for the
/// next change of the burst (between them, an eighth of the last fsync).
/// The gap covers one change ending and the next one starting.
const BURST_QUIET_MIN: Duration = Duration::from_micros(16);
const BURST_QUIET_MAX: Duration = Duration::from_micros(200);
/// While busy: the most a batch waits in all, at most one fsync.
const BURST_MAX: Duration = Duration::from_millis(2);
/// A batch starting this soon after a batch of several lines is part of
/// the same burst.
const BURST_RECENT: Duration = Duration::from_millis(10);

/// What the writer remembers of its last batches.
#[derive(Debug, Default)]
pub(crate) struct GroupCommit {
    /// The batch being gathered: when its first line arrived.
    since: Option<Instant>,
    /// The last batch: how many lines, when it was on disk, how long its
    /// write and fsync took.
    last_lines: usize,
    last_done: Option<Instant>,
    last_sync: Duration,
}

impl GroupCommit {
    /// A batch of `lines` lines is on disk; its write and fsync took `sync`.
    pub(crate) fn batch_done(&mut self, lines: usize, sync: Duration) {
        self.since = None;
        self.last_lines = lines;
        self.last_done = Some(Instant::now());
        self.last_sync = sync;
    }

    /// Whether the team is in a burst of changes: this batch already holds
    /// `lines` of them (a burst that started on a quiet team), or the last
    /// batch held several and ended moments ago.
    fn busy(&self, lines: usize) -> bool {
        lines > 1
            || self.last_lines > 1 && self.last_done.is_some_and(|t| t.elapsed() < BURST_RECENT)
    }

    /// How long a batch of `lines` lines waits for the next line after the
    /// last one (the quiet gap) and in all (the cap).
    fn bounds(&self, lines: usize) -> (Duration, Duration) {
        if !self.busy(lines) {
            return (GATHER_GRACE, GATHER_MAX);
        }
        // No fsync measured yet: a quiet team's cap.
        let sync = if self.last_sync.is_zero() {
            GATHER_MAX
        } else {
            self.last_sync
        };
        let gap = (sync / 8).clamp(BURST_QUIET_MIN, BURST_QUIET_MAX);
        (gap, sync.min(BURST_MAX))
    }

    /// The next line of a batch holding `lines` lines, if one comes before
    /// the batch should go: while a change is being made, or within the
    /// quiet gap, and never past the cap. A closed queue ends the batch.
    pub(crate) fn more<T>(
        &mut self,
        rx: &Receiver<T>,
        making: &AtomicUsize,
        lines: usize,
    ) -> Option<T> {
        let started = *self.since.get_or_insert_with(Instant::now);
        let (gap, cap) = self.bounds(lines);
        // A timed sleep would overshoot by the kernel's timer slack (tens of
        // microseconds, as long as a fast disk's fsync); yielding keeps the
        // wait short and lets the changes being made run.
        let quiet = Instant::now();
        while (making.load(Ordering::SeqCst) > 0 || quiet.elapsed() < gap)
            && started.elapsed() < cap
        {
            match rx.try_recv() {
                Ok(msg) => return Some(msg),
                Err(TryRecvError::Disconnected) => return None,
                Err(TryRecvError::Empty) => std::thread::yield_now(),
            }
        }
        None
    }
}

/// Counts one change in the making for as long as it lives.
pub(crate) struct Making<'a>(&'a AtomicUsize);

impl<'a> Making<'a> {
    pub(crate) fn enter(count: &'a AtomicUsize) -> Self {
        count.fetch_add(1, Ordering::SeqCst);
        Making(count)
    }
}

impl Drop for Making<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::sync::mpsc::channel;

    #[test]
    fn a_lone_change_is_written_at_once_and_a_burst_waits_for_its_next_line() {
        let (tx, rx) = channel::<u32>();
        let making = AtomicUsize::new(0);
        let mut commit = GroupCommit::default();
        // Quiet team, nothing coming: the batch goes.
        assert_eq!(commit.more(&rx, &making, 1), None);
        commit.batch_done(1, Duration::from_millis(4));
        assert!(!commit.busy(1), "one line is no burst");
        commit.batch_done(5, Duration::from_millis(4));
        assert!(commit.busy(1));
        // Busy: a line already queued joins the batch.
        tx.send(7).unwrap();
        assert_eq!(commit.more(&rx, &making, 1), Some(7));
        // The senders are gone: the batch goes.
        drop(tx);
        assert_eq!(commit.more(&rx, &making, 2), None);
    }

    #[test]
    fn a_burst_waits_no_longer_than_the_fsync_it_saves() {
        let mut commit = GroupCommit::default();
        assert_eq!(commit.bounds(1), (GATHER_GRACE, GATHER_MAX), "a quiet team");
        // A fast disk: a short gap, and no more than one fsync in all.
        commit.batch_done(32, Duration::from_micros(240));
        assert_eq!(
            commit.bounds(1),
            (Duration::from_micros(30), Duration::from_micros(240))
        );
        // A very fast disk: the gap still covers one change handing over to the next.
        commit.batch_done(32, Duration::from_micros(40));
        assert_eq!(
            commit.bounds(1),
            (BURST_QUIET_MIN, Duration::from_micros(40))
        );
        // A slow disk: both bounded.
        commit.batch_done(32, Duration::from_millis(9));
        assert_eq!(commit.bounds(1), (BURST_QUIET_MAX, BURST_MAX));
    }

    #[test]
    fn a_burst_on_a_quiet_team_is_gathered_once_its_second_line_is_in() {
        let mut commit = GroupCommit::default();
        // A lone change went moments ago: the team is quiet.
        commit.batch_done(1, Duration::from_micros(240));
        assert_eq!(commit.bounds(1), (GATHER_GRACE, GATHER_MAX));
        // A second line joined this batch: it is a burst, and the batch
        // waits for the rest of it as long as the last fsync.
        assert_eq!(
            commit.bounds(2),
            (Duration::from_micros(30), Duration::from_micros(240))
        );
        // No fsync measured yet: bounded as a quiet team's batch is.
        let fresh = GroupCommit::default();
        assert_eq!(fresh.bounds(2), (Duration::from_micros(50), GATHER_MAX));
    }
}
