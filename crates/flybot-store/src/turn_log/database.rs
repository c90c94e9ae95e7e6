//! The turn log on PostgreSQL (issue 35): the Session logs, room logs,
//! in-flight notes and room run notes of a team whose store is on
//! PostgreSQL. Each line of the turn log's journal (`turns.jsonl`) is a row
//! of `flybot_turns`, and the database is the durable record: the leader's
//! writer commits a batch (one statement, fenced by the store's lease
//! token) before it writes the lines into its own files and answers anyone,
//! so the home folder's files only ever hold committed lines. Every host
//! keeps the files as a copy rebuilt from the rows: a standby appends the
//! rows past its cursor (`turns.cursor`) to its `turns.jsonl` and replays
//! them the way a start does (`recover`), so its page reads the leader's
//! transcripts and a takeover resumes cut turns and rounds from them.
//!
//! Re-reading rows a home already holds is harmless: a file line is
//! appended only past the file's last `seq`, and rows go in id order, so
//! the newest note is still the last one read. The cursor only saves work.

use super::JOURNAL_FILE;
use super::recover::{Writing, lock_home, recover, writing};
use crate::engine::postgres::{NOTIFY_CHANNEL, connect};
use crate::error::StoreError;
use crate::jsonl::JsonlAppender;
use flybot_core::sync::lock;
use sqlx::{PgConnection, Row};
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::runtime::Runtime;

/// The last row a home's files and journal reflect.
const CURSOR_FILE: &str = "turns.cursor";

/// Where a home's turn log is kept when its store is on PostgreSQL.
#[derive(Debug, Clone)]
pub struct TurnDatabase {
    pub url: String,
    /// The lease token the store holds now; 0 while it is a standby.
    pub token: Arc<AtomicI64>,
    /// How long a batch waits for a database that went away.
    pub reconnect_for: Duration,
}

static DATABASES: Mutex<Option<HashMap<PathBuf, TurnDatabase>>> = Mutex::new(None);

fn key(home: &Path) -> PathBuf {
    home.canonicalize().unwrap_or_else(|_| home.to_owned())
}

/// The home's turn log goes to the store's database from its next open
/// on; answers the token the store's engine keeps up to date.
pub(crate) fn attach(home: &Path, options: &crate::engine::PostgresOptions) -> Arc<AtomicI64> {
    let token = Arc::new(AtomicI64::new(0));
    let database = TurnDatabase {
        url: options.url.clone(),
        token: token.clone(),
        reconnect_for: options.reconnect_for,
    };
    lock(&DATABASES)
        .get_or_insert_with(HashMap::new)
        .insert(key(home), database);
    token
}

/// The home's turn log is the folder's again (a store on the folder, or a
/// store on PostgreSQL closed).
pub(crate) fn detach(home: &Path) {
    if let Some(map) = lock(&DATABASES).as_mut() {
        map.remove(&key(home));
    }
}

pub(crate) fn attached(home: &Path) -> Option<TurnDatabase> {
    let map = lock(&DATABASES);
    // No store of this process is on PostgreSQL: no path is looked up.
    let map = map.as_ref().filter(|map| !map.is_empty())?;
    map.get(&key(home)).cloned()
}

/// The home on PostgreSQL that holds `path` (the nearest), and its database.
pub(crate) fn attached_above(path: &Path) -> Option<(PathBuf, TurnDatabase)> {
    let map = lock(&DATABASES);
    let map = map.as_ref().filter(|map| !map.is_empty())?;
    let path = key(path);
    map.iter()
        .filter(|(home, _)| path.starts_with(home))
        .max_by_key(|(home, _)| home.as_os_str().len())
        .map(|(home, database)| (home.clone(), database.clone()))
}

fn read_cursor(home: &Path) -> i64 {
    std::fs::read_to_string(home.join(CURSOR_FILE))
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(0)
}

/// Written only after the rows it names are flushed into the files (by
/// `recover` or a checkpoint), so it never runs ahead of them.
fn write_cursor(home: &Path, id: i64) -> io::Result<()> {
    crate::atomic_write(&home.join(CURSOR_FILE), id.to_string().as_bytes())
}

/// Appends every row past `after` to the home's `turns.jsonl`, in order;
/// answers the last id read (`after` when there is none).
async fn append_rows(conn: &mut PgConnection, home: &Path, after: i64) -> Result<i64, StoreError> {
    let rows = sqlx::query("SELECT id, line FROM flybot_turns WHERE id > $1 ORDER BY id")
        .bind(after)
        .fetch_all(conn)
        .await
        .map_err(|e| format!("the turn log could not be read: {e}"))?;
    let Some(last) = rows.last().map(|row| row.get::<i64, _>(0)) else {
        return Ok(after);
    };
    let mut bytes = Vec::new();
    for row in &rows {
        bytes.extend_from_slice(row.get::<&str, _>(1).as_bytes());
        bytes.push(b'\n');
    }
    JsonlAppender::open(&home.join(JOURNAL_FILE))
        .and_then(|mut journal| journal.write(&bytes))
        .map_err(|e| format!("the turn log's journal could not be written: {e}"))?;
    Ok(last)
}

/// A standby's step: brings the home's files up to the database's rows.
/// Skipped while a turn log writer of this process or another (a shared
/// home) holds the home: that writer brings itself up to date.
pub(crate) async fn follow(conn: &mut PgConnection, home: &Path) -> Result<(), StoreError> {
    if writing(&key(home)) {
        // This process's writer holds the home: it reads the rows itself,
        // and is waited for (a takeover reads every row before it writes).
        match super::TurnLog::for_home(home).catch_up() {
            Ok(read) => {
                let _ = read.recv_timeout(Duration::from_secs(10));
            }
            Err(e) => tracing::warn!("the turn log's writer could not be asked to catch up: {e}"),
        }
        return Ok(());
    }
    let Ok(_held) = lock_home(home) else {
        return Ok(());
    };
    let _writing = Writing::new(home);
    let after = read_cursor(home);
    let last = append_rows(conn, home, after).await?;
    if last == after {
        return Ok(());
    }
    let read = recover(home).and_then(|_| write_cursor(home, last));
    moved(home);
    read.map_err(|e| format!("the turn log's files could not be brought up to date: {e}").into())
}

static GENERATIONS: Mutex<Option<HashMap<PathBuf, u64>>> = Mutex::new(None);

/// Lines another host wrote were read into the home's files.
pub(crate) fn moved(home: &Path) {
    *lock(&GENERATIONS)
        .get_or_insert_with(HashMap::new)
        .entry(key(home))
        .or_default() += 1;
}

pub(crate) fn generation(home: &Path) -> u64 {
    lock(&GENERATIONS)
        .as_ref()
        .and_then(|map| map.get(&key(home)).copied())
        .unwrap_or(0)
}

/// Why a batch was not committed.
pub(crate) enum Refused {
    /// The store does not hold the lease it held when the writer last
    /// caught up (a standby, or a lease lost or taken again).
    Fenced,
    /// The database stayed out of reach (or refused) for `reconnect_for`.
    Unreachable(String),
}

/// The leader writer's link to the database: its own connection and
/// runtime on the writer's thread, and the next row id.
pub(crate) struct Link {
    database: TurnDatabase,
    rt: Runtime,
    conn: PgConnection,
    /// The id the next row gets.
    next_id: i64,
    /// The highest row the home's journal reflects.
    seen: i64,
    /// The lease token the writer caught up under.
    token: i64,
}

impl Link {
    /// Connects and appends to the home's journal every row past its
    /// cursor; the writer's `recover` then replays them into the files.
    pub(crate) fn open(home: &Path, database: TurnDatabase) -> io::Result<Link> {
        // The caller may be inside a runtime (a start's pickup opens the
        // log): the link is made on a thread of its own, then handed over.
        std::thread::scope(|scope| {
            scope
                .spawn(|| Link::open_here(home, database))
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("the turn log's link panicked")))
        })
    }

    fn open_here(home: &Path, database: TurnDatabase) -> io::Result<Link> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let conn = rt
            .block_on(connect(&database.url))
            .map_err(io::Error::other)?;
        let mut link = Link {
            token: database.token.load(Ordering::SeqCst),
            database,
            rt,
            conn,
            next_id: 1,
            seen: read_cursor(home),
        };
        link.catch_up(home)?;
        Ok(link)
    }

    /// Whether the store's lease changed since the writer last caught up:
    /// rows another leader wrote must be read before this one writes.
    pub(crate) fn stale(&self) -> bool {
        self.database.token.load(Ordering::SeqCst) != self.token
    }

    /// Whether the database holds rows this home has not read (a failed
    /// look counts as none: the next notice or tick looks again).
    pub(crate) fn behind(&mut self) -> bool {
        let (conn, seen) = (&mut self.conn, self.seen);
        let max = self.rt.block_on(async {
            sqlx::query("SELECT coalesce(max(id), 0) FROM flybot_turns")
                .fetch_one(conn)
                .await
                .map(|row| row.get::<i64, _>(0))
        });
        max.is_ok_and(|max| max > seen)
    }

    /// Makes the next batch catch up first (a batch was refused, so the
    /// writer's notes may hold lines the database does not).
    pub(crate) fn forget(&mut self) {
        self.token = -1;
    }

    /// Appends the rows past `seen` to the journal and learns the next id;
    /// answers whether there were any. The caller replays the journal into
    /// the files (`recover`).
    pub(crate) fn catch_up(&mut self, home: &Path) -> io::Result<bool> {
        self.token = self.database.token.load(Ordering::SeqCst);
        let (conn, seen) = (&mut self.conn, self.seen);
        let done = self.rt.block_on(async {
            let last = append_rows(conn, home, seen).await?;
            let max: i64 = sqlx::query("SELECT coalesce(max(id), 0) FROM flybot_turns")
                .fetch_one(conn)
                .await
                .map_err(|e| e.to_string())?
                .get(0);
            Ok::<_, StoreError>((last, max))
        });
        let (last, max) = done.map_err(io::Error::other)?;
        let read = last > self.seen;
        self.seen = last;
        self.next_id = max.max(last) + 1;
        Ok(read)
    }

    /// Records that the home's files hold every row read so far.
    pub(crate) fn save_cursor(&self, home: &Path) -> io::Result<()> {
        write_cursor(home, self.seen)
    }

    /// Commits `journal` (whole journal lines) as rows, fenced; retried on
    /// a new connection while the database restarts.
    pub(crate) fn commit(&mut self, journal: &[u8]) -> Result<(), Refused> {
        if self.token == 0 || self.stale() {
            return Err(Refused::Fenced);
        }
        let mut lines = Vec::new();
        for raw in journal.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            let text = std::str::from_utf8(raw).map_err(|e| Refused::Unreachable(e.to_string()))?;
            lines.push(text.to_owned());
        }
        let ids: Vec<i64> = (self.next_id..).take(lines.len()).collect();
        let deadline = Instant::now() + self.database.reconnect_for;
        let mut pause = Duration::from_millis(50);
        loop {
            let tried = self
                .rt
                .block_on(insert(&mut self.conn, self.token, &ids, &lines));
            match tried {
                Ok(true) => break,
                Ok(false) => return Err(Refused::Fenced),
                Err(e) if Instant::now() + pause >= deadline => {
                    return Err(Refused::Unreachable(format!(
                        "the database could not be reached for {} s ({e})",
                        self.database.reconnect_for.as_secs()
                    )));
                }
                Err(e) => {
                    tracing::warn!("a turn log batch did not commit ({e}); reconnecting");
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_secs(1));
                    if let Ok(conn) = self.rt.block_on(connect(&self.database.url)) {
                        self.conn = conn;
                    }
                }
            }
        }
        self.next_id += ids.len() as i64;
        self.seen = self.next_id - 1;
        Ok(())
    }
}

/// One batch in one statement: the rows go in only while `token` is the
/// live lease's (its row share-locked in the same statement). A row whose
/// id is there already is one a cut connection committed before a retry.
/// Answers whether the fence held.
async fn insert(
    conn: &mut PgConnection,
    token: i64,
    ids: &[i64],
    lines: &[String],
) -> Result<bool, sqlx::Error> {
    let row = sqlx::query(
        "WITH fence AS (SELECT token FROM flybot_lease \
           WHERE id = 1 AND token = $1 AND expires_at > clock_timestamp() FOR SHARE), \
         written AS (INSERT INTO flybot_turns (id, line) \
           SELECT i, l FROM UNNEST($2::bigint[], $3::text[]) AS u(i, l) \
           WHERE EXISTS (SELECT 1 FROM fence) ON CONFLICT (id) DO NOTHING RETURNING id) \
         SELECT (SELECT count(*) FROM fence)::bigint, pg_notify($4, count(*)::text) FROM written",
    )
    .bind(token)
    .bind(ids)
    .bind(lines)
    .bind(NOTIFY_CHANNEL)
    .fetch_one(conn)
    .await?;
    Ok(row.get::<i64, _>(0) == 1)
}

/// The turn log's folders: every Session and room log lies under them.
const LOG_DIRS: [&str; 2] = ["sessions", "rooms"];

/// `store copy` (issue 35): a stopped home's turn log into a database that
/// holds none, as rows a standby would have read: the home's journal is
/// first replayed into its files (as a start does), then each line of each
/// Session and room log goes in, then the notes the journal carries.
/// Answers how many rows went in.
pub(crate) async fn copy_in(
    conn: &mut PgConnection,
    home: &Path,
    token: i64,
) -> Result<usize, StoreError> {
    let refused = |e: io::Error| format!("the home's Session and room logs could not be read: {e}");
    let _held = lock_home(home).map_err(refused)?;
    recover(home).map_err(refused)?;
    let mut lines = Vec::new();
    for dir in LOG_DIRS {
        log_lines(home, &home.join(dir), &mut lines).map_err(refused)?;
    }
    let notes = std::fs::read_to_string(home.join(JOURNAL_FILE)).unwrap_or_default();
    lines.extend(notes.lines().filter(|l| !l.is_empty()).map(str::to_owned));
    for (at, chunk) in lines.chunks(2000).enumerate() {
        let first = (at * 2000) as i64 + 1;
        let ids: Vec<i64> = (first..).take(chunk.len()).collect();
        let fenced = !insert(conn, token, &ids, chunk)
            .await
            .map_err(|e| format!("the copy of the logs did not commit: {e}"))?;
        if fenced {
            return Err("the copy was fenced by another FlyBot taking the lease".into());
        }
    }
    let rows: i64 = sqlx::query("SELECT count(*) FROM flybot_turns")
        .fetch_one(&mut *conn)
        .await
        .map_err(|e| e.to_string())?
        .get(0);
    if rows != lines.len() as i64 {
        return Err(format!(
            "the copy of the logs does not match: {} lines became {rows} rows",
            lines.len()
        )
        .into());
    }
    Ok(lines.len())
}

/// Every whole line of the `.jsonl` files under `dir`, as journal lines
/// naming their file (a torn last line is left out, as an open cuts it).
fn log_lines(home: &Path, dir: &Path, out: &mut Vec<String>) -> io::Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    let mut paths: Vec<PathBuf> = entries
        .map(|e| e.map(|e| e.path()))
        .collect::<io::Result<_>>()?;
    paths.sort();
    for path in paths {
        if path.is_dir() {
            log_lines(home, &path, out)?;
            continue;
        }
        if path.extension().is_none_or(|ext| ext != "jsonl") {
            continue;
        }
        let Ok(rel) = path.strip_prefix(home) else {
            continue;
        };
        let file = serde_json::to_string(&rel.to_string_lossy()).map_err(io::Error::other)?;
        for raw in std::fs::read_to_string(&path)?.lines() {
            if serde_json::from_str::<serde::de::IgnoredAny>(raw).is_ok() {
                out.push(format!("{{\"file\":{file},\"line\":{raw}}}"));
            }
        }
    }
    Ok(())
}

/// `store copy` back down: the database's turn log into a home that holds
/// none, read as a standby reads it.
pub(crate) async fn copy_out(conn: &mut PgConnection, home: &Path) -> Result<(), StoreError> {
    follow(conn, home).await
}
