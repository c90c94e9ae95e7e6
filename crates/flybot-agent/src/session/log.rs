//! A Session's log in memory and on disk: every batch of events is numbered,
//! kept in memory (so building the next request reads no file) and handed
//! to the home's turn log, which writes it to `sessions/<id>.jsonl` and
//! makes it durable with the other Sessions' and rooms' lines (group
//! commit, `flybot_store::turn_log`).

use super::event::{LogEntry, SessionEvent};
use flybot_store::sessions::SessionLogFile;
use flybot_store::turn_log::{OnDurable, Record, TurnLog, Urgency};
use std::io;
use std::path::{Path, PathBuf};

pub struct SessionLog {
    home: PathBuf,
    file: SessionLogFile,
    entries: Vec<LogEntry>,
    /// The size of the entries as written: what holding them costs, near enough.
    bytes: u64,
}

impl SessionLog {
    /// Opens the log of `session_id`, reading what is already there.
    pub fn open(home: &Path, session_id: &str) -> io::Result<SessionLog> {
        let file = SessionLogFile::new(home, session_id)?;
        let entries = file.read()?;
        let bytes = std::fs::metadata(file.path()).map_or(0, |meta| meta.len());
        Ok(SessionLog {
            home: home.to_owned(),
            file,
            entries,
            bytes,
        })
    }

    /// The sequence number the last of `count` events appended now gets.
    pub fn last_seq_after(&self, count: usize) -> u64 {
        self.entries.last().map_or(0, |e| e.seq) + count as u64
    }

    /// Numbers `events` and hands them to `turn_log` (`done` is called once
    /// they are durable); answers once they are handed, in memory.
    pub fn append(
        &mut self,
        turn_log: &TurnLog,
        at: u64,
        events: Vec<SessionEvent>,
        urgency: Urgency,
        done: Option<OnDurable>,
    ) -> io::Result<()> {
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
        let records = batch
            .iter()
            .map(|entry| Record::new(&self.home, self.file.path(), entry))
            .collect::<io::Result<Vec<Record>>>()?;
        let bytes: usize = records.iter().map(Record::byte_len).sum();
        turn_log.write(records, None, urgency, done)?;
        self.entries.extend(batch);
        self.bytes += bytes as u64;
        Ok(())
    }

    /// The size of the log as written (its file's length).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn entries(&self) -> &[LogEntry] {
        &self.entries
    }

    /// The entries after sequence number `after`.
    pub fn after(&self, after: u64) -> &[LogEntry] {
        let start = self.entries.partition_point(|e| e.seq <= after);
        &self.entries[start..]
    }

    /// The entries after `after` and up to `through`.
    pub fn between(&self, after: u64, through: u64) -> &[LogEntry] {
        let end = self.entries.partition_point(|e| e.seq <= through);
        let start = self.entries.partition_point(|e| e.seq <= after).min(end);
        &self.entries[start..end]
    }
}
