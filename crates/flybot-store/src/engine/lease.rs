//! The leader's lease on PostgreSQL (issue 35, #14 across machines).
//!
//! A lease row with an expiry, not an advisory lock: an advisory lock lives
//! as long as its connection, and the connection of a leader stopped with
//! SIGSTOP (or a VM paused for a long GC) stays open, so a standby would wait
//! for TCP keepalive, minutes, before it could take over. The row's expiry is
//! read on the database's own clock (`clock_timestamp()`), so no two
//! machines' clocks are compared. Each new holder raises `token`; every
//! write checks the token inside its transaction (`postgres::commit_batch`),
//! so a leader that wakes after its lease was taken cannot write.

use sqlx::{PgConnection, Row};
use std::time::Duration;

/// A lease this process holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    pub token: i64,
    pub holder: String,
}

/// Who holds the lease, when someone does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    pub holder: String,
    /// How long until it lapses unless renewed.
    pub left_ms: i64,
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// Takes the lease if no one holds it (none yet, or it lapsed), raising the
/// fencing token; `None` when a live holder has it.
pub async fn try_acquire(
    conn: &mut PgConnection,
    holder: &str,
    lease: Duration,
) -> Result<Option<Lease>, sqlx::Error> {
    let row = sqlx::query(
        "INSERT INTO flybot_lease (id, token, holder, expires_at) \
         VALUES (1, 1, $1, clock_timestamp() + $2 * interval '1 millisecond') \
         ON CONFLICT (id) DO UPDATE SET token = flybot_lease.token + 1, \
           holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at \
         WHERE flybot_lease.expires_at <= clock_timestamp() \
         RETURNING token",
    )
    .bind(holder)
    .bind(millis(lease))
    .fetch_optional(conn)
    .await?;
    Ok(row.map(|row| Lease {
        token: row.get(0),
        holder: holder.to_owned(),
    }))
}

/// Extends a lease still held; false once it lapsed or was taken.
pub async fn renew(
    conn: &mut PgConnection,
    lease: &Lease,
    length: Duration,
) -> Result<bool, sqlx::Error> {
    let done = sqlx::query(
        "UPDATE flybot_lease SET expires_at = clock_timestamp() + $2 * interval '1 millisecond' \
         WHERE id = 1 AND token = $1 AND expires_at > clock_timestamp()",
    )
    .bind(lease.token)
    .bind(millis(length))
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Lets the lease go at once (a clean stop), so a standby need not wait.
pub async fn release(conn: &mut PgConnection, lease: &Lease) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE flybot_lease SET expires_at = clock_timestamp() WHERE id = 1 AND token = $1",
    )
    .bind(lease.token)
    .execute(conn)
    .await?;
    Ok(())
}

/// The live holder, when there is one.
pub async fn holder(conn: &mut PgConnection) -> Result<Option<Holder>, sqlx::Error> {
    let row = sqlx::query(
        "SELECT holder, (extract(epoch FROM expires_at - clock_timestamp()) * 1000)::bigint \
         FROM flybot_lease WHERE id = 1 AND expires_at > clock_timestamp()",
    )
    .fetch_optional(conn)
    .await?;
    Ok(row.map(|row| Holder {
        holder: row.get(0),
        left_ms: row.get(1),
    }))
}

/// A name for this process as a holder: its host, pid and a random part, so
/// a restarted process on the same host is a new holder.
pub fn holder_name() -> String {
    let mut random = [0u8; 4];
    let _ = getrandom::fill(&mut random);
    format!(
        "{} pid {} ({})",
        crate::lock::host_name(),
        std::process::id(),
        crate::hex(&random)
    )
}
