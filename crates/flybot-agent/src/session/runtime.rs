//! `Sessions`: the running Sessions of a host. One turn at a time per
//! Session; input queues in the Session's inbox; `cancel` ends the running
//! turn and, with `keepInbox`, leaves queued input for the next turn. Every
//! change of a Session's running turn or queued input is noted in its
//! in-flight note in the turn log so a restart picks it up (see `pickup`);
//! what is durable and shown is kept in `durable`.

use super::durable::Visible;
use super::event::{AbortedBy, EndReason, Source};
use super::inbox::{Inbox, InboxItem, ItemKind};
use super::log::SessionLog;
use super::settle::Held;
use super::work::{EndedTurns, RunningWork, step_of};
use crate::model::ToolCall;
use crate::turn::{TurnEnvironment, run_turn};
use flybot_core::sync::lock;
use flybot_store::turn_log::{TurnLog, Urgency};
use std::collections::{BTreeSet, HashMap};
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;
use tokio::time::Instant;

/// A tool wait older than this yields to a person's line (#1509, #1666).
pub const INTERRUPT_AFTER: Duration = Duration::from_secs(60);
/// The cancel reason of the steering interrupt in a Bot's own chat.
pub const INTERRUPT_REASON: &str = "ds-bot/interrupt-long-wait";
/// The cancel reason of a room's Stop and of its 60 s interrupt (#1650): a
/// room id never takes the own-chat reason.
pub const STOPPED_REASON: &str = "ds-bot/stopped";

/// A running turn.
pub(crate) struct Running {
    pub turn_id: String,
    /// The turn's input, noted with it until its `turn/start` is in the log.
    pub items: Vec<InboxItem>,
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
    pub(crate) log: Mutex<SessionLog>,
    parts: Mutex<crate::context::Parts>,
    /// What is durable, and the wake-up of `wait_idle`.
    pub(crate) visible: Arc<Visible>,
    pub(crate) env: Arc<dyn TurnEnvironment>,
    pub(crate) turn_log: TurnLog,
    /// When the Session was last used (`Inner::ticks`), for `evict`.
    pub(crate) used: AtomicU64,
}

impl Cell {
    pub(crate) fn with_log<R>(&self, f: impl FnOnce(&mut SessionLog) -> R) -> R {
        f(&mut lock(&self.log))
    }
    pub(crate) fn with_parts<R>(&self, f: impl FnOnce(&mut crate::context::Parts) -> R) -> R {
        f(&mut lock(&self.parts))
    }
    /// Queues a turn's input again for the next turn (#1285), each item
    /// once.
    pub(crate) fn queue_again(&self, items: Vec<InboxItem>) {
        let mut state = lock(&self.state);
        for mut item in items {
            if state.inbox.items().all(|queued| queued.id != item.id) {
                item.kind = super::inbox::ItemKind::NextTurn;
                state.inbox.push(item);
            }
        }
    }
    /// The steers the running turn admits: its own audience's only.
    pub(crate) fn take_steers(&self) -> Vec<InboxItem> {
        let state = &mut *lock(&self.state);
        match state.running.as_ref().and_then(|r| r.items.first()) {
            Some(first) => state.inbox.take_steers(&first.source),
            None => Vec::new(),
        }
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

pub(super) struct Inner {
    home: PathBuf,
    env: Arc<dyn TurnEnvironment>,
    pub(super) cells: Mutex<HashMap<String, Arc<Cell>>>,
    ended: Mutex<EndedTurns>,
    counter: AtomicU64,
    /// The clock of `Cell::used`: one tick per use of a Session.
    ticks: AtomicU64,
    turn_log: TurnLog,
}

/// The host's Sessions. Cheap to clone.
#[derive(Clone)]
pub struct Sessions {
    pub(super) inner: Arc<Inner>,
}

/// A handle on the Sessions that does not keep them alive: for a service
/// the turns reach that itself hands lines to Sessions (Bot Social), made
/// with them in one call ([`Sessions::new_cyclic`]).
#[derive(Clone)]
pub struct WeakSessions(std::sync::Weak<Inner>);

impl WeakSessions {
    /// The Sessions, while the host holds them.
    pub fn upgrade(&self) -> Option<Sessions> {
        self.0.upgrade().map(|inner| Sessions { inner })
    }
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
        Sessions::new_cyclic(home, |_| (env, ())).0
    }

    /// Sessions whose environment holds a service that hands lines back to
    /// them: `make` builds the environment from a weak handle on the
    /// Sessions being made (it cannot be upgraded until this returns) and
    /// answers it with whatever else it built.
    pub fn new_cyclic<T>(
        home: PathBuf,
        make: impl FnOnce(&WeakSessions) -> (Arc<dyn TurnEnvironment>, T),
    ) -> (Sessions, T) {
        let mut made = None;
        let inner = Arc::new_cyclic(|weak| {
            let (env, other) = make(&WeakSessions(weak.clone()));
            made = Some(other);
            Inner {
                env,
                cells: Mutex::new(HashMap::new()),
                ended: Mutex::new(EndedTurns::default()),
                counter: AtomicU64::new(0),
                ticks: AtomicU64::new(0),
                turn_log: TurnLog::for_home(&home),
                home,
            }
        });
        match made {
            Some(other) => (Sessions { inner }, other),
            // `new_cyclic` calls `make` exactly once before it returns.
            None => unreachable!("Arc::new_cyclic ran its closure"),
        }
    }

    pub(crate) fn cell(&self, session_id: &str) -> io::Result<Arc<Cell>> {
        let tick = self.inner.ticks.fetch_add(1, Ordering::Relaxed);
        let mut cells = lock(&self.inner.cells);
        if let Some(cell) = cells.get(session_id) {
            cell.used.store(tick, Ordering::Relaxed);
            return Ok(cell.clone());
        }
        super::evict::let_go_idle(&mut cells);
        // The journal is replayed into the logs before the first is read;
        // a host that only reads (another writes the home) reads as is.
        if let Err(e) = self.inner.turn_log.open() {
            tracing::debug!("Session logs read without the turn log: {e}");
        }
        let log = SessionLog::open(&self.inner.home, session_id)?;
        let parts = crate::context::Parts::open(&self.inner.home, session_id)?;
        let cell = Arc::new(Cell {
            session_id: session_id.to_owned(),
            state: Mutex::new(CellState {
                inbox: Inbox::default(),
                running: None,
                held: None,
            }),
            visible: Arc::new(Visible::new(log.last_seq_after(0))),
            log: Mutex::new(log),
            parts: Mutex::new(parts),
            env: self.inner.env.clone(),
            turn_log: self.inner.turn_log.clone(),
            used: AtomicU64::new(tick),
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
            attachments: Vec::new(),
        });
        cell.note_inflight(Urgency::Soon);
        self.start(cell);
        Ok(id)
    }

    /// A person's line in the Bot's own chat: held in the settle window when
    /// no turn runs (#642); during a turn queued as its own steer item, and
    /// the steering interrupt applies (#1509, #1666). Answers what was done
    /// and, for a line that reached a running turn, its item id (the id a
    /// busy-send acknowledgment is keyed on, #1684).
    pub fn send_line(
        &self,
        session_id: &str,
        text: &str,
        member_id: Option<String>,
    ) -> io::Result<(SendOutcome, Option<String>)> {
        self.send_line_with(session_id, text, member_id, Vec::new())
    }

    /// [`send_line`](Self::send_line) with the attachments (ids) the line
    /// carries (issue 32).
    pub fn send_line_with(
        &self,
        session_id: &str,
        text: &str,
        member_id: Option<String>,
        attachments: Vec<String>,
    ) -> io::Result<(SendOutcome, Option<String>)> {
        let cell = self.cell(session_id)?;
        let outcome = {
            let mut state = lock(&cell.state);
            if state.running.is_none() {
                super::settle::hold(self, &cell, &mut state, text, member_id, attachments);
                (SendOutcome::Held, None)
            } else {
                super::settle::flush(self, &mut state);
                let id = self.new_id("msg");
                state.inbox.push(InboxItem {
                    id: id.clone(),
                    text: text.to_owned(),
                    source: Source::User { member_id },
                    kind: ItemKind::Steer,
                    attachments,
                });
                if interrupt_long_wait(&mut state) {
                    (SendOutcome::Interrupted, Some(id))
                } else {
                    (SendOutcome::Queued, Some(id))
                }
            }
        };
        // The answer to the person waits until their line is durable.
        cell.note_inflight(Urgency::Now);
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
        self.cancel_because(
            session_id,
            EndReason::Aborted { by, reason: None },
            keep_inbox,
        )
    }

    /// A room member's turn let go as a room's Stop lets it go (#1650):
    /// `{by: hook, reason: ds-bot/stopped}`, its inbox dropped, so nothing
    /// queued for it runs; what it had streamed is kept as its answer
    /// (`turn/step.rs`) and the room posts it marked cut (issue 31).
    pub fn stop_room_turn(&self, session_id: &str) -> io::Result<CancelOutcome> {
        let reason = EndReason::Aborted {
            by: AbortedBy::Hook,
            reason: Some(STOPPED_REASON.to_owned()),
        };
        self.cancel_because(session_id, reason, false)
    }

    fn cancel_because(
        &self,
        session_id: &str,
        reason: EndReason,
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
                    running.cancel.send_replace(Some(reason));
                    true
                }
                None => false,
            };
            CancelOutcome {
                was_running,
                dropped,
            }
        };
        cell.note_inflight(Urgency::Now);
        // With keepInbox and no turn running, held input still gets its turn.
        self.start(cell);
        Ok(outcome)
    }

    /// The part each of the Session's log entries belongs to is read from
    /// its parts record; this answers the current part's number.
    pub fn current_part(&self, session_id: &str) -> io::Result<u32> {
        Ok(self
            .cell(session_id)?
            .with_parts(|parts| parts.current().part))
    }

    /// The part log entry `seq` of `session_id` belongs to.
    pub fn part_of(&self, session_id: &str, seq: u64) -> io::Result<u32> {
        Ok(self
            .cell(session_id)?
            .with_parts(|parts| parts.part_of(seq)))
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

    /// A tool call's progress (an MCP server's `notifications/progress`):
    /// the open wait `call_id` now shows `step` in the running work, and the
    /// Session's watchers are told. A call that is no longer open is left.
    pub fn note_progress(&self, session_id: &str, call_id: &str, step: &str) {
        let Some(cell) = lock(&self.inner.cells).get(session_id).cloned() else {
            return;
        };
        let noted = {
            let mut state = lock(&cell.state);
            let wait = state
                .running
                .as_mut()
                .and_then(|running| running.waits.iter_mut().find(|(id, _, _)| id == call_id));
            wait.map(|(_, _, shown)| *shown = super::work::step_of_progress(step))
                .is_some()
        };
        if noted {
            self.inner.env.changed(session_id);
        }
    }

    /// A room's interrupt (#1650): lets the running member turn go for its
    /// open wait `call_id`, once per wait, exactly as the room's Stop does
    /// (`stop_room_turn`); answers whether it did.
    pub fn interrupt_wait(&self, session_id: &str, call_id: &str) -> bool {
        let marked = {
            let cells = lock(&self.inner.cells);
            cells.get(session_id).is_some_and(|cell| {
                let mut state = lock(&cell.state);
                state.running.as_mut().is_some_and(|running| {
                    running.waits.iter().any(|(id, _, _)| id == call_id)
                        && running.interrupted.insert(call_id.to_owned())
                })
            })
        };
        marked
            && self
                .stop_room_turn(session_id)
                .is_ok_and(|outcome| outcome.was_running)
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
                    handed: super::work::handed_request(&running.items),
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
                    items: Vec::new(),
                    cancel: sender,
                    waits: Vec::new(),
                    interrupted: BTreeSet::new(),
                    calls: 0,
                });
                (turn_id, state.inbox.take_turn(), receiver)
            };
            let env = self.inner.env.clone();
            let items: Vec<InboxItem> = items
                .into_iter()
                .filter(|item| env.admit(&cell.session_id, item))
                .collect();
            if items.is_empty() {
                // Every item was refused at delivery (#90): no turn opens.
                lock(&cell.state).running = None;
                cell.note_inflight(Urgency::Soon);
                continue;
            }
            if let Some(running) = &mut lock(&cell.state).running {
                running.items = items.clone();
            }
            cell.note_inflight(Urgency::Soon);
            let watched = items
                .iter()
                .any(|item| matches!(item.source, Source::User { .. }));
            let hidden = super::work::handed_request(&items).is_some();
            let summary = run_turn(self, &cell, env.as_ref(), &turn_id, items, cancel).await;
            lock(&cell.state).running = None;
            // #353, #553: a hidden turn another Bot asked for from a group
            // is no ended turn of the work view; its reply goes to the group.
            if !hidden {
                lock(&self.inner.ended).record(
                    &cell.session_id,
                    &turn_id,
                    env.now_ms(),
                    &summary.reason,
                    summary.calls,
                    summary.said_something,
                );
            }
            cell.note_inflight(Urgency::Soon);
            // A person's turn is synced at once; a turn nobody watches (a
            // room member's, a Bot's message) joins the next sync.
            let urgency = if watched { Urgency::Now } else { Urgency::Soon };
            super::durable::announce_turn_end(self, &cell, turn_id, urgency);
        }
        cell.visible.idle.notify_waiters();
    }

    pub(crate) fn now_ms(&self) -> u64 {
        self.inner.env.now_ms()
    }

    pub(crate) fn home(&self) -> &std::path::Path {
        &self.inner.home
    }

    pub(crate) fn turn_log(&self) -> &TurnLog {
        &self.inner.turn_log
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
