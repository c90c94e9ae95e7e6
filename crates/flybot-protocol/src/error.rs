//! The channel's error codes and the refusal envelope of DESIGN.md.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Every code a refusal may carry. The wire spelling is the spec's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ErrorCode {
    #[serde(rename = "bot/invalid")]
    Invalid,
    #[serde(rename = "bot/forbidden")]
    Forbidden,
    #[serde(rename = "bot/unauthorized")]
    Unauthorized,
    #[serde(rename = "bot/not-found")]
    NotFound,
    #[serde(rename = "bot/stale")]
    Stale,
    #[serde(rename = "bot/read-only")]
    ReadOnly,
    #[serde(rename = "bot/blocked-shared")]
    BlockedShared,
    #[serde(rename = "bot/unknown-endpoint")]
    UnknownEndpoint,
    #[serde(rename = "bot/too-large")]
    TooLarge,
    /// A handoff names a role no Bot carries (#1720).
    #[serde(rename = "bot/unknown-role")]
    UnknownRole,
    /// A claim on a card whose lease is still live (#1729).
    #[serde(rename = "bot/lease-held")]
    LeaseHeld,
    /// A role's pull queue is at its cap (#1729).
    #[serde(rename = "bot/queue-full")]
    QueueFull,
    /// No live member of the room carries the queued role (#1247).
    #[serde(rename = "bot/no-member-with-role")]
    NoMemberWithRole,
    /// A claim by a member of another role (#1247).
    #[serde(rename = "bot/not-in-role")]
    NotInRole,
    /// The same one-at-a-time action is already running (a Bot's model
    /// test, #409).
    #[serde(rename = "bot/busy")]
    Busy,
    /// A preset workflow is copied by Customize, never written (#1299).
    #[serde(rename = "workflow/preset-read-only")]
    PresetReadOnly,
    /// A task's time falls inside the team's quiet hours (#1166).
    #[serde(rename = "bot/quiet-hours")]
    QuietHours,
    /// A fault of the host itself, never of the input (issue 29): a home
    /// that cannot be written, a handler that failed. The one 5xx.
    #[serde(rename = "bot/unavailable")]
    Unavailable,
    /// A line to a face-to-face room this home left or its maker closed
    /// (#83): nothing is appended.
    #[serde(rename = "bot/room-ended")]
    RoomEnded,
}

impl ErrorCode {
    /// The wire spelling, as in `{"code": "bot/forbidden"}`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Invalid => "bot/invalid",
            ErrorCode::Forbidden => "bot/forbidden",
            ErrorCode::Unauthorized => "bot/unauthorized",
            ErrorCode::NotFound => "bot/not-found",
            ErrorCode::Stale => "bot/stale",
            ErrorCode::ReadOnly => "bot/read-only",
            ErrorCode::BlockedShared => "bot/blocked-shared",
            ErrorCode::UnknownEndpoint => "bot/unknown-endpoint",
            ErrorCode::TooLarge => "bot/too-large",
            ErrorCode::UnknownRole => "bot/unknown-role",
            ErrorCode::LeaseHeld => "bot/lease-held",
            ErrorCode::QueueFull => "bot/queue-full",
            ErrorCode::NoMemberWithRole => "bot/no-member-with-role",
            ErrorCode::NotInRole => "bot/not-in-role",
            ErrorCode::Busy => "bot/busy",
            ErrorCode::PresetReadOnly => "workflow/preset-read-only",
            ErrorCode::QuietHours => "bot/quiet-hours",
            ErrorCode::Unavailable => "bot/unavailable",
            ErrorCode::RoomEnded => "bot/room-ended",
        }
    }

    /// The HTTP status a refusal with this code answers with (always 4xx).
    pub fn http_status(self) -> u16 {
        match self {
            ErrorCode::Invalid => 400,
            ErrorCode::Unauthorized => 401,
            ErrorCode::Forbidden | ErrorCode::BlockedShared => 403,
            ErrorCode::NotFound | ErrorCode::UnknownEndpoint => 404,
            ErrorCode::Stale | ErrorCode::ReadOnly => 409,
            ErrorCode::TooLarge => 413,
            ErrorCode::UnknownRole => 400,
            ErrorCode::NotInRole => 403,
            ErrorCode::LeaseHeld | ErrorCode::QueueFull | ErrorCode::NoMemberWithRole => 409,
            ErrorCode::PresetReadOnly | ErrorCode::Busy => 409,
            ErrorCode::QuietHours | ErrorCode::RoomEnded => 409,
            ErrorCode::Unavailable => 503,
        }
    }
}

/// A refusal: the spec's code, one sentence a person can act on, and details.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
    #[serde(default)]
    pub details: Value,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ApiError {
            code,
            message: message.into(),
            details: Value::Object(Default::default()),
        }
    }

    /// Adds one key to `details`.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        if let Value::Object(map) = &mut self.details {
            map.insert(key.to_owned(), value.into());
        }
        self
    }

    pub fn invalid(field: &str, message: impl Into<String>) -> Self {
        ApiError::new(ErrorCode::Invalid, message).with("field", field)
    }

    pub fn forbidden(message: impl Into<String>) -> Self {
        ApiError::new(ErrorCode::Forbidden, message)
    }

    pub fn not_found(what: &str, id: &str) -> Self {
        ApiError::new(ErrorCode::NotFound, format!("No {what} has the id {id}.")).with("id", id)
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for ApiError {}
