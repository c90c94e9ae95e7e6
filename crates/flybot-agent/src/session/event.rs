//! The events of a Session's durable log (`sessions/<id>.jsonl`), with the
//! spec's spellings. Each line is a `LogEntry`: a sequence number (the
//! `after` cursor of `messages`), a time, and one event.

use flybot_core::approvals::origin::AskFrom;
use flybot_protocol::FailureCode;
use serde::{Deserialize, Serialize};

/// One line of the log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LogEntry {
    /// 1, 2, 3, ... within the Session.
    pub seq: u64,
    /// Milliseconds since the Unix epoch.
    pub at: u64,
    #[serde(flatten)]
    pub event: SessionEvent,
}

/// Who a message came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Source {
    /// A person, in the Bot's own chat.
    User {
        #[serde(default, skip_serializing_if = "Option::is_none", rename = "memberId")]
        member_id: Option<String>,
    },
    /// Another Bot (`message_bot`), with the hop count of its chain, and
    /// the group the request was sent from when the sender wrote it in its
    /// group Session (#553: `senderRoomId`).
    Bot {
        #[serde(rename = "botId")]
        bot_id: String,
        hops: u32,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            rename = "senderRoomId"
        )]
        room_id: Option<String>,
        /// The member whose own request this message carries: the sending
        /// turn spoke for that member, so the receiving Bot's standing
        /// grants may answer for them too (#540: origin is carried by
        /// relays); an answer from a group's dock keeps the asking turn's
        /// (#550). None speaks for nobody's owner.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        origin: Option<String>,
    },
    /// The host itself (a pickup after a restart).
    Host,
    /// A room's round handing a member its turn. `hops` is the hop of the
    /// line that opened the round, so a relay on into another room carries
    /// the chain on and a cross-room ping-pong ends at `MAX_HOPS` (#557).
    Round {
        #[serde(rename = "roomId")]
        room_id: String,
        hops: u32,
    },
    /// A scheduled task's run (#473): the turn is that task's run.
    Schedule {
        #[serde(rename = "taskId")]
        task_id: String,
    },
    /// A message from outside through a channel connector (#1266): the
    /// turn's answer goes back out to `chat` through that connector.
    Connector { connector: String, chat: String },
    /// A friend's line from another home over Matrix (issue 33): `home` is
    /// the sender the homeserver authenticated, `event` the Matrix event,
    /// `typed` when the transport says a person typed it (#227). The
    /// turn's answer goes back into `room`.
    Friend {
        home: String,
        room: String,
        event: String,
        #[serde(default)]
        typed: bool,
        /// The sender's first line to this Bot (#420 `firstContact`).
        #[serde(
            default,
            skip_serializing_if = "std::ops::Not::not",
            rename = "firstContact"
        )]
        first_contact: bool,
    },
}

/// Who stopped a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AbortedBy {
    User,
    Hook,
    Parent,
}

/// Why a turn ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum EndReason {
    Completed,
    /// A model or host failure, by its fixed code (#1347).
    Error {
        code: FailureCode,
        message: String,
    },
    Aborted {
        by: AbortedBy,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// A restart cut the turn.
    Interrupted,
    MaxTokens,
    Blocked {
        reason: String,
    },
}

impl EndReason {
    /// The reason's kind as the spec spells it.
    pub fn kind(&self) -> &'static str {
        match self {
            EndReason::Completed => "completed",
            EndReason::Error { .. } => "error",
            EndReason::Aborted { .. } => "aborted",
            EndReason::Interrupted => "interrupted",
            EndReason::MaxTokens => "max-tokens",
            EndReason::Blocked { .. } => "blocked",
        }
    }
}

/// One event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum SessionEvent {
    #[serde(rename = "turn/start", rename_all = "camelCase")]
    TurnStart { turn_id: String },
    #[serde(rename = "user/message", rename_all = "camelCase")]
    UserMessage {
        turn_id: String,
        /// The inbox item's id.
        message_id: String,
        text: String,
        source: Source,
        /// The attachments (ids) the line carries (issue 32).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        attachments: Vec<String>,
    },
    #[serde(rename = "step/start", rename_all = "camelCase")]
    StepStart { turn_id: String, step: u32 },
    /// A model call answered: what it cost, as the provider reported it
    /// (unknown counts stay unknown, #903). Logged before the answer's text.
    #[serde(rename = "step/end", rename_all = "camelCase")]
    StepEnd {
        turn_id: String,
        usage: crate::model::Usage,
        /// The thinking text of an answer that called tools, kept to be sent
        /// back with the calls (DeepSeek refuses the next step without it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reasoning: Option<String>,
    },
    #[serde(rename = "assistant/message", rename_all = "camelCase")]
    AssistantMessage {
        turn_id: String,
        text: String,
        /// The files the Bot attached to this answer with `attach_file`
        /// (ids, issue 32).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        attachments: Vec<String>,
    },
    #[serde(rename = "tool/call", rename_all = "camelCase")]
    ToolCall {
        turn_id: String,
        tool_call_id: String,
        name: String,
        arguments: String,
    },
    #[serde(rename = "tool/result", rename_all = "camelCase")]
    ToolResult {
        turn_id: String,
        tool_call_id: String,
        text: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
    },
    #[serde(rename = "turn/end", rename_all = "camelCase")]
    TurnEnd {
        turn_id: String,
        reason: EndReason,
        /// The turn's tool-call count (#471).
        calls: u32,
    },
}

impl Source {
    /// The standing-grant rule's reading of this input (#540).
    pub fn ask_from(&self) -> AskFrom {
        match self {
            Source::User { member_id } => AskFrom::Person(member_id.clone()),
            Source::Bot {
                origin: Some(member),
                ..
            } => AskFrom::Relayed(member.clone()),
            Source::Bot { origin: None, .. } => AskFrom::Bot,
            Source::Round { room_id, .. } => AskFrom::Room(room_id.clone()),
            Source::Schedule { task_id } => AskFrom::Schedule(task_id.clone()),
            // A friend's line is a message from outside: no standing grant answers it (#540).
            Source::Connector { .. } | Source::Friend { .. } => AskFrom::Connector,
            Source::Host => AskFrom::Host,
        }
    }
}

impl SessionEvent {
    pub fn turn_id(&self) -> &str {
        match self {
            SessionEvent::TurnStart { turn_id }
            | SessionEvent::UserMessage { turn_id, .. }
            | SessionEvent::StepStart { turn_id, .. }
            | SessionEvent::StepEnd { turn_id, .. }
            | SessionEvent::AssistantMessage { turn_id, .. }
            | SessionEvent::ToolCall { turn_id, .. }
            | SessionEvent::ToolResult { turn_id, .. }
            | SessionEvent::TurnEnd { turn_id, .. } => turn_id,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_use_the_spec_spellings() {
        let entry = LogEntry {
            seq: 3,
            at: 10,
            event: SessionEvent::TurnEnd {
                turn_id: "t1".into(),
                reason: EndReason::Aborted {
                    by: AbortedBy::Hook,
                    reason: Some("ds-bot/interrupt-long-wait".into()),
                },
                calls: 2,
            },
        };
        let value = serde_json::to_value(&entry).unwrap();
        assert_eq!(
            value,
            json!({"seq": 3, "at": 10, "type": "turn/end", "turnId": "t1",
                   "reason": {"kind": "aborted", "by": "hook", "reason": "ds-bot/interrupt-long-wait"},
                   "calls": 2})
        );
        let back: LogEntry = serde_json::from_value(value).unwrap();
        assert_eq!(back, entry);
        let user = json!({"seq": 1, "at": 1, "type": "user/message", "turnId": "t",
            "messageId": "m", "text": "hi", "source": {"kind": "user"}});
        assert!(serde_json::from_value::<LogEntry>(user).is_ok());
    }
}
