//! `Sessions`: the running Sessions of a host. One turn at a time per
//! Session; input queues in the Session's inbox; `cancel` ends the running
//! turn and, with `keepInbox`, leaves queued input for the next turn. Every
//! running turn and queued input is noted in `inflight.json` so a restart
//! picks it up (see `pickup`).

use super::event::{AbortedBy, EndReason, LogEntry, Source};
use super::inbox::{Inbox, InboxItem, ItemKind};
use super::log::SessionLog;
use super::settle::Held;
use super::work::{EndedTurns, RunningWork, step_of};
use crate::model::ToolCall;
use crate::turn::{TurnEnvironment, run_turn};
use flybot_core::sync::lock;
use flybot_store::inflight::{Inflight, QueuedNote, TurnNote, write_inflight};
use std::collections::{BTreeSet, HashMap};
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{Notify, watch};
use tokio::time::Instant;

/// A tool wait older than this yields to a person's line (#1509, #1666).
pub const INTERRUPT_AFTER: Duration = Duration::from_secs(60);
/// The cancel reason of the steering interrupt.
pub const INTERRUPT_REASON: &str = "ds-bot/interrupt-long-wait";

/// A running turn.
pub(crate) struct Running {
    pub turn_id: String,
    cancel: watch::Sender<Option<EndReason>>,
    /// Open tool waits: call id, since when, what it acts on.
    waits: Vec<(String, Instant, Option<String>)>,
    /// Waits that already interrupted the turn once.
    interrupted: BTreeSet<String>,
    calls: u32,
}

pub(crate) struct CellState {
    pub inbox: Inbox,
    pub running: Option<Running>,
    pub held: Option<Held>,
}

/// One Session in memory.
pub(crate) struct Cell {
    pub session_id: String,
    pub state: Mutex<CellState>,
    log: Mutex<SessionLog>,
    idle: Notify,
}

impl Cell {
    pub(crate) fn append(&self, at: u64, events: Vec<super::SessionEvent>) -> io::Result<()> {
        lock(&self.log).append(at, events)
    }
    pub(crate) fn with_log<R>(&self, f: impl FnOnce(&SessionLog) -> R) -> R {
        f(&lock(&self.log))
    }
    pub(crate) fn take_steers(&self) -> Vec<InboxItem> {
        lock(&self.state).inbox.take_steers()
    }
    pub(crate) fn open_wait(&self, call: &ToolCall) {
        if let Some(running) = &mut lock(&self.state).running {
            running.calls += 1;
            running
                .waits
                .push((call.id.clone(), Instant::now(), step_of(&call.arguments)));
        }
    }
    pub(crate) fn close_wait(&self, call_id: &str) {
        if let Some(running) = &mut lock(&self.state).running {
            running.waits.retain(|(id, _, _)| id != call_id);
        }
    }
}

struct Inner {
    home: PathBuf,
    env: Arc<dyn TurnEnvironment>,
    cells: Mutex<HashMap<String, Arc<Cell>>>,
    ended: Mutex<EndedTurns>,
    inflight: Mutex<()>,
    counter: AtomicU64,
}

/// The host's Sessions. Cheap to clone.
#[derive(Clone)]
pub struct Sessions {
    inner: Arc<Inner>,
}

/// What `send_line` did with a person's line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendOutcome {
    /// Held in the settle window (#642); a turn opens when it closes.
    Held,
    /// Queued as its own item for the running turn's next step.
    Queued,
    /// Queued, and the running turn was cancelled with `keepInbox` because a
    /// tool wait was over 60 s old (#1509).
    Interrupted,
}

/// What `cancel` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CancelOutcome {
    pub was_running: bool,
    /// Queued items dropped (0 with `keepInbox`).
    pub dropped: usize,
}

impl Sessions {
    pub fn new(home: PathBuf, env: Arc<dyn TurnEnvironment>) -> Sessions {
        Sessions {
            inner: Arc::new(Inner {
                home,
                env,
                cells: Mutex::new(HashMap::new()),
                ended: Mutex::new(EndedTurns::default()),
                inflight: Mutex::new(()),
                counter: AtomicU64::new(0),
            }),
        }
    }

    pub(crate) fn cell(&self, session_id: &str) -> io::Result<Arc<Cell>> {
        let mut cells = lock(&self.inner.cells);
        if let Some(cell) = cells.get(session_id) {
            return Ok(cell.clone());
        }
        let log = SessionLog::open(&self.inner.home, session_id)?;
        let cell = Arc::new(Cell {
            session_id: session_id.to_owned(),
            state: Mutex::new(CellState {
                inbox: Inbox::default(),
                running: None,
                held: None,
            }),
            log: Mutex::new(log),
            idle: Notify::new(),
        });
        cells.insert(session_id.to_owned(), cell.clone());
        Ok(cell)
    }

    pub(crate) fn new_id(&self, prefix: &str) -> String {
        let n = self.inner.counter.fetch_add(1, Ordering::Relaxed);
        format!("{prefix}-{}-{n}", self.inner.env.now_ms())
    }

    /// Queues `text` for `session_id` and starts a turn if none is running.
    /// Answers the item's id.
    pub fn deliver(
        &self,
        session_id: &str,
        text: &str,
        source: Source,
        kind: ItemKind,
    ) -> io::Result<String> {
        let cell = self.cell(session_id)?;
        let id = self.new_id("msg");
        lock(&cell.state).inbox.push(InboxItem {
            id: id.clone(),
            text: text.to_owned(),
            source,
            kind,
        });
        self.note_inflight();
        self.start(cell);
        Ok(id)
    }

    /// A person's line in the Bot's own chat: held in the settle window when
    /// no turn runs (#642); during a turn queued as its own steer item, and
    /// the steering interrupt applies (#1509, #1666).
    pub fn send_line(
        &self,
        session_id: &str,
        text: &str,
        member_id: Option<String>,
    ) -> io::Result<SendOutcome> {
        let cell = self.cell(session_id)?;
        let outcome = {
            let mut state = lock(&cell.state);
            if state.running.is_none() {
                super::settle::hold(self, &cell, &mut state, text, member_id);
                SendOutcome::Held
            } else {
                super::settle::flush(self, &mut state);
                let id = self.new_id("msg");
                state.inbox.push(InboxItem {
                    id,
                    text: text.to_owned(),
                    source: Source::User { member_id },
                    kind: ItemKind::Steer,
                });
                if interrupt_long_wait(&mut state) {
                    SendOutcome::Interrupted
                } else {
                    SendOutcome::Queued
                }
            }
        };
        self.note_inflight();
        Ok(outcome)
    }

    /// Ends the running turn (aborted by `by`); without `keep_inbox` the
    /// queued input and held lines are dropped too.
    pub fn cancel(
        &self,
        session_id: &str,
        by: AbortedBy,
        keep_inbox: bool,
    ) -> io::Result<CancelOutcome> {
        let cell = self.cell(session_id)?;
        let outcome = {
            let mut state = lock(&cell.state);
            let dropped = if keep_inbox {
                0
            } else {
                let held = state.held.take().map_or(0, |_| 1);
                let queued = state.inbox.len();
                state.inbox.clear();
                held + queued
            };
            let was_running = match &state.running {
                Some(running) => {
                    running
                        .cancel
                        .send_replace(Some(EndReason::Aborted { by, reason: None }));
                    true
                }
                None => false,
            };
            CancelOutcome {
                was_running,
                dropped,
            }
        };
        self.note_inflight();
        // With keepInbox and no turn running, held input still gets its turn.
        self.start(cell);
        Ok(outcome)
    }

    /// The Session's log after sequence number `after`.
    pub fn transcript(&self, session_id: &str, after: u64) -> io::Result<Vec<LogEntry>> {
        Ok(self
            .cell(session_id)?
            .with_log(|log| log.after(after).to_vec()))
    }

    /// The running turn's oldest open tool wait that has not interrupted it
    /// yet: its call id and age (#1650). `None` when no turn runs.
    pub fn oldest_open_wait(&self, session_id: &str) -> Option<(String, Duration)> {
        let cells = lock(&self.inner.cells);
        let state = lock(&cells.get(session_id)?.state);
        let running = state.running.as_ref()?;
        running
            .waits
            .iter()
            .filter(|(id, _, _)| !running.interrupted.contains(id))
            .min_by_key(|(_, since, _)| *since)
            .map(|(id, since, _)| (id.clone(), since.elapsed()))
    }

    /// Cancels the running turn for its open wait `call_id`, once per wait,
    /// keeping the inbox (#1650); answers whether it did.
    pub fn interrupt_wait(&self, session_id: &str, call_id: &str) -> bool {
        let cells = lock(&self.inner.cells);
        let Some(cell) = cells.get(session_id) else {
            return false;
        };
        let mut state = lock(&cell.state);
        let Some(running) = &mut state.running else {
            return false;
        };
        if !running.waits.iter().any(|(id, _, _)| id == call_id)
            || !running.interrupted.insert(call_id.to_owned())
        {
            return false;
        }
        running.cancel.send_replace(Some(EndReason::Aborted {
            by: AbortedBy::Hook,
            reason: Some(INTERRUPT_REASON.to_owned()),
        }));
        true
    }

    pub fn is_running(&self, session_id: &str) -> bool {
        lock(&self.inner.cells)
            .get(session_id)
            .is_some_and(|cell| lock(&cell.state).running.is_some())
    }

    /// Items from Bots waiting in the Session's inbox (`MAX_UNREAD_REQUESTS`).
    pub fn unread_from_bots(&self, session_id: &str) -> usize {
        lock(&self.inner.cells)
            .get(session_id)
            .map_or(0, |cell| lock(&cell.state).inbox.from_bots())
    }

    /// Resolves once the Session has no turn, no queued input and no held
    /// lines (tests and the bench).
    pub async fn wait_idle(&self, session_id: &str) -> io::Result<()> {
        let cell = self.cell(session_id)?;
        loop {
            let notified = cell.idle.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let state = lock(&cell.state);
                if state.running.is_none() && state.inbox.is_empty() && state.held.is_none() {
                    return Ok(());
                }
            }
            notified.await;
        }
    }

    /// The running turns (#546, #471).
    pub fn running_work(&self) -> Vec<RunningWork> {
        let cells: Vec<Arc<Cell>> = lock(&self.inner.cells).values().cloned().collect();
        let mut work: Vec<RunningWork> = cells
            .iter()
            .filter_map(|cell| {
                let state = lock(&cell.state);
                let running = state.running.as_ref()?;
                Some(RunningWork {
                    session_id: cell.session_id.clone(),
                    turn_id: running.turn_id.clone(),
                    step: running.waits.last().and_then(|(_, _, step)| step.clone()),
                    calls: running.calls,
                })
            })
            .collect();
        work.sort_by(|a, b| a.session_id.cmp(&b.session_id));
        work
    }

    /// The ended turns (#353).
    pub fn ended_turns(&self) -> Vec<super::work::EndedTurn> {
        lock(&self.inner.ended).list()
    }

    /// Notes a failure that ran no turn (a scheduled task that could not be
    /// delivered, #473) in the ended turns the notifications read (#353).
    pub fn note_failure(&self, session_id: &str, id: &str, at: u64, failed: &str) {
        lock(&self.inner.ended).record_failure(session_id, id, at, failed);
    }

    /// Starts the Session's turn loop unless a turn is running.
    pub(crate) fn start(&self, cell: Arc<Cell>) {
        let ready = {
            let state = lock(&cell.state);
            state.running.is_none() && !state.inbox.is_empty()
        };
        if ready {
            let sessions = self.clone();
            tokio::spawn(async move { sessions.drive(cell).await });
        }
    }

    /// Runs turns while the inbox has input; one turn at a time.
    async fn drive(&self, cell: Arc<Cell>) {
        loop {
            let (turn_id, items, cancel) = {
                let mut state = lock(&cell.state);
                if state.running.is_some() || state.inbox.is_empty() {
                    break;
                }
                let turn_id = self.new_id("turn");
                let (sender, receiver) = watch::channel(None);
                state.running = Some(Running {
                    turn_id: turn_id.clone(),
                    cancel: sender,
                    waits: Vec::new(),
                    interrupted: BTreeSet::new(),
                    calls: 0,
                });
                (turn_id, state.inbox.take_all(), receiver)
            };
            let env = self.inner.env.clone();
            let items: Vec<InboxItem> = items
                .into_iter()
                .filter(|item| env.admit(&cell.session_id, item))
                .collect();
            if items.is_empty() {
                // Every item was refused at delivery (#90): no turn opens.
                lock(&cell.state).running = None;
                self.note_inflight();
                continue;
            }
            self.note_inflight();
            let summary = run_turn(self, &cell, env.as_ref(), &turn_id, items, cancel).await;
            lock(&cell.state).running = None;
            lock(&self.inner.ended).record(
                &cell.session_id,
                &turn_id,
                env.now_ms(),
                &summary.reason,
                summary.calls,
                summary.said_something,
            );
            self.note_inflight();
            env.changed(&cell.session_id);
            env.turn_ended(&cell.session_id, &turn_id);
        }
        cell.idle.notify_waiters();
    }

    /// Rewrites `inflight.json` from the live Sessions. A failed write is a
    /// warning: the turn goes on, and the next change writes again.
    pub(crate) fn note_inflight(&self) {
        let _one_writer = lock(&self.inner.inflight);
        let cells: Vec<Arc<Cell>> = lock(&self.inner.cells).values().cloned().collect();
        let mut notes = Inflight::default();
        for cell in cells {
            let state = lock(&cell.state);
            if let Some(running) = &state.running {
                notes.turns.push(TurnNote {
                    session_id: cell.session_id.clone(),
                    turn_id: running.turn_id.clone(),
                });
            }
            let held = state.held.as_ref().map(Held::as_item);
            for item in state.inbox.items().chain(held.as_ref()) {
                if let Ok(item) = serde_json::to_value(item) {
                    notes.queued.push(QueuedNote {
                        session_id: cell.session_id.clone(),
                        item,
                    });
                }
            }
        }
        notes.turns.sort_by(|a, b| a.session_id.cmp(&b.session_id));
        if let Err(e) = write_inflight(&self.inner.home, &notes) {
            tracing::warn!("inflight.json could not be written: {e}");
        }
    }

    pub(crate) fn now_ms(&self) -> u64 {
        self.inner.env.now_ms()
    }

    pub(crate) fn home(&self) -> &std::path::Path {
        &self.inner.home
    }
}

/// Cancels the running turn once per wait when its oldest open wait is over
/// 60 s old; the line stays in the inbox for the next turn (keepInbox).
fn interrupt_long_wait(state: &mut CellState) -> bool {
    let Some(running) = &mut state.running else {
        return false;
    };
    let Some((call_id, since, _)) = running.waits.iter().min_by_key(|(_, since, _)| *since) else {
        return false;
    };
    if since.elapsed() <= INTERRUPT_AFTER || running.interrupted.contains(call_id) {
        return false;
    }
    running.interrupted.insert(call_id.clone());
    running.cancel.send_replace(Some(EndReason::Aborted {
        by: AbortedBy::Hook,
        reason: Some(INTERRUPT_REASON.to_owned()),
    }));
    true
}
