//! The lines a chat answer draws: one transcript line of a Bot's own chat
//! (#642), and one room line with its author's name (#50).

use crate::room_line::{AuthorKind, LineKind};
use serde::Serialize;
use serde_json::Value;

/// One transcript line as a client draws it: `seq`, `at`, `kind`, the
/// fields its kind has, and its `turnId`. `kind` is `user`, `assistant`,
/// `tool-call` (`question` for an `ask_user` call), `tool-result` or
/// `turn-end`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatLine {
    pub seq: u64,
    pub at: u64,
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Where a person's line came from, as the Session log spells it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Why a turn ended, as the Session log spells it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<Value>,
    /// A failed turn's #1347 sentence, the one a person is shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sentence: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calls: Option<u32>,
    pub turn_id: String,
    /// A person's line's attachments, or the files a Bot's answer
    /// attached with `attach_file` (ids, issue 32).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<String>,
}

impl ChatLine {
    /// A line of `kind` with none of the kind's own fields yet.
    pub fn new(seq: u64, at: u64, kind: &str, turn_id: &str) -> ChatLine {
        ChatLine {
            seq,
            at,
            kind: kind.to_owned(),
            tool_call_id: None,
            name: None,
            text: None,
            source: None,
            is_error: None,
            reason: None,
            sentence: None,
            calls: None,
            turn_id: turn_id.to_owned(),
            attachments: Vec::new(),
        }
    }
}

/// One room line as `messages {roomId}` shows it: `author` is the member's
/// or Bot's name, else its id.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RoomLineShown {
    pub seq: u64,
    pub author_id: String,
    pub author_kind: AuthorKind,
    pub author: String,
    pub kind: LineKind,
    pub text: String,
    pub at: u64,
    /// The line's attachments (ids, issue 32).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<String>,
}
