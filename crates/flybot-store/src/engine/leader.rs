//! The leader's life on PostgreSQL (issue 35): while its lease holds, it
//! gathers what is queued into one fenced transaction per batch (group
//! commit), renews the lease every tick, writes a snapshot row now and
//! then, and steps down the moment a batch is fenced or the lease lapses.

use super::postgres::{Engine, Leading, commit_batch, connect, load};
use crate::engine::lease::{self, Lease};
use crate::error::StoreError;
use crate::store::{Inner, ReadOnlyReason, StoreStatus};
use crate::writer::{Ack, WriterMsg};
use flybot_core::sync::lock;
use sqlx::{PgConnection, Row};
use std::sync::Weak;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// The engine thread's life: lead while the lease holds, follow otherwise,
/// until the store closes.
pub(crate) fn run(engine: Engine, weak: Weak<Inner>, mut leading: Option<Leading>) {
    // A leader that lost its lease (paused past it) leaves it to the
    // standbys for one lease before it tries to take it again.
    let mut yield_until = Instant::now();
    loop {
        match leading.take() {
            Some((conn, lease, rx)) => {
                engine.token.store(lease.token, Ordering::SeqCst);
                let mut leader = Leader {
                    engine: &engine,
                    conn,
                    lease,
                    last_seq: 0,
                    since_snapshot: 0,
                };
                let end = leader.run(&rx, &weak);
                engine.token.store(0, Ordering::SeqCst);
                match end {
                    LeaderEnd::Stopped => return,
                    LeaderEnd::Lost => yield_until = Instant::now() + engine.options.lease,
                }
            }
            None => match crate::engine::follow::follow(&engine, &weak, yield_until) {
                Some(next) => leading = Some(next),
                None => return,
            },
        }
    }
}

enum LeaderEnd {
    Stopped,
    Lost,
}

struct Leader<'a> {
    engine: &'a Engine,
    conn: PgConnection,
    lease: Lease,
    /// The seq of the last row this leader committed.
    last_seq: u64,
    /// Rows committed since the last snapshot row.
    since_snapshot: u64,
}

impl Leader<'_> {
    fn run(&mut self, rx: &Receiver<WriterMsg>, weak: &Weak<Inner>) -> LeaderEnd {
        let tick = self.engine.options.tick();
        // Where the round trip's time is told to the runtime's group
        // commit, which gathers a burst's lines before they are queued.
        let pace = weak
            .upgrade()
            .map_or_else(Default::default, |inner| inner.gather.pace.clone());
        let mut last_renew = Instant::now();
        loop {
            // Renewed every tick, busy or not: a batch checks the lease
            // but does not extend it, so a leader under steady load must
            // not skip its renewals.
            if last_renew.elapsed() >= tick {
                last_renew = Instant::now();
                if !self.renew() {
                    return self.step_down(weak, Vec::new(), "its lease lapsed");
                }
            }
            let first = match rx.recv_timeout(tick.saturating_sub(last_renew.elapsed())) {
                Ok(msg) => msg,
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => return self.stop(None, weak),
            };
            let mut batch: Vec<(u64, u64, String)> = Vec::new();
            let mut acks: Vec<Ack> = Vec::new();
            let mut after: Vec<(Ack, bool)> = Vec::new();
            let mut next = Some(first);
            while let Some(msg) = next.take() {
                match msg {
                    WriterMsg::Lines(lines) => {
                        for mut line in lines {
                            line.bytes.pop();
                            let text = String::from_utf8(line.bytes).unwrap_or_default();
                            batch.push((line.seq, line.t, text));
                            acks.push(line.ack);
                        }
                    }
                    WriterMsg::Barrier(ack) | WriterMsg::Trim { ack, .. } => {
                        after.push((ack, false));
                    }
                    WriterMsg::Stop(ack) => after.push((ack, true)),
                }
                // Group commit: everything already queued shares the transaction.
                next = rx.try_recv().ok();
            }
            if !batch.is_empty() {
                let started = Instant::now();
                let committed = self.commit(&batch);
                pace.record(started.elapsed());
                match committed {
                    Ok(()) => {
                        self.engine.acker.answer(acks, Ok(()));
                        self.last_seq = batch.last().map_or(self.last_seq, |l| l.0);
                        self.since_snapshot += batch.len() as u64;
                        if self.since_snapshot >= self.engine.options.snapshot_every {
                            self.snapshot(weak);
                        }
                    }
                    Err(why) => {
                        let mut waiting = acks;
                        waiting.extend(after.into_iter().map(|(ack, _)| ack));
                        return self.step_down(weak, waiting, &why.to_string());
                    }
                }
            }
            let mut stop = None;
            for (ack, is_stop) in after {
                if is_stop {
                    stop = Some(ack);
                } else {
                    let _ = ack.send(Ok(()));
                }
            }
            if stop.is_some() {
                return self.stop(stop, weak);
            }
        }
    }

    /// Commits a batch, waiting out a database that went away (a restart)
    /// for up to `reconnect_for`: after a reconnect, rows that did commit are
    /// not written twice, and the rest go again, still fenced. A database
    /// that answers but refuses the batch each time (a full disk, a broken
    /// table) is tried again for as long, then the batch is refused.
    fn commit(&mut self, batch: &[(u64, u64, String)]) -> Result<(), StoreError> {
        let deadline = Instant::now() + self.engine.options.reconnect_for;
        let mut remaining: Vec<(u64, u64, String)> = batch.to_vec();
        let mut pause = Duration::from_millis(50);
        loop {
            let tried =
                self.engine
                    .rt
                    .block_on(commit_batch(&mut self.conn, &self.lease, &remaining));
            match tried {
                Ok(n) if n == remaining.len() as u64 => return Ok(()),
                Ok(_) => return Err("its lease was taken by another FlyBot".into()),
                Err(e) if Instant::now() >= deadline => {
                    return Err(format!(
                        "the database refused the change for {} s ({e})",
                        self.engine.options.reconnect_for.as_secs()
                    )
                    .into());
                }
                Err(e) => {
                    tracing::warn!("a batch did not commit ({e}); reconnecting to the database");
                    remaining = self.reconnect(deadline, remaining)?;
                    if remaining.is_empty() {
                        return Ok(());
                    }
                    std::thread::sleep(
                        pause.min(deadline.saturating_duration_since(Instant::now())),
                    );
                    pause = (pause * 2).min(Duration::from_secs(1));
                }
            }
        }
    }

    /// Reconnects before `deadline` and drops from `remaining` the rows the
    /// database already holds (their commit went through before the cut).
    fn reconnect(
        &mut self,
        deadline: Instant,
        remaining: Vec<(u64, u64, String)>,
    ) -> Result<Vec<(u64, u64, String)>, StoreError> {
        let mut pause = Duration::from_millis(50);
        loop {
            let url = self.engine.options.url.clone();
            let attempt = self.engine.rt.block_on(async {
                let mut conn = connect(&url).await?;
                let seqs: Vec<i64> = remaining.iter().map(|l| l.0 as i64).collect();
                let held = sqlx::query("SELECT seq FROM flybot_journal WHERE seq = ANY($1)")
                    .bind(&seqs)
                    .fetch_all(&mut conn)
                    .await
                    .map_err(|e| e.to_string())?;
                let held: Vec<u64> = held.iter().map(|r| r.get::<i64, _>(0) as u64).collect();
                Ok::<_, StoreError>((conn, held))
            });
            match attempt {
                Ok((conn, held)) => {
                    self.conn = conn;
                    return Ok(remaining
                        .into_iter()
                        .filter(|l| !held.contains(&l.0))
                        .collect());
                }
                Err(why) if Instant::now() + pause >= deadline => {
                    return Err(format!(
                        "the database could not be reached for {} s ({why})",
                        self.engine.options.reconnect_for.as_secs()
                    )
                    .into());
                }
                Err(_) => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_secs(1));
                }
            }
        }
    }

    fn renew(&mut self) -> bool {
        let length = self.engine.options.lease;
        match self
            .engine
            .rt
            .block_on(lease::renew(&mut self.conn, &self.lease, length))
        {
            Ok(held) => held,
            // A failed renewal is not yet a lost lease: the next batch or
            // tick tries again, and the fence decides.
            Err(e) => {
                tracing::warn!("the lease could not be renewed: {e}");
                let url = self.engine.options.url.clone();
                if let Ok(conn) = self.engine.rt.block_on(connect(&url)) {
                    self.conn = conn;
                }
                true
            }
        }
    }

    /// The lease is gone (or the database is): this store turns standby
    /// before any waiter hears, then reads the team the database holds.
    fn step_down(&mut self, weak: &Weak<Inner>, waiting: Vec<Ack>, why: &str) -> LeaderEnd {
        tracing::warn!("this FlyBot stops saving the team: {why}; it follows as a standby");
        if let Some(inner) = weak.upgrade() {
            let mut live = lock(&inner.live);
            *lock(&inner.status) = StoreStatus::ReadOnly(ReadOnlyReason::Standby {
                holder: format!("another FlyBot ({why})"),
            });
            inner.gather.hand_over_now();
            live.writer = None;
            match self.engine.rt.block_on(load(&mut self.conn)) {
                Ok(Some(team)) => {
                    live.team = team;
                    inner.revision.send_replace(live.team.journal_seq);
                }
                // The database is out of reach: the team in memory may hold
                // a change that never committed, so the standby reads the
                // whole journal again (no digest) before it follows or leads.
                _ => live.team.journal_digest = None,
            }
        }
        let sentence = format!("this change was not saved: {why}");
        self.engine.acker.answer(waiting, Err(sentence.into()));
        LeaderEnd::Lost
    }

    /// Writes the snapshot row when the team in memory is exactly what is
    /// committed (no change queued behind the last batch); else a later
    /// batch tries again. A snapshot that fails costs only a longer start.
    fn snapshot(&mut self, weak: &Weak<Inner>) {
        let Some(inner) = weak.upgrade() else { return };
        let team = {
            let live = lock(&inner.live);
            if live.team.journal_seq != self.last_seq {
                return;
            }
            live.team.clone()
        };
        // Then the rows it makes needless are trimmed (`engine::trim`).
        let written = self
            .engine
            .rt
            .block_on(crate::engine::snapshot::write_and_trim(
                &mut self.conn,
                &self.lease,
                &team,
                &inner.options,
            ));
        match written {
            Ok(_) => self.since_snapshot = 0,
            Err(e) => tracing::warn!("the snapshot row was not written: {e}"),
        }
    }

    /// A clean stop: the snapshot row is brought up to date, and the lease
    /// is let go at once so a standby need not wait.
    fn stop(&mut self, ack: Option<Ack>, weak: &Weak<Inner>) -> LeaderEnd {
        if self.since_snapshot > 0 {
            self.snapshot(weak);
        }
        if let Err(e) = self
            .engine
            .rt
            .block_on(lease::release(&mut self.conn, &self.lease))
        {
            tracing::warn!("the lease was not released ({e}); a standby takes over when it lapses");
        }
        if let Some(ack) = ack {
            let _ = ack.send(Ok(()));
        }
        LeaderEnd::Stopped
    }
}
