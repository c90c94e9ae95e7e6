//! Ingress: bytes → a checked envelope with its canonical bytes and digest,
//! or one refusal. The 32 KiB limit is checked on the raw bytes before any
//! parsing; then structure (object, version, kind, known fields), then the
//! typed fields, then the field table's rules.

use super::limits::ENVELOPE_MAX_BYTES;
use super::refusal::{Refusal, RefusalCode};
use super::{Envelope, EnvelopeKind, FIELDS, VERSION, rules};
use crate::canonical::canonical_bytes;
use crate::digest::sha256_hex;
use serde_json::{Map, Value};

/// A valid envelope with its canonical bytes and their digest (the
/// envelope's identity for dedupe and conflicts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedEnvelope {
    pub envelope: Envelope,
    pub canonical: Vec<u8>,
    pub digest: String,
}

/// Checks raw ingress bytes.
pub fn check_bytes(bytes: &[u8]) -> Result<CheckedEnvelope, Refusal> {
    if bytes.len() > ENVELOPE_MAX_BYTES {
        return Err(Refusal::new(
            RefusalCode::TooLarge,
            format!("The envelope exceeds the limit of {ENVELOPE_MAX_BYTES} bytes."),
        ));
    }
    let text = std::str::from_utf8(bytes)
        .map_err(|_| Refusal::new(RefusalCode::NotUtf8, "The envelope is not UTF-8 text."))?;
    let value: Value = serde_json::from_str(text).map_err(|e| {
        Refusal::new(
            RefusalCode::NotJson,
            format!("The envelope is not JSON ({e})."),
        )
    })?;
    let Value::Object(object) = &value else {
        return Err(Refusal::new(
            RefusalCode::NotObject,
            "The envelope must be one JSON object.",
        ));
    };
    structure(object)?;
    // Typed from the text, not the value: a duplicated key is lost in a map.
    let mut de = serde_json::Deserializer::from_str(text);
    let envelope: Envelope =
        serde_path_to_error::deserialize(&mut de).map_err(|e| typed_refusal(&e))?;
    rules::check(&envelope)?;
    seal(envelope)
}

/// Checks a JSON value (a producer's or a test's envelope).
pub fn check_value(value: &Value) -> Result<CheckedEnvelope, Refusal> {
    let bytes = serde_json::to_vec(value).map_err(|e| {
        Refusal::new(
            RefusalCode::NotJson,
            format!("The value is not JSON ({e})."),
        )
    })?;
    check_bytes(&bytes)
}

impl Envelope {
    /// Checks an envelope this side built, exactly as a receiver would.
    pub fn seal(self) -> Result<CheckedEnvelope, Refusal> {
        let bytes = serde_json::to_vec(&self).map_err(|e| {
            Refusal::new(
                RefusalCode::NotJson,
                format!("The envelope does not serialize ({e})."),
            )
        })?;
        check_bytes(&bytes)
    }
}

fn seal(envelope: Envelope) -> Result<CheckedEnvelope, Refusal> {
    let canonical = canonical_bytes(&envelope).map_err(|e| {
        Refusal::new(
            RefusalCode::InvalidField,
            format!("The envelope has no canonical form ({e})."),
        )
    })?;
    if canonical.len() > ENVELOPE_MAX_BYTES {
        return Err(Refusal::new(
            RefusalCode::TooLarge,
            format!("The envelope's canonical form exceeds {ENVELOPE_MAX_BYTES} bytes."),
        ));
    }
    let digest = sha256_hex(&canonical);
    Ok(CheckedEnvelope {
        envelope,
        canonical,
        digest,
    })
}

/// Version first (an unknown version never executes, whatever it carries),
/// then the kind, then unknown and null top-level fields.
fn structure(object: &Map<String, Value>) -> Result<(), Refusal> {
    match object.get("version") {
        None => return Err(missing("version")),
        Some(Value::Number(n)) => match n.as_u64() {
            Some(VERSION) => {}
            Some(_) | None => {
                return Err(Refusal::at(
                    RefusalCode::UnknownVersion,
                    "version",
                    format!("Envelope version {n} is not supported; only version {VERSION} is."),
                ));
            }
        },
        Some(_) => return Err(invalid_type("version", "the number 1")),
    }
    match object.get("kind") {
        None => return Err(missing("kind")),
        Some(Value::String(kind)) => {
            if EnvelopeKind::parse(kind).is_none() {
                return Err(Refusal::at(
                    RefusalCode::UnknownKind,
                    "kind",
                    format!("The kind \"{}\" is not allow-listed.", clip(kind)),
                ));
            }
        }
        Some(_) => return Err(invalid_type("kind", "a string")),
    }
    for (name, value) in object {
        if !FIELDS.contains(&name.as_str()) {
            return Err(Refusal::at(
                RefusalCode::UnknownField,
                name,
                format!("The field \"{}\" is not part of envelope v1.", clip(name)),
            ));
        }
        if value.is_null() {
            return Err(invalid_type(name, "a value (absent, never null)"));
        }
    }
    Ok(())
}

fn typed_refusal(error: &serde_path_to_error::Error<serde_json::Error>) -> Refusal {
    let path = error.path().to_string();
    let inner = error.inner().to_string();
    let code = if inner.starts_with("unknown field") {
        RefusalCode::UnknownField
    } else if inner.starts_with("duplicate field") {
        RefusalCode::DuplicateField
    } else if inner.starts_with("missing field") {
        RefusalCode::MissingField
    } else {
        RefusalCode::InvalidType
    };
    let field = if path == "." { None } else { Some(path) };
    let message = match &field {
        Some(field) => format!("The field \"{field}\" is refused: {inner}."),
        None => format!("The envelope is refused: {inner}."),
    };
    Refusal {
        code,
        message,
        field,
    }
}

fn missing(field: &str) -> Refusal {
    Refusal::at(
        RefusalCode::MissingField,
        field,
        format!("The field \"{field}\" is required."),
    )
}

pub(super) fn invalid_type(field: &str, expected: &str) -> Refusal {
    Refusal::at(
        RefusalCode::InvalidType,
        field,
        format!("The field \"{}\" must be {expected}.", clip(field)),
    )
}

/// At most 64 characters of untrusted text in a refusal sentence.
pub(super) fn clip(text: &str) -> String {
    text.chars().take(64).collect()
}
