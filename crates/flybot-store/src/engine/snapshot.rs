//! The snapshot row on PostgreSQL (issue 35): the leader writes the team as
//! a base line (the line a trimmed `journal.jsonl` starts with: the team
//! and the chain's digest at its seq) every `snapshot_every` changes and at
//! a clean stop, fenced like every write. A start reads the row and only
//! the journal rows after it, so it does not replay the whole journal; the
//! rows before it are kept for `flybot replay` and `store copy` until the
//! journal is past its caps (`trim`).

use crate::engine::lease::Lease;
use crate::error::StoreError;
use crate::journal::base_line_bytes;
use flybot_protocol::state::TeamState;
use sqlx::{PgConnection, Row};

/// The snapshot's seq and line, when one was written.
pub(crate) async fn read(conn: &mut PgConnection) -> Result<Option<(u64, String)>, StoreError> {
    let row = sqlx::query("SELECT seq, line FROM flybot_snapshot WHERE id = 1")
        .fetch_optional(conn)
        .await
        .map_err(|e| format!("the snapshot could not be read: {e}"))?;
    Ok(row.map(|row| (row.get::<i64, _>(0) as u64, row.get(1))))
}

/// The base line carrying `team` at its seq.
pub(crate) fn line_of(team: &TeamState, now: u64) -> Result<String, StoreError> {
    let digest = team.journal_digest.clone().unwrap_or_default();
    let mut bytes =
        base_line_bytes(team.journal_seq, now, &digest, Some(team)).map_err(|e| e.to_string())?;
    bytes.pop();
    String::from_utf8(bytes).map_err(|e| e.to_string().into())
}

/// Writes the snapshot at `seq` while `lease` is live and no newer one is
/// there; answers whether it went in.
pub(crate) async fn write(
    conn: &mut PgConnection,
    lease: &Lease,
    seq: u64,
    line: &str,
) -> Result<bool, sqlx::Error> {
    let done = sqlx::query(
        "WITH fence AS (SELECT token FROM flybot_lease \
           WHERE id = 1 AND token = $1 AND expires_at > clock_timestamp() FOR SHARE) \
         INSERT INTO flybot_snapshot (id, seq, line) \
           SELECT 1, $2, $3 WHERE EXISTS (SELECT 1 FROM fence) \
         ON CONFLICT (id) DO UPDATE SET seq = EXCLUDED.seq, line = EXCLUDED.line \
           WHERE flybot_snapshot.seq < EXCLUDED.seq",
    )
    .bind(lease.token)
    .bind(seq as i64)
    .bind(line)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Writes the team's snapshot row, then trims what it makes needless
/// (`engine::trim`); answers whether the row went in. A trim that fails is
/// only logged: it costs space, and the next snapshot tries again.
pub(crate) async fn write_and_trim(
    conn: &mut PgConnection,
    lease: &Lease,
    team: &TeamState,
    caps: &crate::StoreOptions,
) -> Result<bool, crate::StoreError> {
    let now = (caps.clock)();
    let line = line_of(team, now).map_err(|e| format!("the snapshot could not be made: {e}"))?;
    let written = write(conn, lease, team.journal_seq, &line)
        .await
        .map_err(|e| e.to_string())?;
    if written
        && let Err(e) =
            crate::engine::trim::after_snapshot(conn, lease, team.journal_seq, &line, caps, now)
                .await
    {
        tracing::warn!("the rows before the snapshot were not trimmed: {e}");
    }
    Ok(written)
}
