//! A question about work handed out from a group (#550): a Bot running work
//! a group member handed it with `message_bot` asks with `ask_user`, and
//! the question waits in that group's composer dock as
//! `state.questions[<room id>]` instead of the Bot's own chat. Whoever
//! answers it there, the answer goes back to the asking Bot as a hidden
//! request from the member that handed the work over (`replyTo`).

use serde::{Deserialize, Serialize};

/// The member that handed the work over, whom the answer comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplyTo {
    pub bot_id: String,
    /// The hop of the request the asking turn ran.
    pub hop: u32,
}

/// One waiting question in a room's dock.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupQuestion {
    /// The asking Bot's name, the dock's header.
    pub header: String,
    /// The asking Bot.
    pub bot_id: String,
    pub question: String,
    pub reply_to: ReplyTo,
    /// A typed answer is taken (the dock offers no fixed choices).
    pub allow_custom: bool,
    pub asked_at: u64,
    /// The asking turn's origin: the member it spoke for (#540), which the
    /// answer keeps only when that Bot's owner gives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
}
