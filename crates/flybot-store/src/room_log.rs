//! Room logs: `rooms/<id>.jsonl`, one [`RoomLine`] per line, appended and
//! flushed per line. Every line passes through `prepare_room_line` before it
//! is stored (#1251), so the stored line and the next member turn cannot
//! disagree. A torn last line (a crash mid-append) is cut off on open and
//! before every append (the JSONL appender).

use crate::back_lines::BackLines;
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

/// How many of a room's newest lines are held in memory: a member turn
/// reads at most a few dozen (`ROOM_DELTA_MAX`), the page a page of them.
/// The held window grows to twice this before its older half is let go.
pub const HELD_LINES: usize = 1024;

/// One room's log: its newest lines held, older ones read back from the
/// file when asked (issue 38: a room of 10,000 lines costs its window, not
/// its length).
#[derive(Debug)]
pub struct RoomLog {
    path: PathBuf,
    held: Vec<RoomLine>,
}

impl RoomLog {
    /// Opens (or starts) the log of `room_id` under `home`, reading only
    /// its newest [`HELD_LINES`] lines.
    pub fn open(home: &Path, room_id: &str) -> io::Result<RoomLog> {
        if !crate::sessions::valid_session_id(room_id) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a room id names no log file",
            ));
        }
        let path = rooms_dir(home).join(format!("{room_id}.jsonl"));
        cut_torn_tail_at(&path)?;
        let mut log = RoomLog {
            path,
            held: Vec::new(),
        };
        let mut newest = Vec::new();
        log.disk_back(u64::MAX, |line| {
            newest.push(line);
            newest.len() < HELD_LINES
        })?;
        newest.reverse();
        log.held = newest;
        Ok(log)
    }

    /// The newest lines, oldest first: every line when the room has at
    /// most [`HELD_LINES`]; [`RoomLog::read_all`] reads the rest.
    pub fn held(&self) -> &[RoomLine] {
        &self.held
    }

    /// Every line, oldest first: the held ones, after the older ones read
    /// from the file when the window does not reach back to the first.
    pub fn read_all(&self) -> io::Result<Vec<RoomLine>> {
        let mut older = Vec::new();
        self.read_back(|line| {
            older.push(line.clone());
            true
        })?;
        older.reverse();
        Ok(older)
    }

    /// Hands lines to `keep_going` newest first until it answers false or
    /// the log's first line was given: the held window, then the file.
    pub fn read_back(&self, mut keep_going: impl FnMut(&RoomLine) -> bool) -> io::Result<()> {
        for line in self.held.iter().rev() {
            if !keep_going(line) {
                return Ok(());
            }
        }
        let below = self.held.first().map_or(u64::MAX, |l| l.seq);
        if below <= 1 {
            return Ok(());
        }
        self.disk_back(below, |line| keep_going(&line))
    }

    /// The file's lines below seq `below`, newest first, read from its end.
    fn disk_back(
        &self,
        below: u64,
        mut keep_going: impl FnMut(RoomLine) -> bool,
    ) -> io::Result<()> {
        let file = match fs::File::open(&self.path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        };
        let mut back = BackLines::new(file.metadata()?.len());
        while let Some(bytes) = back.next_line(&file)? {
            let Ok(line) = serde_json::from_slice::<RoomLine>(&bytes) else {
                continue;
            };
            if line.seq < below && !keep_going(line) {
                break;
            }
        }
        Ok(())
    }

    pub fn last_seq(&self) -> u64 {
        self.held.last().map_or(0, |l| l.seq)
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
        self.push(stored.clone());
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
        self.held.push(stored);
        if self.held.len() >= 2 * HELD_LINES {
            self.held.drain(..HELD_LINES);
        }
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
    /// Rule #50.
    fn lines_read_back_in_order_with_seqs_and_a_torn_tail_is_cut() {
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
                .held()
                .iter()
                .map(|l| l.text.as_str())
                .collect::<Vec<_>>(),
            vec!["one", "two"]
        );
        assert_eq!(again.append(person("three")).unwrap().seq, 3);
        assert_eq!(
            RoomLog::open(home.path(), "room-1").unwrap().held().len(),
            3
        );
        assert!(RoomLog::open(home.path(), "../x").is_err());
    }

    #[test]
    /// Rule #50.
    fn a_torn_tail_written_after_open_is_cut_before_the_next_append() {
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
            assert_eq!(again.held().last(), Some(&next));
            assert_eq!(again.held().len() as u64, next.seq);
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
    /// Rule #1251.
    fn every_writer_stores_the_status_stub() {
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
            RoomLog::open(home.path(), "room-1").unwrap().held()[0].text,
            stored.text
        );
    }

    #[test]
    fn a_long_room_holds_only_its_newest_lines_and_reads_the_rest_back_from_disk() {
        let home = tempfile::tempdir().unwrap();
        let mut log = RoomLog::open(home.path(), "room-1").unwrap();
        let total = 2 * HELD_LINES + 300;
        let mut bytes = Vec::new();
        for n in 1..=total {
            let line = log.next(person(&format!("line {n}")));
            bytes.extend(serde_json::to_vec(&line).unwrap());
            bytes.push(b'\n');
            log.push(line);
        }
        fs::create_dir_all(rooms_dir(home.path())).unwrap();
        fs::write(log.path(), bytes).unwrap();
        assert!(log.held().len() < 2 * HELD_LINES);
        let all = log.read_all().unwrap();
        assert_eq!(all.len(), total);
        assert!(all.iter().enumerate().all(|(i, l)| l.seq == i as u64 + 1));
        assert_eq!(all[0].text, "line 1");
        let again = RoomLog::open(home.path(), "room-1").unwrap();
        assert_eq!(again.held().len(), HELD_LINES);
        assert_eq!(again.last_seq(), total as u64);
        assert_eq!(again.read_all().unwrap(), all);
        let mut newest_first = Vec::new();
        again
            .read_back(|line| {
                newest_first.push(line.seq);
                line.seq > 5
            })
            .unwrap();
        let expected: Vec<u64> = (5..=total as u64).rev().collect();
        assert_eq!(newest_first, expected);
    }
}
