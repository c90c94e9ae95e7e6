//! The records of `state.flybot.approvals` (#540, #754, #52): a tool call
//! waiting on its owner's answer, and a held send (`kind: "held-send"`)
//! waiting on its sender's owner. A record's `kind` tells them apart: a tool
//! approval has none. Each keeps the fields a newer build wrote in `extra`,
//! and a record this build cannot read at all is kept as written.

use crate::state::Extra;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// One record of `state.flybot.approvals`.
#[derive(Debug, Clone, PartialEq)]
pub enum Approval {
    /// A tool call that needs its owner's approval (#540, #754).
    Tool(ApprovalRecord),
    /// A held send (#52, #754).
    HeldSend(HeldRecord),
    /// A record this build cannot read (another kind, or a shape it does not
    /// know), kept as written and never acted on.
    Unknown(Value),
}

impl Approval {
    /// The tool approval, if this record is one.
    pub fn as_tool(&self) -> Option<&ApprovalRecord> {
        match self {
            Approval::Tool(record) => Some(record),
            Approval::HeldSend(_) | Approval::Unknown(_) => None,
        }
    }

    /// The held send, if this record is one.
    pub fn as_held_send(&self) -> Option<&HeldRecord> {
        match self {
            Approval::HeldSend(record) => Some(record),
            Approval::Tool(_) | Approval::Unknown(_) => None,
        }
    }

    /// Reads a stored record: a held send when it carries a `kind`, a tool
    /// approval when it carries none, and `Unknown` when it does not read as
    /// the one its `kind` names.
    fn read(value: Value) -> Approval {
        let typed = if value.get("kind").is_some() {
            HeldRecord::deserialize(&value).map(Approval::HeldSend)
        } else {
            ApprovalRecord::deserialize(&value).map(Approval::Tool)
        };
        typed.unwrap_or(Approval::Unknown(value))
    }
}

impl From<Value> for Approval {
    fn from(value: Value) -> Approval {
        Approval::read(value)
    }
}

impl From<&Value> for Approval {
    fn from(value: &Value) -> Approval {
        Approval::read(value.clone())
    }
}

impl From<&ApprovalRecord> for Approval {
    fn from(record: &ApprovalRecord) -> Approval {
        Approval::Tool(record.clone())
    }
}

impl From<&HeldRecord> for Approval {
    fn from(record: &HeldRecord) -> Approval {
        Approval::HeldSend(record.clone())
    }
}

impl Serialize for Approval {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Approval::Tool(record) => record.serialize(serializer),
            Approval::HeldSend(record) => record.serialize(serializer),
            Approval::Unknown(value) => value.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Approval {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(Approval::read)
    }
}

/// Where a tool approval stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ApprovalStatus {
    Waiting,
    AllowedOnce,
    Rejected,
    /// The turn that asked ended before an answer (stopped, cut).
    Cancelled,
}

/// A tool call's approval record (#540, #754).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRecord {
    pub id: String,
    pub bot_id: String,
    pub session_id: String,
    /// The tool's name: the approval's kind.
    pub tool: String,
    pub label: String,
    pub status: ApprovalStatus,
    pub request_id: String,
    /// The Bot's owner when asked, from the roster (#754).
    pub owner_id: String,
    pub created_at: u64,
    pub tool_call_id: String,
    /// The room whose group Session asked; none for the Bot's own chat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub room_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_at: Option<u64>,
    /// The answer given (`allowed-once`, `rejected`, `always-bot`, ...), or
    /// the approval whose standing grant released this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The `kind` a held send's record carries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum HeldSendKind {
    #[default]
    #[serde(rename = "held-send")]
    HeldSend,
}

/// One held send (#52, #754): the hold the core rule made, and the send it
/// holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HeldRecord {
    pub id: String,
    pub kind: HeldSendKind,
    #[serde(flatten)]
    pub held: HeldSend,
    pub to_bot: String,
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_at: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stale_reason: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Where a hold came from, as the server saw it (#52).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HoldOrigin {
    pub via: String,
    pub hop: u32,
    pub audience: String,
}

/// A hold's status; the waiting ones are one rule (#754, core
/// `rooms::hold::is_waiting`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HoldStatus {
    Pending,
    /// Bot Social's own spelling of a wait.
    PendingApproval,
    Approved,
    Rejected,
    Stale,
}

/// A held send (#52): what core's `hold` rule records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HeldSend {
    pub request_id: String,
    /// sha256 (hex) over the request content.
    pub version: String,
    /// The sender Bot's owner when held, from the roster.
    pub owner_id: String,
    pub origin: HoldOrigin,
    pub from_bot: String,
    pub status: HoldStatus,
    pub created_at: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `json` as an approval and writes it back: the bytes must not
    /// move.
    fn check(json: &str) -> Approval {
        let approval: Approval = serde_json::from_str(json).unwrap();
        assert_eq!(serde_json::to_string(&approval).unwrap(), json);
        approval
    }

    const TOOL: &str = r#"{"id":"approval-1","botId":"bot-1","sessionId":"session-1","tool":"run_command","label":"ls","status":"waiting","requestId":"request-1","ownerId":"member-1","createdAt":5,"toolCallId":"call-1""#;
    const HELD: &str = r#"{"id":"hold-1","kind":"held-send","requestId":"hold-1","version":"abc","ownerId":"member-1","origin":{"via":"message_bot","hop":1,"audience":"bot:bot-2"},"fromBot":"bot-1","status":"pending","createdAt":5,"toBot":"bot-2","text":"hi""#;

    #[test]
    /// Rule #754.
    fn a_record_without_a_kind_is_a_tool_approval() {
        let approval = check(&format!("{TOOL}}}"));
        let record = approval.as_tool().unwrap();
        assert_eq!(record.status, ApprovalStatus::Waiting);
        assert!(approval.as_held_send().is_none());
        let decided = check(&format!(
            r#"{TOOL},"roomId":"room-1","decidedAt":6,"answer":"always-bot"}}"#
        ));
        assert_eq!(
            decided.as_tool().unwrap().answer.as_deref(),
            Some("always-bot")
        );
    }

    #[test]
    /// Rule #52.
    fn a_held_send_s_kind_tells_it_apart() {
        let approval = check(&format!("{HELD}}}"));
        let record = approval.as_held_send().unwrap();
        assert_eq!(record.held.status, HoldStatus::Pending);
        assert_eq!(record.held.origin.hop, 1);
        assert!(record.extra.is_empty());
        check(&format!(
            r#"{HELD},"decidedAt":6,"staleReason":"changed"}}"#
        ));
    }

    #[test]
    fn fields_a_newer_build_wrote_are_kept() {
        let tool = check(&format!(r#"{TOOL},"zNewer":[1]}}"#));
        assert_eq!(
            tool.as_tool().unwrap().extra["zNewer"],
            serde_json::json!([1])
        );
        let held = check(&format!(r#"{HELD},"zNewer":true}}"#));
        let extra = &held.as_held_send().unwrap().extra;
        assert_eq!(extra.keys().collect::<Vec<_>>(), vec!["zNewer"]);
    }

    #[test]
    fn a_record_this_build_cannot_read_is_kept_as_written() {
        for json in [
            r#"{"id":"x","kind":"something-new","botId":"bot-1"}"#,
            r#"{"botId":"b","status":"waiting"}"#,
            r#"[1,2]"#,
        ] {
            assert!(matches!(check(json), Approval::Unknown(_)), "{json}");
        }
    }
}
