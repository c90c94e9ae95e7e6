//! The one JSONL appender: Session logs, room logs, `decisions.jsonl` and the
//! interop journal append through it. Opening a file for appending cuts a
//! torn tail first (a last line without its newline, or one that is not
//! JSON: a crash mid-append), so the next append starts a line of its own,
//! reads back, and no acknowledged line is lost. The write-ahead journal
//! (`journal.jsonl`) is not a user: its tail is judged against its digest
//! chain when the home opens (`load`).

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use crate::room_ahead::RoomAhead;

/// How much of the file's end one read looks at while finding the last line.
const CHUNK: u64 = 8 * 1024;

/// A JSONL file open for appending, its torn tail already cut.
#[derive(Debug)]
pub struct JsonlAppender {
    file: File,
    /// The file's length as this appender left it.
    len: u64,
    /// Disk room reserved ahead of the end, for a file synced at every
    /// batch (`reserving_room`).
    room: Option<RoomAhead>,
}

impl JsonlAppender {
    /// Opens `path` for appending, creating it (mode 0600: the home is
    /// private) and its folder when missing, and cuts a torn tail. A file it
    /// creates has its folder flushed too, so the new name survives a crash.
    pub fn open(path: &Path) -> io::Result<JsonlAppender> {
        let dir = path.parent();
        if let Some(dir) = dir {
            crate::private::private_dirs(dir)?;
        }
        let fresh = !path.exists();
        let mut file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .mode(0o600)
            .open(path)?;
        let len = match torn_tail(&mut file)? {
            Some(keep) => {
                cut_at(&file, keep)?;
                keep
            }
            None => file.metadata()?.len(),
        };
        if fresh && let Some(dir) = dir {
            File::open(dir)?.sync_all()?;
        }
        Ok(JsonlAppender {
            file,
            len,
            room: None,
        })
    }

    /// Appends from now on land in disk room reserved ahead of the end
    /// (`room_ahead`), so a sync allocates no block: for a journal synced
    /// at every batch, not for the many logs synced only at a checkpoint.
    pub fn reserving_room(mut self) -> Self {
        self.room = Some(RoomAhead::default());
        self
    }

    /// Appends `lines` (whole lines, each ending in a newline) with one
    /// write and flushes them to disk before answering.
    pub fn append(&mut self, lines: &[u8]) -> io::Result<()> {
        if lines.is_empty() {
            return Ok(());
        }
        self.write(lines)?;
        self.sync()
    }

    /// Appends `lines` (whole lines) with one write, without flushing them:
    /// the turn log's writer writes here and makes the lines durable through
    /// its own journal (`turn_log`), syncing this file only at a checkpoint.
    pub fn write(&mut self, lines: &[u8]) -> io::Result<()> {
        if lines.last().is_some_and(|b| *b != b'\n') {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a JSONL append must end with a newline",
            ));
        }
        let end = self.len + lines.len() as u64;
        if let Some(room) = &mut self.room {
            room.before_append(&self.file, self.len, end);
        }
        self.file.write_all(lines)?;
        self.len = end;
        Ok(())
    }

    /// Flushes what was written to disk.
    pub fn sync(&mut self) -> io::Result<()> {
        self.file.sync_data()
    }

    /// The file's length in bytes.
    pub fn size(&self) -> io::Result<u64> {
        Ok(self.file.metadata()?.len())
    }

    /// The file's bytes from its start: whole lines only, since the tail was
    /// cut when it opened.
    pub fn read_all(&mut self) -> io::Result<Vec<u8>> {
        let mut bytes = Vec::new();
        self.file.seek(SeekFrom::Start(0))?;
        self.file.read_to_end(&mut bytes)?;
        Ok(bytes)
    }
}

/// Cuts the torn tail of the file at `path` when it exists, without
/// creating it (a reader that opens a log before anything is appended). A
/// whole file is only read, never opened for writing.
pub fn cut_torn_tail_at(path: &Path) -> io::Result<()> {
    let mut file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    match torn_tail(&mut file)? {
        Some(keep) => cut_at(&OpenOptions::new().write(true).open(path)?, keep),
        None => Ok(()),
    }
}

/// Where a torn tail starts, if the file has one: a last line that has no
/// newline, or else a last line that is not JSON. The lines before it are
/// whole and stay.
fn torn_tail(file: &mut File) -> io::Result<Option<u64>> {
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(None);
    }
    let ends_whole = read_at(file, len - 1, 1)? == b"\n";
    let keep = if ends_whole {
        let start = line_start(file, len - 1)?;
        let last = read_at(file, start, (len - 1 - start) as usize)?;
        let is_json = serde_json::from_slice::<serde::de::IgnoredAny>(&last).is_ok();
        if is_json { len } else { start }
    } else {
        line_start(file, len)?
    };
    Ok((keep < len).then_some(keep))
}

/// Truncates the file to `keep` bytes and flushes the cut to disk.
fn cut_at(file: &File, keep: u64) -> io::Result<()> {
    file.set_len(keep)?;
    file.sync_all()
}

/// Where the line that ends at `end` (exclusive, before its newline)
/// starts: just after the newline before it, or the file's start.
fn line_start(file: &mut File, end: u64) -> io::Result<u64> {
    let mut upto = end;
    while upto > 0 {
        let from = upto.saturating_sub(CHUNK);
        let chunk = read_at(file, from, (upto - from) as usize)?;
        if let Some(at) = chunk.iter().rposition(|b| *b == b'\n') {
            return Ok(from + at as u64 + 1);
        }
        upto = from;
    }
    Ok(0)
}

fn read_at(file: &mut File, from: u64, len: usize) -> io::Result<Vec<u8>> {
    let mut bytes = vec![0; len];
    file.seek(SeekFrom::Start(from))?;
    file.read_exact(&mut bytes)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// Writes `before` raw, opens it for appending, appends `{"next":1}`,
    /// and answers the file's bytes.
    fn check(before: &[u8]) -> Vec<u8> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        fs::write(&path, before).unwrap();
        let mut appender = JsonlAppender::open(&path).unwrap();
        appender.append(b"{\"next\":1}\n").unwrap();
        let bytes = appender.read_all().unwrap();
        assert_eq!(fs::read(&path).unwrap(), bytes);
        bytes
    }

    #[test]
    fn whole_lines_stay_and_the_next_append_follows_them() {
        assert_eq!(check(b""), b"{\"next\":1}\n");
        assert_eq!(check(b"{\"a\":1}\n"), b"{\"a\":1}\n{\"next\":1}\n");
    }

    #[test]
    fn a_last_line_without_its_newline_is_cut() {
        assert_eq!(check(b"{\"a\":1}\n{\"b\":"), b"{\"a\":1}\n{\"next\":1}\n");
        assert_eq!(check(b"{\"b\":"), b"{\"next\":1}\n");
        // A whole line torn only of its newline is still cut: it was never
        // acknowledged.
        assert_eq!(check(b"{\"a\":1}\n{\"b\":2}"), b"{\"a\":1}\n{\"next\":1}\n");
    }

    #[test]
    fn a_last_line_that_is_not_json_is_cut() {
        assert_eq!(check(b"{\"a\":1}\n\0\0\0\n"), b"{\"a\":1}\n{\"next\":1}\n");
        assert_eq!(check(b"{\"a\":1}\n{\"b\":\n"), b"{\"a\":1}\n{\"next\":1}\n");
    }

    #[test]
    fn a_last_line_longer_than_one_chunk_is_found_whole() {
        let long = format!("{{\"text\":\"{}\"}}\n", "x".repeat(3 * CHUNK as usize));
        let mut torn = long.clone().into_bytes();
        torn.extend_from_slice(&b"y".repeat(2 * CHUNK as usize));
        let mut expected = long.clone().into_bytes();
        expected.extend_from_slice(b"{\"next\":1}\n");
        assert_eq!(check(long.as_bytes()), expected);
        assert_eq!(check(&torn), expected);
    }

    #[test]
    fn cutting_a_missing_file_creates_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("none.jsonl");
        cut_torn_tail_at(&path).unwrap();
        assert!(!path.exists());
    }

    #[test]
    fn an_append_that_is_not_whole_lines_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut appender = JsonlAppender::open(&dir.path().join("a.jsonl")).unwrap();
        assert!(appender.append(b"{\"a\":1}").is_err());
    }
}
