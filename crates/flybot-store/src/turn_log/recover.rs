//! Opening a home's turn log: `turns.lock` keeps one writer on it, and the
//! journal a crash left is replayed into the files it covers (each line whose
//! `seq` is past the file's last one is appended and flushed), then the
//! journal starts again from its newest notes: each Session's in-flight note
//! and each room's run note. A home from before the journal carries its
//! `inflight.json` over the same way.

use super::carried::Carried;
use super::session_notes::Folded;
use super::{JOURNAL_FILE, LOCK_FILE, inside};
use crate::inflight::{Inflight, inflight_path};
use crate::jsonl::JsonlAppender;
use flybot_core::sync::lock;
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::fs::{self, File, OpenOptions, TryLockError};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// How long an opener waits for the writer of a home that is stopping.
const LOCK_TRIES: u32 = 300;

/// One journal line: a file's line, a Session's newest in-flight note, an
/// older journal's whole set of them, or a room's newest run note (`run:
/// null` forgets the room).
#[derive(Deserialize)]
struct JournalLine {
    #[serde(default)]
    file: Option<String>,
    #[serde(default)]
    line: Option<Value>,
    #[serde(default)]
    inflight: Option<Value>,
    #[serde(default)]
    note: Option<Value>,
    #[serde(default)]
    room: Option<String>,
    #[serde(default)]
    run: Option<Value>,
}

/// The homes whose writer thread runs in this process (canonical paths).
static WRITING: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);

pub(super) fn writing(home: &Path) -> bool {
    lock(&WRITING)
        .as_ref()
        .is_some_and(|homes| homes.contains(home))
}

/// Marks `home` written by a thread of this process while the answer lives.
pub(crate) struct Writing(PathBuf);

impl Writing {
    pub(crate) fn new(home: &Path) -> Writing {
        let key = home.canonicalize().unwrap_or_else(|_| home.to_owned());
        lock(&WRITING)
            .get_or_insert_with(HashSet::new)
            .insert(key.clone());
        Writing(key)
    }
}

impl Drop for Writing {
    fn drop(&mut self) {
        if let Some(homes) = lock(&WRITING).as_mut() {
            homes.remove(&self.0);
        }
    }
}

/// Takes `turns.lock`, waiting for a writer of this process that is still
/// checkpointing; another process's writer is refused at once.
pub(crate) fn lock_home(home: &Path) -> io::Result<File> {
    crate::private::private_dirs(home)?;
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(home.join(LOCK_FILE))?;
    for _ in 0..LOCK_TRIES {
        match file.try_lock() {
            Ok(()) => return Ok(file),
            Err(TryLockError::WouldBlock) if writing(&home.canonicalize()?) => {
                std::thread::sleep(Duration::from_millis(10))
            }
            Err(TryLockError::WouldBlock) => break,
            Err(TryLockError::Error(e)) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::WouldBlock,
        "another FlyBot process writes this home's Session and room logs",
    ))
}

/// The journal's whole lines, in order, up to the first torn one.
fn journal_lines(home: &Path) -> io::Result<Vec<JournalLine>> {
    let bytes = match fs::read(home.join(JOURNAL_FILE)) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    Ok(bytes
        .split(|b| *b == b'\n')
        .filter(|raw| !raw.is_empty())
        .map_while(|raw| serde_json::from_slice(raw).ok())
        .collect())
}

/// Replays the journal into its files and starts it again; answers each
/// Session's newest in-flight note (the journal's, else a legacy
/// `inflight.json`'s) and each room's newest run note.
pub(crate) fn recover(home: &Path) -> io::Result<Carried> {
    let lines = journal_lines(home)?;
    let mut files: Vec<(PathBuf, Vec<Value>)> = Vec::new();
    let mut notes = Folded::default();
    let mut rooms = BTreeMap::new();
    for line in lines {
        notes.fold(line.inflight, line.note);
        keep_room(&mut rooms, line.room, line.run);
        let (Some(file), Some(line)) = (line.file, line.line) else {
            continue;
        };
        let rel = PathBuf::from(file);
        if !inside(&rel) {
            tracing::warn!("the turn journal names a file outside the home; skipped");
            continue;
        }
        match files.iter_mut().find(|(r, _)| *r == rel) {
            Some((_, list)) => list.push(line),
            None => files.push((rel, vec![line])),
        }
    }
    for (rel, lines) in &files {
        replay(&home.join(rel), lines)?;
    }
    let legacy = inflight_path(home);
    if !notes.seen
        && let Some(set) = read_legacy(&legacy)
    {
        notes.whole(set);
    }
    let to_bytes = |run: &Value| serde_json::to_vec(run).map_err(io::Error::other);
    let carried = Carried {
        sessions: notes.into_bytes()?,
        rooms: rooms
            .iter()
            .map(|(id, run)| Ok((id.clone(), to_bytes(run)?)))
            .collect::<io::Result<_>>()?,
    };
    crate::atomic_write(&home.join(JOURNAL_FILE), &carried.lines())?;
    if legacy.exists() {
        fs::remove_file(&legacy)?;
    }
    Ok(carried)
}

fn read_legacy(path: &Path) -> Option<Value> {
    let bytes = fs::read(path).ok()?;
    match serde_json::from_slice(&bytes) {
        Ok(notes) => Some(notes),
        Err(e) => {
            tracing::warn!("inflight.json could not be read, starting without notes: {e}");
            None
        }
    }
}

fn seq_of(line: &Value) -> Option<u64> {
    line.get("seq").and_then(Value::as_u64)
}

/// Appends the lines past the file's last `seq`, and flushes them.
fn replay(path: &Path, lines: &[Value]) -> io::Result<()> {
    let mut file = JsonlAppender::open(path)?;
    let bytes = file.read_all()?;
    let last = bytes
        .split(|b| *b == b'\n')
        .rev()
        .find(|raw| !raw.is_empty())
        .and_then(|raw| serde_json::from_slice::<Value>(raw).ok())
        .and_then(|line| seq_of(&line))
        .unwrap_or(0);
    let mut missing = Vec::new();
    // A line read twice (a database's row a home already held) goes in once.
    let mut last = last;
    for line in lines {
        let Some(seq) = seq_of(line).filter(|s| *s > last) else {
            continue;
        };
        last = seq;
        serde_json::to_writer(&mut missing, line).map_err(io::Error::other)?;
        missing.push(b'\n');
    }
    if !missing.is_empty() {
        tracing::info!(file = %path.display(), "turn journal: lines replayed after a crash");
    }
    file.append(&missing)
}

/// Each Session's newest in-flight note the journal holds, gathered; `None`
/// when it holds none.
pub fn read_journal_inflight(home: &Path) -> io::Result<Option<Inflight>> {
    let mut notes = Folded::default();
    for line in journal_lines(home)? {
        notes.fold(line.inflight, line.note);
    }
    Ok(notes.into_inflight())
}

/// Each room's newest run note the journal holds.
pub fn read_journal_rooms(home: &Path) -> io::Result<BTreeMap<String, Value>> {
    let mut rooms = BTreeMap::new();
    for line in journal_lines(home)? {
        keep_room(&mut rooms, line.room, line.run);
    }
    Ok(rooms)
}

/// Folds one journal line's room note into the newest notes.
fn keep_room(rooms: &mut BTreeMap<String, Value>, room: Option<String>, run: Option<Value>) {
    if let Some(room_id) = room {
        match run {
            Some(run) => rooms.insert(room_id, run),
            None => rooms.remove(&room_id),
        };
    }
}
