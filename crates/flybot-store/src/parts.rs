//! A Session's parts record, `sessions/<id>.parts.jsonl` beside its log:
//! one line per part move, handoff note, rollback, checkpoint and pinned
//! snapshot (the records are `flybot-agent::context::parts`). The Session
//! id and its log stay the same across parts; this file says where the
//! current part begins. Appended and flushed through the JSONL appender, so
//! a part is on disk before its handoff runs (#1245).

use crate::jsonl::JsonlAppender;
use crate::sessions::{sessions_dir, valid_session_id};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::io;
use std::path::{Path, PathBuf};

/// One Session's parts record.
#[derive(Debug, Clone)]
pub struct PartsFile {
    path: PathBuf,
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
        })
    }

    /// Appends `record` and flushes it to disk before answering.
    pub fn append<T: Serialize>(&self, record: &T) -> io::Result<()> {
        let mut bytes = serde_json::to_vec(record).map_err(io::Error::other)?;
        bytes.push(b'\n');
        JsonlAppender::open(&self.path)?.append(&bytes)
    }

    /// Every whole record, in order; a missing file is none.
    pub fn read<T: DeserializeOwned>(&self) -> io::Result<Vec<T>> {
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
        let read: Vec<Value> = parts.read().unwrap();
        assert_eq!(read[1]["type"], "part/handoff");
        assert!(home.path().join("sessions/session-a.parts.jsonl").is_file());
        assert!(PartsFile::new(home.path(), "../x").is_err());
    }
}
