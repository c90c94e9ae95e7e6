//! Reading what happened: a Session's log (its person lines, tool results,
//! turn ends) and a room's lines, and handing a Session a person's line the
//! way the channel's `send` does once the settle window passed.

use crate::{Bot, Kit, Room};
use flybot_agent::session::{EndReason, ItemKind, SessionEvent, Source};
use flybot_core::rooms::log::RoomLine;

impl Kit {
    /// Every event in the Session's log, oldest first.
    pub fn transcript(&self, session: &str) -> Vec<SessionEvent> {
        self.host
            .sessions()
            .transcript(session, 0)
            .unwrap_or_default()
            .into_iter()
            .map(|entry| entry.event)
            .collect()
    }

    /// The texts of the Session's incoming messages (a person's, a Bot's,
    /// the host's), oldest first.
    pub fn user_texts(&self, session: &str) -> Vec<String> {
        self.transcript(session)
            .into_iter()
            .filter_map(|event| match event {
                SessionEvent::UserMessage { text, .. } => Some(text),
                _ => None,
            })
            .collect()
    }

    /// The Session's tool results, oldest first: (text, is_error).
    pub fn tool_results(&self, session: &str) -> Vec<(String, bool)> {
        self.transcript(session)
            .into_iter()
            .filter_map(|event| match event {
                SessionEvent::ToolResult { text, is_error, .. } => Some((text, is_error)),
                _ => None,
            })
            .collect()
    }

    /// Why each of the Session's turns ended, oldest first.
    pub fn end_reasons(&self, session: &str) -> Vec<EndReason> {
        self.transcript(session)
            .into_iter()
            .filter_map(|event| match event {
                SessionEvent::TurnEnd { reason, .. } => Some(reason),
                _ => None,
            })
            .collect()
    }

    /// The room's lines, oldest first.
    pub fn room_lines(&self, room: &Room) -> Vec<RoomLine> {
        // What a person is shown: the durable lines (issue 19).
        self.host.rooms().shown_lines(&room.id).unwrap()
    }

    /// The texts `bot` said in the room, oldest first.
    pub fn said(&self, room: &Room, bot: &Bot) -> Vec<String> {
        self.room_lines(room)
            .into_iter()
            .filter(|line| line.author_id == bot.id)
            .map(|line| line.text)
            .collect()
    }

    /// Hands `text` to the Session (a Bot's chat or a room seat) as a
    /// person's line, past the settle window.
    pub fn say(&self, session: &str, text: &str) {
        self.host
            .sessions()
            .deliver(
                session,
                text,
                Source::User { member_id: None },
                ItemKind::NextTurn,
            )
            .unwrap();
    }
}
