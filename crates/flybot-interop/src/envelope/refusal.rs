//! Why an envelope was refused: a stable code and one sentence a person
//! can act on, naming the field when there is one.

use serde::Serialize;
use std::fmt;

/// The stable refusal codes of the codec. Closed: tests and the vector
/// file name them. The wire words are derived once from the variants
/// (`envelope/` and the name in kebab case); serde writes the same words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, strum::IntoStaticStr, strum::EnumIter)]
#[strum(serialize_all = "kebab-case", prefix = "envelope/")]
pub enum RefusalCode {
    TooLarge,
    NotUtf8,
    NotJson,
    NotObject,
    UnknownField,
    DuplicateField,
    MissingField,
    InvalidType,
    UnknownVersion,
    UnknownKind,
    InvalidId,
    ConflictingIds,
    InvalidField,
    InputTooLarge,
    ResultTooLarge,
    ProgressTooLong,
}

impl RefusalCode {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    pub fn parse(text: &str) -> Option<RefusalCode> {
        use strum::IntoEnumIterator;
        RefusalCode::iter().find(|c| c.as_str() == text)
    }
}

impl Serialize for RefusalCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
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
