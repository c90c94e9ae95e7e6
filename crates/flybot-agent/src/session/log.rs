//! A Session's log on disk and the part of it held in memory: every batch
//! of events is numbered and handed to the home's turn log, which writes it
//! to `sessions/<id>.jsonl` and makes it durable with the other Sessions'
//! and rooms' lines (group commit, `flybot_store::turn_log`).
//!
//! Memory holds only the newest entries (issue 13): those not yet durable,
//! and the current part a turn loaded to build its requests. Once a turn
//! has ended and its end is durable the Session lets go of the entries
//! before that part, so what a Session holds does not grow with its
//! history (and the idle Sessions kept hold a bounded sum, `evict`);
//! anything older is read back from the file's end on demand, at a cost
//! of the suffix read.

use super::event::{LogEntry, SessionEvent};
use flybot_store::sessions::SessionLogFile;
use flybot_store::turn_log::{OnDurable, Record, TurnLog, Urgency};
use std::io;
use std::path::{Path, PathBuf};

pub struct SessionLog {
    home: PathBuf,
    file: SessionLogFile,
    /// The newest entries, in order, with no gap up to the last one.
    held: Vec<LogEntry>,
    /// The size of each held entry as written.
    sizes: Vec<usize>,
    /// The sum of `sizes`, kept as they change: the Sessions' bound reads
    /// it for every Session in memory at each turn's end.
    held_bytes: u64,
    last_seq: u64,
}

impl SessionLog {
    /// Opens the log of `session_id`, reading only its last entry.
    pub fn open(home: &Path, session_id: &str) -> io::Result<SessionLog> {
        let file = SessionLogFile::new(home, session_id)?;
        let mut seen = 0;
        let last: Vec<(LogEntry, usize)> = file.read_back(|_: &LogEntry| {
            seen += 1;
            seen > 1
        })?;
        Ok(SessionLog {
            home: home.to_owned(),
            file,
            held: Vec::new(),
            sizes: Vec::new(),
            held_bytes: 0,
            last_seq: last.first().map_or(0, |(entry, _)| entry.seq),
        })
    }

    /// The sequence number the last of `count` events appended now gets.
    pub fn last_seq_after(&self, count: usize) -> u64 {
        self.last_seq + count as u64
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
        let first = self.last_seq + 1;
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
        let sizes: Vec<usize> = records.iter().map(Record::byte_len).collect();
        turn_log.write(records, None, urgency, done)?;
        self.last_seq = batch.last().map_or(self.last_seq, |e| e.seq);
        self.held.extend(batch);
        self.held_bytes += sizes.iter().sum::<usize>() as u64;
        self.sizes.extend(sizes);
        Ok(())
    }

    /// Opens the log's read descriptor, kept while the Session is held,
    /// once the file exists; a failure shows at the next read instead.
    pub fn keep_file_open(&self) {
        let _ = self.file.keep_open();
    }

    /// The size as written of the entries held in memory.
    pub fn held_bytes(&self) -> u64 {
        self.held_bytes
    }

    /// The first sequence number held in memory.
    fn held_from(&self) -> u64 {
        self.held.first().map_or(self.last_seq + 1, |e| e.seq)
    }

    /// Makes memory hold every entry after `after`, reading the older ones
    /// from the file; they stay until [`release_through`](Self::release_through).
    pub fn load_after(&mut self, after: u64) -> io::Result<()> {
        let from = self.held_from();
        if after.saturating_add(1) >= from {
            return Ok(());
        }
        let (mut older, mut sizes): (Vec<LogEntry>, Vec<usize>) =
            self.read_before(after, from)?.into_iter().unzip();
        older.append(&mut self.held);
        self.held_bytes += sizes.iter().sum::<usize>() as u64;
        sizes.append(&mut self.sizes);
        self.held = older;
        self.sizes = sizes;
        Ok(())
    }

    /// The held entries after `after` (what [`load_after`](Self::load_after)
    /// made sure of).
    pub fn held_after(&self, after: u64) -> &[LogEntry] {
        let start = self.held.partition_point(|e| e.seq <= after);
        &self.held[start..]
    }

    /// The entries after `after`, read from the file where memory does not
    /// hold them; memory is left as it was.
    pub fn suffix(&self, after: u64) -> io::Result<Vec<LogEntry>> {
        let from = self.held_from();
        let mut entries: Vec<LogEntry> = if after.saturating_add(1) >= from {
            Vec::new()
        } else {
            let read = self.read_before(after, from)?;
            read.into_iter().map(|(entry, _)| entry).collect()
        };
        entries.extend_from_slice(self.held_after(after));
        Ok(entries)
    }

    /// The entries after `after` and up to `through`.
    pub fn between(&self, after: u64, through: u64) -> io::Result<Vec<LogEntry>> {
        let mut entries = self.suffix(after)?;
        entries.truncate(entries.partition_point(|e| e.seq <= through));
        Ok(entries)
    }

    /// The entries of the turn `turn_id` up to `through`, from its
    /// `turn/start` on (issue 38): from memory when it holds the start, else
    /// read back from the file only as far as the start. A turn whose start
    /// is gone is read whole, from the first entry.
    pub fn turn_entries(&self, turn_id: &str, through: u64) -> io::Result<Vec<LogEntry>> {
        self.since_last_start(
            through,
            |e| matches!(&e.event, SessionEvent::TurnStart { turn_id: t } if t == turn_id),
        )
    }

    /// The entries up to `through` from the last `turn/start` among them
    /// on: the running turn's, as its tools read it, without the history
    /// before it (the whole log when no turn ever started).
    pub fn last_turn_entries(&self, through: u64) -> io::Result<Vec<LogEntry>> {
        self.since_last_start(through, is_turn_start)
    }

    /// The entries up to `through` from the last one `starts` picks: from
    /// memory when it holds that one, else read back from the file's end no
    /// further than it.
    fn since_last_start(
        &self,
        through: u64,
        starts: impl Fn(&LogEntry) -> bool,
    ) -> io::Result<Vec<LogEntry>> {
        let held = &self.held[..self.held.partition_point(|e| e.seq <= through)];
        if let Some(start) = held.iter().rposition(&starts) {
            return Ok(held[start..].to_vec());
        }
        let from = self.held_from();
        let mut found = false;
        let mut read = self.file.read_back(|e: &LogEntry| {
            let older = found;
            found |= e.seq <= through && starts(e);
            older
        })?;
        read.retain(|(e, _)| e.seq < from && e.seq <= through);
        let mut entries: Vec<LogEntry> = read.into_iter().map(|(e, _)| e).collect();
        entries.extend_from_slice(held);
        Ok(entries)
    }

    /// The sequence number of the last `turn/start` held in memory.
    pub fn last_turn_start(&self) -> Option<u64> {
        self.held
            .iter()
            .rev()
            .find(|e| is_turn_start(e))
            .map(|e| e.seq)
    }

    /// The newest `count` entries.
    pub fn latest(&self, count: usize) -> io::Result<Vec<LogEntry>> {
        let need = count.saturating_sub(self.held.len());
        let from = self.held_from();
        let mut entries: Vec<LogEntry> = Vec::new();
        if need > 0 {
            let mut older = 0;
            let read = self.file.read_back(|e: &LogEntry| {
                older += usize::from(e.seq < from);
                older > need
            })?;
            entries.extend(read.into_iter().map(|(e, _)| e).filter(|e| e.seq < from));
        }
        let skip = self.held.len().saturating_sub(count);
        entries.extend_from_slice(&self.held[skip..]);
        Ok(entries)
    }

    /// Lets memory go of the entries up to `seq`, which must be durable:
    /// they are read from the file again when needed.
    pub fn release_through(&mut self, seq: u64) {
        let end = self.held.partition_point(|e| e.seq <= seq);
        self.held.drain(..end);
        self.held_bytes -= self.sizes.drain(..end).sum::<usize>() as u64;
        self.held.shrink_to_fit();
        self.sizes.shrink_to_fit();
    }

    /// The entries in the file after `after` and before `from`.
    fn read_before(&self, after: u64, from: u64) -> io::Result<Vec<(LogEntry, usize)>> {
        let mut read = self.file.read_back(|e: &LogEntry| e.seq <= after)?;
        read.retain(|(e, _)| e.seq < from);
        Ok(read)
    }
}

fn is_turn_start(entry: &LogEntry) -> bool {
    matches!(entry.event, SessionEvent::TurnStart { .. })
}

#[cfg(test)]
mod tests;
