//! The statements of the records' tables: a fenced write in one
//! transaction, and a standby's follow of the rows past its cursor.

use super::Op;
use crate::engine::postgres::NOTIFY_CHANNEL;
use sqlx::{Connection, PgConnection, Row};
use std::io;
use std::path::{Path, PathBuf};

/// The last rev a home's copy of the records reflects.
const CURSOR_FILE: &str = "records.cursor";

/// What a write came to.
pub(super) enum Written {
    /// Committed; the lines of the file, for an append that trims.
    Done(Vec<String>),
    /// The lease is not this token's: nothing was written.
    Fenced,
}

/// One write in one transaction: the lease row share-locked and checked,
/// the counter raised (its row locked until the commit, so revs commit in
/// order), the rows written, the standbys notified. `retry` is a second
/// try after a cut connection: an append whose line is already the file's
/// last was committed before the cut and is not written twice.
pub(super) async fn write(
    conn: &mut PgConnection,
    token: i64,
    op: &Op,
    retry: bool,
) -> Result<Option<Written>, sqlx::Error> {
    let mut tx = conn.begin().await?;
    let live = sqlx::query(
        "SELECT 1 FROM flybot_lease WHERE id = 1 AND token = $1 \
           AND expires_at > clock_timestamp() FOR SHARE",
    )
    .bind(token)
    .fetch_optional(&mut *tx)
    .await?;
    if live.is_none() {
        tx.rollback().await?;
        return Ok(Some(Written::Fenced));
    }
    let rev: i64 =
        sqlx::query("UPDATE flybot_records_rev SET rev = rev + 1 WHERE id = 1 RETURNING rev")
            .fetch_one(&mut *tx)
            .await?
            .get(0);
    let mut answer = Vec::new();
    match op {
        Op::PutFile { path, body } => {
            put_file(&mut tx, path, body.as_deref(), rev).await?;
        }
        Op::MoveTree { from, to } => {
            let from = format!("{}/", from.trim_end_matches('/'));
            let to = format!("{}/", to.trim_end_matches('/'));
            sqlx::query(
                "INSERT INTO flybot_files (path, body, rev) \
                   SELECT $2 || substr(path, length($1) + 1), body, $3 FROM flybot_files \
                   WHERE left(path, length($1)) = $1 AND body IS NOT NULL \
                 ON CONFLICT (path) DO UPDATE SET body = EXCLUDED.body, rev = EXCLUDED.rev",
            )
            .bind(&from)
            .bind(&to)
            .bind(rev)
            .execute(&mut *tx)
            .await?;
            sqlx::query(
                "UPDATE flybot_files SET body = NULL, rev = $2 \
                 WHERE left(path, length($1)) = $1 AND body IS NOT NULL",
            )
            .bind(&from)
            .bind(rev)
            .execute(&mut *tx)
            .await?;
        }
        Op::AppendLine { path, line, bounds } => {
            let last: Option<String> = if retry {
                sqlx::query(
                    "SELECT line FROM flybot_lines WHERE path = $1 ORDER BY rev DESC LIMIT 1",
                )
                .bind(path)
                .fetch_optional(&mut *tx)
                .await?
                .map(|row| row.get(0))
            } else {
                None
            };
            if last.as_deref() != Some(line.as_str()) {
                sqlx::query("INSERT INTO flybot_lines (rev, path, line) VALUES ($1, $2, $3)")
                    .bind(rev)
                    .bind(path)
                    .bind(line)
                    .execute(&mut *tx)
                    .await?;
            }
            if let Some((lines, bytes)) = bounds {
                trim_lines(&mut tx, path, *lines, *bytes).await?;
                answer = lines_of(&mut tx, path).await?;
            }
        }
    }
    sqlx::query("SELECT pg_notify($1, 'records')")
        .bind(NOTIFY_CHANNEL)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(Some(Written::Done(answer)))
}

pub(super) async fn put_file(
    conn: &mut PgConnection,
    path: &str,
    body: Option<&[u8]>,
    rev: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO flybot_files (path, body, rev) VALUES ($1, $2, $3) \
         ON CONFLICT (path) DO UPDATE SET body = EXCLUDED.body, rev = EXCLUDED.rev",
    )
    .bind(path)
    .bind(body)
    .bind(rev)
    .execute(conn)
    .await?;
    Ok(())
}

/// Keeps the newest lines of `path` within `lines` lines and `bytes` bytes
/// (each line counted with its newline), as the folder's trim does.
async fn trim_lines(
    conn: &mut PgConnection,
    path: &str,
    lines: usize,
    bytes: usize,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "DELETE FROM flybot_lines WHERE path = $1 AND rev IN ( \
           SELECT rev FROM ( \
             SELECT rev, row_number() OVER newest AS n, \
                    sum(octet_length(line) + 1) OVER newest AS size \
             FROM flybot_lines WHERE path = $1 \
             WINDOW newest AS (ORDER BY rev DESC ROWS UNBOUNDED PRECEDING)) AS kept \
           WHERE n > $2 OR size > $3)",
    )
    .bind(path)
    .bind(i64::try_from(lines).unwrap_or(i64::MAX))
    .bind(i64::try_from(bytes).unwrap_or(i64::MAX))
    .execute(conn)
    .await?;
    Ok(())
}

/// The lines of the file at `path`, oldest first.
pub(super) async fn lines_of(
    conn: &mut PgConnection,
    path: &str,
) -> Result<Vec<String>, sqlx::Error> {
    let rows = sqlx::query("SELECT line FROM flybot_lines WHERE path = $1 ORDER BY rev")
        .bind(path)
        .fetch_all(conn)
        .await?;
    Ok(rows.iter().map(|row| row.get(0)).collect())
}

/// Where a row's path lands in `home`: a memory file, `decisions.jsonl`,
/// or a file of an interop folder; anything else (an absolute path, `..`,
/// the store's own files) is not a record and is left alone.
pub(super) fn local_path(home: &Path, path: &str) -> Option<PathBuf> {
    let parts: Vec<&str> = path.split('/').collect();
    let plain = parts
        .iter()
        .all(|p| !p.is_empty() && *p != "." && *p != "..");
    let record = path == "decisions.jsonl"
        || parts.first() == Some(&"memory")
        || parts[..parts.len().saturating_sub(1)].contains(&"interop");
    (plain && record && parts.len() < 16).then(|| home.join(path))
}

fn read_cursor(home: &Path) -> i64 {
    std::fs::read_to_string(home.join(CURSOR_FILE))
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(0)
}

/// Replaces the file unless it already holds `bytes` (a home a leader
/// shares is not rewritten under it for nothing).
pub(super) fn write_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if std::fs::read(path).is_ok_and(|held| held == bytes) {
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        crate::private::private_dirs(dir)?;
    }
    crate::atomic_write(path, bytes)
}

/// Rewrites the home's copy of every file whose rows moved past the
/// home's cursor, then moves the cursor to the counter read first (every
/// rev at or below it is committed: the counter's row is held until its
/// write commits). Re-reading a row is harmless: it writes the same bytes.
pub(crate) async fn follow(conn: &mut PgConnection, home: &Path) -> Result<(), crate::StoreError> {
    let failed = |e: sqlx::Error| format!("the records could not be read: {e}");
    let after = read_cursor(home);
    let top: i64 = sqlx::query("SELECT rev FROM flybot_records_rev WHERE id = 1")
        .fetch_optional(&mut *conn)
        .await
        .map_err(failed)?
        .map_or(0, |row| row.get(0));
    if top <= after {
        return Ok(());
    }
    let refused =
        |e: io::Error| format!("the home's copy of the records could not be written: {e}");
    let files = sqlx::query("SELECT path, body FROM flybot_files WHERE rev > $1 AND rev <= $2")
        .bind(after)
        .bind(top)
        .fetch_all(&mut *conn)
        .await
        .map_err(failed)?;
    for row in files {
        let Some(local) = local_path(home, row.get(0)) else {
            continue;
        };
        match row.get::<Option<Vec<u8>>, _>(1) {
            Some(body) => write_file(&local, &body).map_err(refused)?,
            None => {
                match std::fs::remove_file(&local) {
                    Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(refused(e).into()),
                    _ => {}
                }
                // A folder its last file left (an archived Bot's) goes too.
                if let Some(dir) = local.parent() {
                    let _ = std::fs::remove_dir(dir);
                }
            }
        }
    }
    let paths = sqlx::query("SELECT DISTINCT path FROM flybot_lines WHERE rev > $1 AND rev <= $2")
        .bind(after)
        .bind(top)
        .fetch_all(&mut *conn)
        .await
        .map_err(failed)?;
    for row in paths {
        let path: String = row.get(0);
        let Some(local) = local_path(home, &path) else {
            continue;
        };
        let mut out = Vec::new();
        for line in lines_of(conn, &path).await.map_err(failed)? {
            out.extend_from_slice(line.as_bytes());
            out.push(b'\n');
        }
        write_file(&local, &out).map_err(refused)?;
    }
    crate::atomic_write(&home.join(CURSOR_FILE), top.to_string().as_bytes())
        .map_err(|e| refused(e).into())
}

#[cfg(test)]
mod tests {
    use super::local_path;
    use std::path::Path;

    #[test]
    fn a_row_lands_only_on_a_record_s_path_in_the_home() {
        let home = Path::new("/h");
        for kept in [
            "memory/bots/bot-a/MEMORY.md",
            "decisions.jsonl",
            "interop/bot-a/card-1/journal/journal.jsonl",
            "journal/interop/inbox.cursor",
        ] {
            assert_eq!(local_path(home, kept), Some(home.join(kept)), "{kept}");
        }
        for refused in [
            "state.json",
            "journal.jsonl",
            "secrets.json",
            "/etc/passwd",
            "memory/../secrets.json",
            "memory//x",
            "interop",
            "sessions/s1/log.jsonl",
        ] {
            assert_eq!(local_path(home, refused), None, "{refused}");
        }
    }
}
