//! `state.lock`: one writer per home (#14). The writer holds an exclusive
//! advisory lock on the open file for its whole life; the kernel drops it
//! when the process dies, so a lock that is held always has a live holder.
//! The file's text names the holder for a reader's refusal.

use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions, TryLockError};
use std::io;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;

#[derive(Debug, Clone, Serialize, Deserialize)]
struct LockText {
    pid: u32,
    host: String,
    token: String,
    heartbeat: u64,
}

/// The held lock. Dropping it closes the file, which releases the lock.
pub(crate) struct HomeLock {
    file: File,
    text: LockText,
}

pub(crate) enum LockAttempt {
    /// `previous` is the holder the file named before we took it.
    Acquired {
        lock: HomeLock,
        previous: Option<(u32, String)>,
    },
    Held {
        pid: u32,
        host: String,
    },
}

/// Takes the home's lock if no one holds it.
pub(crate) fn try_acquire(home: &Path, now_ms: u64) -> io::Result<LockAttempt> {
    // Never truncate on open: the holder's text must survive our attempt.
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(home.join("state.lock"))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let (pid, host) = holder(&file).unwrap_or((0, "an unknown host".to_owned()));
            return Ok(LockAttempt::Held { pid, host });
        }
        Err(TryLockError::Error(e)) => return Err(e),
    }
    let previous = holder(&file);
    let mut token = [0u8; 16];
    getrandom::fill(&mut token).map_err(|e| io::Error::other(e.to_string()))?;
    let lock = HomeLock {
        file,
        text: LockText {
            pid: std::process::id(),
            host: host_name(),
            token: crate::hex(&token),
            heartbeat: now_ms,
        },
    };
    lock.write_text()?;
    Ok(LockAttempt::Acquired { lock, previous })
}

impl HomeLock {
    /// Refreshes the heartbeat so a person reading the file sees we are alive.
    pub(crate) fn heartbeat(&mut self, now_ms: u64) -> io::Result<()> {
        self.text.heartbeat = now_ms;
        self.write_text()
    }

    /// Releases the lock; the file stays (deleting a locked file races).
    pub(crate) fn release(self) {
        if let Err(e) = self.file.unlock() {
            tracing::warn!("could not release state.lock: {e}");
        }
    }

    fn write_text(&self) -> io::Result<()> {
        let bytes = serde_json::to_vec(&self.text).map_err(io::Error::other)?;
        self.file.write_all_at(&bytes, 0)?;
        self.file.set_len(bytes.len() as u64)
    }
}

fn holder(file: &File) -> Option<(u32, String)> {
    let mut buf = vec![0u8; 4096];
    let n = file.read_at(&mut buf, 0).ok()?;
    let text: LockText = serde_json::from_slice(&buf[..n]).ok()?;
    Some((text.pid, text.host))
}

/// This machine's name, as the refusal names the other writer's.
pub(crate) fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "localhost".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    /// Rule #14.
    fn a_second_open_file_sees_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let LockAttempt::Acquired { lock, previous } = try_acquire(dir.path(), 5).unwrap() else {
            panic!("the first attempt must take the lock");
        };
        assert_eq!(previous, None);
        let LockAttempt::Held { pid, host } = try_acquire(dir.path(), 6).unwrap() else {
            panic!("the second attempt must find it held");
        };
        assert_eq!(pid, std::process::id());
        assert_eq!(host, host_name());
        lock.release();
        let LockAttempt::Acquired { previous, .. } = try_acquire(dir.path(), 7).unwrap() else {
            panic!("a released lock can be taken");
        };
        assert_eq!(previous, Some((std::process::id(), host_name())));
    }
}
