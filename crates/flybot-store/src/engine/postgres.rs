//! The PostgreSQL engine (issue 35): one thread per store, with its own
//! single-threaded runtime for sqlx, that opens the database, takes the
//! lease (or follows its holder, `follow`), and as the leader writes the
//! journal's lines. Everything queued while a transaction is in flight goes
//! out in the next one (group commit), and every waiter is answered only
//! after its commit. Each batch checks the fencing token inside its own
//! transaction: a leader whose lease was taken writes nothing and steps down.

use crate::engine::PostgresOptions;
use crate::engine::lease::{self, Lease};
use crate::error::StoreError;
use crate::journal::{Tail, apply_change, base_line_bytes, base_team, parse_journal};
use crate::store::{Inner, ReadOnlyReason, StoreStatus};
use crate::writer::WriterMsg;
use flybot_core::sync::lock;
use flybot_protocol::state::{STATE_VERSION, TeamState};
use sqlx::{Connection, PgConnection, Row};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Weak};
use std::time::Instant;
use tokio::runtime::Runtime;

/// The channel a standby LISTENs on; the leader notifies it in each batch.
pub(crate) const NOTIFY_CHANNEL: &str = "flybot_journal";

/// A leader's connection, lease and writer queue.
pub(crate) type Leading = (PgConnection, Lease, Receiver<WriterMsg>);

/// What the engine thread hands `Store::open`.
pub(crate) struct Opened {
    pub team: TeamState,
    pub status: StoreStatus,
    pub writer: Option<Sender<WriterMsg>>,
}

/// The thread's half of a store on PostgreSQL.
pub(crate) struct Engine {
    pub rt: Runtime,
    pub options: PostgresOptions,
    pub holder: String,
    /// The lease token while this store leads, 0 while it follows: the
    /// turn log's writer fences its own batches with it.
    pub token: Arc<AtomicI64>,
    /// Answers a committed batch's waiters.
    pub acker: crate::acks::Acker,
}

/// Connects and brings the tables up to date.
pub async fn connect(url: &str) -> Result<PgConnection, StoreError> {
    let mut conn = PgConnection::connect(url)
        .await
        .map_err(|e| format!("the database at {} could not be reached: {e}", redact(url)))?;
    crate::engine::schema::migrate(&mut conn).await?;
    Ok(conn)
}

/// The URL without its password, for sentences and logs.
pub(crate) fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let user = &url[scheme + 3..at];
            let user = user.split(':').next().unwrap_or("");
            format!("{}{user}@{}", &url[..scheme + 3], &url[at + 1..])
        }
        _ => url.to_owned(),
    }
}

/// The team as the database holds it: the snapshot row's team (else the
/// first row's) and every change row after it, the chain checked
/// throughout. `None` for an empty database.
pub(crate) async fn load(conn: &mut PgConnection) -> Result<Option<TeamState>, StoreError> {
    // Read before the rows: a newer snapshot written meanwhile only means
    // a few more rows are read after this one.
    let snapshot = crate::engine::snapshot::read(conn).await?;
    let after = snapshot.as_ref().map_or(-1, |(seq, _)| *seq as i64);
    let rows = sqlx::query("SELECT line FROM flybot_journal WHERE seq > $1 ORDER BY seq")
        .bind(after)
        .fetch_all(&mut *conn)
        .await
        .map_err(|e| format!("the journal could not be read: {e}"))?;
    if rows.is_empty() && snapshot.is_none() {
        return Ok(None);
    }
    let mut text = Vec::new();
    if let Some((_, line)) = snapshot {
        text.extend_from_slice(line.as_bytes());
        text.push(b'\n');
    }
    for row in rows {
        let line: String = row.get(0);
        text.extend_from_slice(line.as_bytes());
        text.push(b'\n');
    }
    let parsed =
        parse_journal(&text, Tail::Strict).map_err(|e| format!("the database's journal {e}"))?;
    let mut team = base_team(&parsed.base)
        .map_err(|e| format!("the database's journal {e}"))?
        .ok_or("the database's journal keeps no team in its first row")?;
    if team.version > STATE_VERSION {
        return Err(format!(
            "the database's team was written by a newer FlyBot (version {}); this build reads version {STATE_VERSION}, so it does not write over it",
            team.version
        ).into());
    }
    for change in &parsed.changes {
        apply_change(&mut team, change).map_err(|e| format!("the database's journal {e}"))?;
    }
    Ok(Some(team))
}

/// The whole journal as `journal.jsonl` would hold it (for `flybot replay`
/// and `store copy`).
pub async fn journal_text(url: &str) -> Result<String, StoreError> {
    let mut conn = connect(url).await?;
    let rows = sqlx::query("SELECT line FROM flybot_journal ORDER BY seq")
        .fetch_all(&mut conn)
        .await
        .map_err(|e| format!("the journal could not be read: {e}"))?;
    let mut text = String::new();
    for row in rows {
        text.push_str(row.get::<&str, _>(0));
        text.push('\n');
    }
    Ok(text)
}

/// A fresh database's first row: the base line carrying an empty team.
async fn init(conn: &mut PgConnection, lease: &Lease, now: u64) -> Result<TeamState, StoreError> {
    let mut team = TeamState {
        version: STATE_VERSION,
        ..TeamState::default()
    };
    let digest = crate::journal::snapshot_anchor(&team);
    team.journal_digest = Some(digest.clone());
    let mut bytes = base_line_bytes(0, now, &digest, Some(&team)).map_err(|e| e.to_string())?;
    bytes.pop();
    let line = String::from_utf8(bytes).map_err(|e| e.to_string())?;
    match commit_batch(conn, lease, &[(0, now, line)]).await {
        Ok(1) => Ok(team),
        Ok(_) => Err("the lease was lost before the journal could start".into()),
        Err(e) => Err(format!("the journal could not start: {e}").into()),
    }
}

/// One batch in one transaction, fenced: the rows go in only while `lease`
/// is still the live lease, checked (and its row locked) in the same
/// statement. Answers how many rows went in: 0 means fenced.
pub async fn commit_batch(
    conn: &mut PgConnection,
    lease: &Lease,
    lines: &[(u64, u64, String)],
) -> Result<u64, sqlx::Error> {
    let seqs: Vec<i64> = lines.iter().map(|l| l.0 as i64).collect();
    let times: Vec<i64> = lines.iter().map(|l| l.1 as i64).collect();
    let texts: Vec<&str> = lines.iter().map(|l| l.2.as_str()).collect();
    let row = sqlx::query(
        "WITH fence AS (SELECT token FROM flybot_lease \
           WHERE id = 1 AND token = $1 AND expires_at > clock_timestamp() FOR UPDATE), \
         written AS (INSERT INTO flybot_journal (seq, t, line) \
           SELECT s, t, l FROM UNNEST($2::bigint[], $3::bigint[], $4::text[]) AS u(s, t, l) \
           WHERE EXISTS (SELECT 1 FROM fence) RETURNING seq) \
         SELECT count(*)::bigint, pg_notify($5, coalesce(max(seq), -1)::text) FROM written",
    )
    .bind(lease.token)
    .bind(&seqs)
    .bind(&times)
    .bind(&texts)
    .bind(NOTIFY_CHANNEL)
    .fetch_one(conn)
    .await?;
    Ok(row.get::<i64, _>(0) as u64)
}

/// Opens the database for a store: takes the lease and loads (or starts)
/// the journal as the leader, or loads it to follow as a standby.
pub(crate) fn open(engine: &Engine, now: u64) -> Result<(Opened, Option<Leading>), StoreError> {
    engine.rt.block_on(async {
        let mut conn = connect(&engine.options.url).await?;
        let mut acquired = lease::try_acquire(&mut conn, &engine.holder, engine.options.lease)
            .await
            .map_err(|e| format!("the lease could not be read: {e}"))?;
        // A leader restarted after a crash finds its own old lease: it
        // waits one lease out, in case that holder is gone, before refusing.
        let patience = Instant::now() + engine.options.lease + engine.options.tick();
        while acquired.is_none() && !engine.options.standby && Instant::now() < patience {
            tokio::time::sleep(engine.options.tick()).await;
            acquired = lease::try_acquire(&mut conn, &engine.holder, engine.options.lease)
                .await
                .map_err(|e| format!("the lease could not be read: {e}"))?;
        }
        match acquired {
            Some(lease) => {
                engine.token.store(lease.token, Ordering::SeqCst);
                let team = match load(&mut conn).await? {
                    Some(team) => team,
                    None => init(&mut conn, &lease, now).await?,
                };
                let (tx, rx) = channel();
                let opened = Opened {
                    team,
                    status: StoreStatus::Writer,
                    writer: Some(tx),
                };
                Ok((opened, Some((conn, lease, rx))))
            }
            None => {
                let holder = lease::holder(&mut conn)
                    .await
                    .ok()
                    .flatten()
                    .map_or_else(|| "another FlyBot".to_owned(), |h| h.holder);
                if !engine.options.standby {
                    return Err(format!(
                        "{holder} holds this database's lease and saves the team; start this one with --standby to follow it and take over when it stops"
                    ).into());
                }
                let team = load(&mut conn).await?.unwrap_or_default();
                let opened = Opened {
                    team,
                    status: StoreStatus::ReadOnly(ReadOnlyReason::Standby { holder }),
                    writer: None,
                };
                Ok((opened, None))
            }
        }
    })
}

/// Starts a store's engine thread and waits for its first answer.
pub(crate) fn start(
    options: PostgresOptions,
    token: Arc<AtomicI64>,
    now: u64,
) -> Result<(Opened, EngineStart), StoreError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("the database's runtime could not start: {e}"))?;
    let engine = Engine {
        rt,
        options,
        holder: lease::holder_name(),
        token,
        acker: crate::acks::Acker::on_current_runtime(),
    };
    let (ready_tx, ready_rx) = channel();
    let (inner_tx, inner_rx) = channel::<Weak<Inner>>();
    let handle = std::thread::Builder::new()
        .name("flybot-postgres".to_owned())
        .spawn(move || match open(&engine, now) {
            Err(why) => {
                let _ = ready_tx.send(Err(why));
            }
            Ok((opened, leading)) => {
                if ready_tx.send(Ok(opened)).is_err() {
                    return;
                }
                if let Ok(weak) = inner_rx.recv() {
                    super::leader::run(engine, weak, leading);
                }
            }
        })
        .map_err(|e| format!("the database's thread could not start: {e}"))?;
    let opened = ready_rx
        .recv()
        .map_err(|_| "the database's thread stopped".to_owned())??;
    Ok((
        opened,
        EngineStart {
            handle,
            inner: inner_tx,
        },
    ))
}

/// What `Store::open` keeps of a started engine thread.
pub(crate) struct EngineStart {
    pub handle: std::thread::JoinHandle<()>,
    pub inner: Sender<Weak<Inner>>,
}

impl EngineStart {
    /// Hands the thread its store; from here it leads or follows.
    pub(crate) fn attach(self, inner: &Arc<Inner>) {
        let _ = self.inner.send(Arc::downgrade(inner));
        lock(&inner.threads).writer = Some(self.handle);
    }
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn a_sentence_never_carries_the_database_password() {
        assert_eq!(
            redact("postgres://flybot:s3cret@db:5432/team"),
            "postgres://flybot@db:5432/team"
        );
        assert_eq!(redact("postgres://db/team"), "postgres://db/team");
    }
}
