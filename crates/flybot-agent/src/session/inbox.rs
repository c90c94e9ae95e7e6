//! A Session's inbox: input waiting for a turn. A `next-turn` item opens (or
//! joins the start of) the next turn; a `steer` item is admitted into the
//! running turn at its next step boundary, or opens the next turn if the
//! running one ends first.
//!
//! A turn answers one audience (issue 33, #420, #553, #1266): a friend's
//! line is answered in that friend's room, a connector's message in its
//! chat and a request another Bot handed from a room in that room, so a
//! turn never takes lines from two audiences. Otherwise one friend's words
//! would reach another friend, or the owner's, a friend, through the one
//! answer the turn writes.

use super::event::Source;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ItemKind {
    NextTurn,
    Steer,
}

/// One queued input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InboxItem {
    pub id: String,
    pub text: String,
    pub source: Source,
    pub kind: ItemKind,
    /// The attachments (ids) a person's line carries (issue 32); a model
    /// that sees images is sent the images among them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<String>,
}

#[derive(Debug, Default)]
pub struct Inbox {
    items: VecDeque<InboxItem>,
}

impl Inbox {
    pub fn push(&mut self, item: InboxItem) {
        self.items.push_back(item);
    }

    /// What a new turn starts with: the first item and every item after it
    /// in arrival order up to the first one for another audience. The rest
    /// waits for the next turn.
    pub fn take_turn(&mut self) -> Vec<InboxItem> {
        let Some(first) = self.items.front() else {
            return Vec::new();
        };
        let audience = Audience::of(&first.source);
        let taken = self
            .items
            .iter()
            .take_while(|item| Audience::of(&item.source) == audience)
            .count();
        self.items.drain(..taken).collect()
    }

    /// The steer items for the audience of the turn `opened_by` began, in
    /// arrival order; next-turn items and another audience's steers stay.
    pub fn take_steers(&mut self, opened_by: &Source) -> Vec<InboxItem> {
        let audience = Audience::of(opened_by);
        let (steers, rest): (VecDeque<_>, VecDeque<_>) = self.items.drain(..).partition(|item| {
            item.kind == ItemKind::Steer && Audience::of(&item.source) == audience
        });
        self.items = rest;
        steers.into_iter().collect()
    }

    pub fn clear(&mut self) {
        self.items.clear();
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn items(&self) -> impl Iterator<Item = &InboxItem> {
        self.items.iter()
    }

    /// How many queued items came from Bots (for `MAX_UNREAD_REQUESTS`).
    pub fn from_bots(&self) -> usize {
        self.items
            .iter()
            .filter(|item| matches!(item.source, Source::Bot { .. }))
            .count()
    }
}

/// Whom a turn's answer goes to.
#[derive(Debug, PartialEq, Eq)]
enum Audience<'a> {
    /// The home's own people and Bots, its rooms and schedules.
    Home,
    /// A friend's room over Matrix: the answer goes back into it.
    Friend { home: &'a str, room: &'a str },
    /// A connector's chat: the answer goes back out to it.
    Connector { connector: &'a str, chat: &'a str },
    /// A room another Bot handed work from (#553): a turn of only such
    /// requests answers into that room.
    Room { room: &'a str },
}

impl<'a> Audience<'a> {
    fn of(source: &'a Source) -> Self {
        match source {
            Source::Friend { home, room, .. } => Audience::Friend { home, room },
            Source::Connector { connector, chat } => Audience::Connector { connector, chat },
            Source::Bot {
                room_id: Some(room),
                ..
            } => Audience::Room { room },
            _ => Audience::Home,
        }
    }
}

#[cfg(test)]
#[path = "inbox_tests.rs"]
mod tests;
