//! `Store`: the team in memory, and the one writer every change goes through.
//! A change is applied under the team's mutex, queued to the journal thread
//! in seq order, and answered once its line is on disk.

use crate::apply::Undo;
use crate::burst_marks::{Step, reach};
use crate::change::{Change, Written};
use crate::error::StoreError;
use crate::group_commit::{Gather, Line, Making};
use crate::housekeeping::{StopSignal, close_blocking, snapshot};
use crate::load::{FileStamps, JOURNAL_FILE, load_home};
use crate::lock::{HomeLock, LockAttempt, try_acquire};
use crate::opening::{load_as_reader, load_options, new_inner, start_writing};
use crate::refusal::{damaged, refusal_for};
use crate::room_cards::RoomCards;
use crate::writer::WriterMsg;
use flybot_core::sync::lock;
use flybot_protocol::journal::ChangeLine;
use flybot_protocol::state::TeamState;
use flybot_protocol::{ApiError, ErrorCode};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use std::thread::JoinHandle;
use tokio::sync::{oneshot, watch};

pub use crate::options::{Clock, StoreOptions, system_now_ms};
pub use crate::refusal::read_only_error;

/// Why this store answers writes with `bot/read-only`.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadOnlyReason {
    /// Another process holds `state.lock` (#14).
    OtherWriter { pid: u32, host: String },
    /// The files could not be trusted; a person must look (fail closed).
    Damaged { why: String },
    /// A standby on PostgreSQL: `holder` holds the lease (issue 35).
    Standby { holder: String },
}

#[derive(Debug, Clone, PartialEq)]
pub enum StoreStatus {
    Writer,
    ReadOnly(ReadOnlyReason),
}

/// The team and the queue to the journal thread, behind one mutex so that
/// seq order and queue order are the same order.
pub(crate) struct Live {
    pub(crate) team: TeamState,
    pub(crate) writer: Option<Sender<WriterMsg>>,
    /// Which cards each room holds, for a round's read of its room.
    pub(crate) room_cards: RoomCards,
}

#[derive(Default)]
pub(crate) struct Threads {
    pub(crate) writer: Option<JoinHandle<()>>,
    pub(crate) housekeeping: Option<(Arc<StopSignal>, JoinHandle<()>)>,
}

pub(crate) struct Inner {
    pub(crate) home: PathBuf,
    pub(crate) options: StoreOptions,
    pub(crate) live: Mutex<Live>,
    pub(crate) status: Mutex<StoreStatus>,
    pub(crate) revision: watch::Sender<u64>,
    pub(crate) last_now: Mutex<u64>,
    pub(crate) queued: AtomicU64,
    /// The changes being made, and their lines on the way to the engine.
    pub(crate) gather: Arc<Gather>,
    pub(crate) closed: AtomicBool,
    /// Held while a snapshot is written, so snapshots land in seq order.
    pub(crate) snapshot_gate: Mutex<()>,
    /// The seq `state.json` holds on disk.
    pub(crate) snapshot_seq: AtomicU64,
    pub(crate) home_lock: Mutex<Option<HomeLock>>,
    pub(crate) notice: Mutex<Option<String>>,
    /// What a reader last loaded, to reload only when the files moved.
    pub(crate) stamps: Mutex<FileStamps>,
    pub(crate) threads: Mutex<Threads>,
    /// Where changes take their turn, first come first served, before the
    /// team's lock (`Store::team`). A change waiting here is a parked task,
    /// not one polled again and again to retry the lock, and the one whose
    /// turn comes is woken by the change before it, on that change's worker
    /// (issue 38: a burst of 32 made in about 25 µs less of 240, on tmpfs).
    pub(crate) turnstile: tokio::sync::Mutex<()>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // Dropped without `close`: the journal thread ends when its queue
        // closes; the housekeeping thread is told here. No join: the last
        // reference may be dropped on the housekeeping thread itself.
        let threads = self.threads.get_mut().unwrap_or_else(|p| p.into_inner());
        if let Some((stop, _)) = &threads.housekeeping {
            stop.stop();
        }
    }
}

/// The team and its one writer. Cheap to clone.
#[derive(Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

impl Store {
    /// Opens (or creates) the home. Files that cannot be trusted do not fail
    /// the open: the store serves reads and refuses writes, saying why.
    pub fn open(home: &Path, options: StoreOptions) -> Result<Store, StoreError> {
        let io = |source: std::io::Error| StoreError::Io {
            path: home.to_owned(),
            source: source.into(),
        };
        // The home is the user's alone (issue 29): 0700, also one made
        // before this build at 0755.
        crate::private::private_dirs(home).map_err(io)?;
        crate::private::narrow(home, crate::private::FOLDER_MODE).map_err(io)?;
        if let crate::engine::Engine::Postgres(pg) = &options.engine {
            return Self::open_postgres(home, options.clone(), pg.clone());
        }
        crate::turn_log::database::detach(home);
        let now = (options.clock)();
        let (loaded, status, home_lock) = match try_acquire(home, now).map_err(io)? {
            LockAttempt::Acquired { lock, .. } => {
                let loaded = load_home(home, &load_options(&options, true));
                match &loaded.damaged {
                    Some(why) => {
                        // A damaged home is never written, so it needs no lock.
                        lock.release();
                        let status = damaged(why);
                        (loaded, status, None)
                    }
                    None => (loaded, StoreStatus::Writer, Some(lock)),
                }
            }
            LockAttempt::Held { pid, host } => {
                let loaded = load_as_reader(home, &options);
                let status = match &loaded.damaged {
                    Some(why) => damaged(why),
                    None => StoreStatus::ReadOnly(ReadOnlyReason::OtherWriter { pid, host }),
                };
                (loaded, status, None)
            }
        };
        let inner = new_inner(home, options, loaded.team, status.clone(), home_lock);
        inner
            .snapshot_seq
            .store(loaded.snapshot_seq, Ordering::SeqCst);
        *lock(&inner.stamps) = loaded.stamps;
        if status == StoreStatus::Writer {
            let mut live = lock(&inner.live);
            start_writing(&inner, &mut live, &loaded.journal).map_err(io)?;
        }
        Ok(Store { inner })
    }

    /// A store on PostgreSQL (issue 35): the engine thread takes the lease
    /// or follows its holder; the home folder keeps only config and files.
    fn open_postgres(
        home: &Path,
        options: StoreOptions,
        pg: crate::engine::PostgresOptions,
    ) -> Result<Store, StoreError> {
        let now = (options.clock)();
        // The turn log commits to the same database, fenced by this lease.
        let token = crate::turn_log::database::attach(home, &pg);
        // The home's copy of memory, decisions and interop journals first.
        if let Err(why) = crate::engine::records::catch_up(home, &pg.url) {
            tracing::warn!("the home's records could not be brought up to date: {why}");
        }
        let (opened, started) =
            crate::engine::postgres::start(pg, token, now).map_err(|why| StoreError::Io {
                path: home.to_owned(),
                source: std::io::Error::other(why).into(),
            })?;
        let inner = new_inner(home, options, opened.team, opened.status, None);
        lock(&inner.live).writer = opened.writer;
        started.attach(&inner);
        Ok(Store { inner })
    }

    pub fn status(&self) -> StoreStatus {
        lock(&self.inner.status).clone()
    }

    /// A standby on PostgreSQL (issue 35): it reads a team another FlyBot
    /// saves until it takes the lease.
    pub fn is_standby(&self) -> bool {
        matches!(
            self.status(),
            StoreStatus::ReadOnly(ReadOnlyReason::Standby { .. })
        )
    }

    /// Reads the team. A read-only store first reloads the files when the
    /// other writer has changed them.
    pub fn read<R>(&self, f: impl FnOnce(&TeamState) -> R) -> R {
        self.reload_if_moved();
        f(&lock(&self.inner.live).team)
    }

    /// Reads the team with the ids of `room_id`'s cards (those whose
    /// `room_id` it is), found without a scan of the whole board.
    pub fn read_room<R>(&self, room_id: &str, f: impl FnOnce(&TeamState, &[String]) -> R) -> R {
        self.reload_if_moved();
        let mut live = lock(&self.inner.live);
        let live = &mut *live;
        let cards = live.room_cards.of(&live.team, room_id);
        f(&live.team, &cards)
    }

    /// The revision: the sequence number of the last accepted change.
    /// The store's clock now: the time a change made now is stamped with.
    pub fn clock_ms(&self) -> u64 {
        (self.inner.options.clock)()
    }

    pub fn revision(&self) -> u64 {
        *self.inner.revision.borrow()
    }

    /// Follows the revision as changes are accepted.
    pub fn watch_revision(&self) -> watch::Receiver<u64> {
        self.inner.revision.subscribe()
    }

    /// Makes one change. `f` reads the team and writes records through the
    /// `Change`; if it refuses, nothing is written and the refusal is returned.
    /// The answer comes only once the change is on disk. A change that writes
    /// nothing moves no revision.
    pub async fn mutate<T>(
        &self,
        actor: &str,
        f: impl FnOnce(&mut Change<'_>) -> Result<T, ApiError>,
    ) -> Result<T, ApiError> {
        reach(Step::Entered);
        let making = Making::enter(&self.inner.gather.makers);
        let turn = self.inner.turnstile.lock().await;
        let (value, seq, on_disk) = {
            let mut live = self.writable(self.team().await)?;
            let now = self.next_now();
            let mut change = Change::new(&mut live.team, now);
            let value = match f(&mut change) {
                Ok(value) => value,
                Err(refusal) => {
                    change.roll_back();
                    return Err(refusal);
                }
            };
            if change.is_empty() {
                return Ok(value);
            }
            let (ops, undo) = change.into_parts();
            let (seq, on_disk) = self.queue(&mut live, (actor, now), ops, undo, making)?;
            (value, seq, on_disk)
        };
        // Queued: the next change may be made while this one is written.
        drop(turn);
        match on_disk.await {
            Ok(Ok(())) => {
                // Waiters may wake out of order; the revision only moves up.
                self.inner.revision.send_if_modified(|r| {
                    let newer = seq > *r;
                    if newer {
                        *r = seq;
                    }
                    newer
                });
                Ok(value)
            }
            Ok(Err(why)) => Err(self.refused_on_disk(why)),
            Err(_) => Err(self.refused_on_disk(StoreError::WriterStopped)),
        }
    }

    /// The team, locked for a change whose turn it is (`Inner::turnstile`).
    /// While a reader or the store's own upkeep holds it (a snapshot's copy,
    /// a reload), the change yields to the runtime instead of blocking its
    /// worker thread: a worker asleep on the lock is woken by the holder's
    /// futex call and the kernel's cross-CPU wake-up, tens of microseconds
    /// on a virtual machine, during which the tasks queued on that worker
    /// wait too (issue 38: a burst of 32 stalled about 100 µs in a third of
    /// the runs when changes slept on it).
    async fn team(&self) -> MutexGuard<'_, Live> {
        loop {
            match self.inner.live.try_lock() {
                Ok(live) => return live,
                Err(TryLockError::Poisoned(poisoned)) => return poisoned.into_inner(),
                Err(TryLockError::WouldBlock) => {}
            }
            tokio::task::yield_now().await;
        }
    }

    /// A change the disk refused: the home turns read-only saying why, and
    /// the team is read again from what is on disk, so no read shows a
    /// change (this one or one queued behind it) that was never saved.
    fn refused_on_disk(&self, why: StoreError) -> ApiError {
        if !self.inner.options.engine.is_folder() {
            // The engine thread turned this store standby and read the
            // database's team before it answered (issue 35).
            return match self.status() {
                StoreStatus::Writer => self.mark_damaged(why),
                status => refusal_for(&status),
            };
        }
        let refusal = self.mark_damaged(why);
        let loaded = load_home(&self.inner.home, &load_options(&self.inner.options, false));
        let mut live = lock(&self.inner.live);
        live.team = loaded.team;
        self.inner.revision.send_replace(live.team.journal_seq);
        refusal
    }

    /// Every change this store has accepted since it started (#1368); never
    /// decremented.
    pub fn saves_queued(&self) -> u64 {
        self.inner.queued.load(Ordering::SeqCst)
    }

    /// Resolves once every accepted change is on disk (#1368).
    pub async fn saves_settled(&self) {
        let barrier = {
            let live = lock(&self.inner.live);
            let Some(writer) = &live.writer else { return };
            let (tx, rx) = oneshot::channel();
            if self
                .inner
                .gather
                .send(writer, WriterMsg::Barrier(tx))
                .is_err()
            {
                return;
            }
            rx
        };
        // An error answer also means nothing is left in flight.
        let _ = barrier.await;
    }

    /// Writes the snapshot now (and trims the journal after it), instead of
    /// waiting for `snapshot_after`. Does nothing on a read-only store.
    pub async fn snapshot_now(&self) -> Result<(), StoreError> {
        let inner = self.inner.clone();
        let done = tokio::task::spawn_blocking(move || snapshot(&inner)).await;
        match done {
            Ok(Ok(())) => Ok(()),
            Ok(Err(why)) => Err(why),
            Err(e) => Err(self.io_error(e)),
        }
    }

    /// The line to print once after this store took over from another
    /// FlyBot that closed (#1041); `None` afterwards.
    pub fn takeover_notice(&self) -> Option<String> {
        lock(&self.inner.notice).take()
    }

    /// Writes the snapshot and releases the lock (a clean stop). Later
    /// changes are refused.
    pub async fn close(&self) -> Result<(), StoreError> {
        if self.inner.closed.swap(true, Ordering::SeqCst) {
            return Ok(());
        }
        let inner = self.inner.clone();
        let done = tokio::task::spawn_blocking(move || close_blocking(&inner)).await;
        match done {
            Ok(Ok(())) => Ok(()),
            Ok(Err(why)) => Err(why),
            Err(e) => Err(self.io_error(e)),
        }
    }

    /// The blocking task that closed or snapshotted the store panicked.
    fn io_error(&self, e: tokio::task::JoinError) -> StoreError {
        StoreError::Io {
            path: self.inner.home.clone(),
            source: std::io::Error::other(e.to_string()).into(),
        }
    }

    /// The team, locked for a change; takes over a lock the other writer
    /// let go of (#1027: on the next write, not on a poll).
    fn writable<'s>(
        &'s self,
        mut live: MutexGuard<'s, Live>,
    ) -> Result<MutexGuard<'s, Live>, ApiError> {
        if self.inner.closed.load(Ordering::SeqCst) {
            return Err(ApiError::new(
                ErrorCode::Unavailable,
                "This FlyBot has stopped saving the team (its store was closed).",
            ));
        }
        let status = self.status();
        match status {
            StoreStatus::Writer => Ok(live),
            StoreStatus::ReadOnly(
                ReadOnlyReason::Damaged { .. } | ReadOnlyReason::Standby { .. },
            ) => Err(refusal_for(&status)),
            StoreStatus::ReadOnly(ReadOnlyReason::OtherWriter { pid, host }) => {
                self.take_over(&mut live, (pid, host))?;
                Ok(live)
            }
        }
    }

    fn take_over(&self, live: &mut Live, was: (u32, String)) -> Result<(), ApiError> {
        let inner = &self.inner;
        let now = (inner.options.clock)();
        let attempt = try_acquire(&inner.home, now).map_err(|e| {
            ApiError::new(
                ErrorCode::Unavailable,
                format!("state.lock could not be opened: {e}"),
            )
        })?;
        let (home_lock, previous) = match attempt {
            LockAttempt::Held { pid, host } => {
                let reason = ReadOnlyReason::OtherWriter { pid, host };
                *lock(&inner.status) = StoreStatus::ReadOnly(reason.clone());
                return Err(read_only_error(&reason));
            }
            LockAttempt::Acquired { lock, previous } => (lock, previous),
        };
        // Adopt what the other writer left before this change is made.
        let loaded = load_home(&inner.home, &load_options(&inner.options, true));
        live.team = loaded.team;
        let started = match loaded.damaged {
            Some(why) => Err(why),
            None => start_writing(inner, live, &loaded.journal).map_err(|e| StoreError::File {
                file: JOURNAL_FILE,
                doing: "opened for writing",
                source: e.into(),
            }),
        };
        if let Err(why) = started {
            home_lock.release();
            let status = damaged(&why);
            *lock(&inner.status) = status.clone();
            return Err(refusal_for(&status));
        }
        *lock(&inner.home_lock) = Some(home_lock);
        inner
            .snapshot_seq
            .store(loaded.snapshot_seq, Ordering::SeqCst);
        *lock(&inner.status) = StoreStatus::Writer;
        inner.revision.send_replace(live.team.journal_seq);
        let (pid, host) = previous.unwrap_or(was);
        let notice = format!(
            "the other flybot has closed; this one now saves the Bot team (was pid {pid} on {host})"
        );
        tracing::warn!("{notice}");
        *lock(&inner.notice) = Some(notice);
        Ok(())
    }

    /// Queues the change's line; the team's seq and digest move with it.
    /// Cost is the size of the change, never the size of the team.
    fn queue(
        &self,
        live: &mut Live,
        (actor, now): (&str, u64),
        ops: Vec<Written>,
        undo: Vec<Undo>,
        making: Making<'_>,
    ) -> Result<(u64, oneshot::Receiver<Result<(), StoreError>>), ApiError> {
        let seq = live.team.journal_seq + 1;
        let line = ChangeLine {
            seq,
            t: now,
            prev: live.team.journal_digest.clone().unwrap_or_default(),
            actor: actor.to_owned(),
            ops,
        };
        let (tx, rx) = oneshot::channel();
        let sent = line_bytes(&line)
            .map_err(StoreError::from)
            .and_then(|mut bytes| {
                let digest = crate::journal::sha256_hex(&bytes);
                bytes.push(b'\n');
                let writer = live.writer.as_ref().ok_or(StoreError::WriterStopped)?;
                making.done();
                let line = Line {
                    seq,
                    t: now,
                    bytes,
                    ack: tx,
                };
                self.inner.gather.line(writer, line);
                Ok(digest)
            });
        match sent {
            Ok(digest) => {
                let stood = live.room_cards.stands_for(&live.team);
                live.team.journal_seq = seq;
                live.team.journal_digest = Some(digest);
                live.room_cards.follow(&live.team, stood, &line.ops);
                self.inner.queued.fetch_add(1, Ordering::SeqCst);
                Ok((seq, rx))
            }
            Err(why) => {
                for undo in undo.into_iter().rev() {
                    undo.restore(&mut live.team);
                }
                Err(self.mark_damaged(why))
            }
        }
    }

    fn mark_damaged(&self, why: StoreError) -> ApiError {
        let status = damaged(&why);
        *lock(&self.inner.status) = status.clone();
        refusal_for(&status)
    }

    fn reload_if_moved(&self) {
        let inner = &self.inner;
        if !matches!(
            self.status(),
            StoreStatus::ReadOnly(ReadOnlyReason::OtherWriter { .. })
        ) {
            return;
        }
        let stamps = FileStamps::read(&inner.home);
        if stamps == *lock(&inner.stamps) {
            return;
        }
        let loaded = load_as_reader(&inner.home, &inner.options);
        let mut live = lock(&inner.live);
        // A takeover may have raced this reload; the writer's team wins.
        if !matches!(
            self.status(),
            StoreStatus::ReadOnly(ReadOnlyReason::OtherWriter { .. })
        ) {
            return;
        }
        *lock(&inner.stamps) = loaded.stamps;
        if let Some(why) = loaded.damaged {
            tracing::warn!(
                "the other FlyBot's files did not load ({why}); still showing the last team that did"
            );
            return;
        }
        live.team = loaded.team;
        inner.revision.send_replace(live.team.journal_seq);
    }

    fn next_now(&self) -> u64 {
        let mut last = lock(&self.inner.last_now);
        let now = (self.inner.options.clock)().max(*last + 1);
        *last = now;
        now
    }
}

/// A change line's JSON in a buffer that holds a task's change whole, its
/// newline too (about 340 bytes: `to_vec` grew its buffer 128 → 256 → 512,
/// two copies of the line in every change, issue 38).
fn line_bytes(line: &impl serde::Serialize) -> serde_json::Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(512);
    serde_json::to_writer(&mut bytes, line)?;
    Ok(bytes)
}
