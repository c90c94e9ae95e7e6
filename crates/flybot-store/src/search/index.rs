//! `SearchIndex`: the open `search.sqlite`, its writes (a conversation's new
//! lines and its cursor, in one transaction) and its one read, a match
//! within the conversations a caller may see.

use super::query::{CLOSE, OPEN, parts, unmarked};
use super::{IndexedLine, SEARCH_FILE, SearchError, SearchHit};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqliteSynchronous};
use sqlx::{ConnectOptions, Connection, Row, SqliteConnection};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use tokio::sync::Mutex;

/// The layout this build writes; an index of any other is rebuilt.
const INDEX_VERSION: i64 = 1;

/// The index's page cache, as SQLite's `cache_size` (negative: KiB).
const CACHE_KIB: &str = "-2048";

const CREATE: [&str; 3] = [
    "CREATE TABLE IF NOT EXISTS search_meta (name TEXT PRIMARY KEY, value BIGINT NOT NULL)",
    // `unicode61` folds case and diacritics; the prefix indexes keep a
    // word still being typed (`"hapt"*`) as quick as a whole one.
    "CREATE VIRTUAL TABLE IF NOT EXISTS lines USING fts5(
        text, conversation UNINDEXED, seq UNINDEXED, at UNINDEXED, author UNINDEXED,
        tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3')",
    "CREATE TABLE IF NOT EXISTS cursors (conversation TEXT PRIMARY KEY, seq BIGINT NOT NULL)",
];

/// A new file takes this build's layout; a file that has one keeps it.
const MARK_VERSION: &str = "INSERT INTO search_meta (name, value) VALUES ('version', $1)
    ON CONFLICT (name) DO NOTHING";

const INSERT: &str =
    "INSERT INTO lines (text, conversation, seq, at, author) VALUES ($1, $2, $3, $4, $5)";

const SET_CURSOR: &str = "INSERT INTO cursors (conversation, seq) VALUES ($1, $2)
    ON CONFLICT (conversation) DO UPDATE SET seq = excluded.seq";

/// The caller's scope, conversation → first seq it may read, filled for
/// each search from one JSON object: a table with a key, so each matching
/// line's check is one lookup (a `json_each` in the match would parse the
/// whole scope again for every line).
const SCOPE_TABLE: &str = "CREATE TEMP TABLE IF NOT EXISTS scope
    (conversation TEXT PRIMARY KEY, start BIGINT NOT NULL)";
const SCOPE_CLEAR: &str = "DELETE FROM temp.scope";
const SCOPE_FILL: &str = "INSERT INTO temp.scope (conversation, start)
    SELECT key, value FROM json_each($1)";

/// The match runs first (`CROSS JOIN` keeps FTS5 the outer loop), and each
/// matching line is kept only when its conversation is in the scope and
/// its seq inside the window.
const SEARCH: &str = "SELECT l.conversation AS conversation, l.seq AS seq, l.at AS at,
        l.author AS author, snippet(lines, 0, $2, $3, '…', 14) AS snippet
    FROM lines AS l CROSS JOIN temp.scope AS s
    WHERE lines MATCH $1 AND s.conversation = l.conversation AND l.seq >= s.start
    ORDER BY rank, l.at DESC LIMIT $4";

pub struct SearchIndex {
    path: PathBuf,
    conn: Mutex<SqliteConnection>,
}

impl SearchIndex {
    /// Opens `<home>/search.sqlite`, made private. A file of another layout,
    /// or one SQLite cannot read, is removed and made again empty: the host
    /// then rebuilds it from the logs.
    pub async fn open(home: &Path) -> Result<SearchIndex, SearchError> {
        let path = home.join(SEARCH_FILE);
        match Self::open_as_is(&path).await {
            Ok(Some(conn)) => return Ok(Self::wrap(path, conn)),
            Ok(None) => {
                tracing::info!(path = %path.display(), "the search index is of another layout; rebuilding it")
            }
            Err(e) => {
                tracing::warn!(path = %path.display(), "the search index could not be opened, rebuilding it: {e}")
            }
        }
        for side in ["", "-wal", "-shm"] {
            let mut side_path = path.clone().into_os_string();
            side_path.push(side);
            match std::fs::remove_file(&side_path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Self::fail_at(&path, sqlx::Error::Io(e))),
            }
        }
        match Self::open_as_is(&path).await {
            Ok(Some(conn)) => Ok(Self::wrap(path, conn)),
            Ok(None) => Err(Self::fail_at(
                &path,
                sqlx::Error::Protocol("a fresh search index has no version".into()),
            )),
            Err(source) => Err(Self::fail_at(&path, source)),
        }
    }

    fn wrap(path: PathBuf, conn: SqliteConnection) -> SearchIndex {
        SearchIndex {
            path,
            conn: Mutex::new(conn),
        }
    }

    fn fail_at(path: &Path, source: sqlx::Error) -> SearchError {
        SearchError::Database {
            path: path.to_owned(),
            source,
        }
    }

    /// The open connection when the file is (or now is) this layout.
    async fn open_as_is(path: &Path) -> sqlx::Result<Option<SqliteConnection>> {
        // The index holds every member's lines: the user's alone (issue 29).
        crate::private::private_file(path).map_err(sqlx::Error::Io)?;
        for side in ["-wal", "-shm"] {
            let mut side_path = path.to_owned().into_os_string();
            side_path.push(side);
            crate::private::narrow(Path::new(&side_path), crate::private::FILE_MODE)
                .map_err(sqlx::Error::Io)?;
        }
        // `NORMAL` in WAL mode: a commit survives the process's crash and a
        // power cut may take back the newest ones, cursor and lines
        // together, which the next catch-up writes again.
        let mut conn = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .pragma("cache_size", CACHE_KIB)
            .connect()
            .await?;
        let mut tx = conn.begin().await?;
        for statement in CREATE {
            sqlx::query(statement).execute(&mut *tx).await?;
        }
        sqlx::query(MARK_VERSION)
            .bind(INDEX_VERSION)
            .execute(&mut *tx)
            .await?;
        let version: i64 = sqlx::query("SELECT value FROM search_meta WHERE name = 'version'")
            .fetch_one(&mut *tx)
            .await?
            .try_get("value")?;
        tx.commit().await?;
        // A later build that changes the table moves `INDEX_VERSION`, and
        // an index of the old layout is rebuilt.
        if version != INDEX_VERSION {
            conn.close().await?;
            return Ok(None);
        }
        Ok(Some(conn))
    }

    /// Every conversation's cursor: the last seq the index holds of it.
    pub async fn cursors(&self) -> Result<HashMap<String, u64>, SearchError> {
        let mut conn = self.conn.lock().await;
        let rows = sqlx::query("SELECT conversation, seq FROM cursors")
            .fetch_all(&mut *conn)
            .await
            .map_err(|e| self.fail(e))?;
        rows.iter()
            .map(|row| {
                let seq: i64 = row.try_get("seq")?;
                Ok((row.try_get("conversation")?, from_sql(seq)))
            })
            .collect::<sqlx::Result<_>>()
            .map_err(|e| self.fail(e))
    }

    /// Adds a conversation's lines after its cursor and moves the cursor to
    /// `through`, in one transaction: a line at or before the cursor is
    /// already there and is not added twice.
    pub async fn add(
        &self,
        conversation: &str,
        lines: &[IndexedLine],
        through: u64,
    ) -> Result<(), SearchError> {
        let mut conn = self.conn.lock().await;
        let write = async {
            let mut tx = conn.begin().await?;
            let cursor: Option<i64> =
                sqlx::query("SELECT seq FROM cursors WHERE conversation = $1")
                    .bind(conversation)
                    .fetch_optional(&mut *tx)
                    .await?
                    .map(|row| row.try_get("seq"))
                    .transpose()?;
            let cursor = cursor.map_or(0, from_sql);
            for line in lines.iter().filter(|line| line.seq > cursor) {
                sqlx::query(INSERT)
                    .bind(unmarked(&line.text))
                    .bind(conversation)
                    .bind(to_sql(line.seq))
                    .bind(to_sql(line.at))
                    .bind(&line.author)
                    .execute(&mut *tx)
                    .await?;
            }
            sqlx::query(SET_CURSOR)
                .bind(conversation)
                .bind(to_sql(through.max(cursor)))
                .execute(&mut *tx)
                .await?;
            tx.commit().await
        };
        write.await.map_err(|e| self.fail(e))
    }

    /// The best `limit` lines matching `expression` (a
    /// [`super::match_expression`]) in `scope`: conversation → the first
    /// seq the caller may read there. A conversation not in the scope never
    /// answers, nor a line before its seq.
    pub async fn search(
        &self,
        expression: &str,
        scope: &BTreeMap<String, u64>,
        limit: u32,
    ) -> Result<Vec<SearchHit>, SearchError> {
        if scope.is_empty() {
            return Ok(Vec::new());
        }
        let scope = serde_json::to_string(scope)
            .map_err(|e| self.fail(sqlx::Error::Protocol(e.to_string())))?;
        let mut conn = self.conn.lock().await;
        let read = async {
            // The connection is this index's alone and held for the whole
            // search, so no other search sees this scope.
            sqlx::query(SCOPE_TABLE).execute(&mut *conn).await?;
            sqlx::query(SCOPE_CLEAR).execute(&mut *conn).await?;
            sqlx::query(SCOPE_FILL)
                .bind(scope)
                .execute(&mut *conn)
                .await?;
            sqlx::query(SEARCH)
                .bind(expression)
                .bind(OPEN.to_string())
                .bind(CLOSE.to_string())
                .bind(i64::from(limit))
                .fetch_all(&mut *conn)
                .await
        };
        let rows = read.await.map_err(|e| self.fail(e))?;
        rows.iter()
            .map(|row| {
                let seq: i64 = row.try_get("seq")?;
                let at: i64 = row.try_get("at")?;
                let snippet: String = row.try_get("snippet")?;
                Ok(SearchHit {
                    conversation: row.try_get("conversation")?,
                    seq: from_sql(seq),
                    at: from_sql(at),
                    author: row.try_get("author")?,
                    snippet: parts(&snippet),
                })
            })
            .collect::<sqlx::Result<_>>()
            .map_err(|e| self.fail(e))
    }

    fn fail(&self, source: sqlx::Error) -> SearchError {
        Self::fail_at(&self.path, source)
    }
}

fn to_sql(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

fn from_sql(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}
