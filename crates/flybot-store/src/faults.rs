//! Disk faults for tests (only with the `testing` feature, never in the
//! binary): a test arms one and the journal writer's next flush fails as
//! the disk would, so tests can check that nothing acknowledged is lost,
//! that a refused change stops showing in reads, and that the home says
//! why it stopped writing. A test may also stop a PostgreSQL standby from
//! following, as a standby stopped with SIGSTOP would, so the leader moves
//! on (and folds its journal) behind it.

use std::io;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// What the disk does on the writer's next flush.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiskFault {
    /// The write is refused (an I/O error).
    RefuseWrite,
    /// The disk is full.
    Full,
    /// The bytes reach the file but the fsync fails, as a disk that loses
    /// its cache does: the lines sit in the file, never acknowledged.
    SyncRefused,
}

/// The fault armed for a store's writer; none until a test arms one.
#[derive(Debug, Default)]
pub struct DiskFaults {
    armed: Mutex<Option<DiskFault>>,
    following_stopped: AtomicBool,
    /// The standby has seen the stop between two steps: nothing it reads
    /// from here on lands until it is let go.
    standing_still: AtomicBool,
}

impl DiskFaults {
    /// Every flush from now on fails with `fault`.
    pub fn arm(&self, fault: DiskFault) {
        if let Ok(mut armed) = self.armed.lock() {
            *armed = Some(fault);
        }
    }

    /// A standby reads nothing of the leader's and tries no lease while
    /// `stopped`; it catches up once let go.
    pub fn stop_following(&self, stopped: bool) {
        self.following_stopped.store(stopped, Ordering::SeqCst);
    }

    /// Whether the standby has stopped: set once its follower sees the
    /// stop between two steps, so no step under way reads past it.
    pub fn standing_still(&self) -> bool {
        self.standing_still.load(Ordering::SeqCst)
    }

    /// Asked by the follower between two steps.
    pub(crate) fn following_stopped(&self) -> bool {
        let stopped = self.following_stopped.load(Ordering::SeqCst);
        self.standing_still.store(stopped, Ordering::SeqCst);
        stopped
    }

    fn armed(&self) -> Option<DiskFault> {
        self.armed.lock().map(|a| *a).unwrap_or(None)
    }

    /// The error the armed fault makes a flush's write fail with, if any.
    pub(crate) fn before_write(&self) -> io::Result<()> {
        match self.armed() {
            None | Some(DiskFault::SyncRefused) => Ok(()),
            Some(DiskFault::RefuseWrite) => Err(io::Error::other("input/output error (injected)")),
            Some(DiskFault::Full) => Err(io::Error::new(
                io::ErrorKind::StorageFull,
                "no space left on device (injected)",
            )),
        }
    }

    /// The error the armed fault makes a flush's fsync fail with, if any.
    pub(crate) fn before_sync(&self) -> io::Result<()> {
        match self.armed() {
            Some(DiskFault::SyncRefused) => {
                Err(io::Error::other("fsync: input/output error (injected)"))
            }
            None | Some(DiskFault::RefuseWrite | DiskFault::Full) => Ok(()),
        }
    }
}
