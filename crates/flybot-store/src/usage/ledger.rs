//! `UsageLedger`: the open `usage.sqlite` (or, for a store on PostgreSQL,
//! the database's `flybot_usage_calls`), its writes and its reads. One
//! connection behind a mutex is enough: a row is written once per model call.

use super::schema::{self, Found, LEDGER_VERSION};
use super::{CallFilter, CallRow, TokenUsage, USAGE_FILE, UsageError};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqliteRow, SqliteSynchronous};
use sqlx::{ConnectOptions, Connection, Row, SqliteConnection};
use std::path::{Path, PathBuf};
use tokio::sync::Mutex;

/// The ledger's page cache, as SQLite's `cache_size` (negative: KiB).
const LEDGER_CACHE_KIB: &str = "-512";

pub struct UsageLedger {
    path: PathBuf,
    backend: Backend,
    /// `Some(version)` when the file is newer than this build: it was opened
    /// read-only and every write is refused with that version.
    newer: Option<i64>,
}

/// Where the rows are.
enum Backend {
    /// `usage.sqlite` in the home.
    File(Mutex<SqliteConnection>),
    /// The store's database, when the home's store is on PostgreSQL.
    Database(super::postgres::PgLedger),
}

const INSERT: &str = "INSERT INTO calls (id, session_id, bot_id, at_ms, provider, model,
    input_tokens, output_tokens, cached_tokens, reasoning_tokens,
    harness, issue_pr, tool_calls, wall_ms)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
    ON CONFLICT (id) DO NOTHING";

const SELECT: &str = "SELECT id, session_id, bot_id, at_ms, provider, model,
    input_tokens, output_tokens, cached_tokens, reasoning_tokens,
    harness, issue_pr, tool_calls, wall_ms
    FROM calls
    WHERE ($1 IS NULL OR session_id = $1)
      AND ($2 IS NULL OR bot_id = $2)
      AND ($3 IS NULL OR at_ms >= $3)
    ORDER BY at_ms, id";

impl UsageLedger {
    /// Opens the home's ledger: the store's database when the home's store
    /// is on PostgreSQL, else `usage.sqlite` ([`open_file`](Self::open_file)).
    pub async fn open(home: &Path) -> Result<UsageLedger, UsageError> {
        let Some(database) = crate::turn_log::database::attached(home) else {
            return UsageLedger::open_file(home).await;
        };
        let path = PathBuf::from(crate::engine::postgres::redact(&database.url));
        Ok(UsageLedger {
            path,
            backend: Backend::Database(super::postgres::PgLedger::open(database).await?),
            newer: None,
        })
    }

    /// Opens `<home>/usage.sqlite`, creating it at version 3, upgrading a
    /// version-2 ledger, or opening a newer one read-only.
    pub async fn open_file(home: &Path) -> Result<UsageLedger, UsageError> {
        let path = home.join(USAGE_FILE);
        let fail = |source| UsageError::Database {
            path: path.clone(),
            source,
        };
        // The page cache is capped at 512 KiB (SQLite's default is 2 MiB):
        // the ledger is written a row at a time and read by filter, and
        // the host's memory should not grow with its history (issue 13).
        // The ledger is the user's alone (issue 29): made at 0600 before
        // SQLite opens it (its `-wal` and `-shm` files take the same mode),
        // and one an older build made at 0644 is narrowed.
        crate::private::private_file(&path).map_err(|e| fail(sqlx::Error::Io(e)))?;
        for side in ["-wal", "-shm"] {
            let mut side_path = path.clone().into_os_string();
            side_path.push(side);
            crate::private::narrow(Path::new(&side_path), crate::private::FILE_MODE)
                .map_err(|e| fail(sqlx::Error::Io(e)))?;
        }
        let options = SqliteConnectOptions::new()
            .filename(&path)
            .create_if_missing(true)
            .pragma("cache_size", LEDGER_CACHE_KIB);
        // The write-ahead log keeps its file open and a commit is one append
        // (issue 19: no file opened, created and deleted per row, as the
        // rollback journal did); `NORMAL` leaves the sync to its checkpoints:
        // a row survives a crash of the process, and a power cut may take
        // back the newest rows (the turns they count stay in the durable
        // Session logs, and a start folds them again: the host's
        // `usage_catch_up`).
        let writable = options
            .clone()
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal);
        let mut conn = writable.connect().await.map_err(fail)?;
        let newer = match schema::inspect(&mut conn).await.map_err(fail)? {
            Found::Empty => {
                schema::create(&mut conn).await.map_err(fail)?;
                None
            }
            Found::Version(2) => {
                schema::upgrade_from_2(&mut conn).await.map_err(fail)?;
                tracing::info!(path = %path.display(), "usage ledger upgraded from version 2 to 3");
                None
            }
            Found::Version(LEDGER_VERSION) => None,
            Found::Version(found) if found > LEDGER_VERSION => {
                conn.close().await.map_err(fail)?;
                conn = options.read_only(true).connect().await.map_err(fail)?;
                tracing::warn!(path = %path.display(), found, "usage ledger is newer than this build; opened read-only");
                Some(found)
            }
            Found::Version(found) => return Err(UsageError::UnknownVersion { found }),
        };
        Ok(UsageLedger {
            path,
            backend: Backend::File(Mutex::new(conn)),
            newer,
        })
    }

    /// The version of a newer ledger opened read-only, if it is one.
    pub fn read_only_version(&self) -> Option<i64> {
        self.newer
    }

    /// Writes one row. A row lacking any of the five usage fields is refused
    /// and nothing is written; a row whose id is already there is kept once.
    pub async fn record(&self, row: CallRow) -> Result<(), UsageError> {
        if let Some(found) = self.newer {
            return Err(UsageError::NewerLedger { found });
        }
        let missing = row.missing_fields();
        if !missing.is_empty() {
            return Err(UsageError::IncompleteRow { missing });
        }
        if row.id.trim().is_empty() {
            return Err(UsageError::MissingId);
        }
        let conn = match &self.backend {
            Backend::Database(database) => return database.record(row).await,
            Backend::File(conn) => conn,
        };
        let mut conn = conn.lock().await;
        sqlx::query(INSERT)
            .bind(row.id)
            .bind(row.session_id)
            .bind(row.bot_id)
            .bind(row.at_ms)
            .bind(row.provider)
            .bind(row.model)
            .bind(row.usage.input_tokens.map(to_sql))
            .bind(row.usage.output_tokens.map(to_sql))
            .bind(row.usage.cached_tokens.map(to_sql))
            .bind(row.usage.reasoning_tokens.map(to_sql))
            .bind(row.harness)
            .bind(row.issue_pr)
            .bind(row.tool_calls.map(i64::from))
            .bind(row.wall_ms.map(to_sql))
            .execute(&mut *conn)
            .await
            .map_err(|source| self.fail(source))?;
        Ok(())
    }

    /// The rows matching `filter`, oldest call first.
    pub async fn rows(&self, filter: &CallFilter) -> Result<Vec<CallRow>, UsageError> {
        let conn = match &self.backend {
            Backend::Database(database) => return database.rows(filter).await,
            Backend::File(conn) => conn,
        };
        let mut conn = conn.lock().await;
        let rows = sqlx::query(SELECT)
            .bind(filter.session_id.as_deref())
            .bind(filter.bot_id.as_deref())
            .bind(filter.since_ms)
            .fetch_all(&mut *conn)
            .await
            .map_err(|source| self.fail(source))?;
        rows.iter()
            .map(read_row)
            .collect::<sqlx::Result<Vec<_>>>()
            .map_err(|source| self.fail(source))
    }

    /// The time of the newest call recorded; `None` for an empty ledger.
    pub async fn newest_at_ms(&self) -> Result<Option<i64>, UsageError> {
        let conn = match &self.backend {
            Backend::Database(database) => return database.newest_at_ms().await,
            Backend::File(conn) => conn,
        };
        let mut conn = conn.lock().await;
        let row = sqlx::query("SELECT MAX(at_ms) AS newest FROM calls")
            .fetch_one(&mut *conn)
            .await
            .map_err(|source| self.fail(source))?;
        row.try_get::<Option<i64>, _>("newest")
            .map_err(|source| self.fail(source))
    }

    /// Writes rows as they stand, complete or not (`store copy` carrying a
    /// ledger whose version-2 rows never measured their tool calls).
    pub(crate) async fn carry(&self, rows: &[CallRow]) -> Result<(), UsageError> {
        let conn = match &self.backend {
            Backend::Database(database) => {
                let mut conn = database.conn.lock().await;
                return super::postgres::insert_rows(&mut conn, rows)
                    .await
                    .map_err(|source| self.fail(source));
            }
            Backend::File(conn) => conn,
        };
        let mut conn = conn.lock().await;
        let mut tx = sqlx::Connection::begin(&mut *conn)
            .await
            .map_err(|source| self.fail(source))?;
        for row in rows {
            sqlx::query(INSERT)
                .bind(&row.id)
                .bind(&row.session_id)
                .bind(&row.bot_id)
                .bind(row.at_ms)
                .bind(&row.provider)
                .bind(&row.model)
                .bind(row.usage.input_tokens.map(to_sql))
                .bind(row.usage.output_tokens.map(to_sql))
                .bind(row.usage.cached_tokens.map(to_sql))
                .bind(row.usage.reasoning_tokens.map(to_sql))
                .bind(&row.harness)
                .bind(&row.issue_pr)
                .bind(row.tool_calls.map(i64::from))
                .bind(row.wall_ms.map(to_sql))
                .execute(&mut *tx)
                .await
                .map_err(|source| self.fail(source))?;
        }
        tx.commit().await.map_err(|source| self.fail(source))
    }

    /// The file's connection (a test looks at its settings).
    #[cfg(test)]
    pub(super) fn file(&self) -> Option<&Mutex<SqliteConnection>> {
        match &self.backend {
            Backend::File(conn) => Some(conn),
            Backend::Database(_) => None,
        }
    }

    fn fail(&self, source: sqlx::Error) -> UsageError {
        UsageError::Database {
            path: self.path.clone(),
            source,
        }
    }
}

/// SQL integers are signed; a count past `i64::MAX` is not a real count, so
/// it saturates rather than wrapping negative.
pub(super) fn to_sql(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

pub(super) fn from_sql(value: Option<i64>) -> Option<u64> {
    value.and_then(|v| u64::try_from(v).ok())
}

fn read_row(row: &SqliteRow) -> sqlx::Result<CallRow> {
    Ok(CallRow {
        id: row.try_get("id")?,
        session_id: row.try_get("session_id")?,
        bot_id: row.try_get("bot_id")?,
        at_ms: row.try_get("at_ms")?,
        provider: row.try_get("provider")?,
        model: row.try_get("model")?,
        usage: TokenUsage {
            input_tokens: from_sql(row.try_get("input_tokens")?),
            output_tokens: from_sql(row.try_get("output_tokens")?),
            cached_tokens: from_sql(row.try_get("cached_tokens")?),
            reasoning_tokens: from_sql(row.try_get("reasoning_tokens")?),
        },
        harness: row.try_get("harness")?,
        issue_pr: row.try_get("issue_pr")?,
        tool_calls: row
            .try_get::<Option<i64>, _>("tool_calls")?
            .and_then(|v| u32::try_from(v).ok()),
        wall_ms: from_sql(row.try_get("wall_ms")?),
    })
}
