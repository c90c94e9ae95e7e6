//! `diagnostics.log` (issue 40, #68): the host's warnings and errors, and
//! what its standard output could not take (lines dropped on a closed or
//! full pipe), kept in the home so a host whose console nobody reads still
//! leaves the record. Appended, mode 0600; the host writes whole lines.
//!
//! Rotating and bounded (#68): once a write would take the file past its
//! limit, the file becomes `diagnostics.log.1` (replacing the older one)
//! and a fresh file starts, so the home never holds more than two limits of
//! it, however long the host runs. The owner downloads both, oldest first.

use crate::private::{FILE_MODE, private_dirs};
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// The file's name in the home.
pub const DIAGNOSTICS_LOG: &str = "diagnostics.log";
/// The previous file, once the log rotated.
pub const DIAGNOSTICS_LOG_ROTATED: &str = "diagnostics.log.1";
/// Bytes one file holds before the log rotates: 1 MiB.
pub const DIAGNOSTICS_LOG_LIMIT: u64 = 1024 * 1024;

fn open_file(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .mode(FILE_MODE)
        .open(path)
}

/// The home's diagnostics log, open for appending.
#[derive(Debug)]
pub struct DiagnosticsLog {
    path: PathBuf,
    file: File,
    size: u64,
    limit: u64,
}

impl DiagnosticsLog {
    /// Opens the home's diagnostics log for appending, making it (and the
    /// home) if missing.
    pub fn open(home: &Path) -> io::Result<DiagnosticsLog> {
        DiagnosticsLog::with_limit(home, DIAGNOSTICS_LOG_LIMIT)
    }

    /// `open` with another per-file limit (tests).
    pub fn with_limit(home: &Path, limit: u64) -> io::Result<DiagnosticsLog> {
        private_dirs(home)?;
        let path = home.join(DIAGNOSTICS_LOG);
        let file = open_file(&path)?;
        let size = file.metadata()?.len();
        Ok(DiagnosticsLog {
            path,
            file,
            size,
            limit: limit.max(1),
        })
    }

    /// Appends `bytes`, rotating first when they would take the file past
    /// its limit. A write longer than the limit keeps its last `limit` bytes.
    pub fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        let keep = bytes.len().min(self.limit as usize);
        let bytes = &bytes[bytes.len() - keep..];
        if self.size > 0 && self.size + bytes.len() as u64 > self.limit {
            self.rotate()?;
        }
        self.file.write_all(bytes)?;
        self.size += bytes.len() as u64;
        Ok(())
    }

    fn rotate(&mut self) -> io::Result<()> {
        std::fs::rename(
            &self.path,
            self.path.with_file_name(DIAGNOSTICS_LOG_ROTATED),
        )?;
        self.file = open_file(&self.path)?;
        self.size = 0;
        Ok(())
    }
}

/// What the owner downloads: the rotated file, then the current one, each
/// read up to `DIAGNOSTICS_LOG_LIMIT` bytes; empty when none exists yet.
pub fn read_all(home: &Path) -> io::Result<Vec<u8>> {
    let mut all = Vec::new();
    for name in [DIAGNOSTICS_LOG_ROTATED, DIAGNOSTICS_LOG] {
        match File::open(home.join(name)) {
            Ok(file) => {
                file.take(DIAGNOSTICS_LOG_LIMIT).read_to_end(&mut all)?;
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn size(home: &Path, name: &str) -> u64 {
        std::fs::metadata(home.join(name)).map_or(0, |m| m.len())
    }

    #[test]
    /// Rule #68.
    fn the_log_rotates_at_its_limit_and_never_holds_more_than_two_files() {
        let home = tempfile::tempdir().unwrap();
        let mut log = DiagnosticsLog::with_limit(home.path(), 100).unwrap();
        for n in 0..1_000 {
            log.append(format!("warning {n:04} of a busy host\n").as_bytes())
                .unwrap();
            let total =
                size(home.path(), DIAGNOSTICS_LOG) + size(home.path(), DIAGNOSTICS_LOG_ROTATED);
            assert!(size(home.path(), DIAGNOSTICS_LOG) <= 100);
            assert!(total <= 200, "{total}");
        }
        let text = String::from_utf8(read_all(home.path()).unwrap()).unwrap();
        // Whole lines, oldest first, ending with the newest.
        assert!(text.ends_with("warning 0999 of a busy host\n"), "{text}");
        let numbers: Vec<&str> = text.lines().map(|l| &l[8..12]).collect();
        let mut sorted = numbers.clone();
        sorted.sort_unstable();
        assert_eq!(numbers, sorted);
        // Reopening continues the current file's count: still bounded.
        let mut again = DiagnosticsLog::with_limit(home.path(), 100).unwrap();
        again.append(&[b'x'; 250]).unwrap();
        assert_eq!(size(home.path(), DIAGNOSTICS_LOG), 100);
        let mode = std::fs::metadata(home.path().join(DIAGNOSTICS_LOG_ROTATED)).unwrap();
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(mode.permissions().mode() & 0o777, 0o600);
    }

    #[test]
    /// Rule #68.
    fn an_empty_home_downloads_nothing() {
        let home = tempfile::tempdir().unwrap();
        assert!(read_all(home.path()).unwrap().is_empty());
    }
}
