//! What a Session shows is what is durable (issue 19): every log batch goes
//! to the home's turn log, and only once a sync covers it does the
//! Session's durable mark move, the `work` event go out and `transcript`
//! show it. A turn's end is announced (`turn_ended`) from the same place.
//! A Session's in-flight note is one appended record per change of it.

use super::event::{LogEntry, SessionEvent};
use super::log::SessionLog;
use super::runtime::{Cell, CellState, Sessions};
use flybot_core::sync::lock;
use flybot_store::inflight::SessionNote;
use flybot_store::turn_log::{OnDurable, Urgency};
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::sync::Notify;

/// A Session's durable mark and the wake-up of its waiters.
pub(crate) struct Visible {
    /// The last sequence number a sync covers.
    durable: AtomicU64,
    pub(crate) idle: Notify,
}

impl Visible {
    pub(crate) fn new(durable: u64) -> Visible {
        Visible {
            durable: AtomicU64::new(durable),
            idle: Notify::new(),
        }
    }

    pub(crate) fn durable(&self) -> u64 {
        self.durable.load(Ordering::Acquire)
    }
}

impl Cell {
    /// Hands `events` to the turn log; once they are durable the mark moves
    /// and the host hears the log changed.
    pub(crate) fn append(
        &self,
        at: u64,
        events: Vec<SessionEvent>,
        urgency: Urgency,
    ) -> io::Result<()> {
        let mut log = lock(&self.log);
        let last = log.last_seq_after(events.len());
        let visible = self.visible.clone();
        let env = self.env.clone();
        let session_id = self.session_id.clone();
        let done: OnDurable = Box::new(move |result| {
            if result.is_ok() {
                visible.durable.fetch_max(last, Ordering::AcqRel);
                env.changed(&session_id);
            }
            visible.idle.notify_waiters();
        });
        log.append(&self.turn_log, at, events, urgency, Some(done))
    }

    /// Resolves once everything this Session wrote is durable.
    pub(crate) async fn settled(&self) -> io::Result<()> {
        self.turn_log.settled().await
    }
}

/// Announces the end of `turn_id` once its `turn/end` is durable: a task
/// waits for the sync that covers it (on the blocking pool, so a test's
/// paused clock waits too) and then tells the host; the Session then lets
/// go of what it no longer needs in memory (`evict`).
pub(crate) fn announce_turn_end(
    sessions: &Sessions,
    cell: &Arc<Cell>,
    turn_id: String,
    urgency: Urgency,
) {
    let (tx, rx) = std::sync::mpsc::channel();
    let done: OnDurable = Box::new(move |result| {
        let _ = tx.send(result);
    });
    if let Err(e) = cell.turn_log.write(Vec::new(), None, urgency, Some(done)) {
        tracing::warn!(
            "the end of a turn of {} was not written: {e}",
            cell.session_id
        );
        return;
    }
    let (sessions, cell) = (sessions.clone(), cell.clone());
    tokio::spawn(async move {
        let durable = tokio::task::spawn_blocking(move || rx.recv()).await;
        match durable {
            Ok(Ok(Ok(()))) => {
                cell.release_log();
                sessions.trim_idle_logs();
                cell.env.turn_ended(&cell.session_id, &turn_id);
            }
            _ => tracing::warn!("the end of {turn_id} is not durable"),
        }
        cell.visible.idle.notify_waiters();
    });
}

impl Sessions {
    /// The Session's durable log after sequence number `after`: what a
    /// person may be shown.
    pub fn transcript(&self, session_id: &str, after: u64) -> io::Result<Vec<LogEntry>> {
        self.read_durable(session_id, |log, durable| log.between(after, durable))
    }

    /// The durable entries of the turn `turn_id`, from its `turn/start` on:
    /// what the usage ledger folds at the turn's end, from memory while the
    /// Session holds its current part (issue 38: no read of the file, and
    /// never the history before the turn).
    pub fn turn_transcript(&self, session_id: &str, turn_id: &str) -> io::Result<Vec<LogEntry>> {
        self.read_durable(session_id, |log, durable| {
            log.turn_entries(turn_id, durable)
        })
    }

    /// The durable entries of the turn running in the Session (from the
    /// last `turn/start` on): what a tool reads of its own turn (who asked,
    /// from where, at which hop), from memory while the turn runs, never
    /// the history before it.
    pub fn running_turn_transcript(&self, session_id: &str) -> io::Result<Vec<LogEntry>> {
        self.read_durable(session_id, |log, durable| log.last_turn_entries(durable))
    }

    /// Reads the Session's log up to its last durable entry's seq.
    fn read_durable(
        &self,
        session_id: &str,
        read: impl FnOnce(&SessionLog, u64) -> io::Result<Vec<LogEntry>>,
    ) -> io::Result<Vec<LogEntry>> {
        let cell = self.cell(session_id)?;
        let durable = cell.visible.durable();
        cell.with_log(|log| read(log, durable))
    }

    /// The Session's log after `after` as written, durable or not: for the
    /// host's own reading (a room member's answer), never for a person. A
    /// line written after it in the turn log is durable only with it.
    pub fn transcript_written(&self, session_id: &str, after: u64) -> io::Result<Vec<LogEntry>> {
        self.cell(session_id)?.with_log(|log| log.suffix(after))
    }

    /// The entries of the turn `turn_id` as written, durable or not, from
    /// its `turn/start` on: for the host's own reading of a turn that just
    /// ended (the reply a group is owed), never for a person.
    pub fn turn_transcript_written(
        &self,
        session_id: &str,
        turn_id: &str,
    ) -> io::Result<Vec<LogEntry>> {
        let cell = self.cell(session_id)?;
        cell.with_log(|log| log.turn_entries(turn_id, u64::MAX))
    }

    /// The sequence number of the Session's last entry as written (0 for
    /// an empty log), from memory: where a room turn reads its answer
    /// from, without reading the log back from its start (issue 38).
    pub fn last_seq_written(&self, session_id: &str) -> io::Result<u64> {
        Ok(self.cell(session_id)?.with_log(|log| log.last_seq_after(0)))
    }

    /// Resolves once the Session has no turn, no queued input and no held
    /// lines, and all it wrote is durable (tests and the bench).
    pub async fn wait_idle(&self, session_id: &str) -> io::Result<()> {
        self.wait(session_id, true).await
    }

    /// `wait_idle` without waiting for the disk: the turn has ended in the
    /// log as written (the room round reads its member's answer here).
    pub async fn wait_written(&self, session_id: &str) -> io::Result<()> {
        self.wait(session_id, false).await
    }

    async fn wait(&self, session_id: &str, durable: bool) -> io::Result<()> {
        let cell = self.cell(session_id)?;
        loop {
            let notified = cell.visible.idle.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let idle = {
                let state = lock(&cell.state);
                state.running.is_none() && state.inbox.is_empty() && state.held.is_none()
            };
            if idle && !durable {
                return Ok(());
            }
            if idle {
                // Everything written before now (the log, the notes) is
                // durable once this sync is; then it is idle if still so.
                cell.settled().await?;
                let state = lock(&cell.state);
                if state.running.is_none() && state.inbox.is_empty() && state.held.is_none() {
                    return Ok(());
                }
                continue;
            }
            notified.await;
        }
    }
}

impl Cell {
    /// Appends this Session's in-flight note (its running turn and queued
    /// input; an empty one once it has settled) to the turn log; `Now`
    /// blocks until it is durable (a person's line is answered after it).
    /// The note is taken and sent under the Session's state lock, so the
    /// journal holds its notes in the order its state changed. A failed
    /// write is a warning: the turn goes on, and the next change writes
    /// again.
    pub(crate) fn note_inflight(&self, urgency: Urgency) {
        let written = {
            let state = lock(&self.state);
            let note = self.inflight_note(&state);
            match urgency {
                Urgency::Now => self
                    .turn_log
                    .write_pending(Vec::new(), Some(&note), None)
                    .map(Some),
                Urgency::Soon => self
                    .turn_log
                    .write(Vec::new(), Some(&note), Urgency::Soon, None)
                    .map(|()| None),
            }
        };
        let durable = written.and_then(|pending| pending.map_or(Ok(()), |p| p.wait()));
        if let Err(e) = durable {
            tracing::warn!(
                "the in-flight note of {} could not be written: {e}",
                self.session_id
            );
        }
    }

    fn inflight_note(&self, state: &CellState) -> SessionNote {
        let mut note = SessionNote::settled(&self.session_id);
        if let Some(running) = &state.running {
            note.turn_id = Some(running.turn_id.clone());
            note.items = running
                .items
                .iter()
                .filter_map(|item| serde_json::to_value(item).ok())
                .collect();
        }
        let held = state.held.as_ref().map(super::settle::Held::as_item);
        note.queued = state
            .inbox
            .items()
            .chain(held.as_ref())
            .filter_map(|item| serde_json::to_value(item).ok())
            .collect();
        note
    }
}
