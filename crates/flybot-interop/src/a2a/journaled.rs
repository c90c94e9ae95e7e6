//! One task's A2A turns under the execution journal, the contract kept as
//! the OpenCode participant keeps it: each turn of the requester is its
//! request or answer envelope through `Journal::receive` (ingress
//! recorded, deduped, the turn's budget reserved before the cursor moves);
//! the conversation's correlation (FlyBot names the A2A context) is
//! persisted before anything is submitted; every `SendStreamingMessage`,
//! deny and cancel is wrapped in `begin_send` / `finish_send`; the agent's
//! reply comes back as its own envelope through `receive`; a stop is
//! `request_cancel`, a journaled `CancelTask`, then `observe_stop` with the
//! state the record showed. Nothing the journal refuses reaches the agent,
//! and no reply reaches `accepted`: only a person does that.

use super::driver::A2aSession;
use crate::cancel::{CancelFacet, StopEvidence, TurnKey};
use crate::envelope::input_scope::{InputScope, input_digest};
use crate::envelope::{Envelope, EnvelopeKind, Payload};
use crate::journal::{
    CorrelationKey, Decision, Journal, JournalError, SendObservation, SendOperation, TaskBinding,
    TransportContext,
};
use crate::opencode::driver::{Followed, TurnEnd, no_answer_within};
use crate::opencode::{CancelStand, Parties};
use crate::projection::Observation;
use std::time::Duration;
use tokio::sync::watch;

/// The agent's reply text kept in its envelope (the result limit is 16 KiB).
const REPLY_CHARS: usize = 8_000;

/// A task's journaled conversation with its one A2A agent.
pub struct A2aTask {
    journal: Journal,
    parties: Parties,
    task_id: String,
    session: A2aSession,
    clock: fn() -> u64,
    seq: u64,
    turns: u64,
    last_request: Option<String>,
    last_question: Option<String>,
    last_observation: Option<Observation>,
}

fn blocked(reason: impl Into<String>) -> TurnEnd {
    TurnEnd::Blocked {
        reason: reason.into(),
    }
}

impl A2aTask {
    /// Records the host's binding of `task_id` between the parties.
    pub fn bind(
        mut journal: Journal,
        parties: Parties,
        task_id: &str,
        session: A2aSession,
        clock: fn() -> u64,
    ) -> Result<A2aTask, JournalError> {
        let task = |journal: Journal| A2aTask {
            seq: journal.state().highest_seq(),
            journal,
            parties: parties.clone(),
            task_id: task_id.to_owned(),
            session,
            clock,
            turns: 0,
            last_request: None,
            last_question: None,
            last_observation: None,
        };
        let context = TransportContext {
            server: parties.server.clone(),
            sender_bot: parties.requester_bot.clone(),
            recipient_bot: parties.worker_bot.clone(),
            conversation_id: Some(parties.conversation_id.clone()),
        };
        journal.bind(TaskBinding {
            key: CorrelationKey::of(&context, task_id),
            responsible_bot: parties.requester_bot.clone(),
            owner_binding: parties.owner_binding.clone(),
            runtime_installation: parties.runtime_installation.clone(),
        })?;
        let mut task = task(journal);
        task.resume();
        Ok(task)
    }

    /// Picks up what the journal already holds for the task (a restart):
    /// the turn number goes on after the highest in its event ids, the
    /// open question is the one the next line answers, and the A2A context
    /// and task are the journaled ones, never new (one task, one session).
    fn resume(&mut self) {
        let requester = format!("{}-a-", self.task_id);
        let worker = format!("{}-b-", self.task_id);
        let number =
            |id: &str, prefix: &str| -> Option<u64> { id.strip_prefix(prefix)?.parse().ok() };
        let mut latest_request = None;
        for (_, event_id) in self.journal.state().events.keys() {
            if let Some(n) = number(event_id, &requester) {
                latest_request = latest_request.max(Some(n));
                self.turns = self.turns.max(n);
            } else if let Some(n) = number(event_id, &worker) {
                self.turns = self.turns.max(n);
            }
        }
        let Some(exec) = self.journal.task(&self.task_id) else {
            return;
        };
        self.last_request = latest_request.map(|n| format!("{requester}{n}"));
        self.last_question = exec
            .outstanding
            .iter()
            .filter(|(_, kind)| **kind == EnvelopeKind::Question)
            .filter_map(|(id, _)| Some((number(id, &worker)?, id.clone())))
            .max()
            .map(|(_, id)| id);
        if let Some(context) = exec.correlation.session_id.clone() {
            self.session.context_id = context;
        }
        let remote_task = self.journal.state().sends.values().rev().find_map(|send| {
            match (&send.operation, &send.observed) {
                (SendOperation::SubmitTurn, Some(SendObservation::Accepted { remote_ref }))
                    if send.task_id == self.task_id =>
                {
                    remote_ref.clone()
                }
                _ => None,
            }
        });
        if let Some(remote_task) = remote_task {
            self.session.resume_task(remote_task);
        }
    }

    pub fn journal(&self) -> &Journal {
        &self.journal
    }

    pub fn session(&self) -> &A2aSession {
        &self.session
    }

    /// The raw A2A states observed since the last call, taken.
    pub fn take_raw_states(&mut self) -> Vec<String> {
        self.session.take_raw_states()
    }

    /// What the last turn's end asks of the board; `None` when nothing.
    pub fn last_observation(&self) -> Option<&Observation> {
        self.last_observation.as_ref()
    }

    fn context(&self, from_requester: bool) -> TransportContext {
        let (sender, recipient) = if from_requester {
            (&self.parties.requester_bot, &self.parties.worker_bot)
        } else {
            (&self.parties.worker_bot, &self.parties.requester_bot)
        };
        TransportContext {
            server: self.parties.server.clone(),
            sender_bot: sender.clone(),
            recipient_bot: recipient.clone(),
            conversation_id: Some(self.parties.conversation_id.clone()),
        }
    }

    fn enrolled_digest(&self) -> String {
        self.journal
            .task(&self.task_id)
            .and_then(|t| t.correlation.input_digest.clone())
            .unwrap_or_else(|| "0".repeat(64))
    }

    fn receive(
        &mut self,
        from_requester: bool,
        mut envelope: Envelope,
    ) -> Result<crate::journal::IngressRecord, String> {
        self.seq += 1;
        envelope.seq = self.seq;
        let bytes = serde_json::to_vec(&envelope).map_err(|e| e.to_string())?;
        let cursor = self.journal.inbox_cursor() + 1;
        let context = self.context(from_requester);
        match self
            .journal
            .receive(&context, &bytes, cursor, (self.clock)())
            .map_err(|e| e.to_string())?
        {
            Ok(record) => Ok(record),
            Err(refusal) => Err(format!("the envelope was refused: {refusal:?}")),
        }
    }

    /// The requester's text as its envelope: the request, then answers.
    fn inbound(&mut self, text: &str) -> Envelope {
        self.turns += 1;
        let event_id = format!("{}-a-{}", self.task_id, self.turns);
        let generation = self
            .journal
            .task(&self.task_id)
            .map_or(0, |t| t.cancel.generation);
        let mut envelope = match &self.last_request {
            None => {
                let mut e = Envelope::first(EnvelopeKind::Request, event_id, &self.task_id);
                e.payload = Payload {
                    requirement: Some(text.to_owned()),
                    ..Payload::default()
                };
                let scope = InputScope {
                    recipient_bot: &self.parties.worker_bot,
                    task_id: &self.task_id,
                    budget: &self.journal.state().limits,
                };
                e.input_digest = input_digest(&e.payload, &scope).unwrap_or_else(|| "0".repeat(64));
                e
            }
            Some(_) => {
                let mut e = Envelope::first(EnvelopeKind::Answer, event_id, &self.task_id);
                e.payload.text = Some(text.to_owned());
                e.input_digest = self.enrolled_digest();
                e.in_reply_to = Some(
                    self.last_question
                        .clone()
                        .unwrap_or_else(|| format!("{}-no-question", self.task_id)),
                );
                e
            }
        };
        envelope.turn_id = Some(format!("t{}", self.turns));
        envelope.generation = generation;
        envelope
    }

    /// Runs the agent's turn on `text`, everything journaled.
    pub async fn turn(
        &mut self,
        text: &str,
        stop: &mut watch::Receiver<bool>,
        limit: Duration,
    ) -> TurnEnd {
        self.last_observation = None;
        let envelope = self.inbound(text);
        let record = match self.receive(true, envelope) {
            Ok(record) => record,
            Err(e) => return blocked(e),
        };
        if record.decision != Decision::Accepted {
            return blocked(record.decision.refusal_line());
        }
        let Some(turn) = record.turn.clone() else {
            return blocked("the turn has no key");
        };
        self.last_request = Some(record.event_id.clone());
        if *stop.borrow() {
            // #198, stop and late result: a cancel before dispatch
            // prevents every call; the enrolled turn is tombstoned.
            return self.cancel_before_dispatch();
        }
        if let Err(end) = self.ensure_correlation() {
            return end;
        }
        let digest = self
            .journal
            .task(&self.task_id)
            .and_then(|t| t.turns.get(&turn).cloned());
        let send = match self.journal.begin_send(
            &self.task_id,
            SendOperation::SubmitTurn,
            Some(turn.clone()),
            digest,
            (self.clock)(),
        ) {
            Ok(send) => send,
            Err(e) => return blocked(e.to_string()),
        };
        // The message id is FlyBot's, one per turn: A2A's candidate
        // correlation field, not an idempotency guarantee.
        let message_id = format!("{}-{}-g{}", self.task_id, turn.turn_id, turn.generation);
        let followed = self.session.follow(text, &message_id, stop, limit).await;
        let observed = match (&followed, self.session.task_id()) {
            (Followed::End(TurnEnd::Uncertain { .. }), _) => SendObservation::Lost,
            (_, Some(task)) => SendObservation::Accepted {
                remote_ref: Some(task.to_owned()),
            },
            (Followed::End(end), None) => SendObservation::Refused {
                reason: format!("{end:?}"),
            },
            (_, None) => SendObservation::Lost,
        };
        if let Err(e) = self.journal.finish_send(send, observed, (self.clock)()) {
            return blocked(e.to_string());
        }
        let end = self.settle(followed).await;
        self.outbound(record.event_id, turn, end)
    }

    fn cancel_before_dispatch(&mut self) -> TurnEnd {
        if let Err(e) = self.journal.request_cancel(&self.task_id, (self.clock)()) {
            return blocked(e.to_string());
        }
        let evidence = StopEvidence::RuntimeStopped {
            raw_status: "stopped before dispatch: nothing was sent to the agent".to_owned(),
        };
        let observed = self
            .journal
            .observe_stop(&self.task_id, evidence, (self.clock)())
            .unwrap_or(false);
        self.last_observation = Some(if observed {
            Observation::AbortObserved
        } else {
            Observation::CancelRequested
        });
        TurnEnd::Stopped { observed }
    }

    /// The conversation's correlation, persisted before the first
    /// submission. A2A has no session to create: FlyBot names the context,
    /// so the "creation" is the journaled record of that name.
    fn ensure_correlation(&mut self) -> Result<(), TurnEnd> {
        let known = self
            .journal
            .task(&self.task_id)
            .and_then(|t| t.correlation.session_id.clone());
        if known.is_some() {
            return Ok(());
        }
        let send = self
            .journal
            .begin_send(
                &self.task_id,
                SendOperation::CreateSession,
                None,
                None,
                (self.clock)(),
            )
            .map_err(|e| blocked(e.to_string()))?;
        self.journal
            .finish_send(
                send,
                SendObservation::Accepted {
                    remote_ref: Some(self.session.context_id.clone()),
                },
                (self.clock)(),
            )
            .map_err(|e| blocked(e.to_string()))
    }

    /// The remote calls a followed turn asks for, each journaled.
    async fn settle(&mut self, followed: Followed) -> TurnEnd {
        match followed {
            Followed::End(end) => end,
            Followed::StopAsked => self.stop().await,
            Followed::RequestAsked { permission, .. } => {
                // #198, capability failure: never granted, never relayed as
                // the owner's consent; the agent's task is cancelled.
                let _ = self.journaled_cancel(SendOperation::DenyRequest).await;
                TurnEnd::Refused { permission }
            }
            Followed::TimedOut { limit_secs } => {
                let _ = self.journaled_cancel(SendOperation::Abort).await;
                no_answer_within(limit_secs)
            }
            Followed::BudgetSpent { reason } => {
                let _ = self.journaled_cancel(SendOperation::Abort).await;
                TurnEnd::Failed { detail: reason }
            }
        }
    }

    /// `CancelTask` wrapped in its intent and outcome; `Ok(raw)` once the
    /// record showed the task canceled.
    async fn journaled_cancel(&mut self, operation: SendOperation) -> Result<String, String> {
        let send = self
            .journal
            .begin_send(&self.task_id, operation, None, None, (self.clock)())
            .map_err(|e| e.to_string())?;
        let observed = self.session.cancel_observed().await;
        let outcome = match &observed {
            Ok(raw) => SendObservation::Accepted {
                remote_ref: Some(raw.clone()),
            },
            Err(reason) => SendObservation::Refused {
                reason: reason.clone(),
            },
        };
        self.journal
            .finish_send(send, outcome, (self.clock)())
            .map_err(|e| e.to_string())?;
        observed
    }

    /// The person's stop: the generation grows and the turn is tombstoned
    /// first, then the agent is asked to cancel; `observed` only once its
    /// record shows the task canceled.
    pub async fn stop(&mut self) -> TurnEnd {
        if let Err(e) = self.journal.request_cancel(&self.task_id, (self.clock)()) {
            return blocked(e.to_string());
        }
        self.last_observation = Some(Observation::CancelRequested);
        let evidence = match self.journaled_cancel(SendOperation::Abort).await {
            Ok(raw) => StopEvidence::RuntimeStopped { raw_status: raw },
            Err(_) => return TurnEnd::Stopped { observed: false },
        };
        let observed = self
            .journal
            .observe_stop(&self.task_id, evidence, (self.clock)())
            .unwrap_or(false);
        if observed {
            self.last_observation = Some(Observation::AbortObserved);
        }
        TurnEnd::Stopped { observed }
    }

    /// Where this task's cancel stands in the journal.
    pub fn cancel_stand(&self) -> Option<CancelStand> {
        match self.journal.task(&self.task_id)?.cancel.cancel {
            Some(CancelFacet::Observed { .. }) => Some(CancelStand::Observed),
            Some(CancelFacet::Requested { .. }) => Some(CancelStand::Requested),
            None => None,
        }
    }

    /// The card was cancelled while no turn runs: requested once, then
    /// `CancelTask` and the record, tried again while only requested.
    pub async fn cancel(&mut self) -> CancelStand {
        if self.cancel_stand().is_none() {
            let _ = self.journal.request_cancel(&self.task_id, (self.clock)());
        }
        if self.cancel_stand() == Some(CancelStand::Observed) {
            return CancelStand::Observed;
        }
        let evidence = if self.session.task_id().is_none() {
            // The agent never named a task: nothing runs there to stop.
            StopEvidence::RuntimeStopped {
                raw_status: "no A2A task was started for this task".to_owned(),
            }
        } else {
            match self.journaled_cancel(SendOperation::Abort).await {
                Ok(raw) => StopEvidence::RuntimeStopped { raw_status: raw },
                Err(_) => return CancelStand::Requested,
            }
        };
        let _ = self
            .journal
            .observe_stop(&self.task_id, evidence, (self.clock)());
        self.cancel_stand().unwrap_or(CancelStand::Requested)
    }

    /// The agent's end as its own envelope through the ingress.
    fn outbound(&mut self, request_event: String, turn: TurnKey, end: TurnEnd) -> TurnEnd {
        let (kind, text) = match &end {
            TurnEnd::Text { text, reported, .. } => reported.envelope(text),
            TurnEnd::Failed { detail } => (EnvelopeKind::Failure, detail.clone()),
            TurnEnd::Refused { permission } => (EnvelopeKind::Failure, permission.clone()),
            TurnEnd::Stopped { .. } | TurnEnd::Blocked { .. } => return end,
            TurnEnd::Uncertain { detail } => {
                self.last_observation = Some(Observation::Uncertain {
                    raw_status: detail.clone(),
                });
                return end;
            }
        };
        let text: String = text.chars().take(REPLY_CHARS).collect();
        let mut envelope = Envelope::first(
            kind,
            format!("{}-b-{}", self.task_id, self.turns),
            &self.task_id,
        );
        envelope.payload.text = Some(text.clone());
        envelope.turn_id = Some(turn.turn_id.clone());
        envelope.generation = turn.generation;
        envelope.in_reply_to = Some(request_event);
        envelope.input_digest = self.enrolled_digest();
        let record = match self.receive(false, envelope) {
            Ok(record) => record,
            Err(e) => return blocked(e),
        };
        match record.decision {
            Decision::Accepted => {}
            Decision::Diagnostic => {
                return TurnEnd::Failed {
                    detail: "a late reply of a stopped turn, kept as diagnostic evidence only"
                        .to_owned(),
                };
            }
            other => return blocked(format!("the journal refused the agent's reply: {other:?}")),
        }
        self.last_observation = Some(match (&end, kind) {
            (_, EnvelopeKind::Question) => {
                self.last_question = Some(record.event_id.clone());
                Observation::WaitingForInput {
                    question_id: record.event_id,
                }
            }
            (TurnEnd::Refused { permission }, _) => Observation::UnexpectedPermission {
                permission: permission.clone(),
            },
            (_, EnvelopeKind::Failure) => Observation::KnownFailure { evidence: text },
            _ => Observation::ValidResult { summary: text },
        });
        end
    }
}
