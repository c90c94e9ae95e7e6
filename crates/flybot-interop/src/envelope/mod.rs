//! Envelope v1: the exact fields of the contract's field table, one closed
//! enum of allow-listed kinds, and the checked form a participant receives.
//! Every field is an untrusted claim until the journal and the
//! authenticated transport context confirm it.

mod check;
pub mod input_scope;
pub mod limits;
mod refusal;
pub mod rules;

pub use check::{CheckedEnvelope, check_bytes, check_value};
pub use refusal::{Refusal, RefusalCode};

use serde::{Deserialize, Serialize};

/// The only version this codec reads or writes.
pub const VERSION: u64 = 1;

/// The top-level field names of envelope v1, in the table's order.
pub const FIELDS: [&str; 11] = [
    "version",
    "kind",
    "eventId",
    "taskId",
    "turnId",
    "inReplyTo",
    "generation",
    "seq",
    "inputVersion",
    "inputDigest",
    "payload",
];

/// The allow-listed kinds. Anything else never executes.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::EnumIter,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum EnvelopeKind {
    Request,
    Question,
    Answer,
    Progress,
    Result,
    Failure,
    Cancel,
    CancelObserved,
}

impl EnvelopeKind {
    /// The kind's wire spelling (the same words serde writes).
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    pub fn parse(text: &str) -> Option<EnvelopeKind> {
        text.parse().ok()
    }

    /// Cancel and its observation travel on the separate control channel,
    /// which stays usable after the work budget is spent.
    pub fn is_control(self) -> bool {
        match self {
            EnvelopeKind::Cancel | EnvelopeKind::CancelObserved => true,
            EnvelopeKind::Request
            | EnvelopeKind::Question
            | EnvelopeKind::Answer
            | EnvelopeKind::Progress
            | EnvelopeKind::Result
            | EnvelopeKind::Failure => false,
        }
    }
}

/// One envelope v1. Optional fields are absent, never `null`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Envelope {
    /// Exactly 1.
    pub version: u64,
    pub kind: EnvelopeKind,
    /// Opaque, stable, unique per producer.
    pub event_id: String,
    /// The FlyBot host's task id; accepted only with a matching binding.
    pub task_id: String,
    /// The work turn this event belongs to (each new work turn has one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    /// Required for answers and turn responses: an outstanding event of the
    /// same task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_reply_to: Option<String>,
    /// The host-owned cancellation generation.
    pub generation: u64,
    /// The producer-local sequence; producers have separate spaces.
    pub seq: u64,
    /// Binds the exact canonical request inputs (starts at 1).
    pub input_version: u64,
    /// SHA-256 hex of the canonical task input bound to its recipient, task
    /// and budget (`input_scope::input_digest`).
    pub input_digest: String,
    pub payload: Payload,
}

impl Envelope {
    /// The first envelope of a producer for `task_id`: version 1, generation
    /// 0, sequence 1, input version 1 with a zero digest, no turn, answering
    /// nothing, an empty payload. Callers set what differs; the one place
    /// an envelope is built field by field.
    pub fn first(
        kind: EnvelopeKind,
        event_id: impl Into<String>,
        task_id: impl Into<String>,
    ) -> Envelope {
        Envelope {
            version: 1,
            kind,
            event_id: event_id.into(),
            task_id: task_id.into(),
            turn_id: None,
            in_reply_to: None,
            generation: 0,
            seq: 1,
            input_version: 1,
            input_digest: "0".repeat(64),
            payload: Payload::default(),
        }
    }
}

/// Explicitly selected text only: no paths, credentials, private history or
/// implicit attachments. Which fields a kind carries is in `rules`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Payload {
    /// A request's requirement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requirement: Option<String>,
    /// A request's acceptance criteria.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub criteria: Vec<String>,
    /// Excerpts a request shares, or the evidence a result cites.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub excerpts: Vec<Excerpt>,
    /// The question, answer, progress note, result or failure text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// One selected excerpt: its id and its content (a result may cite by id
/// with the content it relied on).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Excerpt {
    pub id: String,
    pub content: String,
}

/// The shared task input a request binds: what `inputDigest` covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskInput<'a> {
    pub requirement: &'a str,
    pub criteria: &'a [String],
    pub excerpts: &'a [Excerpt],
}

impl Payload {
    /// The task input of a request payload (`None` without a requirement).
    pub fn task_input(&self) -> Option<TaskInput<'_>> {
        Some(TaskInput {
            requirement: self.requirement.as_deref()?,
            criteria: &self.criteria,
            excerpts: &self.excerpts,
        })
    }
}
