//! Room logs: `rooms/<id>.jsonl`, one [`RoomLine`] per line, appended and
//! flushed per line. Every line passes through `prepare_room_line` before it
//! is stored (#1251), so the stored line and the next member turn cannot
//! disagree. A torn last line (a crash mid-append) is cut off on open and
//! before every append (the JSONL appender).

use crate::jsonl::{JsonlAppender, cut_torn_tail_at};
use flybot_core::rooms::context::prepare_room_line;
use flybot_core::rooms::log::{AuthorKind, LineKind, RoomLine};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The folder that holds the room logs.
pub fn rooms_dir(home: &Path) -> PathBuf {
    home.join("rooms")
}

/// A line before it has a seq.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewLine {
    pub author_id: String,
    pub author_kind: AuthorKind,
    pub kind: LineKind,
    pub text: String,
    pub at: u64,
    pub hop: u32,
}

/// One room's log, read once and appended to.
#[derive(Debug)]
pub struct RoomLog {
    path: PathBuf,
    lines: Vec<RoomLine>,
}

impl RoomLog {
    /// Opens (or starts) the log of `room_id` under `home`.
    pub fn open(home: &Path, room_id: &str) -> io::Result<RoomLog> {
        if !crate::sessions::valid_session_id(room_id) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a room id names no log file",
            ));
        }
        let path = rooms_dir(home).join(format!("{room_id}.jsonl"));
        cut_torn_tail_at(&path)?;
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e),
        };
        let lines = bytes
            .split(|b| *b == b'\n')
            .filter_map(|l| serde_json::from_slice::<RoomLine>(l).ok())
            .collect();
        Ok(RoomLog { path, lines })
    }

    pub fn lines(&self) -> &[RoomLine] {
        &self.lines
    }

    pub fn last_seq(&self) -> u64 {
        self.lines.last().map_or(0, |l| l.seq)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Stores `line` at the next seq, its text prepared (#1251), flushed to
    /// disk before it answers.
    pub fn append(&mut self, line: NewLine) -> io::Result<RoomLine> {
        let stored = self.next(line);
        let mut bytes = serde_json::to_vec(&stored).map_err(io::Error::other)?;
        bytes.push(b'\n');
        JsonlAppender::open(&self.path)?.append(&bytes)?;
        self.lines.push(stored.clone());
        Ok(stored)
    }

    /// `line` as it is stored next: the next seq, its text prepared (#1251).
    /// The caller writes it (the turn log) and then [`RoomLog::push`]es it.
    pub fn next(&self, line: NewLine) -> RoomLine {
        RoomLine {
            seq: self.last_seq() + 1,
            text: prepare_room_line(line.author_kind, line.kind, &line.text),
            author_id: line.author_id,
            author_kind: line.author_kind,
            kind: line.kind,
            at: line.at,
            hop: line.hop,
            attachments: Vec::new(),
        }
    }

    /// Keeps a line [`RoomLog::next`] made, once it is written.
    pub fn push(&mut self, stored: RoomLine) {
        self.lines.push(stored);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::fs::OpenOptions;
    use std::io::Write;

    fn person(text: &str) -> NewLine {
        NewLine {
            author_id: "member-a".into(),
            author_kind: AuthorKind::Human,
            kind: LineKind::Chat,
            text: text.into(),
            at: 1,
            hop: 0,
        }
    }

    #[test]
    fn lines_read_back_in_order_with_seqs_and_a_torn_tail_is_cut_50() {
        let home = tempfile::tempdir().unwrap();
        let mut log = RoomLog::open(home.path(), "room-1").unwrap();
        assert_eq!(log.append(person("one")).unwrap().seq, 1);
        assert_eq!(log.append(person("two")).unwrap().seq, 2);
        let path = rooms_dir(home.path()).join("room-1.jsonl");
        OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"{\"seq\":3")
            .unwrap();
        let mut again = RoomLog::open(home.path(), "room-1").unwrap();
        assert_eq!(
            again
                .lines()
                .iter()
                .map(|l| l.text.as_str())
                .collect::<Vec<_>>(),
            vec!["one", "two"]
        );
        assert_eq!(again.append(person("three")).unwrap().seq, 3);
        assert_eq!(
            RoomLog::open(home.path(), "room-1").unwrap().lines().len(),
            3
        );
        assert!(RoomLog::open(home.path(), "../x").is_err());
    }

    #[test]
    fn a_torn_tail_written_after_open_is_cut_before_the_next_append_50() {
        let home = tempfile::tempdir().unwrap();
        let mut log = RoomLog::open(home.path(), "room-1").unwrap();
        log.append(person("one")).unwrap();
        let path = rooms_dir(home.path()).join("room-1.jsonl");
        for torn in [&b"{\"seq\":2"[..], &b"{\"seq\":\n"[..]] {
            OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap()
                .write_all(torn)
                .unwrap();
            let next = log.append(person("next")).unwrap();
            let again = RoomLog::open(home.path(), "room-1").unwrap();
            assert_eq!(again.lines().last(), Some(&next));
            assert_eq!(again.lines().len() as u64, next.seq);
        }
        let bytes = fs::read(&path).unwrap();
        assert_eq!(
            bytes
                .split(|b| *b == b'\n')
                .filter(|l| !l.is_empty())
                .count(),
            3
        );
    }

    #[test]
    fn every_writer_stores_the_status_stub_1251() {
        let home = tempfile::tempdir().unwrap();
        let mut log = RoomLog::open(home.path(), "room-1").unwrap();
        let essay = format!(
            "CI is green and the merge queue has PR #3. {}",
            "more ".repeat(100)
        );
        let stored = log
            .append(NewLine {
                author_id: "bot-a".into(),
                author_kind: AuthorKind::LocalBot,
                ..person(&essay)
            })
            .unwrap();
        assert!(stored.text.contains("[status update"));
        assert_eq!(
            RoomLog::open(home.path(), "room-1").unwrap().lines()[0].text,
            stored.text
        );
    }
}
