//! The execution journal (contract: "Use a durable inbox/outbox and an
//! execution journal in a dedicated data directory"): one writer over
//! `<home>/interop/`, every decision one fsynced record written before
//! anything acts on it. Validated ingress, its dedupe decision, the
//! correlation and the budget reservation are one record, written before
//! the inbox cursor moves; a send intent is written before the remote call
//! and its observed outcome after it. Raw file I/O is flybot-store's.

pub mod decide;
pub mod publication;
pub mod records;
pub mod state;

pub use decide::{decide, sent_by_requester, turn_content_digest};
pub use publication::Publication;
pub use records::{
    Correlation, CorrelationKey, Decision, IngressRecord, Reconciliation, Record, RefusedBecause,
    SendObservation, SendOperation, TaskBinding, TransportContext, refused_as_cancelled,
};
pub use state::{JournalState, SendState, TaskExec};

use crate::budgets::{BudgetLimits, Usage};
use crate::cancel::{HumanDisposition, StopEvidence, TurnKey};
use crate::envelope::{CheckedEnvelope, Refusal, check_bytes};
use flybot_store::interop_journal::InteropFiles;
use std::io;
use std::path::Path;

/// The inbox cursor's side file.
const CURSOR_FILE: &str = "inbox.cursor";

#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("the interop journal could not be written or read: {0}")]
    Io(#[from] io::Error),
    #[error("the interop journal's line {line} is not a record: {message}")]
    Corrupt { line: usize, message: String },
    #[error("no task {0} is enrolled in the interop journal")]
    UnknownTask(String),
    #[error("no send {0} was recorded")]
    UnknownSend(u64),
    #[error("dispatch is blocked: {0}")]
    Blocked(#[from] DispatchBlocked),
    #[error("{0}")]
    Budget(crate::budgets::BudgetRefusal),
}

pub type Result<T> = std::result::Result<T, JournalError>;

/// Why a remote call may not start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DispatchBlocked {
    #[error("the task's cancel was requested")]
    Cancelled,
    #[error("the task's recovery is uncertain; a person must dispose of it")]
    Uncertain,
    #[error("the task is closed")]
    Closed,
    #[error("the turn is not the task's active, untombstoned turn")]
    NotActiveTurn,
    #[error("the task already has its one runtime session")]
    SessionExists,
    #[error("a session creation for this task has no known outcome")]
    SessionPending,
    #[error("that session already serves another task")]
    SessionTaken,
    #[error("the task has no runtime session yet")]
    NoSession,
    #[error("this turn was already submitted; a retransmission reuses that submission")]
    AlreadySubmitted,
}

/// The one writer of a journal folder.
#[derive(Debug)]
pub struct Journal {
    files: InteropFiles,
    state: JournalState,
    inbox_cursor: u64,
}

impl Journal {
    /// Opens `<home>/interop/`, replays it and marks every intent that has
    /// no outcome as uncertain.
    pub fn open(home: &Path, limits: BudgetLimits, now_ms: u64) -> Result<Journal> {
        Journal::from_files(InteropFiles::open(home)?, limits, now_ms)
    }

    /// Opens a journal folder directly (a harness's temporary folder).
    pub fn open_dir(dir: &Path, limits: BudgetLimits, now_ms: u64) -> Result<Journal> {
        Journal::from_files(InteropFiles::open_dir(dir)?, limits, now_ms)
    }

    fn from_files(mut files: InteropFiles, limits: BudgetLimits, now_ms: u64) -> Result<Journal> {
        let mut state = JournalState::new(limits);
        for (index, line) in files.read_lines()?.iter().enumerate() {
            let record: Record =
                serde_json::from_slice(line).map_err(|e| JournalError::Corrupt {
                    line: index + 1,
                    message: e.to_string(),
                })?;
            state.apply(&record);
        }
        state.mark_unfinished_sends(now_ms);
        let inbox_cursor = match files.read_side_file(CURSOR_FILE)? {
            Some(bytes) => String::from_utf8_lossy(&bytes).trim().parse().unwrap_or(0),
            None => 0,
        };
        Ok(Journal {
            files,
            state,
            inbox_cursor,
        })
    }

    pub fn state(&self) -> &JournalState {
        &self.state
    }

    pub fn task(&self, task_id: &str) -> Option<&TaskExec> {
        self.state.task(task_id)
    }

    pub fn dir(&self) -> &Path {
        self.files.dir()
    }

    /// The inbox position the transport resumes from.
    pub fn inbox_cursor(&self) -> u64 {
        self.inbox_cursor
    }

    fn write(&mut self, record: Record) -> Result<()> {
        let line = serde_json::to_vec(&record).map_err(|e| JournalError::Corrupt {
            line: 0,
            message: e.to_string(),
        })?;
        self.files.append(&line)?;
        self.state.apply(&record);
        Ok(())
    }

    /// Records the host's binding for a task this side may accept.
    pub fn bind(&mut self, binding: TaskBinding) -> Result<()> {
        self.write(Record::Bound(binding))
    }

    /// Decides a checked event and persists the decision as one record.
    /// The caller moves the cursor afterwards with `commit_cursor`.
    pub fn ingest(
        &mut self,
        context: &TransportContext,
        checked: &CheckedEnvelope,
        cursor: u64,
        now_ms: u64,
    ) -> Result<IngressRecord> {
        let record = decide(&self.state, context, checked, cursor, now_ms);
        self.write(Record::Ingress(Box::new(record.clone())))?;
        Ok(record)
    }

    /// Moves the durable inbox cursor (only ever forward).
    pub fn commit_cursor(&mut self, cursor: u64) -> Result<()> {
        if cursor > self.inbox_cursor {
            self.files
                .write_side_file(CURSOR_FILE, cursor.to_string().as_bytes())?;
            self.inbox_cursor = cursor;
        }
        Ok(())
    }

    /// The whole ingress: bytes checked (limits first), the decision
    /// journaled, then the cursor moved. A refused envelope is not
    /// journaled as work; the cursor moves past it so it cannot wedge the
    /// inbox.
    pub fn receive(
        &mut self,
        context: &TransportContext,
        bytes: &[u8],
        cursor: u64,
        now_ms: u64,
    ) -> Result<std::result::Result<IngressRecord, Refusal>> {
        let outcome = match check_bytes(bytes) {
            Ok(checked) => Ok(self.ingest(context, &checked, cursor, now_ms)?),
            Err(refusal) => Err(refusal),
        };
        self.commit_cursor(cursor)?;
        Ok(outcome)
    }

    /// Persists the intent of a remote call after checking that the task
    /// may dispatch it; returns the send id for `finish_send`.
    pub fn begin_send(
        &mut self,
        task_id: &str,
        operation: SendOperation,
        turn: Option<TurnKey>,
        digest: Option<String>,
        now_ms: u64,
    ) -> Result<u64> {
        self.may_send(task_id, &operation, turn.as_ref())?;
        let send_id = self.state.next_send_id();
        self.write(Record::SendIntent {
            send_id,
            task_id: task_id.to_owned(),
            operation,
            turn,
            digest,
            at_ms: now_ms,
        })?;
        Ok(send_id)
    }

    /// Whether a remote call may start now. Abort and a deny are control:
    /// they stay possible through cancel, uncertainty and exhaustion.
    pub fn may_send(
        &self,
        task_id: &str,
        operation: &SendOperation,
        turn: Option<&TurnKey>,
    ) -> Result<()> {
        let task = self
            .state
            .task(task_id)
            .ok_or_else(|| JournalError::UnknownTask(task_id.to_owned()))?;
        let work = |task: &TaskExec| -> std::result::Result<(), DispatchBlocked> {
            if task.closed {
                return Err(DispatchBlocked::Closed);
            }
            if task.cancel.cancel.is_some() {
                return Err(DispatchBlocked::Cancelled);
            }
            if task.cancel.recovery.is_some() {
                return Err(DispatchBlocked::Uncertain);
            }
            Ok(())
        };
        match operation {
            SendOperation::Abort | SendOperation::DenyRequest => Ok(()),
            SendOperation::CreateSession => {
                work(task)?;
                if task.correlation.session_id.is_some() {
                    return Err(DispatchBlocked::SessionExists.into());
                }
                if self.session_creation_unresolved(task_id) {
                    return Err(DispatchBlocked::SessionPending.into());
                }
                Ok(())
            }
            SendOperation::SubmitTurn => {
                work(task)?;
                if task.correlation.session_id.is_none() {
                    return Err(DispatchBlocked::NoSession.into());
                }
                match (turn, task.active_turn_key()) {
                    (Some(turn), Some(active))
                        if *turn == active && !task.cancel.tombstones.contains(turn) =>
                    {
                        // One reservation buys one submission: a second
                        // dispatch of the same turn starts only as a
                        // retransmission charged to its retry counter
                        // (`retry_turn`).
                        let submitted = self.state.sends.values().any(|s| {
                            s.operation == SendOperation::SubmitTurn
                                && s.turn.as_ref() == Some(turn)
                        });
                        if submitted && !task.retry_granted {
                            Err(DispatchBlocked::AlreadySubmitted.into())
                        } else {
                            Ok(())
                        }
                    }
                    (Some(_), Some(_)) | (None, _) | (_, None) => {
                        Err(DispatchBlocked::NotActiveTurn.into())
                    }
                }
            }
            SendOperation::PublishResult | SendOperation::DeliverMessage => Ok(work(task)?),
        }
    }

    /// Charges one retransmission of the task's reserved turn to that
    /// turn's retry counter (#198: the same reservation, a bounded retry
    /// counter, never another turn) and allows its one more submission.
    /// Refused while the task is cancelled, closed or uncertain, without a
    /// reserved turn, or once the retries or the deadline are spent.
    pub fn retry_turn(&mut self, task_id: &str, now_ms: u64) -> Result<TurnKey> {
        let task = self
            .state
            .task(task_id)
            .ok_or_else(|| JournalError::UnknownTask(task_id.to_owned()))?;
        if task.closed {
            return Err(DispatchBlocked::Closed.into());
        }
        if task.cancel.cancel.is_some() {
            return Err(DispatchBlocked::Cancelled.into());
        }
        if task.cancel.recovery.is_some() {
            return Err(DispatchBlocked::Uncertain.into());
        }
        let Some(turn) = task.active_turn_key() else {
            return Err(DispatchBlocked::NotActiveTurn.into());
        };
        task.budget
            .check(
                &self.state.limits,
                &crate::budgets::Charge::Retry {
                    turn_id: turn.turn_id.clone(),
                },
                now_ms,
            )
            .map_err(JournalError::Budget)?;
        self.write(Record::Retried {
            task_id: task_id.to_owned(),
            turn: turn.clone(),
            at_ms: now_ms,
        })?;
        Ok(turn)
    }

    /// Persists what was observed of a remote call. A timeout or a lost
    /// connection makes the task uncertain; it is never retried blindly.
    pub fn finish_send(
        &mut self,
        send_id: u64,
        observed: SendObservation,
        now_ms: u64,
    ) -> Result<()> {
        let send = self
            .state
            .sends
            .get(&send_id)
            .ok_or(JournalError::UnknownSend(send_id))?;
        if let (
            SendOperation::CreateSession,
            SendObservation::Accepted {
                remote_ref: Some(session),
            },
        ) = (&send.operation, &observed)
            && let Some(other) = self.state.sessions.get(session)
            && *other != send.task_id
        {
            // A session that serves another task is never shared: record
            // the call as ambiguous so a person looks at it.
            self.write(Record::SendOutcome {
                send_id,
                observed: SendObservation::Lost,
                at_ms: now_ms,
            })?;
            return Err(DispatchBlocked::SessionTaken.into());
        }
        self.write(Record::SendOutcome {
            send_id,
            observed,
            at_ms: now_ms,
        })
    }

    /// Records what a restart's reconciliation against the runtime's
    /// history found for an unresolved send.
    pub fn reconcile(&mut self, send_id: u64, found: Reconciliation, now_ms: u64) -> Result<()> {
        if !self.state.sends.contains_key(&send_id) {
            return Err(JournalError::UnknownSend(send_id));
        }
        self.write(Record::Reconciled {
            send_id,
            found,
            at_ms: now_ms,
        })
    }

    /// Whether a creation of `task_id`'s session has no known outcome (an
    /// intent with no outcome, or a lost one not yet reconciled): the
    /// runtime may hold a session the journal does not know (#198, "an
    /// unrecorded remote session must not lead to blind creation").
    pub fn session_creation_unresolved(&self, task_id: &str) -> bool {
        self.state.sends.values().any(|s| {
            s.task_id == task_id && s.operation == SendOperation::CreateSession && s.unresolved()
        })
    }

    /// Why `task_id` waits for a person, if it does (#198): the task's
    /// `recovery: uncertain`, a call with no known outcome, or a reserved
    /// turn no submission names and no retry was granted for.
    pub fn uncertainty(&self, task_id: &str) -> Option<String> {
        let task = self.state.task(task_id)?;
        if task.closed {
            return None;
        }
        if let Some(recovery) = &task.cancel.recovery {
            return Some(recovery.raw_status.clone());
        }
        if self
            .state
            .sends
            .values()
            .any(|s| s.task_id == task_id && s.unresolved() && !s.host_settled())
        {
            return Some("a call has no recorded outcome".to_owned());
        }
        if task.retry_granted {
            return None;
        }
        let turn = self.state.reserved_without_intent(task_id)?;
        Some(format!(
            "turn {turn} was reserved but no submission was recorded"
        ))
    }

    /// Unresolved sends (intent without a known effect), oldest first.
    pub fn unresolved_sends(&self) -> Vec<(u64, &SendState)> {
        self.state
            .sends
            .iter()
            .filter(|(_, s)| s.unresolved())
            .map(|(id, s)| (*id, s))
            .collect()
    }

    /// The host's cancel: the generation grows, the active turn is
    /// tombstoned, dispatch stops. Returns the new generation.
    pub fn request_cancel(&mut self, task_id: &str, now_ms: u64) -> Result<u64> {
        self.known(task_id)?;
        self.write(Record::CancelRequested {
            task_id: task_id.to_owned(),
            at_ms: now_ms,
        })?;
        Ok(self
            .state
            .task(task_id)
            .map_or(0, |task| task.cancel.generation))
    }

    /// Records stop evidence; returns whether the task is now
    /// `cancel: observed` (an HTTP success alone never is).
    pub fn observe_stop(
        &mut self,
        task_id: &str,
        evidence: StopEvidence,
        now_ms: u64,
    ) -> Result<bool> {
        self.known(task_id)?;
        self.write(Record::StopObserved {
            task_id: task_id.to_owned(),
            evidence,
            at_ms: now_ms,
        })?;
        Ok(self.state.task(task_id).is_some_and(|task| {
            matches!(
                task.cancel.cancel,
                Some(crate::cancel::CancelFacet::Observed { .. })
            )
        }))
    }

    /// A person's disposition of an uncertain task (`by` is their id; a
    /// parser or a model never calls this).
    pub fn dispose(
        &mut self,
        task_id: &str,
        disposition: HumanDisposition,
        by: &str,
        now_ms: u64,
    ) -> Result<()> {
        self.known(task_id)?;
        self.write(Record::Disposed {
            task_id: task_id.to_owned(),
            disposition,
            by: by.to_owned(),
            at_ms: now_ms,
        })
    }

    /// Adds observed usage; unknown parts stay unknown.
    pub fn record_usage(&mut self, task_id: &str, usage: Usage) -> Result<()> {
        self.known(task_id)?;
        self.write(Record::UsageObserved {
            task_id: task_id.to_owned(),
            usage,
        })
    }

    /// The host ended the task; its concurrent slot frees, its counters
    /// stay.
    pub fn close_task(&mut self, task_id: &str) -> Result<()> {
        self.known(task_id)?;
        self.write(Record::Closed {
            task_id: task_id.to_owned(),
        })
    }

    fn known(&self, task_id: &str) -> Result<()> {
        match self.state.task(task_id) {
            Some(_) => Ok(()),
            None => Err(JournalError::UnknownTask(task_id.to_owned())),
        }
    }
}
