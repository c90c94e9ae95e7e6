//! Trimming on PostgreSQL (issue 35), done by the leader after each
//! snapshot row, as the folder trims after its snapshot:
//!
//! - The journal keeps its history for `flybot replay` (#511) until it is
//!   past the store's caps (`journal_max_bytes`, or its oldest change older
//!   than `journal_max_age`), as a history `journal.jsonl` does. Then the
//!   rows up to the snapshot fold into it: the rows before it go and the
//!   row at its seq becomes the snapshot's base line (the team and the
//!   chain's digest there), the line a folded `journal.jsonl` starts with.
//!   Replay from any seq still held works; one before it is outside.
//! - The turn log's notes (a Session's in-flight note, a room's run note)
//!   are kept newest per Session and per room: the older ones say nothing
//!   a replay of the rows would keep. Session and room log lines stay: on
//!   PostgreSQL they are the logs' only durable record.
//!
//! Both run fenced by the lease, in one transaction each.

use crate::StoreOptions;
use crate::engine::lease::Lease;
use sqlx::{Connection, PgConnection, Row};

/// Drops every note row of the turn log that a newer row of the same
/// Session or room supersedes.
const TRIM_NOTES: &str = "DELETE FROM flybot_turns WHERE id IN ( \
      SELECT id FROM ( \
        SELECT id, row_number() OVER (PARTITION BY kind, key ORDER BY id DESC) AS newest \
        FROM ( \
          SELECT id, left(line, 8) AS kind, \
                 CASE WHEN line LIKE '{\"note\":%' THEN line::jsonb -> 'note' ->> 'sessionId' \
                      ELSE line::jsonb ->> 'room' END AS key \
          FROM flybot_turns \
          WHERE line LIKE '{\"note\":%' OR line LIKE '{\"room\":%') AS notes \
        WHERE key IS NOT NULL) AS ranked \
      WHERE newest > 1)";

/// After the snapshot row at `seq` (its base line `line`) was written.
/// A failure costs only space: the next snapshot tries again.
pub(crate) async fn after_snapshot(
    conn: &mut PgConnection,
    lease: &Lease,
    seq: u64,
    line: &str,
    caps: &StoreOptions,
    now_ms: u64,
) -> Result<(), sqlx::Error> {
    let mut tx = conn.begin().await?;
    let live = sqlx::query(
        "SELECT 1 FROM flybot_lease WHERE id = 1 AND token = $1 \
           AND expires_at > clock_timestamp() FOR SHARE",
    )
    .bind(lease.token)
    .fetch_optional(&mut *tx)
    .await?;
    if live.is_none() {
        return tx.rollback().await;
    }
    let held = sqlx::query(
        "SELECT coalesce(sum(octet_length(line)), 0)::bigint, \
           (SELECT t FROM flybot_journal WHERE seq > (SELECT min(seq) FROM flybot_journal) \
              ORDER BY seq LIMIT 1) \
         FROM flybot_journal",
    )
    .fetch_one(&mut *tx)
    .await?;
    let bytes = held.get::<i64, _>(0) as u64;
    let oldest_change = held.get::<Option<i64>, _>(1).map(|t| t as u64);
    let max_age = caps.journal_max_age.as_millis() as u64;
    let too_old = oldest_change.is_some_and(|t| now_ms.saturating_sub(t) > max_age);
    if bytes > caps.journal_max_bytes || too_old {
        let seq = seq as i64;
        sqlx::query("DELETE FROM flybot_journal WHERE seq < $1")
            .bind(seq)
            .execute(&mut *tx)
            .await?;
        sqlx::query("UPDATE flybot_journal SET line = $2 WHERE seq = $1")
            .bind(seq)
            .bind(line)
            .execute(&mut *tx)
            .await?;
    }
    sqlx::query(TRIM_NOTES).execute(&mut *tx).await?;
    tx.commit().await
}
