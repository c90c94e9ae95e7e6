//! A standby on PostgreSQL (issue 35): follows the leader's journal as it
//! commits (LISTEN/NOTIFY, with a look every tick in case a notice was
//! missed), so its reads and its page stay current, and takes the lease the
//! moment it lapses (#1027: a standby takes over; #1041: it says so once).
//! The takeover reads every committed row first, then starts writing after
//! the last one, as a restart does.

use crate::engine::lease::{self, Lease};
use crate::engine::postgres::{Engine, Leading, NOTIFY_CHANNEL, connect};
use crate::error::StoreError;
use crate::journal::follow_line;
use crate::store::{Inner, StoreStatus};
use flybot_core::sync::lock;
use sqlx::postgres::PgListener;
use sqlx::{PgConnection, Row};
use std::sync::atomic::Ordering;
use std::sync::mpsc::channel;
use std::sync::{Arc, Weak};

/// Follows until this store takes the lease (`Some`) or closes (`None`).
/// The lease is not tried before `yield_until` (a leader that just lost it
/// gives the standbys their turn).
pub(crate) fn follow(
    engine: &Engine,
    weak: &Weak<Inner>,
    yield_until: std::time::Instant,
) -> Option<Leading> {
    // The listener's drop hands its connection back to the runtime.
    let _entered = engine.rt.enter();
    let mut link: Option<(PgConnection, PgListener)> = None;
    loop {
        let inner = weak.upgrade()?;
        if inner.closed.load(Ordering::SeqCst) {
            return None;
        }
        if following_stopped(&inner) {
            drop(inner);
            std::thread::sleep(engine.options.tick());
            continue;
        }
        let step = engine.rt.block_on(async {
            if link.is_none() {
                link = Some(open_link(&engine.options.url).await?);
            }
            let Some((conn, listener)) = link.as_mut() else {
                return Err(StoreError::from("no link"));
            };
            // Wait for the leader's notice, or a tick: the lease is looked
            // at every tick whatever arrives.
            let _ = tokio::time::timeout(engine.options.tick(), listener.try_recv()).await;
            catch_up(conn, &inner).await?;
            if std::time::Instant::now() < yield_until {
                return Ok(None);
            }
            let taken = lease::try_acquire(conn, &engine.holder, engine.options.lease)
                .await
                .map_err(|e| e.to_string())?;
            if let Some(lease) = &taken {
                // Every row the old leader committed is read before the
                // first write of this one.
                catch_up(conn, &inner).await?;
                tracing::info!("took the lease (token {})", lease.token);
            }
            Ok(taken)
        });
        match step {
            Ok(Some(lease)) => {
                let (conn, _) = link.take()?;
                // Before any write of this store's turn log can be made.
                engine.token.store(lease.token, Ordering::SeqCst);
                return match take_over(&inner, conn, lease) {
                    Ok(leading) => Some(leading),
                    Err((mut conn, lease)) => {
                        // The store closed as the lease was taken: let it go.
                        engine.token.store(0, Ordering::SeqCst);
                        let _ = engine.rt.block_on(lease::release(&mut conn, &lease));
                        None
                    }
                };
            }
            Ok(None) => {}
            Err(why) => {
                tracing::warn!("the standby lost the database ({why}); it tries again");
                link = None;
                std::thread::sleep(engine.options.tick());
            }
        }
    }
}

async fn open_link(url: &str) -> Result<(PgConnection, PgListener), StoreError> {
    let conn = connect(url).await?;
    let mut listener = PgListener::connect(url)
        .await
        .map_err(|e| format!("the journal's notices could not be followed: {e}"))?;
    listener
        .listen(NOTIFY_CHANNEL)
        .await
        .map_err(|e| format!("the journal's notices could not be followed: {e}"))?;
    Ok((conn, listener))
}

/// What a row is, as far as following goes.
#[derive(serde::Deserialize, Default)]
struct FirstRow {
    #[serde(default)]
    seq: u64,
    #[serde(default)]
    op: Option<String>,
}

/// Whether a test stopped this standby, as SIGSTOP would (`testing` only).
#[cfg(feature = "testing")]
fn following_stopped(inner: &Inner) -> bool {
    inner.options.faults.following_stopped()
}

#[cfg(not(feature = "testing"))]
fn following_stopped(_: &Inner) -> bool {
    false
}

/// Applies every row after the team's seq, in order, the chain checked.
async fn catch_up(conn: &mut PgConnection, inner: &Arc<Inner>) -> Result<(), StoreError> {
    let (from, started) = {
        let live = lock(&inner.live);
        (live.team.journal_seq, live.team.journal_digest.is_some())
    };
    if !started {
        // This standby opened on an empty database: the leader's first row
        // (the base) is read whole.
        if let Some(team) = crate::engine::postgres::load(conn).await? {
            let mut live = lock(&inner.live);
            if *lock(&inner.status) != StoreStatus::Writer {
                live.team = team;
                inner.revision.send_replace(live.team.journal_seq);
            }
        }
        return Ok(());
    }
    let rows = sqlx::query("SELECT line FROM flybot_journal WHERE seq > $1 ORDER BY seq")
        .bind(from as i64)
        .fetch_all(&mut *conn)
        .await
        .map_err(|e| e.to_string())?;
    // The turn log's rows come with the team's: the page reads the
    // leader's transcripts, and a takeover resumes its cut work.
    crate::turn_log::database::follow(conn, &inner.home).await?;
    // So are memory files, decisions and interop journals (issue 35).
    crate::engine::records::follow(conn, &inner.home).await?;
    if rows.is_empty() {
        return Ok(());
    }
    // A standby behind a fold (`trim`): the rows after its seq are gone
    // into a base line, so it reads the team whole, as a start does.
    let first = rows.first().map(|row| row.get::<&str, _>(0)).unwrap_or("");
    let first: FirstRow = serde_json::from_str(first).unwrap_or_default();
    if first.seq != from + 1 || first.op.as_deref() == Some("base") {
        let Some(team) = crate::engine::postgres::load(conn).await? else {
            return Ok(());
        };
        let mut live = lock(&inner.live);
        if *lock(&inner.status) != StoreStatus::Writer && team.journal_seq > from {
            live.team = team;
            inner.revision.send_replace(live.team.journal_seq);
        }
        return Ok(());
    }
    let mut live = lock(&inner.live);
    // A takeover may have started writing meanwhile: its team wins.
    if *lock(&inner.status) == StoreStatus::Writer || live.team.journal_seq != from {
        return Ok(());
    }
    let mut team = live.team.clone();
    for row in rows {
        let line: &str = row.get(0);
        follow_line(&mut team, line.as_bytes()).map_err(|e| format!("the leader's journal {e}"))?;
    }
    live.team = team;
    inner.revision.send_replace(live.team.journal_seq);
    Ok(())
}

/// This store now writes: its writer queue opens after the last row read.
/// A store that closed meanwhile hands the lease back instead.
fn take_over(
    inner: &Arc<Inner>,
    conn: PgConnection,
    lease: Lease,
) -> Result<Leading, (PgConnection, Lease)> {
    let (tx, rx) = channel();
    let mut live = lock(&inner.live);
    // Checked under the team's lock, which `close` takes to find the writer.
    if inner.closed.load(Ordering::SeqCst) {
        return Err((conn, lease));
    }
    let was = match &*lock(&inner.status) {
        StoreStatus::ReadOnly(crate::ReadOnlyReason::Standby { holder }) => holder.clone(),
        _ => "another FlyBot".to_owned(),
    };
    inner.gather.hand_over_now();
    live.writer = Some(tx);
    *lock(&inner.status) = StoreStatus::Writer;
    inner.revision.send_replace(live.team.journal_seq);
    let notice = format!(
        "the leader's lease lapsed; this one now saves the Bot team (was {was}), from seq {}",
        live.team.journal_seq
    );
    tracing::warn!("{notice}");
    *lock(&inner.notice) = Some(notice);
    Ok((conn, lease, rx))
}
