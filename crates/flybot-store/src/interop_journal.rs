//! The files of the interop execution journal (issue 6): a dedicated
//! folder `<home>/interop/` with one writer (an exclusive lock on
//! `interop/journal.lock`), an append-only `journal.jsonl` where every
//! record is one fsynced line, and small side files (the inbox cursor)
//! replaced atomically. The rules of what a record says live in
//! `flybot-interop`; this module only moves bytes. A folder inside a home
//! whose store is on PostgreSQL commits each record and side file to the
//! database first (`engine::records`); the folder is the home's copy.

use crate::atomic::atomic_write;
use crate::engine::records::{Records, for_path};
use crate::jsonl::JsonlAppender;
use std::fs::{self, File, OpenOptions, TryLockError};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// The journal's folder inside a home.
pub const INTEROP_DIR: &str = "interop";
const JOURNAL_FILE: &str = "journal.jsonl";
const LOCK_FILE: &str = "journal.lock";

/// The open journal folder. Holding it is being its one writer; dropping
/// it releases the lock.
#[derive(Debug)]
pub struct InteropFiles {
    dir: PathBuf,
    journal: JsonlAppender,
    _lock: File,
    /// The records thread and this folder's path in its home, when the
    /// home's store is on PostgreSQL.
    database: Option<(Records, String)>,
}

impl InteropFiles {
    /// Opens `<home>/interop/` (creating it, mode 0700), takes the writer
    /// lock, and drops a torn last line a crash left behind.
    pub fn open(home: &Path) -> io::Result<InteropFiles> {
        InteropFiles::open_dir(&home.join(INTEROP_DIR))
    }

    /// Opens a journal folder directly (a harness's temporary folder).
    pub fn open_dir(dir: &Path) -> io::Result<InteropFiles> {
        crate::private::private_dirs(dir)?;
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(dir.join(LOCK_FILE))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(io::Error::new(
                    io::ErrorKind::WouldBlock,
                    format!(
                        "another process writes the interop journal in {}",
                        dir.display()
                    ),
                ));
            }
            Err(TryLockError::Error(e)) => return Err(e),
        }
        let journal = JsonlAppender::open(&dir.join(JOURNAL_FILE))?;
        Ok(InteropFiles {
            dir: dir.to_path_buf(),
            journal,
            _lock: lock,
            database: for_path(dir),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Every complete line of the journal, oldest first.
    pub fn read_lines(&mut self) -> io::Result<Vec<Vec<u8>>> {
        let bytes = self.journal.read_all()?;
        Ok(bytes
            .split(|b| *b == b'\n')
            .filter(|line| !line.is_empty())
            .map(<[u8]>::to_vec)
            .collect())
    }

    /// Appends one record as one line and flushes it to disk before
    /// returning: a record is durable or absent, never half there.
    pub fn append(&mut self, record: &[u8]) -> io::Result<()> {
        if record.contains(&b'\n') {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a journal record must be one line",
            ));
        }
        if let Some((records, dir)) = &self.database {
            let text = std::str::from_utf8(record).map_err(io::Error::other)?;
            records.append_line(&format!("{dir}/{JOURNAL_FILE}"), text, None)?;
        }
        let mut line = Vec::with_capacity(record.len() + 1);
        line.extend_from_slice(record);
        line.push(b'\n');
        self.journal.append(&line)
    }

    /// Replaces a side file of the folder atomically (`name` is a plain
    /// file name such as `inbox.cursor`).
    pub fn write_side_file(&self, name: &str, bytes: &[u8]) -> io::Result<()> {
        let path = self.side_path(name)?;
        if let Some((records, dir)) = &self.database {
            records.put_file(&format!("{dir}/{name}"), Some(bytes))?;
        }
        atomic_write(&path, bytes)
    }

    /// A side file's bytes, `None` when it was never written.
    pub fn read_side_file(&self, name: &str) -> io::Result<Option<Vec<u8>>> {
        match fs::read(self.side_path(name)?) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn side_path(&self, name: &str) -> io::Result<PathBuf> {
        let plain = !name.is_empty()
            && name != JOURNAL_FILE
            && name != LOCK_FILE
            && !name.starts_with('.')
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
        if plain {
            Ok(self.dir.join(name))
        } else {
            Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{name:?} is not a side file name"),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_survive_reopen_and_a_torn_tail_is_dropped() {
        let home = tempfile::tempdir().unwrap();
        {
            let mut files = InteropFiles::open(home.path()).unwrap();
            files.append(b"{\"a\":1}").unwrap();
            files.append(b"{\"b\":2}").unwrap();
        }
        let path = home.path().join(INTEROP_DIR).join(JOURNAL_FILE);
        let mut raw = fs::read(&path).unwrap();
        raw.extend_from_slice(b"{\"torn\":");
        fs::write(&path, raw).unwrap();
        let mut files = InteropFiles::open(home.path()).unwrap();
        let lines = files.read_lines().unwrap();
        assert_eq!(lines, vec![b"{\"a\":1}".to_vec(), b"{\"b\":2}".to_vec()]);
        files.append(b"{\"c\":3}").unwrap();
        assert_eq!(files.read_lines().unwrap().len(), 3);
    }

    #[test]
    fn a_last_record_that_is_not_json_is_cut_and_the_next_append_reads_back() {
        let home = tempfile::tempdir().unwrap();
        {
            let mut files = InteropFiles::open(home.path()).unwrap();
            files.append(b"{\"a\":1}").unwrap();
        }
        let path = home.path().join(INTEROP_DIR).join(JOURNAL_FILE);
        let mut raw = fs::read(&path).unwrap();
        raw.extend_from_slice(b"{\"torn\":\n");
        fs::write(&path, raw).unwrap();
        let mut files = InteropFiles::open(home.path()).unwrap();
        files.append(b"{\"b\":2}").unwrap();
        assert_eq!(
            files.read_lines().unwrap(),
            vec![b"{\"a\":1}".to_vec(), b"{\"b\":2}".to_vec()]
        );
    }

    #[test]
    fn one_writer_only() {
        let home = tempfile::tempdir().unwrap();
        let _first = InteropFiles::open(home.path()).unwrap();
        let second = InteropFiles::open(home.path()).unwrap_err();
        assert_eq!(second.kind(), io::ErrorKind::WouldBlock);
    }

    #[test]
    fn side_files_are_plain_names_replaced_whole() {
        let home = tempfile::tempdir().unwrap();
        let files = InteropFiles::open(home.path()).unwrap();
        assert_eq!(files.read_side_file("inbox.cursor").unwrap(), None);
        files.write_side_file("inbox.cursor", b"7").unwrap();
        files.write_side_file("inbox.cursor", b"8").unwrap();
        assert_eq!(
            files.read_side_file("inbox.cursor").unwrap(),
            Some(b"8".to_vec())
        );
        assert!(files.write_side_file("../x", b"1").is_err());
        assert!(files.write_side_file("journal.jsonl", b"1").is_err());
    }

    #[test]
    fn a_multi_line_record_is_refused() {
        let home = tempfile::tempdir().unwrap();
        let mut files = InteropFiles::open(home.path()).unwrap();
        assert!(files.append(b"{\n}").is_err());
    }
}
