//! How a store is opened: its options (the clock, the snapshot's delay,
//! the history journal's caps, a test's disk faults) and the wall clock.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A clock in milliseconds since the Unix epoch.
pub type Clock = Arc<dyn Fn() -> u64 + Send + Sync>;

#[derive(Clone)]
pub struct StoreOptions {
    /// Keep the journal's history for `flybot replay` (#511).
    pub state_journal: bool,
    /// How long after a change the snapshot is rewritten.
    pub snapshot_after: Duration,
    pub clock: Clock,
    /// How often the writer refreshes the heartbeat in `state.lock`.
    pub heartbeat_every: Duration,
    /// Disk faults a test arms (the `testing` feature only).
    #[cfg(feature = "testing")]
    pub faults: Arc<crate::faults::DiskFaults>,
    /// A history journal past this size folds its oldest lines (#511: 20 MB).
    pub journal_max_bytes: u64,
    /// A history journal whose oldest change is older folds it (#511: 7 days).
    pub journal_max_age: Duration,
    /// Where the journal lives: the home folder, or PostgreSQL (issue 35).
    pub engine: crate::engine::Engine,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions {
            state_journal: false,
            snapshot_after: Duration::from_secs(3),
            clock: Arc::new(system_now_ms),
            heartbeat_every: Duration::from_secs(5),
            #[cfg(feature = "testing")]
            faults: Arc::default(),
            journal_max_bytes: 20_000_000,
            journal_max_age: Duration::from_secs(7 * 24 * 60 * 60),
            engine: crate::engine::Engine::Folder,
        }
    }
}

pub fn system_now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}
