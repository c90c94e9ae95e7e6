//! The journal's state: a pure fold of its records. Replaying the same
//! lines always gives the same state, so counters, reservations,
//! tombstones and correlations survive any restart.

use super::records::{
    Correlation, CorrelationKey, Decision, IngressRecord, Reconciliation, Record, SendObservation,
    SendOperation, TaskBinding,
};
use crate::budgets::{self, BudgetLimits, Charge, TaskBudget};
use crate::cancel::{CancelState, HumanDisposition, TurnKey};
use crate::envelope::EnvelopeKind;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// One enrolled task's execution record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskExec {
    pub key: CorrelationKey,
    pub correlation: Correlation,
    pub budget: TaskBudget,
    pub cancel: CancelState,
    /// Work-turn keys with their content digests.
    pub turns: BTreeMap<TurnKey, String>,
    pub active_turn: Option<String>,
    /// The active turn's selected text, for a retransmission.
    pub active_turn_text: Option<String>,
    /// A retransmission of the active turn was charged and not yet sent.
    pub retry_granted: bool,
    /// Events still waiting for a reply, with their kinds.
    pub outstanding: BTreeMap<String, EnvelopeKind>,
    /// Late events of tombstoned turns, kept as evidence only.
    pub diagnostics: Vec<String>,
    /// Conversations this task was delivered through (references only).
    pub conversations: BTreeSet<String>,
    /// A result was accepted for the active turn's generation.
    pub result_event: Option<String>,
    /// Bot B's latest accepted question or result, with its selected
    /// text: what the host publishes onto the card.
    pub reply: Option<(String, EnvelopeKind, String)>,
    pub closed: bool,
}

impl TaskExec {
    /// The key of the active work turn.
    pub fn active_turn_key(&self) -> Option<TurnKey> {
        self.active_turn.as_ref().map(|turn_id| TurnKey {
            task_id: self.key.task_id.clone(),
            generation: self.cancel.generation,
            turn_id: turn_id.clone(),
        })
    }
}

/// One remote call's intent and what became of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SendState {
    pub task_id: String,
    pub operation: SendOperation,
    pub turn: Option<TurnKey>,
    pub observed: Option<SendObservation>,
    pub reconciled: Option<Reconciliation>,
    /// What the intent named (a digest, or the event a publication
    /// publishes).
    pub digest: Option<String>,
}

impl SendState {
    /// A call the host settles against its own board after a restart (a
    /// publication), never a runtime effect a person must decide.
    pub fn host_settled(&self) -> bool {
        match self.operation {
            SendOperation::PublishResult | SendOperation::DeliverMessage => true,
            SendOperation::CreateSession
            | SendOperation::SubmitTurn
            | SendOperation::Abort
            | SendOperation::DenyRequest => false,
        }
    }

    /// An intent whose effect is unknown: no outcome, or an ambiguous one
    /// not yet matched.
    pub fn unresolved(&self) -> bool {
        let matched = matches!(self.reconciled, Some(Reconciliation::Matched { .. }));
        !matched
            && self
                .observed
                .as_ref()
                .is_none_or(SendObservation::is_ambiguous)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JournalState {
    pub limits: BudgetLimits,
    pub bindings: BTreeMap<CorrelationKey, TaskBinding>,
    pub tasks: BTreeMap<String, TaskExec>,
    /// (sender Bot, eventId) → canonical digest, for dedupe.
    pub events: BTreeMap<(String, String), String>,
    /// Runtime session → the one task it serves.
    pub sessions: BTreeMap<String, String>,
    pub sends: BTreeMap<u64, SendState>,
    /// The highest inbox position journaled.
    pub journaled_cursor: u64,
    /// Sender Bot → the highest `seq` of its accepted events: each
    /// producer's sequence space, durable as the journal is.
    pub producer_seqs: BTreeMap<String, u64>,
}

impl JournalState {
    pub fn new(limits: BudgetLimits) -> JournalState {
        JournalState {
            limits,
            bindings: BTreeMap::new(),
            tasks: BTreeMap::new(),
            events: BTreeMap::new(),
            sessions: BTreeMap::new(),
            sends: BTreeMap::new(),
            journaled_cursor: 0,
            producer_seqs: BTreeMap::new(),
        }
    }

    /// Tasks holding a concurrent slot.
    pub fn active_tasks(&self) -> usize {
        self.tasks.values().filter(|t| !t.closed).count()
    }

    pub fn task(&self, task_id: &str) -> Option<&TaskExec> {
        self.tasks.get(task_id)
    }

    pub fn next_send_id(&self) -> u64 {
        self.sends.keys().next_back().map_or(1, |last| last + 1)
    }

    /// Applies one record. Records were validated before they were written,
    /// so applying never fails; a record naming an unknown task changes
    /// nothing.
    pub fn apply(&mut self, record: &Record) {
        match record {
            Record::Bound(binding) => {
                self.bindings.insert(binding.key.clone(), binding.clone());
            }
            Record::Ingress(ingress) => self.apply_ingress(ingress),
            Record::SendIntent {
                send_id,
                task_id,
                operation,
                turn,
                digest,
                ..
            } => {
                if *operation == SendOperation::SubmitTurn
                    && let Some(task) = self.tasks.get_mut(task_id)
                {
                    task.retry_granted = false;
                }
                self.sends.insert(
                    *send_id,
                    SendState {
                        task_id: task_id.clone(),
                        operation: operation.clone(),
                        turn: turn.clone(),
                        observed: None,
                        reconciled: None,
                        digest: digest.clone(),
                    },
                );
            }
            Record::SendOutcome {
                send_id,
                observed,
                at_ms,
            } => self.apply_outcome(*send_id, observed, *at_ms),
            Record::Reconciled {
                send_id,
                found,
                at_ms,
            } => self.apply_reconciled(*send_id, found, *at_ms),
            Record::Retried { task_id, turn, .. } => {
                if let Some(task) = self.tasks.get_mut(task_id) {
                    task.retry_granted = true;
                    task.budget.apply(&Charge::Retry {
                        turn_id: turn.turn_id.clone(),
                    });
                }
            }
            Record::CancelRequested { task_id, .. } => {
                if let Some(task) = self.tasks.get_mut(task_id) {
                    let active = task.active_turn.take();
                    if let Some(turn_id) = &active {
                        task.budget.end_turn(turn_id);
                    }
                    task.cancel.request(task_id, active.as_deref());
                }
            }
            Record::StopObserved {
                task_id, evidence, ..
            } => {
                if let Some(task) = self.tasks.get_mut(task_id) {
                    task.cancel.observe(evidence);
                }
            }
            Record::Disposed {
                task_id,
                disposition,
                ..
            } => self.apply_disposed(task_id, *disposition),
            Record::UsageObserved { task_id, usage } => {
                if let Some(task) = self.tasks.get_mut(task_id) {
                    task.budget.usage = task.budget.usage.plus(*usage);
                }
            }
            Record::Closed { task_id } => {
                if let Some(task) = self.tasks.get_mut(task_id) {
                    task.closed = true;
                }
            }
        }
    }

    /// After a replay: an intent with no outcome is a crash between the
    /// remote call and its acknowledgement, so its task is uncertain.
    pub fn mark_unfinished_sends(&mut self, now_ms: u64) {
        let unfinished: Vec<String> = self
            .sends
            .values()
            .filter(|s| s.observed.is_none() && s.reconciled.is_none() && !s.host_settled())
            .map(|s| s.task_id.clone())
            .collect();
        for task_id in unfinished {
            if let Some(task) = self.tasks.get_mut(&task_id) {
                task.cancel
                    .mark_uncertain("no outcome recorded before the restart", now_ms);
            }
        }
    }

    /// The task's reserved turn that no send intent names: a crash (or a
    /// refusal) between the reservation and the submit. Nothing shows
    /// whether it ran, so the task is uncertain, never silently stuck.
    pub fn reserved_without_intent(&self, task_id: &str) -> Option<String> {
        let turn_id = self.tasks.get(task_id)?.budget.in_flight.clone()?;
        let sent = self.sends.values().any(|s| {
            s.task_id == task_id
                && s.operation == SendOperation::SubmitTurn
                && s.turn.as_ref().is_some_and(|t| t.turn_id == turn_id)
        });
        (!sent).then_some(turn_id)
    }

    /// An accepted (or diagnostic) event spends its producer's seq.
    fn note_seq(&mut self, ingress: &IngressRecord) {
        if matches!(ingress.decision, Decision::Accepted | Decision::Diagnostic) {
            let last = self
                .producer_seqs
                .entry(ingress.context.sender_bot.clone())
                .or_default();
            *last = (*last).max(ingress.seq);
        }
    }

    /// The highest seq any producer's accepted events carried.
    pub fn highest_seq(&self) -> u64 {
        self.producer_seqs.values().copied().max().unwrap_or(0)
    }

    fn apply_ingress(&mut self, ingress: &IngressRecord) {
        self.journaled_cursor = self.journaled_cursor.max(ingress.cursor);
        let sender = ingress.context.sender_bot.clone();
        self.events
            .entry((sender, ingress.event_id.clone()))
            .or_insert_with(|| ingress.digest.clone());
        self.note_seq(ingress);
        match &ingress.decision {
            Decision::Accepted => {}
            Decision::Diagnostic => {
                if let Some(task) = self.tasks.get_mut(&ingress.task_id) {
                    task.diagnostics.push(ingress.event_id.clone());
                }
                return;
            }
            Decision::Duplicate | Decision::Conflict | Decision::Refused(_) => return,
        }
        if let Some(correlation) = &ingress.correlation
            && let Ok(budget) = budgets::enroll(&self.limits, 0, ingress.at_ms)
        {
            self.tasks.insert(
                ingress.task_id.clone(),
                TaskExec {
                    key: CorrelationKey::of(&ingress.context, &ingress.task_id),
                    correlation: correlation.clone(),
                    budget,
                    cancel: CancelState::default(),
                    turns: BTreeMap::new(),
                    active_turn: None,
                    active_turn_text: None,
                    retry_granted: false,
                    outstanding: BTreeMap::new(),
                    diagnostics: Vec::new(),
                    conversations: BTreeSet::new(),
                    result_event: None,
                    reply: None,
                    closed: false,
                },
            );
        }
        let Some(task) = self.tasks.get_mut(&ingress.task_id) else {
            return;
        };
        if let Some(conversation) = &ingress.context.conversation_id {
            task.conversations.insert(conversation.clone());
        }
        if let Some(charge) = &ingress.reservation {
            task.budget.apply(charge);
        }
        if let Some(target) = &ingress.in_reply_to {
            match ingress.kind {
                EnvelopeKind::Progress => {}
                EnvelopeKind::Request
                | EnvelopeKind::Question
                | EnvelopeKind::Answer
                | EnvelopeKind::Result
                | EnvelopeKind::Failure
                | EnvelopeKind::Cancel
                | EnvelopeKind::CancelObserved => {
                    task.outstanding.remove(target);
                }
            }
        }
        match ingress.kind {
            EnvelopeKind::Request | EnvelopeKind::Answer => {
                if let (Some(turn), Some(digest), Some(Charge::Turn { turn_id })) =
                    (&ingress.turn, &ingress.turn_digest, &ingress.reservation)
                {
                    task.turns.insert(turn.clone(), digest.clone());
                    task.active_turn = Some(turn_id.clone());
                    task.active_turn_text = ingress.turn_text.clone();
                }
                task.outstanding
                    .insert(ingress.event_id.clone(), ingress.kind);
            }
            EnvelopeKind::Question => {
                end_active_turn(task);
                note_reply(task, ingress);
                task.outstanding
                    .insert(ingress.event_id.clone(), ingress.kind);
            }
            EnvelopeKind::Result => {
                end_active_turn(task);
                note_reply(task, ingress);
                task.result_event = Some(ingress.event_id.clone());
            }
            EnvelopeKind::Failure => end_active_turn(task),
            EnvelopeKind::Cancel => {
                task.outstanding
                    .insert(ingress.event_id.clone(), ingress.kind);
                let active = task.active_turn.take();
                if let Some(turn_id) = &active {
                    task.budget.end_turn(turn_id);
                }
                task.cancel.request(&ingress.task_id, active.as_deref());
            }
            EnvelopeKind::Progress | EnvelopeKind::CancelObserved => {}
        }
    }

    fn apply_outcome(&mut self, send_id: u64, observed: &SendObservation, at_ms: u64) {
        let Some(send) = self.sends.get_mut(&send_id) else {
            return;
        };
        send.observed = Some(observed.clone());
        let task_id = send.task_id.clone();
        let operation = send.operation.clone();
        if observed.is_ambiguous() {
            if let Some(task) = self.tasks.get_mut(&task_id) {
                let raw = match observed {
                    SendObservation::Timeout => "timeout",
                    SendObservation::Lost => "connection lost",
                    SendObservation::Accepted { .. } | SendObservation::Refused { .. } => "",
                };
                task.cancel.mark_uncertain(raw, at_ms);
            }
            return;
        }
        if let (
            SendOperation::CreateSession,
            SendObservation::Accepted {
                remote_ref: Some(session),
            },
        ) = (&operation, observed)
        {
            self.bind_session(&task_id, session);
        }
    }

    fn apply_reconciled(&mut self, send_id: u64, found: &Reconciliation, at_ms: u64) {
        let Some(send) = self.sends.get_mut(&send_id) else {
            return;
        };
        send.reconciled = Some(found.clone());
        let task_id = send.task_id.clone();
        let operation = send.operation.clone();
        match found {
            Reconciliation::Matched { remote_ref } => {
                if operation == SendOperation::CreateSession {
                    self.bind_session(&task_id, remote_ref);
                }
                let still_open = self
                    .sends
                    .values()
                    .any(|s| s.task_id == task_id && s.unresolved());
                if let Some(task) = self.tasks.get_mut(&task_id)
                    && !still_open
                {
                    task.cancel.recovery = None;
                }
            }
            Reconciliation::Unmatched { raw_status } => {
                if let Some(task) = self.tasks.get_mut(&task_id) {
                    task.cancel.recovery = None;
                    task.cancel.mark_uncertain(raw_status, at_ms);
                }
            }
        }
    }

    fn apply_disposed(&mut self, task_id: &str, disposition: HumanDisposition) {
        // The person's decision resolves every open intent of the task.
        for send in self.sends.values_mut().filter(|s| s.task_id == task_id) {
            if send.unresolved() {
                send.reconciled = Some(Reconciliation::Matched {
                    remote_ref: format!("disposed:{}", disposition_word(disposition)),
                });
            }
        }
        if let Some(task) = self.tasks.get_mut(task_id) {
            task.cancel.recovery = None;
            match disposition {
                HumanDisposition::Resubmit | HumanDisposition::AssumeDone => {}
                HumanDisposition::Abandon => task.closed = true,
            }
        }
    }

    fn bind_session(&mut self, task_id: &str, session: &str) {
        if let Some(task) = self.tasks.get_mut(task_id)
            && task.correlation.session_id.is_none()
            && !self.sessions.contains_key(session)
        {
            task.correlation.session_id = Some(session.to_owned());
            self.sessions.insert(session.to_owned(), task_id.to_owned());
        }
    }
}

/// Bot B's question or result, kept with its text for its publication.
fn note_reply(task: &mut TaskExec, ingress: &IngressRecord) {
    task.reply = Some((
        ingress.event_id.clone(),
        ingress.kind,
        ingress.turn_text.clone().unwrap_or_default(),
    ));
}

fn end_active_turn(task: &mut TaskExec) {
    if let Some(turn_id) = task.active_turn.take() {
        task.budget.end_turn(&turn_id);
    }
}

pub fn disposition_word(disposition: HumanDisposition) -> &'static str {
    match disposition {
        HumanDisposition::Resubmit => "resubmit",
        HumanDisposition::AssumeDone => "assume-done",
        HumanDisposition::Abandon => "abandon",
    }
}
