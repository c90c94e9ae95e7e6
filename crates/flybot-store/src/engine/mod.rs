//! The store's engine seam (issue 35): where the journal is written and
//! replayed from. The home folder (`journal.jsonl` and `state.json`, the
//! default, unchanged) or PostgreSQL (`postgres`: one row per journal line,
//! one transaction per batch, a lease and its fencing token). Both engines
//! hold the same lines, so the digest chain and replay are one code.

pub mod copy;
mod follow;
mod leader;
pub mod lease;
pub mod postgres;
pub mod records;
mod schema;
mod snapshot;
#[cfg(feature = "testing")]
pub mod test_cluster;
#[cfg(feature = "testing")]
pub mod test_database;
mod trim;

use std::time::Duration;

/// Where the team's journal lives.
#[derive(Debug, Clone, Default)]
pub enum Engine {
    /// `journal.jsonl` and `state.json` in the home folder.
    #[default]
    Folder,
    /// A PostgreSQL database, shared by a leader and its standbys.
    Postgres(PostgresOptions),
}

impl Engine {
    pub fn is_folder(&self) -> bool {
        matches!(self, Engine::Folder)
    }
}

/// How a store on PostgreSQL holds its lease and waits for the database.
#[derive(Debug, Clone)]
pub struct PostgresOptions {
    /// `postgres://user@host:port/database`.
    pub url: String,
    /// Start by following a leader that holds the lease (`--standby`);
    /// without it, a lease another host holds refuses the start.
    pub standby: bool,
    /// How long a lease lasts unless renewed; a standby takes over once it
    /// lapses.
    pub lease: Duration,
    /// How long a batch waits for a database that went away before the
    /// change is refused.
    pub reconnect_for: Duration,
    /// How many changes the leader writes between two snapshot rows.
    pub snapshot_every: u64,
}

impl PostgresOptions {
    /// The defaults: a 5 s lease (renewed every third of it), 10 s of
    /// waiting for a restarting database, a snapshot row every 1,000
    /// changes.
    pub fn new(url: impl Into<String>) -> PostgresOptions {
        PostgresOptions {
            url: url.into(),
            standby: false,
            lease: Duration::from_secs(5),
            reconnect_for: Duration::from_secs(10),
            snapshot_every: 1000,
        }
    }

    /// How often the leader renews and a standby looks at the lease.
    pub(crate) fn tick(&self) -> Duration {
        (self.lease / 5).max(Duration::from_millis(20))
    }
}

/// Whether `text` names a PostgreSQL database rather than a folder.
pub fn is_postgres_url(text: &str) -> bool {
    text.starts_with("postgres://") || text.starts_with("postgresql://")
}

/// The live feed's epoch for a home whose store is on PostgreSQL: the same
/// on every host of the team (named by its database, not the address a host
/// reaches it at), so a page resumes on whichever host leads. `None` on the
/// folder engine, whose feed has an epoch per start.
pub fn team_live_epoch(home: &std::path::Path) -> Option<String> {
    use sha2::Digest;
    let database = crate::turn_log::database::attached(home)?;
    let path = database.url.rsplit_once('/').map_or("", |(_, path)| path);
    let name = path.split('?').next().unwrap_or(path);
    let digest = sha2::Sha256::digest(name.as_bytes());
    Some(format!("team-{}", &crate::hex(&digest)[..12]))
}
