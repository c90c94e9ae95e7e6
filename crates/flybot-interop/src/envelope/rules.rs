//! The field table's rules, per kind: which ids and payload fields a kind
//! carries, id shape, conflicting ids, the input digest binding and the
//! task input, result and progress limits.

use super::limits::{ID_MAX_BYTES, PROGRESS_MAX_CHARS, RESULT_MAX_BYTES, TASK_INPUT_MAX_BYTES};
use super::refusal::{Refusal, RefusalCode};
use super::{Envelope, EnvelopeKind, Payload};
use crate::canonical::{MAX_SAFE_INTEGER, canonical_bytes};
use crate::digest::is_digest;
use std::collections::BTreeMap;

/// Whether a field must, may or must not be present for a kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    Required,
    Optional,
    Forbidden,
}

/// The rule row of one kind.
#[derive(Debug, Clone, Copy)]
pub struct KindRule {
    pub turn_id: Presence,
    pub in_reply_to: Presence,
    pub requirement: Presence,
    pub text: Presence,
    pub excerpts: Presence,
}

/// The per-kind table. A request opens a turn and gets no reply reference;
/// answers and turn responses (question, result, failure) must reply to an
/// outstanding event; cancel is control and may name no turn.
pub fn rule(kind: EnvelopeKind) -> KindRule {
    use Presence::{Forbidden, Optional, Required};
    let row = |turn_id, in_reply_to, requirement, text, excerpts| KindRule {
        turn_id,
        in_reply_to,
        requirement,
        text,
        excerpts,
    };
    match kind {
        EnvelopeKind::Request => row(Required, Forbidden, Required, Forbidden, Optional),
        EnvelopeKind::Question => row(Required, Required, Forbidden, Required, Forbidden),
        EnvelopeKind::Answer => row(Required, Required, Forbidden, Required, Forbidden),
        EnvelopeKind::Progress => row(Required, Optional, Forbidden, Required, Forbidden),
        EnvelopeKind::Result => row(Required, Required, Forbidden, Required, Optional),
        EnvelopeKind::Failure => row(Required, Required, Forbidden, Required, Forbidden),
        EnvelopeKind::Cancel => row(Optional, Forbidden, Forbidden, Optional, Forbidden),
        EnvelopeKind::CancelObserved => row(Optional, Required, Forbidden, Optional, Forbidden),
    }
}

pub(super) fn check(envelope: &Envelope) -> Result<(), Refusal> {
    let rule = rule(envelope.kind);
    let kind = envelope.kind.as_str();
    id("eventId", Some(&envelope.event_id))?;
    id("taskId", Some(&envelope.task_id))?;
    id("turnId", envelope.turn_id.as_deref())?;
    id("inReplyTo", envelope.in_reply_to.as_deref())?;
    presence(kind, "turnId", envelope.turn_id.is_some(), rule.turn_id)?;
    presence(
        kind,
        "inReplyTo",
        envelope.in_reply_to.is_some(),
        rule.in_reply_to,
    )?;
    let payload = &envelope.payload;
    presence(
        kind,
        "payload.requirement",
        payload.requirement.is_some(),
        rule.requirement,
    )?;
    if !payload.criteria.is_empty() && rule.requirement == Presence::Forbidden {
        presence(kind, "payload.criteria", true, Presence::Forbidden)?;
    }
    presence(kind, "payload.text", payload.text.is_some(), rule.text)?;
    presence(
        kind,
        "payload.excerpts",
        !payload.excerpts.is_empty(),
        rule.excerpts,
    )?;
    for (field, value) in [
        ("generation", envelope.generation),
        ("seq", envelope.seq),
        ("inputVersion", envelope.input_version),
    ] {
        if value > MAX_SAFE_INTEGER {
            return Err(field_refusal(
                RefusalCode::InvalidType,
                field,
                format!("The field \"{field}\" exceeds 2^53 - 1."),
            ));
        }
    }
    if envelope.input_version == 0 {
        return Err(field_refusal(
            RefusalCode::InvalidField,
            "inputVersion",
            "The field \"inputVersion\" starts at 1.".to_owned(),
        ));
    }
    if !is_digest(&envelope.input_digest) {
        return Err(field_refusal(
            RefusalCode::InvalidField,
            "inputDigest",
            "The field \"inputDigest\" must be 64 lower-case hex characters.".to_owned(),
        ));
    }
    conflicting_ids(envelope)?;
    nonblank(payload)?;
    limits(envelope)
}

pub use super::input_scope::{InputScope, input_digest};

fn id(field: &str, value: Option<&str>) -> Result<(), Refusal> {
    let Some(value) = value else { return Ok(()) };
    let shaped = !value.is_empty()
        && value.len() <= ID_MAX_BYTES
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'));
    if shaped {
        Ok(())
    } else {
        Err(field_refusal(
            RefusalCode::InvalidId,
            field,
            format!(
                "The field \"{field}\" must be 1 to {ID_MAX_BYTES} characters of letters, digits, '-', '_', '.' or ':'."
            ),
        ))
    }
}

fn presence(kind: &str, field: &str, present: bool, rule: Presence) -> Result<(), Refusal> {
    match (rule, present) {
        (Presence::Required, false) => Err(field_refusal(
            RefusalCode::MissingField,
            field,
            format!("A {kind} envelope needs \"{field}\"."),
        )),
        (Presence::Forbidden, true) => Err(field_refusal(
            RefusalCode::InvalidField,
            field,
            format!("A {kind} envelope must not carry \"{field}\"."),
        )),
        (Presence::Required, true) | (Presence::Optional, _) | (Presence::Forbidden, false) => {
            Ok(())
        }
    }
}

/// Ids that contradict each other inside one envelope: an event replying
/// to itself, or one excerpt id naming two contents.
fn conflicting_ids(envelope: &Envelope) -> Result<(), Refusal> {
    if envelope.in_reply_to.as_deref() == Some(envelope.event_id.as_str()) {
        return Err(field_refusal(
            RefusalCode::ConflictingIds,
            "inReplyTo",
            "The envelope replies to its own eventId.".to_owned(),
        ));
    }
    let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
    for excerpt in &envelope.payload.excerpts {
        id("payload.excerpts.id", Some(&excerpt.id))?;
        if let Some(previous) = seen.insert(&excerpt.id, &excerpt.content)
            && previous != excerpt.content
        {
            return Err(field_refusal(
                RefusalCode::ConflictingIds,
                "payload.excerpts",
                format!(
                    "The excerpt id \"{}\" names two different contents.",
                    excerpt.id
                ),
            ));
        }
    }
    Ok(())
}

fn nonblank(payload: &Payload) -> Result<(), Refusal> {
    for (field, value) in [
        ("payload.requirement", payload.requirement.as_deref()),
        ("payload.text", payload.text.as_deref()),
    ] {
        if value.is_some_and(|v| v.trim().is_empty()) {
            return Err(field_refusal(
                RefusalCode::InvalidField,
                field,
                format!("The field \"{field}\" must not be blank."),
            ));
        }
    }
    Ok(())
}

fn limits(envelope: &Envelope) -> Result<(), Refusal> {
    let payload = &envelope.payload;
    match envelope.kind {
        EnvelopeKind::Request => {
            let Some(input) = payload.task_input() else {
                return Ok(());
            };
            let bytes = canonical_bytes(&input)
                .map_err(|e| field_refusal(RefusalCode::InvalidField, "payload", e.to_string()))?;
            if bytes.len() > TASK_INPUT_MAX_BYTES {
                return Err(field_refusal(
                    RefusalCode::InputTooLarge,
                    "payload",
                    format!(
                        "The task input is {} bytes; the limit is {TASK_INPUT_MAX_BYTES} bytes.",
                        bytes.len()
                    ),
                ));
            }
            // The digest binds the recipient, the task scope and the budget
            // too (`input_scope`), which only the journal knows: it checks it.
            Ok(())
        }
        EnvelopeKind::Result => {
            let bytes = canonical_bytes(&(payload.text.as_deref(), &payload.excerpts))
                .map_err(|e| field_refusal(RefusalCode::InvalidField, "payload", e.to_string()))?;
            if bytes.len() > RESULT_MAX_BYTES {
                return Err(field_refusal(
                    RefusalCode::ResultTooLarge,
                    "payload",
                    format!(
                        "The result is {} bytes; the limit is {RESULT_MAX_BYTES} bytes.",
                        bytes.len()
                    ),
                ));
            }
            Ok(())
        }
        EnvelopeKind::Progress => {
            let chars = payload.text.as_deref().map_or(0, |t| t.chars().count());
            if chars > PROGRESS_MAX_CHARS {
                return Err(field_refusal(
                    RefusalCode::ProgressTooLong,
                    "payload.text",
                    format!(
                        "The progress message has {chars} characters; the limit is {PROGRESS_MAX_CHARS}."
                    ),
                ));
            }
            Ok(())
        }
        EnvelopeKind::Question
        | EnvelopeKind::Answer
        | EnvelopeKind::Failure
        | EnvelopeKind::Cancel
        | EnvelopeKind::CancelObserved => Ok(()),
    }
}

fn field_refusal(code: RefusalCode, field: &str, message: String) -> Refusal {
    Refusal::at(code, field, message)
}
