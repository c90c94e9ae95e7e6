//! A Session's parts record, `sessions/<id>.parts.jsonl` beside its log:
//! one line per part move, handoff note, rollback, checkpoint and pinned
//! snapshot (the records are `flybot-agent::context::parts`). The Session
//! id and its log stay the same across parts; this file says where the
//! current part begins. Appended and flushed through the JSONL appender, so
//! a part is on disk before its handoff runs (#1245). A record nothing
//! waits on (the pinned snapshot at a part's first step) is flushed on a
//! thread of its own while the turn goes on; the next append waits for it,
//! so the file keeps the order the records were taken in. The file is
//! opened at its first append and kept open while the Session is in memory
//! (issue 38: a part's move or checkpoint opens nothing), so the open
//! descriptors are bounded by the Sessions kept.

use crate::jsonl::JsonlAppender;
use crate::sessions::{sessions_dir, valid_session_id};
use flybot_core::sync::lock;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, mpsc};

/// The outcome of an append still being flushed.
type Behind = Arc<Mutex<Option<mpsc::Receiver<io::Result<()>>>>>;

/// The file open for appending, once the first append opened it.
type Appender = Arc<Mutex<Option<JsonlAppender>>>;

/// One Session's parts record.
#[derive(Debug, Clone)]
pub struct PartsFile {
    path: PathBuf,
    behind: Behind,
    appender: Appender,
}

impl PartsFile {
    pub fn new(home: &Path, session_id: &str) -> io::Result<PartsFile> {
        if !valid_session_id(session_id) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a Session id names no parts file",
            ));
        }
        Ok(PartsFile {
            path: sessions_dir(home).join(format!("{session_id}.parts.jsonl")),
            behind: Behind::default(),
            appender: Appender::default(),
        })
    }

    /// Appends `record` and flushes it to disk before answering.
    pub fn append<T: Serialize>(&self, record: &T) -> io::Result<()> {
        let bytes = line_of(record)?;
        self.wait_behind();
        append_kept(&self.path, &self.appender, &bytes)
    }

    /// Appends and flushes `record` on a thread of its own and answers at
    /// once; a failure is logged. For a record nothing waits on.
    pub fn append_behind<T: Serialize>(&self, record: &T) -> io::Result<()> {
        let bytes = line_of(record)?;
        self.wait_behind();
        let (done, outcome) = mpsc::channel();
        let (path, appender) = (self.path.clone(), self.appender.clone());
        std::thread::Builder::new()
            .name("flybot-parts".to_owned())
            .spawn(move || {
                let _ = done.send(append_kept(&path, &appender, &bytes));
            })?;
        *lock(&self.behind) = Some(outcome);
        Ok(())
    }

    /// Waits until an append made behind is on disk.
    fn wait_behind(&self) {
        let Some(outcome) = lock(&self.behind).take() else {
            return;
        };
        if let Ok(Err(e)) = outcome.recv() {
            tracing::warn!(
                "a parts record of {} was not flushed: {e}",
                self.path.display()
            );
        }
    }

    /// Every whole record, in order; a missing file is none.
    pub fn read<T: DeserializeOwned>(&self) -> io::Result<Vec<T>> {
        self.wait_behind();
        match std::fs::read(&self.path) {
            Ok(bytes) => Ok(bytes
                .split(|b| *b == b'\n')
                .filter_map(|line| serde_json::from_slice(line).ok())
                .collect()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(e),
        }
    }
}

/// Appends `bytes` through the kept descriptor, opening `path` first when
/// none is kept. A failed append lets the descriptor go, so the next one
/// opens the file afresh (and cuts what the failure may have torn).
fn append_kept(path: &Path, appender: &Appender, bytes: &[u8]) -> io::Result<()> {
    let mut kept = lock(appender);
    let file = match kept.as_mut() {
        Some(file) => file,
        None => kept.insert(JsonlAppender::open(path)?),
    };
    let appended = file.append(bytes);
    if appended.is_err() {
        *kept = None;
    }
    appended
}

fn line_of<T: Serialize>(record: &T) -> io::Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec(record).map_err(io::Error::other)?;
    bytes.push(b'\n');
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn records_read_back_in_order_beside_the_session_log() {
        let home = tempfile::tempdir().unwrap();
        let parts = PartsFile::new(home.path(), "session-a").unwrap();
        assert!(parts.read::<Value>().unwrap().is_empty());
        parts
            .append(&json!({"type": "part/start", "part": 2}))
            .unwrap();
        parts
            .append(&json!({"type": "part/handoff", "part": 2}))
            .unwrap();
        parts
            .append_behind(&json!({"type": "part/pinned", "part": 2}))
            .unwrap();
        parts
            .append(&json!({"type": "part/rollback", "part": 2}))
            .unwrap();
        let read: Vec<Value> = parts.read().unwrap();
        let kinds: Vec<&str> = read.iter().filter_map(|r| r["type"].as_str()).collect();
        assert_eq!(
            kinds,
            ["part/start", "part/handoff", "part/pinned", "part/rollback"],
            "a record flushed behind keeps its place"
        );
        assert!(home.path().join("sessions/session-a.parts.jsonl").is_file());
        assert!(PartsFile::new(home.path(), "../x").is_err());
    }

    #[test]
    fn appends_go_through_the_descriptor_kept_open_38() {
        let home = tempfile::tempdir().unwrap();
        let parts = PartsFile::new(home.path(), "session-a").unwrap();
        parts
            .append(&json!({"type": "part/start", "part": 1}))
            .unwrap();
        // Moved aside after the first append: a file opened again would be
        // a new one at the old name; the kept descriptor follows the file.
        let path = home.path().join("sessions/session-a.parts.jsonl");
        let moved = home.path().join("sessions/moved.parts.jsonl");
        std::fs::rename(&path, &moved).unwrap();
        parts
            .append(&json!({"type": "part/checkpoint", "part": 1}))
            .unwrap();
        parts
            .append_behind(&json!({"type": "part/pinned", "part": 1}))
            .unwrap();
        parts.wait_behind();
        assert!(!path.exists(), "no append opened the file again");
        let lines = std::fs::read_to_string(&moved).unwrap();
        assert_eq!(lines.lines().count(), 3);
    }
}
