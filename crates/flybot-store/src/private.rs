//! The home is private to the user who runs the host (issue 29): every
//! folder the store makes is mode 0700 and every file 0600, whatever the
//! process's umask, so another user of the machine reads none of a team's
//! chats, keys or usage. A home made before this (0755, `usage.sqlite`
//! 0644) is narrowed when the store opens it.

use std::fs;
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// A folder's mode.
pub const FOLDER_MODE: u32 = 0o700;
/// A file's mode.
pub const FILE_MODE: u32 = 0o600;

/// Makes `dir` and any missing parent, each mode 0700; an existing folder
/// keeps its mode.
pub fn private_dirs(dir: &Path) -> io::Result<()> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(FOLDER_MODE)
        .create(dir)
}

/// Sets `path`'s mode to `mode` when it exists (a missing path is fine).
pub fn narrow(path: &Path, mode: u32) -> io::Result<()> {
    match fs::set_permissions(path, fs::Permissions::from_mode(mode)) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        done => done,
    }
}

/// Creates the empty file `path` at mode 0600 when it is missing, and
/// narrows it when it exists: for a file another library creates (SQLite
/// gives its `-wal` and `-shm` files the database file's mode).
pub fn private_file(path: &Path) -> io::Result<()> {
    fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(FILE_MODE)
        .open(path)?;
    narrow(path, FILE_MODE)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn private_home_29_folders_are_0700_and_files_0600_whatever_they_were() {
        let home = tempfile::tempdir().unwrap();
        let deep = home.path().join("a/b");
        private_dirs(&deep).unwrap();
        assert_eq!((mode(&home.path().join("a")), mode(&deep)), (0o700, 0o700));
        let file = deep.join("usage.sqlite");
        fs::write(&file, b"x").unwrap();
        fs::set_permissions(&file, fs::Permissions::from_mode(0o644)).unwrap();
        private_file(&file).unwrap();
        assert_eq!(mode(&file), 0o600);
        assert_eq!(fs::read(&file).unwrap(), b"x");
        narrow(&deep.join("missing"), FILE_MODE).unwrap();
    }
}
