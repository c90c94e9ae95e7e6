//! Session logs: `sessions/<id>.jsonl`, one event per line, appended and
//! flushed to disk per batch through the JSONL appender. A torn last line (a
//! crash mid-append) is skipped on read and cut off before the next append,
//! so the log stays readable and never loses an acknowledged batch.

use crate::jsonl::JsonlAppender;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};

/// The folder that holds the Session logs.
pub fn sessions_dir(home: &Path) -> PathBuf {
    home.join("sessions")
}

/// Whether `id` can name a log file: no separators, no dots at the start.
pub fn valid_session_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
}

/// One Session's log file.
#[derive(Debug, Clone)]
pub struct SessionLogFile {
    path: PathBuf,
}

impl SessionLogFile {
    /// The log of `session_id` under `home`; refuses an id that could
    /// name a file outside the folder.
    pub fn new(home: &Path, session_id: &str) -> io::Result<SessionLogFile> {
        if !valid_session_id(session_id) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a Session id names no log file",
            ));
        }
        Ok(SessionLogFile {
            path: sessions_dir(home).join(format!("{session_id}.jsonl")),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `events` as lines and flushes them to disk before answering.
    pub fn append<T: Serialize>(&self, events: &[T]) -> io::Result<()> {
        if events.is_empty() {
            return Ok(());
        }
        let mut bytes = Vec::new();
        for event in events {
            serde_json::to_writer(&mut bytes, event).map_err(io::Error::other)?;
            bytes.push(b'\n');
        }
        JsonlAppender::open(&self.path)?.append(&bytes)
    }

    /// Every whole event, in order; an unreadable line is skipped.
    pub fn read<T: DeserializeOwned>(&self) -> io::Result<Vec<T>> {
        let file = match File::open(&self.path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut events = Vec::new();
        for line in BufReader::new(file).split(b'\n') {
            let line = line?;
            if let Ok(event) = serde_json::from_slice(&line) {
                events.push(event);
            }
        }
        Ok(events)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};
    use std::fs::OpenOptions;
    use std::io::Write;

    #[test]
    fn appends_read_back_in_order_and_a_torn_line_is_dropped() {
        let home = tempfile::tempdir().unwrap();
        let log = SessionLogFile::new(home.path(), "session-a").unwrap();
        log.append(&[json!({"n": 1}), json!({"n": 2})]).unwrap();
        let mut file = OpenOptions::new().append(true).open(log.path()).unwrap();
        file.write_all(b"{\"n\": 3").unwrap();
        drop(file);
        let read: Vec<Value> = log.read().unwrap();
        assert_eq!(read, vec![json!({"n": 1}), json!({"n": 2})]);
        log.append(&[json!({"n": 4})]).unwrap();
        let read: Vec<Value> = log.read().unwrap();
        assert_eq!(
            read,
            vec![json!({"n": 1}), json!({"n": 2}), json!({"n": 4})]
        );
    }

    #[test]
    fn a_last_line_that_is_not_json_is_cut_and_the_next_append_reads_back() {
        let home = tempfile::tempdir().unwrap();
        let log = SessionLogFile::new(home.path(), "session-a").unwrap();
        log.append(&[json!({"n": 1})]).unwrap();
        let mut file = OpenOptions::new().append(true).open(log.path()).unwrap();
        file.write_all(b"{\"n\": \n").unwrap();
        drop(file);
        log.append(&[json!({"n": 2})]).unwrap();
        let read: Vec<Value> = log.read().unwrap();
        assert_eq!(read, vec![json!({"n": 1}), json!({"n": 2})]);
        let bytes = std::fs::read(log.path()).unwrap();
        assert_eq!(bytes, b"{\"n\":1}\n{\"n\":2}\n");
    }

    #[test]
    fn an_id_that_leaves_the_folder_is_refused() {
        let home = tempfile::tempdir().unwrap();
        for id in ["../x", "a/b", "", ".hidden"] {
            assert!(SessionLogFile::new(home.path(), id).is_err(), "{id}");
        }
    }
}
