//! Session logs: `sessions/<id>.jsonl`, one event per line, appended and
//! flushed to disk per batch through the JSONL appender. A torn last line (a
//! crash mid-append) is skipped on read and cut off before the next append,
//! so the log stays readable and never loses an acknowledged batch.

use crate::back_lines::BackLines;
use crate::jsonl::JsonlAppender;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

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

/// One Session's log file. It is opened for reading once and the
/// descriptor kept while this value (and so the Session holding it) lives:
/// a Session in memory reads its log back with no open (issue 38), and the
/// Sessions kept bound the descriptors held. Appends go through the turn
/// log's own writer; this descriptor sees them, being the same file.
#[derive(Debug, Clone)]
pub struct SessionLogFile {
    path: PathBuf,
    reader: Arc<Mutex<Option<Arc<File>>>>,
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
            reader: Arc::default(),
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

    /// Opens the kept read descriptor now, if the log exists yet: a
    /// Session held in memory then reads its log, when it must, without
    /// opening it (issue 38).
    pub fn keep_open(&self) -> io::Result<()> {
        self.reader().map(drop)
    }

    /// The kept read descriptor, opened on first use; `None` while the
    /// log does not exist yet (looked for again next time).
    fn reader(&self) -> io::Result<Option<Arc<File>>> {
        let mut kept = self.reader.lock().unwrap_or_else(|e| e.into_inner());
        if kept.is_none() {
            match File::open(&self.path) {
                Ok(file) => *kept = Some(Arc::new(file)),
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(e),
            }
        }
        Ok(kept.clone())
    }

    /// Every whole event, in order; an unreadable line is skipped.
    pub fn read<T: DeserializeOwned>(&self) -> io::Result<Vec<T>> {
        let Some(file) = self.reader()? else {
            return Ok(Vec::new());
        };
        let mut events = Vec::new();
        let whole = AtOffsets { file: &file, at: 0 };
        for line in BufReader::new(whole).split(b'\n') {
            let line = line?;
            if let Ok(event) = serde_json::from_slice(&line) {
                events.push(event);
            }
        }
        Ok(events)
    }

    /// The whole events at the end of the log, newest first read, answered
    /// in file order with each one's size as written: reading stops at the
    /// first event `before` says is older than wanted (not included), so
    /// the cost is the suffix read, not the history. An unreadable line
    /// is skipped, as in [`read`](Self::read).
    pub fn read_back<T: DeserializeOwned>(
        &self,
        mut before: impl FnMut(&T) -> bool,
    ) -> io::Result<Vec<(T, usize)>> {
        let Some(file) = self.reader()? else {
            return Ok(Vec::new());
        };
        let mut lines = BackLines::new(file.metadata()?.len());
        let mut found = Vec::new();
        while let Some(line) = lines.next_line(&file)? {
            let Ok(event) = serde_json::from_slice::<T>(&line) else {
                continue;
            };
            if before(&event) {
                break;
            }
            found.push((event, line.len() + 1));
        }
        found.reverse();
        Ok(found)
    }
}

/// A shared descriptor read from the start by offset (pread), so readers
/// sharing it keep no file position between them.
struct AtOffsets<'a> {
    file: &'a File,
    at: u64,
}

impl Read for AtOffsets<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.file.read_at(buf, self.at)?;
        self.at += n as u64;
        Ok(n)
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
    fn read_back_answers_the_suffix_in_order_and_stops_at_the_first_older_event() {
        let home = tempfile::tempdir().unwrap();
        let log = SessionLogFile::new(home.path(), "session-a").unwrap();
        // Lines longer than a chunk and shorter ones, so a line spans reads.
        let long = "x".repeat(crate::back_lines::BACK_CHUNK as usize + 10);
        let events: Vec<Value> = (1..=6)
            .map(|n| json!({"n": n, "text": if n % 2 == 0 { long.as_str() } else { "short" }}))
            .collect();
        log.append(&events).unwrap();
        let mut file = OpenOptions::new().append(true).open(log.path()).unwrap();
        file.write_all(b"{\"n\": 7").unwrap();
        drop(file);
        let back: Vec<(Value, usize)> = log.read_back(|e: &Value| e["n"] == 3).unwrap();
        let numbers: Vec<&Value> = back.iter().map(|(e, _)| &e["n"]).collect();
        assert_eq!(numbers, [4, 5, 6]);
        let sizes: usize = back.iter().map(|(_, size)| size).sum();
        let whole = std::fs::read(log.path()).unwrap();
        let written: usize = whole
            .split_inclusive(|&b| b == b'\n')
            .skip(3)
            .take(3)
            .map(<[u8]>::len)
            .sum();
        assert_eq!(sizes, written, "each size is its line as written");
        let all: Vec<(Value, usize)> = log.read_back(|_: &Value| false).unwrap();
        assert_eq!(all.len(), 6, "the torn last line is skipped");
        assert_eq!(all[0].0, events[0]);
    }

    #[test]
    fn read_back_of_a_missing_log_is_empty() {
        let home = tempfile::tempdir().unwrap();
        let log = SessionLogFile::new(home.path(), "none").unwrap();
        let read: Vec<(Value, usize)> = log.read_back(|_: &Value| false).unwrap();
        assert!(read.is_empty());
    }

    #[test]
    fn a_descriptor_kept_open_reads_without_opening_the_log_again_38() {
        let home = tempfile::tempdir().unwrap();
        let log = SessionLogFile::new(home.path(), "s").unwrap();
        log.keep_open().unwrap();
        log.append(&[json!({"n": 1})]).unwrap();
        // Not there yet when first asked: opened once it is.
        log.keep_open().unwrap();
        let path = home.path().join("sessions/s.jsonl");
        std::fs::rename(&path, home.path().join("sessions/moved.jsonl")).unwrap();
        let read: Vec<(Value, usize)> = log.read_back(|_: &Value| false).unwrap();
        assert_eq!(read.len(), 1, "read through the kept descriptor");
    }

    #[test]
    fn an_id_that_leaves_the_folder_is_refused() {
        let home = tempfile::tempdir().unwrap();
        for id in ["../x", "a/b", "", ".hidden"] {
            assert!(SessionLogFile::new(home.path(), id).is_err(), "{id}");
        }
    }
}
