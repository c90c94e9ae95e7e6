//! The ingress decision, a pure function of the journal's state, the
//! authenticated transport context, the checked envelope and the time:
//! dedupe, binding and parties, generation and tombstones, reply
//! references, the work-turn key and the budget charge. Its result is
//! written as one record before anything acts on it.

use super::records::{
    Correlation, CorrelationKey, Decision, IngressRecord, RefusedBecause, TransportContext,
};
use super::state::{JournalState, TaskExec};
use crate::budgets::{self, BudgetLimits, Charge};
use crate::cancel::{Admission, TurnKey};
use crate::digest::digest_of;
use crate::envelope::input_scope::{InputScope, input_digest};
use crate::envelope::{CheckedEnvelope, Envelope, EnvelopeKind};
use serde::Serialize;

/// Which side of the task sends a kind: the requester (who owns the task)
/// or the responder (the Bot doing the work).
pub fn sent_by_requester(kind: EnvelopeKind) -> bool {
    match kind {
        EnvelopeKind::Request | EnvelopeKind::Answer | EnvelopeKind::Cancel => true,
        EnvelopeKind::Question
        | EnvelopeKind::Progress
        | EnvelopeKind::Result
        | EnvelopeKind::Failure
        | EnvelopeKind::CancelObserved => false,
    }
}

/// The content a work-turn key binds: everything but the per-delivery
/// identity (eventId, seq), so a retransmission of the same turn matches
/// and an edited one conflicts.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TurnContent<'a> {
    kind: EnvelopeKind,
    in_reply_to: Option<&'a str>,
    input_version: u64,
    input_digest: &'a str,
    payload: &'a crate::envelope::Payload,
}

/// The digest a work-turn key is recorded with.
pub fn turn_content_digest(envelope: &Envelope) -> String {
    digest_of(&TurnContent {
        kind: envelope.kind,
        in_reply_to: envelope.in_reply_to.as_deref(),
        input_version: envelope.input_version,
        input_digest: &envelope.input_digest,
        payload: &envelope.payload,
    })
    .unwrap_or_default()
}

pub fn decide(
    state: &JournalState,
    context: &TransportContext,
    checked: &CheckedEnvelope,
    cursor: u64,
    now_ms: u64,
) -> IngressRecord {
    let envelope = &checked.envelope;
    let mut record = IngressRecord {
        cursor,
        context: context.clone(),
        event_id: envelope.event_id.clone(),
        task_id: envelope.task_id.clone(),
        kind: envelope.kind,
        in_reply_to: envelope.in_reply_to.clone(),
        digest: checked.digest.clone(),
        decision: Decision::Accepted,
        correlation: None,
        turn: envelope.turn_id.as_ref().map(|turn_id| TurnKey {
            task_id: envelope.task_id.clone(),
            generation: envelope.generation,
            turn_id: turn_id.clone(),
        }),
        turn_digest: match envelope.kind {
            EnvelopeKind::Request | EnvelopeKind::Answer => Some(turn_content_digest(envelope)),
            EnvelopeKind::Question
            | EnvelopeKind::Progress
            | EnvelopeKind::Result
            | EnvelopeKind::Failure
            | EnvelopeKind::Cancel
            | EnvelopeKind::CancelObserved => None,
        },
        reservation: None,
        at_ms: now_ms,
        turn_text: match envelope.kind {
            EnvelopeKind::Request => envelope.payload.requirement.clone(),
            EnvelopeKind::Answer | EnvelopeKind::Question | EnvelopeKind::Result => {
                envelope.payload.text.clone()
            }
            EnvelopeKind::Progress
            | EnvelopeKind::Failure
            | EnvelopeKind::Cancel
            | EnvelopeKind::CancelObserved => None,
        },
        seq: envelope.seq,
    };
    let seen = state
        .events
        .get(&(context.sender_bot.clone(), envelope.event_id.clone()));
    if let Some(digest) = seen {
        record.decision = if *digest == checked.digest {
            Decision::Duplicate
        } else {
            Decision::Conflict
        };
        return record;
    }
    // #198: each producer's seq strictly increases; a replayed or
    // out-of-order one changes nothing.
    let last = state
        .producer_seqs
        .get(&context.sender_bot)
        .copied()
        .unwrap_or(0);
    if envelope.seq <= last {
        record.decision = refused(RefusedBecause::SeqNotIncreasing { last });
        return record;
    }
    let outcome = match envelope.kind {
        EnvelopeKind::Request => enroll(state, context, envelope, now_ms),
        EnvelopeKind::Question
        | EnvelopeKind::Answer
        | EnvelopeKind::Progress
        | EnvelopeKind::Result
        | EnvelopeKind::Failure
        | EnvelopeKind::Cancel
        | EnvelopeKind::CancelObserved => follow_up(state, context, envelope, now_ms),
    };
    match outcome {
        Ok((correlation, charge)) => {
            record.correlation = correlation;
            record.reservation = charge;
        }
        Err(decision) => record.decision = decision,
    }
    record
}

type Decided = Result<(Option<Correlation>, Option<Charge>), Decision>;

fn refused(because: RefusedBecause) -> Decision {
    Decision::Refused(because)
}

/// A request enrolls a task only with the host's matching binding, at
/// generation 0, within the concurrent-task budget.
fn enroll(
    state: &JournalState,
    context: &TransportContext,
    envelope: &Envelope,
    now_ms: u64,
) -> Decided {
    let key = CorrelationKey::of(context, &envelope.task_id);
    if let Some(task) = state.tasks.get(&envelope.task_id) {
        let turn = TurnKey {
            task_id: envelope.task_id.clone(),
            generation: envelope.generation,
            turn_id: envelope.turn_id.clone().unwrap_or_default(),
        };
        return Err(match task.turns.get(&turn) {
            Some(digest) if *digest == turn_content_digest(envelope) => Decision::Duplicate,
            Some(_) => Decision::Conflict,
            None => refused(RefusedBecause::AlreadyEnrolled),
        });
    }
    let Some(binding) = state.bindings.get(&key) else {
        let elsewhere = state.bindings.keys().any(|k| k.task_id == envelope.task_id);
        return Err(refused(if elsewhere {
            RefusedBecause::WrongParties
        } else {
            RefusedBecause::Unbound
        }));
    };
    if envelope.generation != 0 {
        return Err(refused(RefusedBecause::StaleGeneration));
    }
    // The digest binds the input to this recipient, this task and this
    // journal's budget (the contract's inputDigest), recomputed here from
    // the authenticated context, never taken on the sender's word.
    let scope = InputScope {
        recipient_bot: &context.recipient_bot,
        task_id: &envelope.task_id,
        budget: &state.limits,
    };
    if input_digest(&envelope.payload, &scope).as_deref() != Some(envelope.input_digest.as_str()) {
        return Err(refused(RefusedBecause::InputDigest));
    }
    budgets::enroll(&state.limits, state.active_tasks(), now_ms)
        .map_err(|limit| refused(RefusedBecause::Budget { limit }))?;
    let turn_id = envelope.turn_id.clone().unwrap_or_default();
    Ok((
        Some(Correlation {
            responsible_bot: binding.responsible_bot.clone(),
            owner_binding: binding.owner_binding.clone(),
            runtime_installation: binding.runtime_installation.clone(),
            session_id: None,
            input_digest: Some(envelope.input_digest.clone()),
        }),
        Some(Charge::Turn { turn_id }),
    ))
}

fn follow_up(
    state: &JournalState,
    context: &TransportContext,
    envelope: &Envelope,
    now_ms: u64,
) -> Decided {
    let Some(task) = state.tasks.get(&envelope.task_id) else {
        return Err(refused(RefusedBecause::Unbound));
    };
    if !parties_match(task, context, envelope.kind) {
        return Err(refused(RefusedBecause::WrongParties));
    }
    if !carries_enrolled_input(task, envelope) {
        return Err(refused(RefusedBecause::InputDigest));
    }
    let key = TurnKey {
        task_id: envelope.task_id.clone(),
        generation: envelope.generation,
        turn_id: envelope.turn_id.clone().unwrap_or_default(),
    };
    match envelope.kind {
        EnvelopeKind::Cancel => {
            if envelope.generation != task.cancel.generation {
                return Err(refused(RefusedBecause::StaleGeneration));
            }
            return charge(&state.limits, task, Charge::Control, now_ms);
        }
        EnvelopeKind::CancelObserved => {
            if envelope.generation != task.cancel.generation {
                return Err(refused(RefusedBecause::StaleGeneration));
            }
            outstanding(task, envelope, &[EnvelopeKind::Cancel])?;
            return charge(&state.limits, task, Charge::Control, now_ms);
        }
        EnvelopeKind::Request
        | EnvelopeKind::Question
        | EnvelopeKind::Answer
        | EnvelopeKind::Progress
        | EnvelopeKind::Result
        | EnvelopeKind::Failure => {}
    }
    match task.cancel.admit(&key) {
        Admission::Current => {}
        Admission::Tombstoned => return Err(Decision::Diagnostic),
        Admission::StaleGeneration => return Err(refused(RefusedBecause::StaleGeneration)),
    }
    match envelope.kind {
        EnvelopeKind::Answer => {
            if task.cancel.cancel.is_some() {
                return Err(refused(RefusedBecause::Cancelled));
            }
            if let Some(digest) = task.turns.get(&key) {
                return Err(if *digest == turn_content_digest(envelope) {
                    Decision::Duplicate
                } else {
                    Decision::Conflict
                });
            }
            outstanding(task, envelope, &[EnvelopeKind::Question])?;
            charge(
                &state.limits,
                task,
                Charge::Turn {
                    turn_id: key.turn_id,
                },
                now_ms,
            )
        }
        EnvelopeKind::Question | EnvelopeKind::Result | EnvelopeKind::Failure => {
            active(task, &key)?;
            outstanding(
                task,
                envelope,
                &[EnvelopeKind::Request, EnvelopeKind::Answer],
            )?;
            charge(&state.limits, task, Charge::Content, now_ms)
        }
        EnvelopeKind::Progress => {
            active(task, &key)?;
            if envelope.in_reply_to.is_some() {
                outstanding(
                    task,
                    envelope,
                    &[EnvelopeKind::Request, EnvelopeKind::Answer],
                )?;
            }
            charge(&state.limits, task, Charge::Progress, now_ms)
        }
        EnvelopeKind::Request | EnvelopeKind::Cancel | EnvelopeKind::CancelObserved => {
            Err(refused(RefusedBecause::AlreadyEnrolled))
        }
    }
}

/// A content follow-up carries the enrolled input's digest; control
/// messages (cancel, cancel-observed) stay possible whatever they carry.
fn carries_enrolled_input(task: &TaskExec, envelope: &Envelope) -> bool {
    let control = matches!(
        envelope.kind,
        EnvelopeKind::Cancel | EnvelopeKind::CancelObserved
    );
    match &task.correlation.input_digest {
        Some(enrolled) => control || *enrolled == envelope.input_digest,
        None => true,
    }
}

fn parties_match(task: &TaskExec, context: &TransportContext, kind: EnvelopeKind) -> bool {
    let key = &task.key;
    if context.server != key.server {
        return false;
    }
    if sent_by_requester(kind) {
        context.sender_bot == key.sender_bot && context.recipient_bot == key.recipient_bot
    } else {
        context.sender_bot == key.recipient_bot && context.recipient_bot == key.sender_bot
    }
}

fn active(task: &TaskExec, key: &TurnKey) -> Result<(), Decision> {
    if task.active_turn.as_deref() == Some(key.turn_id.as_str()) {
        Ok(())
    } else {
        Err(refused(RefusedBecause::NotActiveTurn))
    }
}

fn outstanding(
    task: &TaskExec,
    envelope: &Envelope,
    kinds: &[EnvelopeKind],
) -> Result<(), Decision> {
    let target = envelope.in_reply_to.as_deref().unwrap_or_default();
    match task.outstanding.get(target) {
        Some(kind) if kinds.contains(kind) => Ok(()),
        Some(_) | None => Err(refused(RefusedBecause::NotOutstanding)),
    }
}

fn charge(limits: &BudgetLimits, task: &TaskExec, charge: Charge, now_ms: u64) -> Decided {
    task.budget
        .check(limits, &charge, now_ms)
        .map_err(|limit| refused(RefusedBecause::Budget { limit }))?;
    Ok((None, Some(charge)))
}
