//! Whole-file replacement that a crash cannot tear: the bytes go to a temp
//! file in the same folder, are flushed, renamed over the target, and the
//! folder is flushed, so the target is always the old file or the new one.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// The file names whose temp files this crate leaves behind after a crash.
const OWN_FILES: [&str; 7] = [
    "state.json",
    "state.json.v1",
    "journal.jsonl",
    crate::secrets::SECRETS_FILE,
    crate::connectors::CONNECTORS_FILE,
    crate::channels::CHANNELS_FILE,
    crate::owner_token::OWNER_TOKEN_FILE,
];

/// A step of `atomic_write` where a test pretends the process died.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CrashPoint {
    AfterCreate,
    MidWrite,
    BeforeFsync,
    BeforeRename,
    BeforeDirSync,
}

/// Replaces `path` with `bytes` atomically (mode 0600: the team is private).
pub fn atomic_write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_with_crash(path, bytes, None)
}

pub(crate) fn write_with_crash(
    path: &Path,
    bytes: &[u8],
    crash: Option<CrashPoint>,
) -> io::Result<()> {
    let dir = parent_of(path);
    let tmp = temp_path(path)?;
    let crashed = |point: CrashPoint| Err(io::Error::other(format!("simulated crash {point:?}")));
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)?;
    if crash == Some(CrashPoint::AfterCreate) {
        return crashed(CrashPoint::AfterCreate);
    }
    if crash == Some(CrashPoint::MidWrite) {
        file.write_all(&bytes[..bytes.len() / 2])?;
        return crashed(CrashPoint::MidWrite);
    }
    let written = file.write_all(bytes).and_then(|()| {
        if crash == Some(CrashPoint::BeforeFsync) {
            return crashed(CrashPoint::BeforeFsync);
        }
        file.sync_all()
    });
    drop(file);
    if let Err(e) = written {
        if crash.is_none() {
            let _ = fs::remove_file(&tmp);
        }
        return Err(e);
    }
    if crash == Some(CrashPoint::BeforeRename) {
        return crashed(CrashPoint::BeforeRename);
    }
    if let Err(e) = fs::rename(&tmp, path) {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    if crash == Some(CrashPoint::BeforeDirSync) {
        return crashed(CrashPoint::BeforeDirSync);
    }
    // Without this the rename itself may not survive a power cut.
    File::open(dir)?.sync_all()
}

/// Creates a new file only, never replacing one (`flybot replay --out`).
pub fn write_new_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// Removes temp files a crashed writer left in `dir`. Only the writer calls
/// this: a reader could delete the temp file the writer is filling.
pub(crate) fn remove_leftover_temps(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let ours = OWN_FILES
            .iter()
            .any(|own| name.starts_with(&format!(".{own}.tmp-")));
        if ours && let Err(e) = fs::remove_file(entry.path()) {
            tracing::warn!("could not remove the leftover temp file {name}: {e}");
        }
    }
}

fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

fn temp_path(path: &Path) -> io::Result<PathBuf> {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| io::Error::other(format!("{} names no file", path.display())))?;
    let mut salt = [0u8; 6];
    getrandom::fill(&mut salt).map_err(|e| io::Error::other(e.to_string()))?;
    Ok(parent_of(path).join(format!(".{name}.tmp-{}", crate::hex(&salt))))
}

#[cfg(test)]
mod tests {
    use super::*;

    const POINTS: [CrashPoint; 5] = [
        CrashPoint::AfterCreate,
        CrashPoint::MidWrite,
        CrashPoint::BeforeFsync,
        CrashPoint::BeforeRename,
        CrashPoint::BeforeDirSync,
    ];

    #[test]
    fn a_crash_at_every_step_leaves_the_old_or_the_new_file() {
        for point in POINTS {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("state.json");
            let old = b"{\"old\": true}".repeat(100);
            let new = b"{\"new\": true}".repeat(300);
            atomic_write(&path, &old).unwrap();
            assert!(write_with_crash(&path, &new, Some(point)).is_err());
            let after = fs::read(&path).unwrap();
            assert!(after == old || after == new, "torn after {point:?}");
            let expect_new = point == CrashPoint::BeforeDirSync;
            assert_eq!(after == new, expect_new, "{point:?}");

            remove_leftover_temps(dir.path());
            let left: Vec<_> = fs::read_dir(dir.path()).unwrap().flatten().collect();
            assert_eq!(left.len(), 1, "temp files left after {point:?}");
            atomic_write(&path, &new).unwrap();
            assert_eq!(fs::read(&path).unwrap(), new);
        }
    }

    #[test]
    fn leftover_temps_of_other_files_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(".journal.jsonl.tmp-abc"), b"x").unwrap();
        fs::write(dir.path().join(".notes.tmp-abc"), b"x").unwrap();
        remove_leftover_temps(dir.path());
        assert!(!dir.path().join(".journal.jsonl.tmp-abc").exists());
        assert!(dir.path().join(".notes.tmp-abc").exists());
    }

    #[test]
    fn write_new_file_never_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        write_new_file(&path, b"one").unwrap();
        assert!(write_new_file(&path, b"two").is_err());
        assert_eq!(fs::read(&path).unwrap(), b"one");
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
