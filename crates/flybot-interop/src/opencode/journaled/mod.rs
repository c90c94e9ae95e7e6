//! One task's OpenCode turns under the execution journal (issue 6): each
//! room turn for Bot B becomes Bot A's request or answer envelope and goes
//! through `Journal::receive` (ingress recorded, deduped and the turn's
//! budget reserved before the inbox cursor moves); session creation,
//! `prompt_async`, the deny of an unexpected permission or question and
//! every abort are each wrapped in `begin_send` / `finish_send`; Bot B's
//! reply comes back as its own envelope through `receive`; a stop is
//! `request_cancel`, then a journaled abort, then `observe_stop` with what
//! the runtime showed. A refused request or a turn past its limit is
//! aborted the same way, without a cancel. Nothing the journal refuses
//! reaches the runtime. A task bound again over the same journal (a host
//! restart, a seat re-opened) resumes from it: its ids, its open question
//! and its one session come from the journal, never from zero.

mod cursor;
mod follow;
mod input;
mod publish;
mod recover;
mod retry;
mod stop;

pub use recover::{Reconciled, RecoveryChoice, RecoveryDone};
pub use stop::CancelStand;

use super::client::{self, OpenCodeClient};
use super::driver::{DriverSession, TurnEnd};
use super::pin::{Capability, DocCheck};
use crate::cancel::TurnKey;
use crate::envelope::{Envelope, EnvelopeKind};
use crate::journal::{
    CorrelationKey, Decision, IngressRecord, Journal, JournalError, SendObservation, SendOperation,
    TaskBinding, TransportContext,
};
use crate::projection::Observation;
use std::time::Duration;
use tokio::sync::watch;

/// Bot B's reply text kept in its envelope (the result limit is 16 KiB).
const REPLY_CHARS: usize = 8_000;

/// Who is who for one task: the authenticated transport's view, never an
/// envelope's claims.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parties {
    pub server: String,
    /// Bot A, the requester (the responsible local Bot).
    pub requester_bot: String,
    /// Bot B, the external worker.
    pub worker_bot: String,
    pub owner_binding: String,
    pub runtime_installation: String,
    /// The room, a delivery reference only.
    pub conversation_id: String,
}

/// A task's journaled connection to its one OpenCode session.
pub struct JournaledTask {
    journal: Journal,
    parties: Parties,
    task_id: String,
    client: OpenCodeClient,
    check: DocCheck,
    session: Option<DriverSession>,
    clock: fn() -> u64,
    /// Envelopes sent through the ingress (each envelope's `seq`).
    seq: u64,
    /// The turn number in event ids (`{task}-a-{n}`, `{task}-b-{n}`) and
    /// turn ids (`t{n}`).
    turns: u64,
    /// Bot A's last accepted event (Bot B's reply answers it); after a
    /// re-bind, Bot A's latest event the journal holds. Whether there is one
    /// decides whether the next line is the request or an answer.
    last_request: Option<String>,
    /// Bot B's last accepted question (Bot A's next turn answers it).
    last_question: Option<String>,
    last_observation: Option<Observation>,
    /// The inbox cursor is a position in the room's log (`follow_room_log`).
    room_cursor: bool,
    /// The room line the running turn delivers (`turn_at`).
    delivering: Option<u64>,
}

fn text_envelope(kind: EnvelopeKind, task_id: &str, event_id: String, text: String) -> Envelope {
    let mut envelope = Envelope::first(kind, event_id, task_id);
    envelope.payload.text = Some(text);
    envelope
}

fn blocked(reason: impl Into<String>) -> TurnEnd {
    TurnEnd::Blocked {
        reason: reason.into(),
    }
}

/// What a control call's result says of it: an error leaves its effect
/// unknown, never refused.
fn control_observation<T>(result: &client::Result<T>) -> SendObservation {
    match result {
        Ok(_) => SendObservation::Accepted { remote_ref: None },
        Err(_) => SendObservation::Lost,
    }
}

impl JournaledTask {
    /// Records the host's binding for `task_id` between the parties and
    /// resumes from what the journal already holds for the task (see
    /// `resume`).
    pub fn bind(
        journal: Journal,
        parties: Parties,
        task_id: &str,
        client: OpenCodeClient,
        check: DocCheck,
        clock: fn() -> u64,
    ) -> Result<JournaledTask, JournalError> {
        let mut task = JournaledTask {
            journal,
            parties,
            task_id: task_id.to_owned(),
            client,
            check,
            session: None,
            clock,
            seq: 0,
            turns: 0,
            last_request: None,
            last_question: None,
            last_observation: None,
            room_cursor: false,
            delivering: None,
        };
        let key = CorrelationKey::of(&task.a_to_b(), task_id);
        task.journal.bind(TaskBinding {
            key,
            responsible_bot: task.parties.requester_bot.clone(),
            owner_binding: task.parties.owner_binding.clone(),
            runtime_installation: task.parties.runtime_installation.clone(),
        })?;
        task.resume();
        Ok(task)
    }

    /// Picks up a task the journal already holds (#198: counters and
    /// correlations survive a restart; one task gets one dedicated session
    /// and follow-ups reuse it). The turn number continues after the
    /// highest one in the journal's event ids, so the next turn's ids are
    /// new rather than a conflict with an earlier turn's; the question
    /// still outstanding is the one the next line answers; a session whose
    /// creation was observed with its id is attached again, never created
    /// twice. A creation with no known outcome is left to `turn`, which
    /// ends `Uncertain` (the contract's `recovery: uncertain`).
    fn resume(&mut self) {
        let requester = format!("{}-a-", self.task_id);
        let worker = format!("{}-b-", self.task_id);
        let number =
            |id: &str, prefix: &str| -> Option<u64> { id.strip_prefix(prefix)?.parse().ok() };
        let mut latest_request: Option<u64> = None;
        for (sender, event_id) in self.journal.state().events.keys() {
            let n = if *sender == self.parties.requester_bot {
                let n = number(event_id, &requester);
                latest_request = latest_request.max(n);
                n
            } else if *sender == self.parties.worker_bot {
                number(event_id, &worker)
            } else {
                None
            };
            if let Some(n) = n {
                self.turns = self.turns.max(n);
            }
        }
        // Each producer's seq goes on above its last accepted one.
        self.seq = self.journal.state().highest_seq();
        let Some(exec) = self.journal.task(&self.task_id) else {
            // Never enrolled: the next line is still the request.
            return;
        };
        self.last_request = latest_request.map(|n| format!("{requester}{n}"));
        self.last_question = exec
            .outstanding
            .iter()
            .filter(|(_, kind)| **kind == EnvelopeKind::Question)
            .filter_map(|(id, _)| Some((number(id, &worker)?, id)))
            .max()
            .map(|(_, id)| id.clone());
        self.session = exec.correlation.session_id.clone().map(|session_id| {
            DriverSession::attach(self.client.clone(), self.check.clone(), session_id)
        });
    }

    /// Whether Bot A's request was made: the next turn carries an answer.
    pub fn requested(&self) -> bool {
        self.last_request.is_some()
    }

    pub fn journal(&self) -> &Journal {
        &self.journal
    }

    pub fn task_id(&self) -> &str {
        &self.task_id
    }

    /// The task's one session, once created.
    pub fn session_id(&self) -> Option<&str> {
        self.session.as_ref().map(|s| s.session_id.as_str())
    }

    /// What the last turn's end may ask of the board (the projection
    /// table's input); `None` when it asks nothing.
    pub fn last_observation(&self) -> Option<&Observation> {
        self.last_observation.as_ref()
    }

    fn a_to_b(&self) -> TransportContext {
        TransportContext {
            server: self.parties.server.clone(),
            sender_bot: self.parties.requester_bot.clone(),
            recipient_bot: self.parties.worker_bot.clone(),
            conversation_id: Some(self.parties.conversation_id.clone()),
        }
    }

    fn b_to_a(&self) -> TransportContext {
        TransportContext {
            server: self.parties.server.clone(),
            sender_bot: self.parties.worker_bot.clone(),
            recipient_bot: self.parties.requester_bot.clone(),
            conversation_id: Some(self.parties.conversation_id.clone()),
        }
    }

    /// The enrolled request's inputDigest, which every follow-up carries.
    fn enrolled_digest(&self) -> String {
        self.journal
            .task(&self.task_id)
            .and_then(|t| t.correlation.input_digest.clone())
            .unwrap_or_else(|| "0".repeat(64))
    }

    fn generation(&self) -> u64 {
        self.journal
            .task(&self.task_id)
            .map_or(0, |t| t.cancel.generation)
    }

    /// One envelope through the whole ingress; `Err` is the journal's own
    /// failure.
    fn receive(
        &mut self,
        context: &TransportContext,
        mut envelope: Envelope,
    ) -> Result<IngressRecord, String> {
        self.seq += 1;
        envelope.seq = self.seq;
        let bytes = serde_json::to_vec(&envelope).map_err(|e| e.to_string())?;
        let cursor = self.cursor_for(context);
        match self
            .journal
            .receive(context, &bytes, cursor, (self.clock)())
            .map_err(|e| e.to_string())?
        {
            Ok(record) => Ok(record),
            Err(refusal) => Err(format!("the envelope was refused: {refusal:?}")),
        }
    }

    /// Bot A's turn text as its envelope: the request first, then answers
    /// to Bot B's outstanding question.
    fn inbound(&mut self, text: &str) -> Envelope {
        self.turns += 1;
        let event_id = format!("{}-a-{}", self.task_id, self.turns);
        let turn_id = format!("t{}", self.turns);
        let generation = self.generation();
        let mut envelope = match &self.last_request {
            None => {
                let mut e = text_envelope(
                    EnvelopeKind::Request,
                    &self.task_id,
                    event_id,
                    String::new(),
                );
                (e.payload, e.input_digest) = self.request_input(text);
                e
            }
            Some(_) => {
                let mut e = text_envelope(
                    EnvelopeKind::Answer,
                    &self.task_id,
                    event_id,
                    text.to_owned(),
                );
                e.input_digest = self.enrolled_digest();
                // With no question outstanding the journal refuses it.
                e.in_reply_to = Some(
                    self.last_question
                        .clone()
                        .unwrap_or_else(|| format!("{}-no-question", self.task_id)),
                );
                e
            }
        };
        envelope.turn_id = Some(turn_id);
        envelope.generation = generation;
        envelope
    }

    /// Runs Bot B's turn on `text`, everything journaled. A reserved turn
    /// due for a retransmission (a person's `retry`, or a submission the
    /// runtime refused) is sent again instead, with its own words, under
    /// its one reservation.
    pub async fn turn(
        &mut self,
        text: &str,
        stop: &mut watch::Receiver<bool>,
        limit: Duration,
    ) -> TurnEnd {
        self.last_observation = None;
        if let Some(end) = self.uncertain_before_work() {
            return end;
        }
        match self.retransmission_due() {
            Some(Ok(due)) => {
                return self
                    .dispatch(&due.text, due.turn, due.request_event, stop, limit)
                    .await;
            }
            Some(Err(end)) => return end,
            None => {}
        }
        let envelope = self.inbound(text);
        let record = match self.receive(&self.a_to_b(), envelope) {
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
        self.dispatch(text, turn, record.event_id, stop, limit)
            .await
    }

    /// Submits the reserved `turn` with `text` to the task's one session,
    /// the intent and OpenCode's messageID journaled around the call, then
    /// follows it to its end and takes Bot B's reply through the ingress.
    async fn dispatch(
        &mut self,
        text: &str,
        turn: TurnKey,
        request_event: String,
        stop: &mut watch::Receiver<bool>,
        limit: Duration,
    ) -> TurnEnd {
        let session = match self.ensure_session().await {
            Ok(session) => session,
            Err(end) => return end,
        };
        let digest = self
            .journal
            .task(&self.task_id)
            .and_then(|t| t.turns.get(&turn).cloned());
        let now = (self.clock)();
        let send = match self.journal.begin_send(
            &self.task_id,
            SendOperation::SubmitTurn,
            Some(turn.clone()),
            digest,
            now,
        ) {
            Ok(send) => send,
            Err(e) => {
                self.session = Some(session);
                return blocked(e.to_string());
            }
        };
        let submitted = session.submit(text).await;
        let message_id = match &submitted {
            Ok(submitted) => session.submitted_message(submitted).await,
            Err(_) => None,
        };
        let observed = match &submitted {
            // OpenCode's messageID of the prompt, recorded with the submit.
            Ok(_) => SendObservation::Accepted {
                remote_ref: message_id,
            },
            Err(TurnEnd::Uncertain { .. }) => SendObservation::Lost,
            Err(other) => SendObservation::Refused {
                reason: format!("{other:?}"),
            },
        };
        if let Err(e) = self.journal.finish_send(send, observed, (self.clock)()) {
            self.session = Some(session);
            return blocked(e.to_string());
        }
        let end = match submitted {
            Ok(submitted) => {
                self.follow_to_end(&session, submitted, stop, limit, &request_event, &turn)
                    .await
            }
            Err(end) => end,
        };
        self.session = Some(session);
        self.outbound(request_event, turn, end)
    }

    /// A turn that may have run with no known outcome leaves the task
    /// uncertain: no work is dispatched until a person decides (#198,
    /// delivery and crash). `Some` is the turn's end.
    fn uncertain_before_work(&mut self) -> Option<TurnEnd> {
        if self.session.is_none() && self.journal.session_creation_unresolved(&self.task_id) {
            // #198, delivery and crash: the runtime may hold a session the
            // journal never saw created; another one is not created
            // silently, and the line opens no turn (no budget is spent on
            // work that cannot start).
            let raw_status = self
                .journal
                .task(&self.task_id)
                .and_then(|t| t.cancel.recovery.as_ref())
                .map_or_else(
                    || "no outcome recorded".to_owned(),
                    |r| r.raw_status.clone(),
                );
            self.last_observation = Some(Observation::Uncertain {
                raw_status: raw_status.clone(),
            });
            return Some(TurnEnd::Uncertain {
                detail: format!(
                    "the creation of this task's OpenCode session has no known outcome \
                     ({raw_status}), after a restart or a lost connection; a person must \
                     decide before another session is created"
                ),
            });
        }
        let exec = self.journal.task(&self.task_id)?;
        if let Some(recovery) = &exec.cancel.recovery {
            // #198: uncertain effects are not retried automatically; the
            // line opens no turn until a person decides.
            let raw_status = recovery.raw_status.clone();
            self.last_observation = Some(Observation::Uncertain {
                raw_status: raw_status.clone(),
            });
            return Some(TurnEnd::Uncertain {
                detail: format!(
                    "{raw_status}; a person decides with task-recovery-decide (retry, accept or cancel)"
                ),
            });
        }
        let retry_granted = exec.retry_granted;
        if !retry_granted
            && let Some(turn_id) = self.journal.state().reserved_without_intent(&self.task_id)
        {
            // #198, delivery and crash: a reserved turn with no send intent
            // may or may not have run; nothing is dispatched until a person
            // decides, and the line opens no other turn.
            let raw_status = format!("turn {turn_id} was reserved but no submission was recorded");
            self.last_observation = Some(Observation::Uncertain {
                raw_status: raw_status.clone(),
            });
            return Some(TurnEnd::Uncertain {
                detail: format!("{raw_status}; a person must decide before more work starts"),
            });
        }
        None
    }

    /// The task's one session: created once, its intent and its id
    /// journaled around the call.
    async fn ensure_session(&mut self) -> Result<DriverSession, TurnEnd> {
        if let Some(session) = self.session.take() {
            return Ok(session);
        }
        if let Some(reason) = self.check.blocked(Capability::Session) {
            return Err(blocked(reason));
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
        match self.client.create_session(&self.task_id).await {
            Ok(session_id) => {
                self.journal
                    .finish_send(
                        send,
                        SendObservation::Accepted {
                            remote_ref: Some(session_id.clone()),
                        },
                        (self.clock)(),
                    )
                    .map_err(|e| blocked(e.to_string()))?;
                Ok(DriverSession::attach(
                    self.client.clone(),
                    self.check.clone(),
                    session_id,
                ))
            }
            Err(e) => {
                let _ = self
                    .journal
                    .finish_send(send, SendObservation::Lost, (self.clock)());
                Err(TurnEnd::Uncertain {
                    detail: e.to_string(),
                })
            }
        }
    }

    /// Bot B's end as its own envelope through the ingress. A reply the
    /// journal does not accept (a tombstoned turn's late result, a spent
    /// budget) is never the room's answer.
    fn outbound(&mut self, request_event: String, turn: TurnKey, end: TurnEnd) -> TurnEnd {
        let (kind, text) = match &end {
            // #198: what the runtime reported decides, never the words.
            TurnEnd::Text { text, reported, .. } => reported.envelope(text),
            TurnEnd::Failed { detail } => (EnvelopeKind::Failure, detail.clone()),
            TurnEnd::Refused { permission } => (EnvelopeKind::Failure, permission.clone()),
            TurnEnd::Stopped { observed } => {
                self.last_observation = Some(if *observed {
                    Observation::AbortObserved
                } else {
                    Observation::CancelRequested
                });
                return end;
            }
            TurnEnd::Uncertain { detail } => {
                self.last_observation = Some(Observation::Uncertain {
                    raw_status: detail.clone(),
                });
                return end;
            }
            TurnEnd::Blocked { .. } => return end,
        };
        let text: String = text.chars().take(REPLY_CHARS).collect();
        let mut envelope = text_envelope(
            kind,
            &self.task_id,
            format!("{}-b-{}", self.task_id, self.turns),
            text.clone(),
        );
        envelope.turn_id = Some(turn.turn_id.clone());
        envelope.generation = turn.generation;
        envelope.in_reply_to = Some(request_event);
        envelope.input_digest = self.enrolled_digest();
        let record = match self.receive(&self.b_to_a(), envelope) {
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
            other => {
                return blocked(format!("the journal refused Bot B's reply: {other:?}"));
            }
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
