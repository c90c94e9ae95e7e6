//! The usage ledger on PostgreSQL (issue 35): the rows of `calls` in the
//! table `flybot_usage_calls` of the store's database, so every host of a
//! team reads the same ledger. A row goes in only while the store holds the
//! lease (the fence, checked in the same statement), like every write.

use super::{CallFilter, CallRow, TokenUsage, UsageError};
use crate::turn_log::database::TurnDatabase;
use sqlx::postgres::PgRow;
use sqlx::{Connection, PgConnection, Row};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use tokio::sync::Mutex;

/// The ledger of a store on PostgreSQL.
pub(crate) struct PgLedger {
    pub(super) conn: Mutex<PgConnection>,
    database: TurnDatabase,
}

const SELECT: &str = "SELECT id, session_id, bot_id, at_ms, provider, model, \
      input_tokens, output_tokens, cached_tokens, reasoning_tokens, \
      harness, issue_pr, tool_calls, wall_ms FROM flybot_usage_calls \
    WHERE ($1::text IS NULL OR session_id = $1) \
      AND ($2::text IS NULL OR bot_id = $2) \
      AND ($3::bigint IS NULL OR at_ms >= $3) \
    ORDER BY at_ms, id";

const SELECT_ALL: &str = "SELECT id, session_id, bot_id, at_ms, provider, model, \
      input_tokens, output_tokens, cached_tokens, reasoning_tokens, \
      harness, issue_pr, tool_calls, wall_ms FROM flybot_usage_calls ORDER BY id";

/// Inserts one row (kept once by its id) while `$15` is the live lease's
/// token; answers whether the fence held.
const INSERT: &str = "WITH fence AS (SELECT token FROM flybot_lease \
      WHERE id = 1 AND token = $15 AND expires_at > clock_timestamp() FOR SHARE), \
    written AS (INSERT INTO flybot_usage_calls (id, session_id, bot_id, at_ms, provider, model, \
      input_tokens, output_tokens, cached_tokens, reasoning_tokens, \
      harness, issue_pr, tool_calls, wall_ms) \
      SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14 \
      WHERE EXISTS (SELECT 1 FROM fence) ON CONFLICT (id) DO NOTHING RETURNING 1) \
    SELECT (SELECT count(*) FROM fence)::bigint";

/// Inserts one row as it stands (a copy, unfenced: the caller holds the
/// copy's transaction).
const CARRY: &str = "INSERT INTO flybot_usage_calls (id, session_id, bot_id, at_ms, provider, \
      model, input_tokens, output_tokens, cached_tokens, reasoning_tokens, \
      harness, issue_pr, tool_calls, wall_ms) \
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) \
    ON CONFLICT (id) DO NOTHING";

type Query<'q> = sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments>;

fn bind_row(query: Query<'_>, row: CallRow) -> Query<'_> {
    query
        .bind(row.id)
        .bind(row.session_id)
        .bind(row.bot_id)
        .bind(row.at_ms)
        .bind(row.provider)
        .bind(row.model)
        .bind(row.usage.input_tokens.map(super::ledger::to_sql))
        .bind(row.usage.output_tokens.map(super::ledger::to_sql))
        .bind(row.usage.cached_tokens.map(super::ledger::to_sql))
        .bind(row.usage.reasoning_tokens.map(super::ledger::to_sql))
        .bind(row.harness)
        .bind(row.issue_pr)
        .bind(row.tool_calls.map(i64::from))
        .bind(row.wall_ms.map(super::ledger::to_sql))
}

fn read_row(row: &PgRow) -> sqlx::Result<CallRow> {
    use super::ledger::from_sql;
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

impl PgLedger {
    pub(crate) async fn open(database: TurnDatabase) -> Result<PgLedger, UsageError> {
        // The store that put the home on PostgreSQL made the tables; the
        // ledger only connects (no migration: its future is not `Send`).
        let conn = PgConnection::connect(&database.url)
            .await
            .map_err(|source| UsageError::Database {
                path: PathBuf::from(crate::engine::postgres::redact(&database.url)),
                source,
            })?;
        Ok(PgLedger {
            conn: Mutex::new(conn),
            database,
        })
    }

    pub(crate) fn fail(&self, source: sqlx::Error) -> UsageError {
        UsageError::Database {
            path: PathBuf::from(crate::engine::postgres::redact(&self.database.url)),
            source,
        }
    }

    /// A connection the database dropped (it restarted since the last
    /// row) is replaced once; the caller runs its statement again.
    async fn reconnect_after(&self, conn: &mut PgConnection, error: &sqlx::Error) -> bool {
        if !matches!(error, sqlx::Error::Io(_) | sqlx::Error::Protocol(_)) {
            return false;
        }
        match PgConnection::connect(&self.database.url).await {
            Ok(fresh) => {
                *conn = fresh;
                true
            }
            Err(_) => false,
        }
    }

    pub(crate) async fn record(&self, row: CallRow) -> Result<(), UsageError> {
        let token = self.database.token.load(Ordering::SeqCst);
        if token == 0 {
            return Err(UsageError::Standby);
        }
        let mut conn = self.conn.lock().await;
        let mut tried = bind_row(sqlx::query(INSERT), row.clone())
            .bind(token)
            .fetch_one(&mut *conn)
            .await;
        if let Err(error) = &tried
            && self.reconnect_after(&mut conn, error).await
        {
            tried = bind_row(sqlx::query(INSERT), row)
                .bind(token)
                .fetch_one(&mut *conn)
                .await;
        }
        let fence: i64 = tried
            .and_then(|held| held.try_get(0))
            .map_err(|source| self.fail(source))?;
        if fence == 1 {
            Ok(())
        } else {
            Err(UsageError::Standby)
        }
    }

    pub(crate) async fn rows(&self, filter: &CallFilter) -> Result<Vec<CallRow>, UsageError> {
        let select = || {
            sqlx::query(SELECT)
                .bind(filter.session_id.clone())
                .bind(filter.bot_id.clone())
                .bind(filter.since_ms)
        };
        let mut conn = self.conn.lock().await;
        let mut tried = select().fetch_all(&mut *conn).await;
        if let Err(error) = &tried
            && self.reconnect_after(&mut conn, error).await
        {
            tried = select().fetch_all(&mut *conn).await;
        }
        let rows = tried.map_err(|source| self.fail(source))?;
        rows.iter()
            .map(read_row)
            .collect::<sqlx::Result<Vec<_>>>()
            .map_err(|source| self.fail(source))
    }

    pub(crate) async fn newest_at_ms(&self) -> Result<Option<i64>, UsageError> {
        const NEWEST: &str = "SELECT MAX(at_ms) FROM flybot_usage_calls";
        let mut conn = self.conn.lock().await;
        let mut tried = sqlx::query(NEWEST).fetch_one(&mut *conn).await;
        if let Err(error) = &tried
            && self.reconnect_after(&mut conn, error).await
        {
            tried = sqlx::query(NEWEST).fetch_one(&mut *conn).await;
        }
        tried
            .and_then(|row| row.try_get::<Option<i64>, _>(0))
            .map_err(|source| self.fail(source))
    }
}

/// Every row of the database's ledger, by id (`store copy`).
pub(crate) async fn all_rows(conn: &mut PgConnection) -> sqlx::Result<Vec<CallRow>> {
    let rows = sqlx::query(SELECT_ALL).fetch_all(conn).await?;
    rows.iter().map(read_row).collect()
}

/// Writes rows as they stand (`store copy`, inside its transaction).
pub(crate) async fn insert_rows(conn: &mut PgConnection, rows: &[CallRow]) -> sqlx::Result<()> {
    for row in rows {
        bind_row(sqlx::query(CARRY), row.clone())
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}
