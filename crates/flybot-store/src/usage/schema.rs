//! The ledger's schema and its versions: a fresh file is created at version 3,
//! a version-2 ledger gains the four #903 columns in one transaction, and a
//! newer file is left untouched for the caller to open read-only.
//!
//! The version lives in a `ledger_meta` row rather than `PRAGMA user_version`
//! so the same SQL serves a PostgreSQL ledger later; the one SQLite-only
//! query is the table-existence probe in [`table_exists`].

use sqlx::{Row, SqliteConnection};

/// The version of `calls` this build writes (#903: LEDGER_VERSION 3).
pub const LEDGER_VERSION: i64 = 3;

/// What [`inspect`] found in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Found {
    /// No `calls` table: a new ledger.
    Empty,
    /// `calls` at this version.
    Version(i64),
}

const CREATE_META: &str =
    "CREATE TABLE IF NOT EXISTS ledger_meta (name TEXT PRIMARY KEY, value BIGINT NOT NULL)";

const CREATE_CALLS_V3: &str = "CREATE TABLE calls (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    bot_id TEXT NOT NULL,
    at_ms BIGINT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    input_tokens BIGINT,
    output_tokens BIGINT,
    cached_tokens BIGINT,
    reasoning_tokens BIGINT,
    harness TEXT NOT NULL DEFAULT 'default',
    issue_pr TEXT NOT NULL DEFAULT '',
    tool_calls BIGINT,
    wall_ms BIGINT
)";

/// Version 2 → 3 (#903). Old rows get the default harness and no issue/PR;
/// their tool calls and wall time were never measured, so they stay NULL.
const UPGRADE_2_TO_3: [&str; 4] = [
    "ALTER TABLE calls ADD COLUMN harness TEXT NOT NULL DEFAULT 'default'",
    "ALTER TABLE calls ADD COLUMN issue_pr TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE calls ADD COLUMN tool_calls BIGINT",
    "ALTER TABLE calls ADD COLUMN wall_ms BIGINT",
];

const SET_VERSION: &str = "INSERT INTO ledger_meta (name, value) VALUES ('version', $1)
    ON CONFLICT (name) DO UPDATE SET value = excluded.value";

async fn table_exists(conn: &mut SqliteConnection, name: &str) -> sqlx::Result<bool> {
    let row =
        sqlx::query("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = $1")
            .bind(name)
            .fetch_one(&mut *conn)
            .await?;
    Ok(row.try_get::<i64, _>("n")? > 0)
}

/// Reads the file's version without writing anything. A `calls` table with
/// no version row predates the marker: that is the version-2 layout.
pub(crate) async fn inspect(conn: &mut SqliteConnection) -> sqlx::Result<Found> {
    if !table_exists(conn, "calls").await? {
        return Ok(Found::Empty);
    }
    if !table_exists(conn, "ledger_meta").await? {
        return Ok(Found::Version(2));
    }
    let row = sqlx::query("SELECT value FROM ledger_meta WHERE name = 'version'")
        .fetch_optional(&mut *conn)
        .await?;
    match row {
        Some(row) => Ok(Found::Version(row.try_get::<i64, _>("value")?)),
        None => Ok(Found::Version(2)),
    }
}

/// Creates a version-3 ledger in one transaction.
pub(crate) async fn create(conn: &mut SqliteConnection) -> sqlx::Result<()> {
    let mut tx = sqlx::Connection::begin(&mut *conn).await?;
    sqlx::query(CREATE_META).execute(&mut *tx).await?;
    sqlx::query(CREATE_CALLS_V3).execute(&mut *tx).await?;
    sqlx::query(SET_VERSION)
        .bind(LEDGER_VERSION)
        .execute(&mut *tx)
        .await?;
    tx.commit().await
}

/// Upgrades a version-2 ledger in one transaction: a failure leaves it at 2.
pub(crate) async fn upgrade_from_2(conn: &mut SqliteConnection) -> sqlx::Result<()> {
    let mut tx = sqlx::Connection::begin(&mut *conn).await?;
    sqlx::query(CREATE_META).execute(&mut *tx).await?;
    for statement in UPGRADE_2_TO_3 {
        sqlx::query(statement).execute(&mut *tx).await?;
    }
    sqlx::query(SET_VERSION)
        .bind(LEDGER_VERSION)
        .execute(&mut *tx)
        .await?;
    tx.commit().await
}
