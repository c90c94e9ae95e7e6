//! `store copy` of the records (issue 35): a home's memory files,
//! decisions, interop journals and usage ledger into a database that
//! holds none, or back into a home. Either way the copy is read back whole
//! and must equal what was read from the source, or it is refused.

use super::sql::{local_path, put_file};
use crate::usage::{CallFilter, CallRow, USAGE_FILE, UsageLedger};
use sqlx::{Connection, PgConnection, Row};
use std::collections::BTreeMap;
use std::io;
use std::path::Path;

/// The folders a home keeps interop journals under (the rooms' OpenCode
/// cards, and a pilot's journal).
const INTEROP_ROOTS: [&str; 2] = ["interop", "journal/interop"];
/// An interop folder's file of records; the rest are whole files.
const INTEROP_JOURNAL: &str = "journal.jsonl";
const INTEROP_LOCK: &str = "journal.lock";
const DECISIONS: &str = "decisions.jsonl";

/// Every record of a team outside its journal and turn log.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct RecordSet {
    /// Whole files by their path in the home.
    pub files: BTreeMap<String, Vec<u8>>,
    /// Files of lines by their path in the home.
    pub lines: BTreeMap<String, Vec<String>>,
    /// The usage ledger's rows, by id.
    pub usage: Vec<CallRow>,
}

impl RecordSet {
    /// How many records: files, lines and usage rows.
    pub fn count(&self) -> usize {
        self.files.len() + self.lines.values().map(Vec::len).sum::<usize>() + self.usage.len()
    }
}

fn whole_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| serde_json::from_str::<serde::de::IgnoredAny>(l).is_ok())
        .map(str::to_owned)
        .collect()
}

fn walk(home: &Path, dir: &Path, set: &mut RecordSet, interop: bool) -> io::Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let path = entry?.path();
        if path.is_dir() {
            walk(home, &path, set, interop)?;
            continue;
        }
        let Some(rel) = super::relative_path(home, &path) else {
            continue;
        };
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with('.') || local_path(home, &rel).is_none() || name == INTEROP_LOCK {
            continue;
        }
        if interop && name == INTEROP_JOURNAL {
            set.lines
                .insert(rel, whole_lines(&std::fs::read_to_string(&path)?));
        } else {
            set.files.insert(rel, std::fs::read(&path)?);
        }
    }
    Ok(())
}

/// The records a home holds.
pub async fn of_folder(home: &Path) -> Result<RecordSet, crate::StoreError> {
    let refused = |e: io::Error| format!("the home's records could not be read: {e}");
    let mut set = RecordSet::default();
    walk(home, &home.join("memory"), &mut set, false).map_err(refused)?;
    for root in INTEROP_ROOTS {
        walk(home, &home.join(root), &mut set, true).map_err(refused)?;
    }
    match std::fs::read_to_string(home.join(DECISIONS)) {
        Ok(text) => {
            set.lines.insert(DECISIONS.to_owned(), whole_lines(&text));
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(refused(e).into()),
    }
    if home.join(USAGE_FILE).exists() {
        let ledger = UsageLedger::open_file(home)
            .await
            .map_err(|e| e.to_string())?;
        set.usage = ledger
            .rows(&CallFilter::default())
            .await
            .map_err(|e| e.to_string())?;
        set.usage.sort_by(|a, b| a.id.cmp(&b.id));
    }
    Ok(set)
}

/// The records a database holds (a removed file is none).
pub async fn of_database(conn: &mut PgConnection) -> Result<RecordSet, crate::StoreError> {
    let failed = |e: sqlx::Error| format!("the database's records could not be read: {e}");
    let mut set = RecordSet::default();
    let files = sqlx::query("SELECT path, body FROM flybot_files WHERE body IS NOT NULL")
        .fetch_all(&mut *conn)
        .await
        .map_err(failed)?;
    for row in files {
        set.files.insert(row.get(0), row.get(1));
    }
    let lines = sqlx::query("SELECT path, line FROM flybot_lines ORDER BY rev")
        .fetch_all(&mut *conn)
        .await
        .map_err(failed)?;
    for row in lines {
        set.lines.entry(row.get(0)).or_default().push(row.get(1));
    }
    set.usage = crate::usage::postgres::all_rows(conn)
        .await
        .map_err(failed)?;
    Ok(set)
}

/// Writes a home's records into a database that holds none, fenced by the
/// copy's own lease token, in one transaction; answers how many.
pub(crate) async fn copy_in(
    conn: &mut PgConnection,
    home: &Path,
    token: i64,
) -> Result<usize, crate::StoreError> {
    let set = of_folder(home).await?;
    let failed = |e: sqlx::Error| format!("the copy of the records did not commit: {e}");
    let mut tx = conn.begin().await.map_err(failed)?;
    let held: bool = sqlx::query(
        "SELECT EXISTS (SELECT 1 FROM flybot_lease WHERE id = 1 AND token = $1 \
           AND expires_at > clock_timestamp())",
    )
    .bind(token)
    .fetch_one(&mut *tx)
    .await
    .map_err(failed)?
    .get(0);
    if !held {
        return Err("the copy was fenced by another FlyBot taking the lease".into());
    }
    let mut rev: i64 = 0;
    for (path, body) in &set.files {
        rev += 1;
        put_file(&mut tx, path, Some(body), rev)
            .await
            .map_err(failed)?;
    }
    for (path, lines) in &set.lines {
        for line in lines {
            rev += 1;
            sqlx::query("INSERT INTO flybot_lines (rev, path, line) VALUES ($1, $2, $3)")
                .bind(rev)
                .bind(path)
                .bind(line)
                .execute(&mut *tx)
                .await
                .map_err(failed)?;
        }
    }
    sqlx::query("UPDATE flybot_records_rev SET rev = $1 WHERE id = 1")
        .bind(rev)
        .execute(&mut *tx)
        .await
        .map_err(failed)?;
    crate::usage::postgres::insert_rows(&mut tx, &set.usage)
        .await
        .map_err(failed)?;
    tx.commit().await.map_err(failed)?;
    let copied = of_database(conn).await?;
    if copied != set {
        return Err("the copy of the records does not read back the same".into());
    }
    Ok(set.count())
}

/// Writes a database's records into a home that holds none; answers how
/// many.
pub(crate) async fn copy_out(
    conn: &mut PgConnection,
    home: &Path,
) -> Result<usize, crate::StoreError> {
    let set = of_database(conn).await?;
    let refused = |e: io::Error| format!("the records could not be written into the home: {e}");
    let all = set
        .files
        .iter()
        .map(|(path, body)| (path, body.clone()))
        .chain(set.lines.iter().map(|(path, lines)| {
            let mut out = Vec::new();
            for line in lines {
                out.extend_from_slice(line.as_bytes());
                out.push(b'\n');
            }
            (path, out)
        }));
    for (path, bytes) in all {
        let local = local_path(home, path)
            .ok_or_else(|| format!("the database holds a record at {path:?}, not a home's path"))?;
        super::sql::write_file(&local, &bytes).map_err(refused)?;
    }
    if !set.usage.is_empty() {
        let ledger = UsageLedger::open_file(home)
            .await
            .map_err(|e| e.to_string())?;
        ledger.carry(&set.usage).await.map_err(|e| e.to_string())?;
    }
    let copied = of_folder(home).await?;
    if copied != set {
        return Err("the copy of the records does not read back the same".into());
    }
    Ok(set.count())
}
