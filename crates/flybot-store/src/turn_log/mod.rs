//! The turn log: group commit for the turn path (issue 19). Every Session
//! log line, room line and in-flight note of a home goes through one writer
//! thread, which appends each line to its own file (kept open, unsynced)
//! and the same line to one journal, `turns.jsonl`, then makes a whole batch
//! durable with one `fdatasync` of the journal. Lines written while a sync
//! is in flight join the next one, so the number of syncs follows the
//! disk's pace, not the number of lines. A start replays the journal into
//! the files a crash left short (`recover`), and a checkpoint (a journal
//! grown past its limit, or the last handle gone) flushes those files and
//! starts the journal again from the newest notes (`carried`): one
//! in-flight note per Session (`session_notes`), one run note per room.
//!
//! A write says how soon it must be durable ([`Urgency`]) and may carry a
//! callback the writer calls, in write order, once a sync covers it; the
//! callers acknowledge (answer a person, announce a line) only from there.

mod carried;
pub(crate) mod database;
mod files;
mod recover;
mod room_notes;
mod session_notes;
mod writer;

pub use recover::{read_journal_inflight, read_journal_rooms};
use room_notes::RoomNote;
use session_notes::NoteBytes;

use crate::inflight::SessionNote;
use flybot_core::sync::lock;
use serde::Serialize;
use std::collections::HashMap;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak, mpsc};
use std::thread::{JoinHandle, ThreadId};
use std::time::Duration;

/// The journal's file name in the home.
pub const JOURNAL_FILE: &str = "turns.jsonl";
/// The lock that keeps one writer per home on the journal.
const LOCK_FILE: &str = "turns.lock";
/// How long a `Soon` write may wait for a sync another write asks for: a
/// line nobody waits on rides the next commit, at most this late.
pub const SOON: Duration = Duration::from_millis(10);

/// How soon a write must be on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Urgency {
    /// Somebody waits on it (a person's answer, a tool about to act): the
    /// writer syncs as soon as the batch it joins is written.
    Now,
    /// Nobody waits on it yet: it joins the next sync, at most [`SOON`] later.
    Soon,
}

/// Called once a sync covers the write (or with the error that stopped it).
/// It runs on the writer's thread: it must not block or write again.
pub type OnDurable = Box<dyn FnOnce(io::Result<()>) + Send>;

/// One line for one file of the home.
#[derive(Debug, Clone)]
pub struct Record {
    /// The file, relative to the home.
    file: PathBuf,
    /// One JSON object, without its newline.
    line: Vec<u8>,
}

impl Record {
    /// The bytes this record adds to its file, newline included.
    pub fn byte_len(&self) -> usize {
        self.line.len() + 1
    }

    /// The line `value` for the file at `path`, which must lie inside `home`.
    pub fn new(home: &Path, path: &Path, value: &impl Serialize) -> io::Result<Record> {
        let file = path
            .strip_prefix(home)
            .ok()
            .filter(|rel| inside(rel))
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "a file outside the home"))?
            .to_owned();
        let line = serde_json::to_vec(value).map_err(io::Error::other)?;
        Ok(Record { file, line })
    }
}

/// Whether a relative path stays inside the folder it is relative to.
fn inside(rel: &Path) -> bool {
    rel.components().count() > 0 && rel.components().all(|c| matches!(c, Component::Normal(_)))
}

/// What the writer has done since it opened, for the benchmark.
#[derive(Debug, Default)]
pub struct Counters {
    pub syncs: AtomicU64,
    pub opens: AtomicU64,
    pub batches: AtomicU64,
    pub lines: AtomicU64,
}

/// A reading of [`Counters`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CountersRead {
    pub syncs: u64,
    pub opens: u64,
    pub batches: u64,
    pub lines: u64,
}

pub(crate) enum Job {
    Write {
        records: Vec<Record>,
        note: Option<NoteBytes>,
        room: Option<RoomNote>,
        urgency: Urgency,
        done: Option<OnDurable>,
    },
    Close,
    /// A standby's store saw new rows of the turn log in the database
    /// (PostgreSQL): the writer reads them into the home's files, then
    /// answers.
    CatchUp(mpsc::Sender<()>),
}

/// The running writer of one home.
struct Running {
    jobs: Mutex<mpsc::Sender<Job>>,
    thread: Mutex<Option<JoinHandle<()>>>,
    thread_id: ThreadId,
}

impl Drop for Running {
    /// The last handle gone: the writer syncs, checkpoints and stops, and
    /// the next opener of the home waits for it (unless this is the
    /// writer's own thread dropping it from a callback).
    fn drop(&mut self) {
        let _ = lock(&self.jobs).send(Job::Close);
        if std::thread::current().id() != self.thread_id
            && let Some(thread) = lock(&self.thread).take()
        {
            let _ = thread.join();
        }
    }
}

struct Shared {
    home: PathBuf,
    counters: Arc<Counters>,
    /// Opened on first use: a host that only reads never recovers or locks
    /// (its tries fail at the lock, and a later try takes over once the
    /// other process has stopped).
    running: Mutex<Option<Arc<Running>>>,
}

/// A `Now` write not yet durable; `wait` blocks until it is.
pub struct Pending(mpsc::Receiver<io::Result<()>>);

impl Pending {
    pub fn wait(self) -> io::Result<()> {
        self.0
            .recv()
            .map_err(|_| io::Error::other("the turn log's writer has stopped"))?
    }
}

/// A home's turn log. Cheap to clone; every handle of one home in this
/// process shares one writer.
#[derive(Clone)]
pub struct TurnLog {
    shared: Arc<Shared>,
}

static HOMES: Mutex<Option<HashMap<PathBuf, Weak<Shared>>>> = Mutex::new(None);

impl TurnLog {
    /// The turn log of `home`, shared with every other handle of it in this
    /// process. Nothing is opened until the first write or [`TurnLog::open`].
    pub fn for_home(home: &Path) -> TurnLog {
        let key = home.canonicalize().unwrap_or_else(|_| home.to_owned());
        let mut homes = lock(&HOMES);
        let homes = homes.get_or_insert_with(HashMap::new);
        homes.retain(|_, shared| shared.strong_count() > 0);
        if let Some(shared) = homes.get(&key).and_then(Weak::upgrade) {
            return TurnLog { shared };
        }
        let shared = Arc::new(Shared {
            home: home.to_owned(),
            counters: Arc::default(),
            running: Mutex::new(None),
        });
        homes.insert(key, Arc::downgrade(&shared));
        TurnLog { shared }
    }

    pub fn home(&self) -> &Path {
        &self.shared.home
    }

    /// Opens the writer if it is not open: takes `turns.lock`, replays the
    /// journal into the files a crash left short, and starts the thread.
    pub fn open(&self) -> io::Result<()> {
        self.running().map(|_| ())
    }

    fn running(&self) -> io::Result<Arc<Running>> {
        let mut running = lock(&self.shared.running);
        if let Some(open) = running.as_ref() {
            return Ok(open.clone());
        }
        let (jobs, thread) = writer::start(&self.shared.home, self.shared.counters.clone())
            .map_err(|e| {
                io::Error::new(e.kind(), format!("the turn log could not be opened: {e}"))
            })?;
        let thread_id = thread.thread().id();
        let open = Arc::new(Running {
            jobs: Mutex::new(jobs),
            thread: Mutex::new(Some(thread)),
            thread_id,
        });
        *running = Some(open.clone());
        Ok(open)
    }

    /// Hands `records` (and a Session's newest in-flight note, if given) to
    /// the writer; `done` is called once they are durable. Answers at once.
    /// Journal order is send order, so a caller that sends a Session's note
    /// under the lock its state changes under keeps its notes in order.
    pub fn write(
        &self,
        records: Vec<Record>,
        note: Option<&SessionNote>,
        urgency: Urgency,
        done: Option<OnDurable>,
    ) -> io::Result<()> {
        let note = note.map(NoteBytes::new).transpose()?;
        self.send(Job::Write {
            records,
            note,
            room: None,
            urgency,
            done,
        })
    }

    /// Asks the running writer to read the database's new rows into the
    /// home's files (a standby whose host has its turn log open).
    pub(crate) fn catch_up(&self) -> io::Result<mpsc::Receiver<()>> {
        let (tx, rx) = mpsc::channel();
        self.send(Job::CatchUp(tx))?;
        Ok(rx)
    }

    /// Moves each time lines another host wrote (a leader on PostgreSQL)
    /// are read into this home's files: a reader that keeps a file's last
    /// line in memory opens it again.
    pub fn generation(&self) -> u64 {
        database::generation(&self.shared.home)
    }

    fn send(&self, job: Job) -> io::Result<()> {
        let running = self.running()?;
        lock(&running.jobs)
            .send(job)
            .map_err(|_| io::Error::other("the turn log's writer has stopped"))
    }

    /// Hands the room's newest run note to the writer (`None` forgets the
    /// room: nothing of it is owed after a restart). Journal order is send
    /// order, so a caller that sends under its own lock keeps the notes in
    /// the order it took them.
    pub fn write_room_run(
        &self,
        room_id: &str,
        run: Option<&serde_json::Value>,
        urgency: Urgency,
    ) -> io::Result<()> {
        let run = room_notes::note_bytes(run)?;
        self.send(Job::Write {
            records: Vec::new(),
            note: None,
            room: Some(RoomNote {
                room_id: room_id.to_owned(),
                run,
            }),
            urgency,
            done: None,
        })
    }

    /// `write` at once; the answer blocks the thread that waits on it
    /// until the lines are durable (a caller holding a lock waits after
    /// letting it go).
    /// `then`, if given, is called first, as `write` calls `done`.
    pub fn write_pending(
        &self,
        records: Vec<Record>,
        note: Option<&SessionNote>,
        then: Option<OnDurable>,
    ) -> io::Result<Pending> {
        let (tx, rx) = mpsc::channel();
        let done: OnDurable = Box::new(move |result| {
            let answer = match &result {
                Ok(()) => Ok(()),
                Err(e) => Err(io::Error::new(e.kind(), e.to_string())),
            };
            if let Some(then) = then {
                then(result);
            }
            let _ = tx.send(answer);
        });
        self.write(records, note, Urgency::Now, Some(done))?;
        Ok(Pending(rx))
    }

    /// `write`, then blocks this thread until the lines are durable.
    pub fn write_durable(
        &self,
        records: Vec<Record>,
        note: Option<&SessionNote>,
    ) -> io::Result<()> {
        self.write_pending(records, note, None)?.wait()
    }

    /// Resolves once everything written before it is durable. The wait
    /// runs on tokio's blocking pool, so a test's paused clock does not
    /// jump ahead while the disk syncs.
    pub async fn settled(&self) -> io::Result<()> {
        let pending = self.write_pending(Vec::new(), None, None)?;
        tokio::task::spawn_blocking(move || pending.wait())
            .await
            .map_err(io::Error::other)?
    }

    /// The writer's syncs, opens, batches and lines since it opened.
    pub fn counters(&self) -> CountersRead {
        let c = &self.shared.counters;
        CountersRead {
            syncs: c.syncs.load(Ordering::Relaxed),
            opens: c.opens.load(Ordering::Relaxed),
            batches: c.batches.load(Ordering::Relaxed),
            lines: c.lines.load(Ordering::Relaxed),
        }
    }
}

/// A slow disk for the benchmark and the tests: every journal sync of this
/// process waits this long more. Not in a build without `testing`.
#[cfg(feature = "testing")]
pub fn set_sync_delay(delay: Duration) {
    writer::SYNC_DELAY_US.store(delay.as_micros() as u64, Ordering::Relaxed);
}

#[cfg(test)]
mod tests;
