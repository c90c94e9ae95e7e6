//! A Session's log in memory and on disk: every batch of events is numbered,
//! written and flushed through `flybot_store::sessions` before the turn goes
//! on, and kept in memory so building the next request reads no file.

use super::event::{LogEntry, SessionEvent};
use flybot_store::sessions::SessionLogFile;
use std::io;
use std::path::Path;

pub struct SessionLog {
    file: SessionLogFile,
    entries: Vec<LogEntry>,
}

impl SessionLog {
    /// Opens the log of `session_id`, reading what is already there.
    pub fn open(home: &Path, session_id: &str) -> io::Result<SessionLog> {
        let file = SessionLogFile::new(home, session_id)?;
        let entries = file.read()?;
        Ok(SessionLog { file, entries })
    }

    /// Numbers, writes and flushes `events`; answers once they are on disk.
    pub fn append(&mut self, at: u64, events: Vec<SessionEvent>) -> io::Result<()> {
        let first = self.entries.last().map_or(1, |e| e.seq + 1);
        let batch: Vec<LogEntry> = events
            .into_iter()
            .enumerate()
            .map(|(i, event)| LogEntry {
                seq: first + i as u64,
                at,
                event,
            })
            .collect();
        self.file.append(&batch)?;
        self.entries.extend(batch);
        Ok(())
    }

    pub fn entries(&self) -> &[LogEntry] {
        &self.entries
    }

    /// The entries after sequence number `after`.
    pub fn after(&self, after: u64) -> &[LogEntry] {
        let start = self.entries.partition_point(|e| e.seq <= after);
        &self.entries[start..]
    }
}
