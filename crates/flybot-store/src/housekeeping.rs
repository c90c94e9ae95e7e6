//! The store's background work: the lock's heartbeat, the snapshot written
//! a few seconds after a change (and before the journal is trimmed behind
//! it), and the clean close that writes the last snapshot and lets go of
//! the lock.

use crate::error::StoreError;
use crate::load::write_snapshot;
use crate::store::{Inner, StoreStatus};
use crate::writer::WriterMsg;
use flybot_core::sync::lock;
use std::sync::atomic::Ordering;
use std::sync::{Condvar, Mutex, Weak};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// Refreshes the lock's heartbeat and writes the snapshot `snapshot_after`
/// once the revision has moved. Holds only a weak reference, so a dropped
/// store ends it.
pub(crate) fn housekeeping(weak: Weak<Inner>, stop: &StopSignal) {
    let Some((beat_every, snapshot_after)) = weak
        .upgrade()
        .map(|inner| (inner.options.heartbeat_every, inner.options.snapshot_after))
    else {
        return;
    };
    let tick = beat_every
        .min(snapshot_after / 2)
        .max(Duration::from_millis(1));
    let mut last_beat = Instant::now();
    let mut dirty_since: Option<Instant> = None;
    while !stop.wait(tick) {
        let Some(inner) = weak.upgrade() else { return };
        if last_beat.elapsed() >= beat_every {
            last_beat = Instant::now();
            if let Some(home_lock) = lock(&inner.home_lock).as_mut()
                && let Err(e) = home_lock.heartbeat((inner.options.clock)())
            {
                tracing::warn!("could not refresh state.lock: {e}");
            }
        }
        if *inner.revision.borrow() == inner.snapshot_seq.load(Ordering::SeqCst) {
            dirty_since = None;
            continue;
        }
        let since = *dirty_since.get_or_insert_with(Instant::now);
        if since.elapsed() >= snapshot_after {
            dirty_since = None;
            if let Err(why) = snapshot(&inner) {
                tracing::warn!(
                    "state.json was not rewritten: {why}; the journal still holds every change"
                );
            }
        }
    }
}

/// Writes `state.json` at the team's current seq, once every line up to it
/// is on disk, then lets the journal thread trim the journal to it.
pub(crate) fn snapshot(inner: &Inner) -> Result<(), StoreError> {
    let _gate = lock(&inner.snapshot_gate);
    let (team, writer, barrier) = {
        let live = lock(&inner.live);
        let Some(writer) = live.writer.clone() else {
            return Ok(());
        };
        if live.team.journal_seq == inner.snapshot_seq.load(Ordering::SeqCst) {
            return Ok(());
        }
        // A clone keeps the lock short; serialising happens outside it.
        let team = live.team.clone();
        let (tx, rx) = oneshot::channel();
        inner.gather.send(&writer, WriterMsg::Barrier(tx))?;
        (team, writer, rx)
    };
    barrier
        .blocking_recv()
        .map_err(|_| StoreError::WriterStopped)??;
    // On PostgreSQL the journal's rows are the store; the home folder
    // holds no snapshot (issue 35).
    if inner.options.engine.is_folder() {
        write_snapshot(&inner.home, &team)?;
    }
    inner.snapshot_seq.store(team.journal_seq, Ordering::SeqCst);
    let (tx, rx) = oneshot::channel();
    let trim = WriterMsg::Trim {
        seq: team.journal_seq,
        digest: team.journal_digest.clone().unwrap_or_default(),
        team: Box::new(team),
        ack: tx,
    };
    if inner.gather.send(&writer, trim).is_ok()
        && let Ok(Err(why)) = rx.blocking_recv()
    {
        // Not fatal: the longer journal still replays onto the snapshot.
        tracing::warn!("journal.jsonl was not trimmed: {why}");
    }
    Ok(())
}

pub(crate) fn close_blocking(inner: &Inner) -> Result<(), StoreError> {
    let result = if *lock(&inner.status) == StoreStatus::Writer {
        snapshot(inner)
    } else {
        Ok(())
    };
    let writer = lock(&inner.live).writer.take();
    if let Some(writer) = writer {
        let (tx, rx) = oneshot::channel();
        if inner.gather.send(&writer, WriterMsg::Stop(tx)).is_ok() {
            let _ = rx.blocking_recv();
        }
    }
    let threads = std::mem::take(&mut *lock(&inner.threads));
    if let Some(handle) = threads.writer {
        let _ = handle.join();
    }
    if let Some((stop, handle)) = threads.housekeeping {
        stop.stop();
        let _ = handle.join();
    }
    if let Some(home_lock) = lock(&inner.home_lock).take() {
        home_lock.release();
    }
    result
}

/// Wakes a sleeping background thread early when the store stops.
#[derive(Default)]
pub(crate) struct StopSignal {
    stopped: Mutex<bool>,
    wake: Condvar,
}

impl StopSignal {
    pub(crate) fn stop(&self) {
        *lock(&self.stopped) = true;
        self.wake.notify_all();
    }

    /// Sleeps up to `timeout`; true once the store has stopped.
    pub(crate) fn wait(&self, timeout: Duration) -> bool {
        let stopped = lock(&self.stopped);
        if *stopped {
            return true;
        }
        let (stopped, _) = self
            .wake
            .wait_timeout(stopped, timeout)
            .unwrap_or_else(|p| p.into_inner());
        *stopped
    }
}
