//! How long the journal writer holds a batch open for more lines before its
//! one write and fsync (group commit). A lone change is written at once. A
//! change being made right now (`Makers` counts it, a change waiting for
//! the team another one holds included) is waited for: its line is
//! microseconds away. And while the team is busy (the last batch carried
//! several lines, and ended moments ago) a batch also waits a short quiet
//! gap for the next change of the burst, so a burst shares one fsync
//! instead of the first few paying one and the rest queueing behind it for
//! a second. A batch stays open while its burst's lines keep coming, and a
//! change that stalls is waited for no longer than the last measured fsync,
//! the most it could save; no batch waits past `BURST_MAX` in all. (A batch
//! capped at one fsync from its first line split a burst that took longer
//! to make than one fsync, and its last lines paid a second fsync.)
//!
//! The wait for changes being made blocks (issue 38): the writer parks and
//! the change that leaves the team with none in the making wakes it, so a
//! burst's changes have both cores to themselves instead of sharing them
//! with a writer spinning on `sched_yield`.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError};
use std::thread::Thread;
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
/// While busy: the most a batch waits in all.
const BURST_MAX: Duration = Duration::from_millis(2);
/// A batch starting this soon after a batch of several lines is part of
/// the same burst.
const BURST_RECENT: Duration = Duration::from_millis(10);

/// The changes being made right now, and the writer parked until there are
/// none: the last one to leave wakes it.
#[derive(Debug, Default)]
pub(crate) struct Makers {
    count: AtomicUsize,
    /// Set while the writer is parked in `wait_idle`.
    waiting: AtomicBool,
    writer: Mutex<Option<Thread>>,
}

impl Makers {
    fn count(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }

    fn leave(&self) {
        if self.count.fetch_sub(1, Ordering::SeqCst) == 1 && self.waiting.load(Ordering::SeqCst) {
            let writer = self.writer.lock().map(|w| w.clone()).unwrap_or(None);
            if let Some(writer) = writer {
                writer.unpark();
            }
        }
    }

    /// Parks the calling thread until no change is being made, or until
    /// `deadline`. An unpark that lands before the park is kept by the
    /// thread, so no wake-up is lost between the look and the park.
    fn wait_idle(&self, deadline: Instant) {
        if let Ok(mut writer) = self.writer.lock() {
            *writer = Some(std::thread::current());
        }
        self.waiting.store(true, Ordering::SeqCst);
        while self.count() > 0 {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            std::thread::park_timeout(deadline - now);
        }
        self.waiting.store(false, Ordering::SeqCst);
    }
}

/// How long a batch waits for its next line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Bounds {
    /// No change being made: the quiet gap after the last line.
    gap: Duration,
    /// Changes being made: the longest wait for their next line. A burst
    /// whose lines keep coming is gathered whole, however many it makes.
    stall: Duration,
    /// The most the batch waits in all, from its first line.
    cap: Duration,
}

impl Bounds {
    /// When a batch begun at `started`, whose last line came at
    /// `last_line`, stops waiting for changes being made.
    fn deadline(&self, started: Instant, last_line: Instant) -> Instant {
        (started + self.cap).min(last_line + self.stall)
    }
}

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

    /// How long a batch of `lines` lines waits for its next line.
    fn bounds(&self, lines: usize) -> Bounds {
        if !self.busy(lines) {
            return Bounds {
                gap: GATHER_GRACE,
                stall: GATHER_MAX,
                cap: GATHER_MAX,
            };
        }
        // No fsync measured yet: a quiet team's cap.
        let sync = if self.last_sync.is_zero() {
            GATHER_MAX
        } else {
            self.last_sync
        };
        Bounds {
            gap: (sync / 8).clamp(BURST_QUIET_MIN, BURST_QUIET_MAX),
            stall: sync.min(BURST_MAX),
            cap: BURST_MAX,
        }
    }

    /// The next line of a batch holding `lines` lines, if one comes before
    /// the batch should go: while changes are being made and their lines
    /// keep coming (no line for `stall` ends the wait), or within the quiet
    /// gap, and never past the cap. A closed queue ends the batch.
    pub(crate) fn more<T>(&mut self, rx: &Receiver<T>, makers: &Makers, lines: usize) -> Option<T> {
        // Each call follows the line just taken.
        let last_line = Instant::now();
        let started = *self.since.get_or_insert(last_line);
        let wait = self.bounds(lines);
        let deadline = wait.deadline(started, last_line);
        let mut quiet = last_line;
        loop {
            match rx.try_recv() {
                Ok(msg) => return Some(msg),
                Err(TryRecvError::Disconnected) => return None,
                Err(TryRecvError::Empty) => {}
            }
            if Instant::now() >= deadline {
                return None;
            }
            if makers.count() > 0 {
                // Changes are being made: park until the last one is done
                // (its line is queued by then), then look again.
                makers.wait_idle(deadline);
                quiet = Instant::now();
                continue;
            }
            if quiet.elapsed() >= wait.gap {
                return None;
            }
            // The quiet gap, while no change is being made: a timed sleep
            // would overshoot it by the kernel's timer slack (tens of
            // microseconds, as long as a fast disk's fsync), and yielding
            // takes time from nobody, since no change is being made.
            std::thread::yield_now();
        }
    }
}

/// Counts one change in the making for as long as it lives, or until its
/// line is handed to the writer (`done`).
pub(crate) struct Making<'a>(&'a Makers);

impl<'a> Making<'a> {
    pub(crate) fn enter(makers: &'a Makers) -> Self {
        makers.count.fetch_add(1, Ordering::SeqCst);
        Making(makers)
    }

    /// The change's line is about to be queued: it is no longer counted,
    /// so a writer parked for it wakes now and finds the line queued (or
    /// within its quiet gap), without a second park for this change.
    pub(crate) fn done(self) {}
}

impl Drop for Making<'_> {
    fn drop(&mut self) {
        self.0.leave();
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
        let making = Makers::default();
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
    fn a_writer_parked_for_changes_being_made_wakes_when_the_last_one_leaves() {
        let makers = Makers::default();
        std::thread::scope(|scope| {
            let first = Making::enter(&makers);
            let second = Making::enter(&makers);
            // The deadline is far: only the last change's leaving ends the wait.
            let writer = scope.spawn(|| {
                makers.wait_idle(Instant::now() + Duration::from_secs(60));
                makers.count()
            });
            drop(first);
            second.done();
            assert_eq!(writer.join().unwrap(), 0);
        });
    }

    /// The bounds of a busy team's batch after a last fsync of `sync`.
    fn busy_after(sync: Duration) -> Bounds {
        let mut commit = GroupCommit::default();
        commit.batch_done(32, sync);
        commit.bounds(1)
    }

    fn quiet() -> Bounds {
        Bounds {
            gap: GATHER_GRACE,
            stall: GATHER_MAX,
            cap: GATHER_MAX,
        }
    }

    #[test]
    fn a_burst_waits_for_a_stalled_change_no_longer_than_the_fsync_it_saves() {
        assert_eq!(GroupCommit::default().bounds(1), quiet(), "a quiet team");
        let us = Duration::from_micros;
        // A fast disk: a short gap, and a stalled change is waited for no
        // longer than one fsync.
        let fast = busy_after(us(240));
        assert_eq!(
            (fast.gap, fast.stall, fast.cap),
            (us(30), us(240), BURST_MAX)
        );
        // A very fast disk: the gap still covers one change handing over to the next.
        let faster = busy_after(us(40));
        assert_eq!((faster.gap, faster.stall), (BURST_QUIET_MIN, us(40)));
        // A slow disk: both bounded.
        let slow = busy_after(Duration::from_millis(9));
        assert_eq!((slow.gap, slow.stall), (BURST_QUIET_MAX, BURST_MAX));
    }

    /// Issue 38: a burst of 32 took longer to make than one fsync, and the
    /// batch, capped at one fsync from its first line, went with part of
    /// the burst; the rest paid a second fsync. A batch now stays open as
    /// long as its lines keep coming, up to `BURST_MAX`.
    #[test]
    fn a_burst_whose_lines_keep_coming_is_gathered_past_one_fsync() {
        let sync = Duration::from_micros(200);
        let wait = busy_after(sync);
        let t0 = Instant::now();
        // A line came just now: the batch waits one more fsync for the next.
        assert_eq!(wait.deadline(t0, t0), t0 + sync);
        // Lines kept coming for 1.5 fsyncs: it still waits, past one fsync.
        let late = t0 + sync * 3 / 2;
        assert_eq!(wait.deadline(t0, late), late + sync);
        // However long they keep coming, never past the cap.
        let later = t0 + BURST_MAX - sync / 2;
        assert_eq!(wait.deadline(t0, later), t0 + BURST_MAX);
        // A quiet team's batch is bounded as before.
        assert_eq!(quiet().deadline(t0, t0 + sync), t0 + GATHER_MAX);
    }

    #[test]
    fn a_burst_on_a_quiet_team_is_gathered_once_its_second_line_is_in() {
        let mut commit = GroupCommit::default();
        // A lone change went moments ago: the team is quiet.
        commit.batch_done(1, Duration::from_micros(240));
        assert_eq!(commit.bounds(1), quiet());
        // A second line joined this batch: it is a burst, and the batch
        // waits for the rest of it as long as its lines keep coming.
        let burst = commit.bounds(2);
        assert_eq!(
            (burst.gap, burst.stall, burst.cap),
            (
                Duration::from_micros(30),
                Duration::from_micros(240),
                BURST_MAX
            )
        );
        // No fsync measured yet: a stalled change is waited for as a quiet
        // team's batch is.
        let fresh = GroupCommit::default().bounds(2);
        assert_eq!(
            (fresh.gap, fresh.stall),
            (Duration::from_micros(50), GATHER_MAX)
        );
    }
}
