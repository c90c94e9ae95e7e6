//! The last records on PostgreSQL (issue 35): memory files, decisions and
//! the interop journals of a home whose store is on PostgreSQL. Two tables
//! hold them: `flybot_files`, a whole file by its path in the home (a
//! memory file, an interop side file), and `flybot_lines`, a file of lines
//! one row per line (`decisions.jsonl`, an interop `journal.jsonl`). The
//! database is the record and each host's home keeps a copy of the files,
//! as the turn log does: the leader commits a write (fenced by the store's
//! lease token, in one transaction) before it touches its own file, and a
//! standby rewrites the files whose rows moved past its cursor (`follow`).
//! Reads stay reads of the home's files, so they cost what they cost on the
//! folder engine. The usage ledger has a table of its own (`usage`).
//!
//! Writes come from code that is not async (a memory write runs inside the
//! team's one writer), so each home on PostgreSQL has one thread with its
//! own runtime and connection that takes them in order.

pub mod copy;
mod sql;

pub(crate) use sql::follow;

use crate::turn_log::database::{TurnDatabase, attached, attached_above};
use flybot_core::sync::lock;
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The sentence a write on a standby (or a fenced leader) is refused with.
const NOT_LEADER: &str = "this FlyBot is a standby (another one holds the database's lease), so it writes no records; the leader does";

/// How long a records thread keeps an idle connection.
const IDLE: Duration = Duration::from_secs(5);

/// One write, as the records thread takes it.
#[derive(Debug, Clone)]
pub(crate) enum Op {
    /// Replaces the file at `path` (`None`: removes it).
    PutFile { path: String, body: Option<Vec<u8>> },
    /// Moves every file under the folder `from` to the folder `to`.
    MoveTree { from: String, to: String },
    /// Appends `line` to the file of lines at `path`, then keeps only the
    /// newest lines within `bounds` (lines, bytes), when given, and then
    /// answers the file's lines after it.
    AppendLine {
        path: String,
        line: String,
        bounds: Option<(usize, usize)>,
    },
}

struct Job {
    op: Op,
    reply: Sender<Result<Vec<String>, String>>,
}

/// The records thread of one home on PostgreSQL.
#[derive(Debug, Clone)]
pub(crate) struct Records {
    jobs: Sender<Job>,
}

struct Entry {
    url: String,
    token: Arc<std::sync::atomic::AtomicI64>,
    records: Records,
}

static THREADS: Mutex<Option<HashMap<PathBuf, Entry>>> = Mutex::new(None);

/// The records thread of `home` when its store is on PostgreSQL; `None` on
/// the folder engine (one look at an empty map: no path is resolved).
pub(crate) fn for_home(home: &Path) -> Option<Records> {
    let database = attached(home)?;
    Some(records_of(home.to_owned(), database))
}

/// The home on PostgreSQL above `path`, its records thread, and `path`
/// relative to that home (an interop journal's folder).
pub(crate) fn for_path(path: &Path) -> Option<(Records, String)> {
    let (home, database) = attached_above(path)?;
    let full = path.canonicalize().ok()?;
    let relative = relative_path(&home, &full)?;
    Some((records_of(home, database), relative))
}

/// `path` (under `home`) as the tables name it: `/`-separated, relative.
pub(crate) fn relative_path(home: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(home).ok()?;
    let parts: Vec<&str> = rel
        .components()
        .map(|c| match c {
            std::path::Component::Normal(part) => part.to_str(),
            _ => None,
        })
        .collect::<Option<_>>()?;
    Some(parts.join("/"))
}

fn records_of(home: PathBuf, database: TurnDatabase) -> Records {
    let key = home.canonicalize().unwrap_or(home);
    let mut map = lock(&THREADS);
    let map = map.get_or_insert_with(HashMap::new);
    if let Some(entry) = map.get(&key)
        && entry.url == database.url
        && Arc::ptr_eq(&entry.token, &database.token)
    {
        return entry.records.clone();
    }
    let (tx, rx) = channel();
    let records = Records { jobs: tx };
    let entry = Entry {
        url: database.url.clone(),
        token: database.token.clone(),
        records: records.clone(),
    };
    let spawned = std::thread::Builder::new()
        .name("flybot-records".to_owned())
        .spawn(move || serve(&database, &rx));
    if let Err(e) = spawned {
        tracing::warn!("the records thread could not start: {e}");
    }
    map.insert(key, entry);
    records
}

impl Records {
    fn run(&self, op: Op) -> io::Result<Vec<String>> {
        let (reply, answer) = channel();
        self.jobs
            .send(Job { op, reply })
            .map_err(|_| io::Error::other("the records' database thread stopped"))?;
        answer
            .recv()
            .map_err(|_| io::Error::other("the records' database thread stopped"))?
            .map_err(io::Error::other)
    }

    /// Replaces (or with `None` removes) the file at `path` in the database.
    pub(crate) fn put_file(&self, path: &str, body: Option<&[u8]>) -> io::Result<()> {
        let body = body.map(<[u8]>::to_vec);
        self.run(Op::PutFile {
            path: path.to_owned(),
            body,
        })
        .map(drop)
    }

    /// Moves the files under the folder `from` to the folder `to`.
    pub(crate) fn move_tree(&self, from: &str, to: &str) -> io::Result<()> {
        self.run(Op::MoveTree {
            from: from.to_owned(),
            to: to.to_owned(),
        })
        .map(drop)
    }

    /// Appends one line; with `bounds`, trims the file to them and answers
    /// its lines after it.
    pub(crate) fn append_line(
        &self,
        path: &str,
        line: &str,
        bounds: Option<(usize, usize)>,
    ) -> io::Result<Vec<String>> {
        self.run(Op::AppendLine {
            path: path.to_owned(),
            line: line.to_owned(),
            bounds,
        })
    }
}

/// The records thread: one write at a time, each retried on a new
/// connection while the database restarts (for `reconnect_for`).
fn serve(database: &TurnDatabase, jobs: &Receiver<Job>) {
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            let why = format!("the records' runtime could not start: {e}");
            while let Ok(job) = jobs.recv() {
                let _ = job.reply.send(Err(why.clone()));
            }
            return;
        }
    };
    let mut conn = None;
    loop {
        let job = match jobs.recv_timeout(IDLE) {
            Ok(job) => job,
            Err(RecvTimeoutError::Timeout) => {
                conn = None;
                continue;
            }
            Err(RecvTimeoutError::Disconnected) => return,
        };
        let answer = rt.block_on(write(database, &mut conn, &job.op));
        let _ = job.reply.send(answer);
    }
}

async fn write(
    database: &TurnDatabase,
    conn: &mut Option<sqlx::PgConnection>,
    op: &Op,
) -> Result<Vec<String>, String> {
    let deadline = Instant::now() + database.reconnect_for;
    let mut pause = Duration::from_millis(50);
    let mut retry = false;
    loop {
        let token = database.token.load(Ordering::SeqCst);
        if token == 0 {
            return Err(NOT_LEADER.to_owned());
        }
        let tried = match conn.as_mut() {
            Some(conn) => sql::write(conn, token, op, retry)
                .await
                .map_err(|e| e.to_string()),
            None => crate::engine::postgres::connect(&database.url)
                .await
                .map_err(|e| e.to_string())
                .map(|fresh| {
                    *conn = Some(fresh);
                    None
                }),
        };
        match tried {
            Ok(Some(sql::Written::Done(answer))) => return Ok(answer),
            Ok(Some(sql::Written::Fenced)) => return Err(NOT_LEADER.to_owned()),
            Ok(None) => continue,
            Err(e) if Instant::now() + pause >= deadline => {
                return Err(format!(
                    "the database could not be reached for {} s ({e})",
                    database.reconnect_for.as_secs()
                ));
            }
            Err(e) => {
                tracing::warn!("a record did not commit ({e}); reconnecting");
                *conn = None;
                retry = true;
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_secs(1));
            }
        }
    }
}

/// A start on PostgreSQL brings the home's copy of the records up to the
/// database before anything reads it (a home that was away, or new).
pub(crate) fn catch_up(home: &Path, url: &str) -> Result<(), crate::StoreError> {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| e.to_string())?;
                rt.block_on(async {
                    let mut conn =
                        (crate::engine::postgres::connect(url).await).map_err(|e| e.to_string())?;
                    follow(&mut conn, home).await
                })
            })
            .join()
            .unwrap_or_else(|_| Err("the records' catch-up panicked".into()))
    })
}

/// `append_decision` and its kin on PostgreSQL: the line is committed (and
/// the file trimmed to `bounds`) in the database, then the home's file is
/// replaced by the database's lines. `None` on the folder engine.
pub(crate) fn append_bounded(
    home: &Path,
    file: &str,
    line: &str,
    bounds: (usize, usize),
) -> Option<io::Result<()>> {
    let records = for_home(home)?;
    Some(
        records
            .append_line(file, line, Some(bounds))
            .and_then(|lines| {
                let mut out = Vec::new();
                for line in lines {
                    out.extend_from_slice(line.as_bytes());
                    out.push(b'\n');
                }
                crate::atomic_write(&home.join(file), &out)
            }),
    )
}
