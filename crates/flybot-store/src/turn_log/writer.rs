//! The turn log's writer thread: takes every job waiting, writes the batch
//! (the journal first, then each line to its own file), syncs the journal
//! once when a write in it is `Now` or the oldest unsynced `Soon` write is
//! [`SOON`] old, and then calls the callbacks the sync covers, in write
//! order. An I/O error stops the log: every waiting and later write is
//! answered with it, so nothing is acknowledged that may not be on disk.
//!
//! On PostgreSQL (`database`) the batch is committed as rows first, in
//! place of the journal's sync, and only then written into the home's
//! files; a batch the fence or an unreachable database refused is answered
//! with that refusal and written nowhere.

use super::carried::Carried;
use super::database::{self, Link, Refused};
use super::files::{IDLE, OpenFiles};
use super::room_notes::room_line;
use super::session_notes::note_line;
use super::{Counters, JOURNAL_FILE, Job, OnDurable, Record, SOON, Urgency};
use crate::jsonl::JsonlAppender;
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::Instant;

/// A journal longer than this is checkpointed.
pub(crate) const CHECKPOINT_BYTES: u64 = 8 * 1024 * 1024;

#[cfg(feature = "testing")]
pub(crate) static SYNC_DELAY_US: std::sync::atomic::AtomicU64 =
    std::sync::atomic::AtomicU64::new(0);

struct Writer {
    home: PathBuf,
    journal: JsonlAppender,
    journal_bytes: u64,
    files: OpenFiles,
    /// The newest Session and room notes, carried into the next journal.
    carried: Carried,
    /// Written, not yet synced: called after the next sync.
    waiting: Vec<OnDurable>,
    /// When the oldest unsynced `Soon` write must be synced.
    deadline: Option<Instant>,
    /// Bytes written to the journal since its last sync.
    unsynced: bool,
    counters: Arc<Counters>,
    /// Why the log stopped, once an I/O error stopped it.
    broken: Option<String>,
    /// The database the lines are committed to first (a store on
    /// PostgreSQL), with the batch waiting for its commit.
    link: Option<Link>,
    pending: Vec<u8>,
    pending_lines: Vec<(PathBuf, Vec<u8>)>,
    /// A standby's store saw rows this writer has not read; each is
    /// answered once they are read.
    catch_up_asked: Vec<mpsc::Sender<()>>,
}

/// Recovers the home's journal and starts the writer on it.
pub(crate) fn start(
    home: &Path,
    counters: Arc<Counters>,
) -> io::Result<(mpsc::Sender<Job>, JoinHandle<()>)> {
    let lock = super::recover::lock_home(home)?;
    let writing = super::recover::Writing::new(home);
    // On PostgreSQL the rows past the home's cursor join the journal
    // first, so the replay below brings the files up to the database.
    let link = match database::attached(home) {
        Some(db) => Some(Link::open(home, db)?),
        None => None,
    };
    let carried = super::recover::recover(home)?;
    if let Some(link) = &link {
        link.save_cursor(home)?;
    }
    let journal = open_journal(&home.join(JOURNAL_FILE))?;
    counters.opens.fetch_add(1, Ordering::Relaxed);
    let journal_bytes = journal.size()?;
    let mut writer = Writer {
        home: home.to_owned(),
        journal,
        journal_bytes,
        files: OpenFiles::new(home),
        carried,
        waiting: Vec::new(),
        deadline: None,
        unsynced: false,
        counters,
        broken: None,
        link,
        pending: Vec::new(),
        pending_lines: Vec::new(),
        catch_up_asked: Vec::new(),
    };
    let (jobs, inbox) = mpsc::channel();
    let thread = std::thread::Builder::new()
        .name("flybot-turn-log".to_owned())
        .spawn(move || {
            writer.run(&inbox);
            // The lock goes first, then the mark a waiting opener reads.
            drop(lock);
            drop(writing);
        })?;
    Ok((jobs, thread))
}

impl Writer {
    fn run(&mut self, inbox: &mpsc::Receiver<Job>) {
        loop {
            let wait = self
                .deadline
                .map_or(IDLE, |d| d.saturating_duration_since(Instant::now()));
            let first = match inbox.recv_timeout(wait) {
                Ok(job) => job,
                Err(RecvTimeoutError::Timeout) => {
                    if self.deadline.is_some() {
                        self.sync();
                    } else {
                        self.files.close_idle();
                    }
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => Job::Close,
            };
            let mut batch = vec![first];
            batch.extend(inbox.try_iter());
            if self.take(batch) {
                self.sync();
                self.checkpoint();
                return;
            }
            let asked = std::mem::take(&mut self.catch_up_asked);
            if !asked.is_empty() {
                self.catch_up();
                for answer in asked {
                    let _ = answer.send(());
                }
            }
            let due = self.deadline.is_some_and(|d| d <= Instant::now());
            if due {
                self.sync();
            }
            // On PostgreSQL the carried notes may run ahead of a batch not
            // yet committed: a checkpoint waits for it.
            if self.journal_bytes > CHECKPOINT_BYTES
                && self.waiting.is_empty()
                && self.pending.is_empty()
            {
                self.checkpoint();
            }
        }
    }

    /// Writes a batch; answers whether it asked the writer to close.
    fn take(&mut self, batch: Vec<Job>) -> bool {
        let mut journal = Vec::new();
        let mut lines: Vec<(PathBuf, Vec<u8>)> = Vec::new();
        let mut close = false;
        // Only each Session's newest in-flight note of the batch is
        // written, last: the newest wins at a start, and nothing of the
        // batch is acknowledged before its sync, so an older note of it is
        // never the one read.
        let mut notes = BTreeMap::new();
        for job in batch {
            match job {
                Job::Write {
                    records,
                    note,
                    room,
                    urgency,
                    done,
                } => {
                    self.counters
                        .lines
                        .fetch_add(records.len() as u64, Ordering::Relaxed);
                    for record in records {
                        add_line(&mut journal, &mut lines, record);
                    }
                    if let Some(note) = note {
                        notes.insert(note.session_id.clone(), note);
                    }
                    if let Some(note) = room {
                        room_line(&mut journal, &note.room_id, note.run.as_deref());
                        self.carried.keep_room(note);
                    }
                    self.waiting.extend(done);
                    let by = match urgency {
                        Urgency::Now => Instant::now(),
                        Urgency::Soon => Instant::now() + SOON,
                    };
                    self.deadline = Some(self.deadline.map_or(by, |d| d.min(by)));
                }
                Job::Close => close = true,
                Job::CatchUp(answer) => self.catch_up_asked.push(answer),
            }
        }
        for note in notes.into_values() {
            note_line(&mut journal, &note.json);
            self.carried.keep_note(note);
        }
        if self.link.is_some() {
            self.pending.extend_from_slice(&journal);
            self.pending_lines.extend(lines);
        } else if let Err(e) = self.write(&journal, &lines) {
            self.stop(e);
        }
        close
    }

    /// The journal first, so a line in a file is always in the journal too.
    fn write(&mut self, journal: &[u8], lines: &[(PathBuf, Vec<u8>)]) -> io::Result<()> {
        if self.broken.is_some() || journal.is_empty() {
            return Ok(());
        }
        self.journal.write(journal)?;
        self.unsynced = true;
        self.journal_bytes += journal.len() as u64;
        for (rel, bytes) in lines {
            self.files.write(rel, bytes, &self.counters)?;
        }
        self.counters.batches.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// One sync of the journal, then the callbacks it covers, in order.
    fn sync(&mut self) {
        self.deadline = None;
        let mut refused = None;
        if self.link.is_some() {
            refused = self.commit_pending();
        } else if self.broken.is_none() && std::mem::take(&mut self.unsynced) {
            match self.journal.sync() {
                Ok(()) => {
                    self.counters.syncs.fetch_add(1, Ordering::Relaxed);
                    slow_disk();
                }
                Err(e) => self.stop(e),
            }
        }
        for done in std::mem::take(&mut self.waiting) {
            done(match (&self.broken, &refused) {
                (None, None) => Ok(()),
                (Some(why), _) | (None, Some(why)) => Err(io::Error::other(why.clone())),
            });
        }
    }

    /// Commits the waiting batch to the database, then writes it into the
    /// files; answers the refusal its waiters get when it was not committed.
    fn commit_pending(&mut self) -> Option<String> {
        let journal = std::mem::take(&mut self.pending);
        let lines = std::mem::take(&mut self.pending_lines);
        if self.broken.is_some() || journal.is_empty() {
            return None;
        }
        if self.link.as_ref().is_some_and(Link::stale)
            && let Err(e) = self.resync()
        {
            self.stop(e);
            return None;
        }
        let link = self.link.as_mut()?;
        let refusal = match link.commit(&journal) {
            Ok(()) => {
                self.counters.syncs.fetch_add(1, Ordering::Relaxed);
                if let Err(e) = self.write(&journal, &lines) {
                    self.stop(e);
                }
                return None;
            }
            Err(Refused::Fenced) => "this FlyBot does not hold the team's lease (another FlyBot saves the team; this one follows it)".to_owned(),
            Err(Refused::Unreachable(why)) => why,
        };
        // The notes this batch carried were never committed: the next
        // batch reads the home again before it writes.
        link.forget();
        Some(format!(
            "the Session and room logs' lines were not saved: {refusal}"
        ))
    }

    /// Reads the rows another leader committed, when there are any.
    fn catch_up(&mut self) {
        let behind = self.link.as_mut().is_some_and(Link::behind);
        if behind && self.broken.is_none() {
            self.sync();
            if let Err(e) = self.resync() {
                self.stop(e);
            }
        }
    }

    /// Brings the home's files and journal up to the database's rows after
    /// the store's lease changed (a takeover, or a lease lost), and starts
    /// the journal again from what they hold.
    fn resync(&mut self) -> io::Result<()> {
        self.files.flush_dirty(&self.counters)?;
        self.files = OpenFiles::new(&self.home);
        let mut read = false;
        if let Some(link) = self.link.as_mut() {
            read = link.catch_up(&self.home)?;
        }
        self.carried = super::recover::recover(&self.home)?;
        // Only another leader's lines move the generation: this writer's
        // own lines still on their way must not make a reader open a file
        // that lacks them.
        if read {
            database::moved(&self.home);
        }
        self.journal = open_journal(&self.home.join(JOURNAL_FILE))?;
        self.journal_bytes = self.journal.size()?;
        if let Some(link) = &self.link {
            link.save_cursor(&self.home)?;
        }
        Ok(())
    }

    fn stop(&mut self, error: io::Error) {
        tracing::error!("the turn log stopped: {error}");
        self.broken
            .get_or_insert_with(|| format!("the turn log stopped: {error}"));
    }

    /// Flushes the files the journal covers, then starts the journal again
    /// from the newest Session and room notes (written whole and renamed
    /// in).
    fn checkpoint(&mut self) {
        if self.broken.is_some() {
            return;
        }
        if self.link.as_ref().is_some_and(Link::stale) {
            // A refused batch's notes are in `carried`: the home is read
            // again (journal and rows) instead of writing them.
            if let Err(e) = self.resync() {
                self.stop(e);
            }
            return;
        }
        let started = self.files.flush_dirty(&self.counters).and_then(|()| {
            let path = self.home.join(JOURNAL_FILE);
            let fresh = self.carried.lines();
            crate::atomic_write(&path, &fresh)?;
            self.counters.syncs.fetch_add(2, Ordering::Relaxed);
            self.journal = open_journal(&path)?;
            self.counters.opens.fetch_add(1, Ordering::Relaxed);
            self.journal_bytes = fresh.len() as u64;
            if let Some(link) = &self.link {
                link.save_cursor(&self.home)?;
            }
            Ok(())
        });
        if let Err(e) = started {
            self.stop(e);
        }
    }
}

/// The journal, open for the writer's appends: synced at every batch, so
/// its appends land in disk room reserved ahead (`room_ahead`).
fn open_journal(path: &Path) -> io::Result<JsonlAppender> {
    Ok(JsonlAppender::open(path)?.reserving_room())
}

/// Adds `record` to the journal's bytes and to its file's.
fn add_line(journal: &mut Vec<u8>, lines: &mut Vec<(PathBuf, Vec<u8>)>, record: Record) {
    journal.extend_from_slice(b"{\"file\":");
    // A relative path of the home is UTF-8 here: the callers build it from
    // ids checked to be plain names.
    let file = serde_json::to_vec(&record.file.to_string_lossy()).unwrap_or_default();
    journal.extend_from_slice(&file);
    journal.extend_from_slice(b",\"line\":");
    journal.extend_from_slice(&record.line);
    journal.extend_from_slice(b"}\n");
    let at = match lines.iter().position(|(rel, _)| *rel == record.file) {
        Some(at) => at,
        None => {
            lines.push((record.file, Vec::new()));
            lines.len() - 1
        }
    };
    lines[at].1.extend_from_slice(&record.line);
    lines[at].1.push(b'\n');
}

fn slow_disk() {
    #[cfg(feature = "testing")]
    {
        let us = SYNC_DELAY_US.load(Ordering::Relaxed);
        if us > 0 {
            std::thread::sleep(std::time::Duration::from_micros(us));
        }
    }
}
