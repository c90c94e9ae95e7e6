//! The files the turn log's writer keeps open: one appender per live Session
//! or room log, at most [`MAX_OPEN`] at a time (the least recently used is
//! closed first) and closed after [`IDLE`] without a write. The files
//! written since the last checkpoint are remembered, so a checkpoint flushes
//! exactly those.

use super::Counters;
use crate::jsonl::JsonlAppender;
use std::collections::{BTreeSet, HashMap};
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// The most files held open at once.
pub(crate) const MAX_OPEN: usize = 256;
/// A file this long without a write is closed.
pub(crate) const IDLE: Duration = Duration::from_secs(60);

struct OpenFile {
    appender: JsonlAppender,
    used: Instant,
}

pub(crate) struct OpenFiles {
    home: PathBuf,
    open: HashMap<PathBuf, OpenFile>,
    /// Written since the last checkpoint (relative paths).
    dirty: BTreeSet<PathBuf>,
    /// Folders that gained a file since the last checkpoint.
    new_dirs: BTreeSet<PathBuf>,
}

impl OpenFiles {
    pub(crate) fn new(home: &Path) -> OpenFiles {
        OpenFiles {
            home: home.to_owned(),
            open: HashMap::new(),
            dirty: BTreeSet::new(),
            new_dirs: BTreeSet::new(),
        }
    }

    /// Appends whole lines to the file at `rel`, opening it when it is not
    /// open (its torn tail cut), unsynced: the journal carries them.
    pub(crate) fn write(
        &mut self,
        rel: &Path,
        lines: &[u8],
        counters: &Counters,
    ) -> io::Result<()> {
        if !self.open.contains_key(rel) {
            if self.open.len() >= MAX_OPEN {
                self.close_oldest();
            }
            let path = self.home.join(rel);
            if !path.exists()
                && let Some(dir) = path.parent()
            {
                // Made here, so the appender does not flush the folder for
                // it: the journal names the file until the next checkpoint,
                // which flushes the folder.
                crate::private::private_dirs(dir)?;
                OpenOptions::new()
                    .create_new(true)
                    .write(true)
                    .mode(0o600)
                    .open(&path)?;
                self.new_dirs.insert(dir.to_owned());
            }
            let appender = JsonlAppender::open(&path)?;
            counters.opens.fetch_add(1, Ordering::Relaxed);
            self.open.insert(
                rel.to_owned(),
                OpenFile {
                    appender,
                    used: Instant::now(),
                },
            );
        }
        let Some(file) = self.open.get_mut(rel) else {
            return Err(io::Error::other("an open file went missing"));
        };
        file.used = Instant::now();
        self.dirty.insert(rel.to_owned());
        file.appender.write(lines)
    }

    fn close_oldest(&mut self) {
        let oldest = self
            .open
            .iter()
            .min_by_key(|(_, file)| file.used)
            .map(|(rel, _)| rel.clone());
        if let Some(rel) = oldest {
            self.open.remove(&rel);
        }
    }

    /// Closes the files idle for [`IDLE`] or longer.
    pub(crate) fn close_idle(&mut self) {
        self.open.retain(|_, file| file.used.elapsed() < IDLE);
    }

    /// Flushes every file written since the last checkpoint, and the folders
    /// that gained one, so the journal may start again without them.
    pub(crate) fn flush_dirty(&mut self, counters: &Counters) -> io::Result<()> {
        for rel in std::mem::take(&mut self.dirty) {
            match self.open.get_mut(&rel) {
                Some(file) => file.appender.sync()?,
                None => {
                    File::open(self.home.join(&rel))?.sync_data()?;
                    counters.opens.fetch_add(1, Ordering::Relaxed);
                }
            }
            counters.syncs.fetch_add(1, Ordering::Relaxed);
        }
        for dir in std::mem::take(&mut self.new_dirs) {
            File::open(&dir)?.sync_all()?;
            counters.syncs.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    }
}
