//! The fixed code a failed turn ends with (#1347): a model provider's
//! failure class, a host-side failure, or an external member's failure. The
//! wire spelling is the code itself (`"NO_KEY"`), as a Session log's
//! `turn/end`, a room member's outcome and `test-model` carry it.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Why a turn failed, by its fixed code. A code this build does not know (a
/// newer build wrote it) reads as `Unknown` and is written back as it came.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FailureCode {
    /// The Bot's model is not one the host knows (#409).
    NoModel,
    /// The model's provider has no API key configured (#1068).
    NoKey,
    /// The provider refused the API key (#1068).
    Auth,
    /// The provider's budget or quota is used up.
    Quota,
    /// The provider kept rate limiting requests (#1308).
    RateLimited,
    /// The provider, or an external member, did not answer in time.
    Timeout,
    /// The Bot's model cannot do what the turn asked of it (tool calls,
    /// image input...): the stored text names the feature (#1347).
    UnsupportedModel,
    /// The provider could not be reached or broke off.
    Transport,
    /// Any other refusal the provider answered.
    ProviderError,
    /// The provider answered something the host cannot read.
    BadResponse,
    /// The model call was cancelled.
    Cancelled,
    /// The Session log could not be read or written.
    Log,
    /// The Bot's working folder could not be made.
    Workspace,
    /// A restart cut the member's turn.
    Interrupted,
    /// The member's turn was blocked.
    Blocked,
    /// The member's log shows no end of its turn.
    NoEnd,
    /// An external member's process or OpenCode could not start.
    Start,
    /// An external member's record no longer validates.
    Invalid,
    /// An external member's seat is already running a turn.
    Busy,
    /// An external member answered with an error.
    PeerError,
    /// An external member's process died.
    Crashed,
    /// An external member broke the line protocol.
    Protocol,
    /// OpenCode asked for a permission the room does not allow.
    Refused,
    /// OpenCode reported its turn failed.
    Failed,
    /// OpenCode's recovery could not tell whether the turn ran.
    Uncertain,
    /// An OpenCode member already works the most cards at once.
    Budget,
    /// An OpenCode member has no card in the room to work.
    NoCard,
    /// An OpenCode member's card is not in a state it works.
    Card,
    /// A code this build does not know, kept as written.
    Unknown(String),
}

impl FailureCode {
    /// The wire spelling, as in `{"code": "NO_KEY"}`.
    pub fn as_str(&self) -> &str {
        match self {
            FailureCode::NoModel => "NO_MODEL",
            FailureCode::NoKey => "NO_KEY",
            FailureCode::Auth => "AUTH",
            FailureCode::Quota => "QUOTA",
            FailureCode::RateLimited => "RATE_LIMITED",
            FailureCode::Timeout => "TIMEOUT",
            FailureCode::UnsupportedModel => "UNSUPPORTED_MODEL",
            FailureCode::Transport => "TRANSPORT",
            FailureCode::ProviderError => "PROVIDER_ERROR",
            FailureCode::BadResponse => "BAD_RESPONSE",
            FailureCode::Cancelled => "CANCELLED",
            FailureCode::Log => "LOG",
            FailureCode::Workspace => "WORKSPACE",
            FailureCode::Interrupted => "INTERRUPTED",
            FailureCode::Blocked => "BLOCKED",
            FailureCode::NoEnd => "NO_END",
            FailureCode::Start => "START",
            FailureCode::Invalid => "INVALID",
            FailureCode::Busy => "BUSY",
            FailureCode::PeerError => "PEER_ERROR",
            FailureCode::Crashed => "CRASHED",
            FailureCode::Protocol => "PROTOCOL",
            FailureCode::Refused => "REFUSED",
            FailureCode::Failed => "FAILED",
            FailureCode::Uncertain => "UNCERTAIN",
            FailureCode::Budget => "BUDGET",
            FailureCode::NoCard => "NO_CARD",
            FailureCode::Card => "CARD",
            FailureCode::Unknown(code) => code,
        }
    }

    /// The code a wire spelling names; an unknown spelling is kept as
    /// `Unknown`.
    pub fn from_wire(code: &str) -> FailureCode {
        match code {
            "NO_MODEL" => FailureCode::NoModel,
            "NO_KEY" => FailureCode::NoKey,
            "AUTH" => FailureCode::Auth,
            "QUOTA" => FailureCode::Quota,
            "RATE_LIMITED" => FailureCode::RateLimited,
            "TIMEOUT" => FailureCode::Timeout,
            "UNSUPPORTED_MODEL" => FailureCode::UnsupportedModel,
            "TRANSPORT" => FailureCode::Transport,
            "PROVIDER_ERROR" => FailureCode::ProviderError,
            "BAD_RESPONSE" => FailureCode::BadResponse,
            "CANCELLED" => FailureCode::Cancelled,
            "LOG" => FailureCode::Log,
            "WORKSPACE" => FailureCode::Workspace,
            "INTERRUPTED" => FailureCode::Interrupted,
            "BLOCKED" => FailureCode::Blocked,
            "NO_END" => FailureCode::NoEnd,
            "START" => FailureCode::Start,
            "INVALID" => FailureCode::Invalid,
            "BUSY" => FailureCode::Busy,
            "PEER_ERROR" => FailureCode::PeerError,
            "CRASHED" => FailureCode::Crashed,
            "PROTOCOL" => FailureCode::Protocol,
            "REFUSED" => FailureCode::Refused,
            "FAILED" => FailureCode::Failed,
            "UNCERTAIN" => FailureCode::Uncertain,
            "BUDGET" => FailureCode::Budget,
            "NO_CARD" => FailureCode::NoCard,
            "CARD" => FailureCode::Card,
            other => FailureCode::Unknown(other.to_owned()),
        }
    }
}

/// A feature a model may lack (#1347), from a fixed vocabulary: the
/// provider's own `param` field picks one, its message never does, and the
/// stored failure text names it by its label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelFeature {
    ToolCalls,
    ImageInput,
    Thinking,
    JsonOutput,
    Streaming,
}

impl ModelFeature {
    const ALL: [ModelFeature; 5] = [
        ModelFeature::ToolCalls,
        ModelFeature::ImageInput,
        ModelFeature::Thinking,
        ModelFeature::JsonOutput,
        ModelFeature::Streaming,
    ];

    /// How a person reads it: "tool calls".
    pub fn label(self) -> &'static str {
        match self {
            ModelFeature::ToolCalls => "tool calls",
            ModelFeature::ImageInput => "image input",
            ModelFeature::Thinking => "thinking",
            ModelFeature::JsonOutput => "JSON output",
            ModelFeature::Streaming => "streaming",
        }
    }

    /// The feature a provider's `param` field names (`tools`,
    /// `messages[0].content[1].image_url`, `reasoning_effort`...).
    pub fn from_param(param: &str) -> Option<ModelFeature> {
        let param = param.to_ascii_lowercase();
        let has = |words: &[&str]| words.iter().any(|w| param.contains(w));
        if has(&["tool", "function"]) {
            Some(ModelFeature::ToolCalls)
        } else if has(&["image", "vision"]) {
            Some(ModelFeature::ImageInput)
        } else if has(&["reasoning", "thinking"]) {
            Some(ModelFeature::Thinking)
        } else if has(&["response_format", "json"]) {
            Some(ModelFeature::JsonOutput)
        } else if has(&["stream"]) {
            Some(ModelFeature::Streaming)
        } else {
            None
        }
    }

    /// The feature this build's own stored failure text names, if any.
    pub fn named_in(text: &str) -> Option<ModelFeature> {
        let suffix = |f: &ModelFeature| format!("does not support {}", f.label());
        ModelFeature::ALL
            .into_iter()
            .find(|f| text.contains(&suffix(f)))
    }
}

impl fmt::Display for FailureCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<&str> for FailureCode {
    fn from(code: &str) -> FailureCode {
        FailureCode::from_wire(code)
    }
}

impl PartialEq<str> for FailureCode {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for FailureCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl Serialize for FailureCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for FailureCode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let code = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        Ok(FailureCode::from_wire(&code))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    /// Rule #1347.
    fn every_code_reads_back_as_itself_and_an_unknown_one_is_kept() {
        let known = [
            "NO_MODEL",
            "NO_KEY",
            "AUTH",
            "QUOTA",
            "RATE_LIMITED",
            "TIMEOUT",
            "UNSUPPORTED_MODEL",
            "TRANSPORT",
            "PROVIDER_ERROR",
            "BAD_RESPONSE",
            "CANCELLED",
            "LOG",
            "WORKSPACE",
            "INTERRUPTED",
            "BLOCKED",
            "NO_END",
            "START",
            "INVALID",
            "BUSY",
            "PEER_ERROR",
            "CRASHED",
            "PROTOCOL",
            "REFUSED",
            "FAILED",
            "UNCERTAIN",
            "BUDGET",
            "NO_CARD",
            "CARD",
        ];
        for spelling in known {
            let code = FailureCode::from_wire(spelling);
            assert!(!matches!(code, FailureCode::Unknown(_)), "{spelling}");
            assert_eq!(code.as_str(), spelling);
            let json = serde_json::to_string(&code).unwrap();
            assert_eq!(json, format!("\"{spelling}\""));
            let back: FailureCode = serde_json::from_str(&json).unwrap();
            assert_eq!(back, code);
        }
        let newer: FailureCode = serde_json::from_str("\"SOMETHING_NEW\"").unwrap();
        assert_eq!(newer, FailureCode::Unknown("SOMETHING_NEW".to_owned()));
        assert_eq!(serde_json::to_string(&newer).unwrap(), "\"SOMETHING_NEW\"");
    }
}
