//! A Session's inbox: input waiting for a turn. A `next-turn` item opens (or
//! joins the start of) the next turn; a `steer` item is admitted into the
//! running turn at its next step boundary, or opens the next turn if the
//! running one ends first.

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

    /// Everything, in arrival order: what a new turn starts with.
    pub fn take_all(&mut self) -> Vec<InboxItem> {
        self.items.drain(..).collect()
    }

    /// The steer items, in arrival order; next-turn items stay.
    pub fn take_steers(&mut self) -> Vec<InboxItem> {
        let (steers, rest): (VecDeque<_>, VecDeque<_>) = self
            .items
            .drain(..)
            .partition(|item| item.kind == ItemKind::Steer);
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
