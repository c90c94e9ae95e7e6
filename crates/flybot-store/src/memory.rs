//! Memory files: `memory/bots/<botId>/MEMORY.md` (a Bot's entries),
//! `memory/bots/<botId>/PINNED.md` (its pinned block) and
//! `memory/team/MEMORY.md` (the team scope). The files are the only source
//! of truth: each write replaces a file atomically (temp file, fsync,
//! rename, fsync of the folder) inside the team's one writer, and the
//! change it is part of journals a mark of the scope (its revision, entry
//! count and the file's SHA-256), so every memory write is a journal line
//! like any other write. Deleting a Bot moves its folder to
//! `memory/archive/<botId>-<ms>/` first (#638). On a store on PostgreSQL
//! the database holds each file too (`engine::records`): a write commits
//! there first and the file is the home's copy of it.

use crate::change::Change;
use crate::{atomic_write, hex};
use flybot_core::memory::markdown::{format_file, parse_file};
use flybot_core::memory::{MemoryEntry, Scope};
use serde_json::json;
use sha2::{Digest, Sha256};
use std::fs::{self, File};
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

const ENTRIES_FILE: &str = "MEMORY.md";
const PINNED_FILE: &str = "PINNED.md";

/// A memory file as one `stat` sees it (`MemoryFiles::stamp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    pub len: u64,
    pub modified_ns: i128,
    pub inode: u64,
}

/// The `memory/` folder of one home.
#[derive(Debug, Clone)]
pub struct MemoryFiles {
    root: PathBuf,
}

fn plain_segment(id: &str) -> io::Result<&str> {
    let plain = !id.is_empty()
        && id.len() <= 128
        && id != "."
        && id != ".."
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if plain {
        Ok(id)
    } else {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "a Bot id is one plain path segment",
        ))
    }
}

fn read_text(path: &Path) -> io::Result<String> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(text),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(e),
    }
}

/// What the file at `path` is now, from one `stat`; `None` when absent.
fn stamp_of(path: &Path) -> io::Result<Option<FileStamp>> {
    match fs::metadata(path) {
        Ok(meta) => Ok(Some(FileStamp {
            len: meta.len(),
            modified_ns: meta.mtime() as i128 * 1_000_000_000 + meta.mtime_nsec() as i128,
            inode: meta.ino(),
        })),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

impl MemoryFiles {
    pub fn new(home: &Path) -> MemoryFiles {
        MemoryFiles {
            root: home.join("memory"),
        }
    }

    fn bot_dir(&self, bot_id: &str) -> io::Result<PathBuf> {
        Ok(self.root.join("bots").join(plain_segment(bot_id)?))
    }

    fn scope_file(&self, scope: &Scope) -> io::Result<PathBuf> {
        Ok(match scope {
            Scope::Bot { bot_id } => self.bot_dir(bot_id)?.join(ENTRIES_FILE),
            Scope::Team => self.root.join("team").join(ENTRIES_FILE),
        })
    }

    /// The scope's entries, in file order; a missing file is none.
    pub fn read(&self, scope: &Scope) -> io::Result<Vec<MemoryEntry>> {
        Ok(parse_file(&read_text(&self.scope_file(scope)?)?))
    }

    /// What the scope's file is now, from one `stat` (no read): its length,
    /// modification time and inode, which an atomic replace or a hand edit
    /// changes. `None` when there is no file.
    pub fn stamp(&self, scope: &Scope) -> io::Result<Option<FileStamp>> {
        stamp_of(&self.scope_file(scope)?)
    }

    /// [`stamp`](Self::stamp) of the Bot's pinned block.
    pub fn pinned_stamp(&self, bot_id: &str) -> io::Result<Option<FileStamp>> {
        stamp_of(&self.bot_dir(bot_id)?.join(PINNED_FILE))
    }

    /// The Bot's pinned block; a missing file is empty.
    pub fn read_pinned(&self, bot_id: &str) -> io::Result<String> {
        Ok(read_text(&self.bot_dir(bot_id)?.join(PINNED_FILE))?
            .trim()
            .to_owned())
    }

    /// Replaces the scope's file with `entries` and journals the scope's
    /// mark in `change`. Call it inside the team's one writer; an error
    /// leaves the old file, so the caller refuses and nothing is journaled.
    pub fn write(
        &self,
        change: &mut Change<'_>,
        scope: &Scope,
        entries: &[MemoryEntry],
    ) -> io::Result<()> {
        let title = match scope {
            Scope::Bot { bot_id } => format!("Memory of {bot_id}"),
            Scope::Team => "Team memory".to_owned(),
        };
        let bytes = format_file(&title, entries).into_bytes();
        self.replace(
            change,
            scope.key(),
            &self.scope_file(scope)?,
            &bytes,
            entries.len(),
        )
    }

    /// Replaces the Bot's pinned block and journals its mark.
    pub fn write_pinned(
        &self,
        change: &mut Change<'_>,
        bot_id: &str,
        text: &str,
    ) -> io::Result<()> {
        let path = self.bot_dir(bot_id)?.join(PINNED_FILE);
        let bytes = format!("{text}\n").into_bytes();
        self.replace(change, &format!("{bot_id}.pinned"), &path, &bytes, 1)
    }

    /// The home these files are in, and the records thread of its
    /// database when its store is on PostgreSQL.
    fn database(&self) -> Option<(&Path, crate::engine::records::Records)> {
        let home = self.root.parent()?;
        Some((home, crate::engine::records::for_home(home)?))
    }

    fn replace(
        &self,
        change: &mut Change<'_>,
        key: &str,
        path: &Path,
        bytes: &[u8],
        entries: usize,
    ) -> io::Result<()> {
        if let Some((home, records)) = self.database() {
            let rel = crate::engine::records::relative_path(home, path)
                .ok_or_else(|| io::Error::other("a memory file lies outside its home"))?;
            records.put_file(&rel, Some(bytes))?;
        }
        if let Some(dir) = path.parent() {
            crate::private::private_dirs(dir)?;
        }
        atomic_write(path, bytes)?;
        let revision = change
            .memory_mark(key)
            .and_then(|mark| mark.get("revision").and_then(|r| r.as_u64()))
            .unwrap_or(0)
            + 1;
        let at = change.now_ms();
        change.put_memory_mark(
            key,
            &json!({
                "revision": revision,
                "entries": entries,
                "sha256": hex(&Sha256::digest(bytes)),
                "at": at,
            }),
        );
        Ok(())
    }

    /// Moves a Bot's memory folder aside before the Bot is deleted (#638):
    /// `memory/archive/<botId>-<at>/`. Answers where it went; `None` when
    /// the Bot had no memory.
    pub fn archive(&self, bot_id: &str, at: u64) -> io::Result<Option<PathBuf>> {
        let from = self.bot_dir(bot_id)?;
        if !from.exists() {
            return Ok(None);
        }
        let archive = self.root.join("archive");
        crate::private::private_dirs(&archive)?;
        let to = archive.join(format!("{bot_id}-{at}"));
        if let Some((home, records)) = self.database() {
            let moved = crate::engine::records::relative_path(home, &from)
                .zip(crate::engine::records::relative_path(home, &to))
                .ok_or_else(|| io::Error::other("a memory folder lies outside its home"))?;
            records.move_tree(&moved.0, &moved.1)?;
        }
        fs::rename(&from, &to)?;
        File::open(&archive)?.sync_all()?;
        Ok(Some(to))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Store, StoreOptions};
    use flybot_protocol::{ApiError, ErrorCode};

    fn refused(e: io::Error) -> ApiError {
        ApiError::new(ErrorCode::Invalid, e.to_string())
    }

    fn entry(id: &str, text: &str) -> MemoryEntry {
        MemoryEntry {
            id: id.into(),
            topic: "deploy".into(),
            by: "bot-a".into(),
            at: 5,
            text: text.into(),
        }
    }

    #[tokio::test]
    async fn a_memory_write_replaces_the_file_and_journals_the_scope_s_mark() {
        let home = tempfile::tempdir().unwrap();
        let store = Store::open(home.path(), StoreOptions::default()).unwrap();
        let files = MemoryFiles::new(home.path());
        let scope = Scope::bot("bot-a");
        let before = store.read(|s| s.journal_seq);
        store
            .mutate("host", |change| {
                files
                    .write(change, &scope, &[entry("mem-1", "Fridays.")])
                    .map_err(refused)
            })
            .await
            .unwrap();
        assert_eq!(
            files.read(&scope).unwrap(),
            vec![entry("mem-1", "Fridays.")]
        );
        assert_eq!(store.read(|s| s.journal_seq), before + 1);
        let journal = fs::read_to_string(home.path().join("journal.jsonl")).unwrap();
        assert!(journal.contains("\"memory:bot-a\""), "{journal}");
        assert!(journal.contains("\"revision\":1"));
        assert!(files.read(&Scope::Team).unwrap().is_empty());
    }

    #[tokio::test]
    /// Rule #638.
    async fn deleting_archives_the_folder_and_an_odd_id_is_refused() {
        let home = tempfile::tempdir().unwrap();
        let store = Store::open(home.path(), StoreOptions::default()).unwrap();
        let files = MemoryFiles::new(home.path());
        store
            .mutate("host", |change| {
                files
                    .write_pinned(change, "bot-a", "Call me Ada.")
                    .map_err(refused)
            })
            .await
            .unwrap();
        assert_eq!(files.read_pinned("bot-a").unwrap(), "Call me Ada.");
        let to = files.archive("bot-a", 99).unwrap().unwrap();
        assert!(to.ends_with("archive/bot-a-99"));
        assert_eq!(
            fs::read_to_string(to.join("PINNED.md")).unwrap(),
            "Call me Ada.\n"
        );
        assert_eq!(files.read_pinned("bot-a").unwrap(), "");
        assert_eq!(files.archive("bot-a", 100).unwrap(), None);
        assert!(files.read(&Scope::bot("../x")).is_err());
    }
}
