//! Why an envelope was refused: a stable code and one sentence a person
//! can act on, naming the field when there is one.

use serde::Serialize;
use std::fmt;

/// The stable refusal codes of the codec. Closed: tests and the vector
/// file name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum RefusalCode {
    #[serde(rename = "envelope/too-large")]
    TooLarge,
    #[serde(rename = "envelope/not-utf8")]
    NotUtf8,
    #[serde(rename = "envelope/not-json")]
    NotJson,
    #[serde(rename = "envelope/not-object")]
    NotObject,
    #[serde(rename = "envelope/unknown-field")]
    UnknownField,
    #[serde(rename = "envelope/duplicate-field")]
    DuplicateField,
    #[serde(rename = "envelope/missing-field")]
    MissingField,
    #[serde(rename = "envelope/invalid-type")]
    InvalidType,
    #[serde(rename = "envelope/unknown-version")]
    UnknownVersion,
    #[serde(rename = "envelope/unknown-kind")]
    UnknownKind,
    #[serde(rename = "envelope/invalid-id")]
    InvalidId,
    #[serde(rename = "envelope/conflicting-ids")]
    ConflictingIds,
    #[serde(rename = "envelope/invalid-field")]
    InvalidField,
    #[serde(rename = "envelope/input-too-large")]
    InputTooLarge,
    #[serde(rename = "envelope/result-too-large")]
    ResultTooLarge,
    #[serde(rename = "envelope/progress-too-long")]
    ProgressTooLong,
}

impl RefusalCode {
    pub const ALL: [RefusalCode; 16] = [
        RefusalCode::TooLarge,
        RefusalCode::NotUtf8,
        RefusalCode::NotJson,
        RefusalCode::NotObject,
        RefusalCode::UnknownField,
        RefusalCode::DuplicateField,
        RefusalCode::MissingField,
        RefusalCode::InvalidType,
        RefusalCode::UnknownVersion,
        RefusalCode::UnknownKind,
        RefusalCode::InvalidId,
        RefusalCode::ConflictingIds,
        RefusalCode::InvalidField,
        RefusalCode::InputTooLarge,
        RefusalCode::ResultTooLarge,
        RefusalCode::ProgressTooLong,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RefusalCode::TooLarge => "envelope/too-large",
            RefusalCode::NotUtf8 => "envelope/not-utf8",
            RefusalCode::NotJson => "envelope/not-json",
            RefusalCode::NotObject => "envelope/not-object",
            RefusalCode::UnknownField => "envelope/unknown-field",
            RefusalCode::DuplicateField => "envelope/duplicate-field",
            RefusalCode::MissingField => "envelope/missing-field",
            RefusalCode::InvalidType => "envelope/invalid-type",
            RefusalCode::UnknownVersion => "envelope/unknown-version",
            RefusalCode::UnknownKind => "envelope/unknown-kind",
            RefusalCode::InvalidId => "envelope/invalid-id",
            RefusalCode::ConflictingIds => "envelope/conflicting-ids",
            RefusalCode::InvalidField => "envelope/invalid-field",
            RefusalCode::InputTooLarge => "envelope/input-too-large",
            RefusalCode::ResultTooLarge => "envelope/result-too-large",
            RefusalCode::ProgressTooLong => "envelope/progress-too-long",
        }
    }

    pub fn parse(text: &str) -> Option<RefusalCode> {
        RefusalCode::ALL.into_iter().find(|c| c.as_str() == text)
    }
}

/// A refused envelope: nothing of it may execute, be journaled as work or
/// be forwarded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(rename_all = "camelCase")]
pub struct Refusal {
    pub code: RefusalCode,
    /// One sentence a person can act on.
    pub message: String,
    /// The offending field, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

impl Refusal {
    pub fn new(code: RefusalCode, message: impl Into<String>) -> Refusal {
        Refusal {
            code,
            message: message.into(),
            field: None,
        }
    }

    pub fn at(code: RefusalCode, field: &str, message: impl Into<String>) -> Refusal {
        Refusal {
            code,
            message: message.into(),
            field: Some(field.to_owned()),
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code.as_str())
    }
}
