//! The journal's records, one JSON line each. A record is the unit of
//! atomicity: an ingress record carries the validated event's identity,
//! the dedupe decision, the correlation and the budget reservation
//! together. Records hold ids, digests and selected task data only, never
//! prompts or secrets.

use crate::budgets::{Charge, Usage};
use crate::cancel::{HumanDisposition, StopEvidence, TurnKey};
use crate::envelope::EnvelopeKind;
use serde::{Deserialize, Serialize};

/// Who the authenticated transport says sent an event; never the
/// envelope's own claims.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TransportContext {
    pub server: String,
    pub sender_bot: String,
    pub recipient_bot: String,
    /// A delivery reference only: a new conversation is not a new task.
    pub conversation_id: Option<String>,
}

/// (transport server, sender Bot, recipient Bot, taskId).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CorrelationKey {
    pub server: String,
    pub sender_bot: String,
    pub recipient_bot: String,
    pub task_id: String,
}

impl CorrelationKey {
    pub fn of(context: &TransportContext, task_id: &str) -> CorrelationKey {
        CorrelationKey {
            server: context.server.clone(),
            sender_bot: context.sender_bot.clone(),
            recipient_bot: context.recipient_bot.clone(),
            task_id: task_id.to_owned(),
        }
    }
}

/// → (responsible local Bot, owner binding, runtime installation,
/// session id).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Correlation {
    pub responsible_bot: String,
    pub owner_binding: String,
    pub runtime_installation: String,
    /// The task's one dedicated runtime session, once created.
    pub session_id: Option<String>,
    /// The enrolled request's inputDigest: every content follow-up of the
    /// task carries it (absent in a journal written before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_digest: Option<String>,
}

/// The host's pre-established local binding a request must match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskBinding {
    pub key: CorrelationKey,
    pub responsible_bot: String,
    pub owner_binding: String,
    pub runtime_installation: String,
}

/// Why an event starts no work.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "reason")]
pub enum RefusedBecause {
    /// No host binding for this task and these parties.
    Unbound,
    /// The task is known under other parties (sender, recipient, server).
    WrongParties,
    /// A request for a task already enrolled.
    AlreadyEnrolled,
    /// The request's inputDigest is not its task input bound to this
    /// recipient, task and budget, or a follow-up's is not the enrolled one.
    InputDigest,
    /// The generation is not the host's current one.
    StaleGeneration,
    /// `inReplyTo` names no outstanding event of this task.
    NotOutstanding,
    /// The event names a turn other than the task's active one.
    NotActiveTurn,
    /// The task's cancel was requested: no new work.
    Cancelled,
    /// The task's recovery is uncertain: no dispatch until disposed of.
    Uncertain,
    Budget {
        limit: crate::budgets::BudgetRefusal,
    },
    /// The event's `seq` is not above the last one its producer's accepted
    /// events carried (#198: each producer's own sequence space): a replay
    /// or an out-of-order event.
    SeqNotIncreasing { last: u64 },
}

/// The dedupe decision recorded with the event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "decision")]
pub enum Decision {
    /// New and valid: its effects apply.
    Accepted,
    /// Seen before with the same digest (or the same turn key and digest):
    /// no second dispatch.
    Duplicate,
    /// The same eventId or work-turn key with other content: never a new
    /// execution.
    Conflict,
    /// A late event of a tombstoned turn, kept as diagnostic evidence.
    Diagnostic,
    Refused(RefusedBecause),
}

impl Decision {
    /// The line a turn ends with when the journal starts no work for it.
    pub fn refusal_line(&self) -> String {
        format!("the journal starts no work for this line: {self}.")
    }
}

/// Whether a blocked turn's `reason` is the journal refusing a line of a
/// cancelled task (a person stopped the card's work).
pub fn refused_as_cancelled(reason: &str) -> bool {
    reason == Decision::Refused(RefusedBecause::Cancelled).refusal_line()
}

/// What a person reads of a decision, after "the journal starts no work
/// for this line: " in the room.
impl std::fmt::Display for Decision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Decision::Accepted => f.write_str("it was accepted"),
            Decision::Duplicate => f.write_str("it was received already"),
            Decision::Conflict => {
                f.write_str("an earlier line used its id or its turn with other content")
            }
            Decision::Diagnostic => f.write_str("it belongs to a turn that was stopped"),
            Decision::Refused(why) => why.fmt(f),
        }
    }
}

impl std::fmt::Display for RefusedBecause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RefusedBecause::Unbound => f.write_str("no card binds this task to these Bots"),
            RefusedBecause::WrongParties => f.write_str("the task belongs to other Bots"),
            RefusedBecause::AlreadyEnrolled => f.write_str("the task was requested already"),
            RefusedBecause::InputDigest => {
                f.write_str("its input is not the one the request was made from")
            }
            RefusedBecause::StaleGeneration => {
                f.write_str("it is from before the task's last cancel or restart")
            }
            RefusedBecause::NotOutstanding => {
                f.write_str("nothing of this task is waiting for an answer")
            }
            RefusedBecause::NotActiveTurn => {
                f.write_str("it names a turn other than the task's current one")
            }
            RefusedBecause::Cancelled => f.write_str("the task was cancelled"),
            RefusedBecause::Uncertain => f.write_str(
                "the task's last turn is uncertain; decide it first (retry it, accept what OpenCode shows, or cancel)",
            ),
            RefusedBecause::Budget { limit } => limit.fmt(f),
            RefusedBecause::SeqNotIncreasing { last } => {
                write!(f, "its sequence number is not above {last}, the last one accepted")
            }
        }
    }
}

/// One validated ingress event and everything decided about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IngressRecord {
    /// The inbox position after this event.
    pub cursor: u64,
    pub context: TransportContext,
    pub event_id: String,
    pub task_id: String,
    pub kind: EnvelopeKind,
    pub in_reply_to: Option<String>,
    /// The envelope's canonical digest.
    pub digest: String,
    pub decision: Decision,
    /// Set when this event enrolled the task.
    pub correlation: Option<Correlation>,
    /// The work-turn key this event opens or answers in.
    pub turn: Option<TurnKey>,
    /// The content digest recorded with a work-turn key this event opens
    /// (see `turn_content_digest`).
    pub turn_digest: Option<String>,
    /// The budget charge reserved by this event.
    pub reservation: Option<Charge>,
    pub at_ms: u64,
    /// The selected text the event carries: what a work turn submits (the
    /// request's requirement or the answer's text), kept so a
    /// retransmission sends the same words under the same reservation, or
    /// Bot B's question or result, kept so its publication onto the card
    /// survives a crash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_text: Option<String>,
    /// The envelope's producer-local sequence number (0 in journals
    /// written before it was kept).
    #[serde(default)]
    pub seq: u64,
}

/// What a remote call is about to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SendOperation {
    CreateSession,
    SubmitTurn,
    Abort,
    /// The reply that rejects a permission or question the runtime asked
    /// and the policy does not allow (#198, capability failure).
    DenyRequest,
    PublishResult,
    DeliverMessage,
}

/// What was observed of a remote call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "observed")]
pub enum SendObservation {
    /// The remote side took it; `remoteRef` is a session or message id.
    Accepted {
        #[serde(rename = "remoteRef")]
        remote_ref: Option<String>,
    },
    /// The remote side refused it: it did not happen.
    Refused { reason: String },
    /// No answer in time: it may or may not have happened.
    Timeout,
    /// The connection broke mid-call: it may or may not have happened.
    Lost,
}

impl SendObservation {
    /// Whether the call's effect is unknown.
    pub fn is_ambiguous(&self) -> bool {
        match self {
            SendObservation::Accepted { .. } | SendObservation::Refused { .. } => false,
            SendObservation::Timeout | SendObservation::Lost => true,
        }
    }
}

/// What reconciliation against the runtime's history found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "found")]
pub enum Reconciliation {
    /// Exactly one remote item matches the recorded intent.
    Matched {
        #[serde(rename = "remoteRef")]
        remote_ref: String,
    },
    /// Nothing or several things match: a person decides.
    Unmatched { raw_status: String },
}

/// One journal line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "type")]
pub enum Record {
    /// The host's binding for a task this side may accept.
    Bound(TaskBinding),
    Ingress(Box<IngressRecord>),
    /// Persisted before a remote call.
    SendIntent {
        #[serde(rename = "sendId")]
        send_id: u64,
        #[serde(rename = "taskId")]
        task_id: String,
        operation: SendOperation,
        turn: Option<TurnKey>,
        digest: Option<String>,
        #[serde(rename = "atMs")]
        at_ms: u64,
    },
    /// Persisted after it, with what was observed.
    SendOutcome {
        #[serde(rename = "sendId")]
        send_id: u64,
        observed: SendObservation,
        #[serde(rename = "atMs")]
        at_ms: u64,
    },
    Reconciled {
        #[serde(rename = "sendId")]
        send_id: u64,
        found: Reconciliation,
        #[serde(rename = "atMs")]
        at_ms: u64,
    },
    /// A retransmission of the task's reserved turn (#198: "retransmission
    /// uses the same turn reservation and a bounded retry counter"): one
    /// more submission of that turn, charged to its retry counter, never a
    /// new turn.
    Retried {
        #[serde(rename = "taskId")]
        task_id: String,
        turn: TurnKey,
        #[serde(rename = "atMs")]
        at_ms: u64,
    },
    CancelRequested {
        #[serde(rename = "taskId")]
        task_id: String,
        #[serde(rename = "atMs")]
        at_ms: u64,
    },
    StopObserved {
        #[serde(rename = "taskId")]
        task_id: String,
        evidence: StopEvidence,
        #[serde(rename = "atMs")]
        at_ms: u64,
    },
    Disposed {
        #[serde(rename = "taskId")]
        task_id: String,
        disposition: HumanDisposition,
        by: String,
        #[serde(rename = "atMs")]
        at_ms: u64,
    },
    UsageObserved {
        #[serde(rename = "taskId")]
        task_id: String,
        usage: Usage,
    },
    /// The host ended the task (accepted, cancelled or failed): its
    /// concurrent slot frees, its counters stay.
    Closed {
        #[serde(rename = "taskId")]
        task_id: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budgets::BudgetRefusal;

    #[test]
    /// Rule #198.
    fn a_refusal_reads_as_a_sentence_in_the_room() {
        let refused = |why| Decision::Refused(why).to_string();
        assert_eq!(
            refused(RefusedBecause::NotOutstanding),
            "nothing of this task is waiting for an answer"
        );
        assert_eq!(
            refused(RefusedBecause::Budget {
                limit: BudgetRefusal::Deadline
            }),
            "this task passed its budget's deadline"
        );
        assert_eq!(
            refused(RefusedBecause::SeqNotIncreasing { last: 7 }),
            "its sequence number is not above 7, the last one accepted"
        );
    }
}
