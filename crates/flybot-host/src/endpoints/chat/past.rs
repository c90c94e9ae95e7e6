//! A Bot chat's past conversations (issue 31): `conversations {botId}` lists
//! them, each with its first line and how many lines it holds, and
//! `conversation-new {botId}` starts a fresh one as a new part of the same
//! Session (`flybot_agent::session::conversations`). `messages {botId,
//! part}` reads one. The same door as the chat's own: the Bot's owner and
//! a member it is shared with (`own_chat::chat_bot`).

use super::own_chat::{chat_bot, io_refusal};
use crate::team::Team;
use flybot_agent::session::{Conversation, NewConversation, SessionEvent, Sessions};
use flybot_core::access::Actor;
use flybot_protocol::state::Bot;
use flybot_protocol::{ApiError, ErrorCode};
use serde::{Deserialize, Serialize};

/// How much of a conversation's first line the list shows.
const PREVIEW: usize = 120;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OfBot {
    pub bot_id: String,
}

/// One conversation as the list shows it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConversationRow {
    #[serde(flatten)]
    pub conversation: Conversation,
    /// The first line a person wrote in it, cut short.
    pub first_line: Option<String>,
    /// The time of its first and last entries.
    pub started: Option<u64>,
    pub last_at: Option<u64>,
    /// The person's lines and the Bot's answers in it.
    pub lines: usize,
    pub current: bool,
}

/// `conversations {botId}` → `{botId, conversations}`, oldest first.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConversationList {
    pub bot_id: String,
    pub conversations: Vec<ConversationRow>,
}

/// `conversation-new {botId}` → `{botId, started, conversation}`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConversationStarted {
    pub bot_id: String,
    /// False when the current conversation was still empty: it stays.
    pub started: bool,
    pub conversation: Conversation,
}

/// The conversation `part` names (the current one when none).
pub(super) fn conversation(
    sessions: &Sessions,
    bot: &Bot,
    part: Option<u32>,
) -> Result<Conversation, ApiError> {
    let list = sessions
        .conversations(&bot.session_id)
        .map_err(io_refusal)?;
    let found = match part {
        None => list.last().cloned(),
        Some(part) => list.into_iter().find(|c| c.part == part),
    };
    found.ok_or_else(|| {
        ApiError::new(
            ErrorCode::NotFound,
            "This chat has no such conversation; open the list of past conversations again.",
        )
        .with("part", part.map_or(0, u64::from))
    })
}

pub fn list(
    team: &Team,
    sessions: &Sessions,
    actor: &Actor,
    req: OfBot,
) -> Result<ConversationList, ApiError> {
    let bot = chat_bot(team, actor, Some(&req.bot_id), None)?;
    let list = sessions
        .conversations(&bot.session_id)
        .map_err(io_refusal)?;
    let entries = sessions
        .transcript(&bot.session_id, 0)
        .map_err(io_refusal)?;
    let newest = list.len().saturating_sub(1);
    let conversations = list
        .into_iter()
        .enumerate()
        .map(|(n, conversation)| {
            let mine: Vec<_> = entries
                .iter()
                .filter(|e| conversation.holds(e.seq))
                .collect();
            let said = |e: &&&flybot_agent::session::LogEntry| {
                matches!(
                    e.event,
                    SessionEvent::UserMessage { .. } | SessionEvent::AssistantMessage { .. }
                )
            };
            let first_line = mine.iter().find_map(|e| match &e.event {
                SessionEvent::UserMessage { text, .. } => Some(cut(text)),
                _ => None,
            });
            ConversationRow {
                first_line,
                started: mine.first().map(|e| e.at),
                last_at: mine.last().map(|e| e.at),
                lines: mine.iter().filter(said).count(),
                current: n == newest,
                conversation,
            }
        })
        .collect();
    Ok(ConversationList {
        bot_id: bot.id,
        conversations,
    })
}

pub fn start(
    team: &Team,
    sessions: &Sessions,
    actor: &Actor,
    req: OfBot,
) -> Result<ConversationStarted, ApiError> {
    let bot = chat_bot(team, actor, Some(&req.bot_id), None)?;
    let now = flybot_store::system_now_ms();
    match sessions
        .new_conversation(&bot.session_id, now)
        .map_err(io_refusal)?
    {
        NewConversation::Started(conversation) => Ok(ConversationStarted {
            bot_id: bot.id,
            started: true,
            conversation,
        }),
        NewConversation::Empty => Ok(ConversationStarted {
            conversation: conversation(sessions, &bot, None)?,
            bot_id: bot.id,
            started: false,
        }),
        NewConversation::Busy => Err(ApiError::new(
            ErrorCode::Busy,
            "The Bot is still answering; stop it or wait for its answer, then start a new conversation.",
        )
        .with("botId", bot.id.as_str())),
    }
}

/// A line folded to one line and cut at `PREVIEW` characters.
fn cut(text: &str) -> String {
    let folded = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if folded.chars().count() <= PREVIEW {
        return folded;
    }
    let mut short: String = folded.chars().take(PREVIEW - 1).collect();
    short.push('…');
    short
}
