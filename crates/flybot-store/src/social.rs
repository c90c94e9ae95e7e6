//! Bot Social's writes (issue 33): the account, the sync token, the event
//! ids applied, the outbox, the inbox of friends' lines, friends and rooms,
//! each one journaled record of `state.social`, so a batch of events and
//! the token after it land in one change or not at all.

use crate::change::Change;
use flybot_protocol::social::{Friend, InboxLine, OutboxItem, SocialAccount, SocialRoom};

/// The applied event ids kept; older ones are forgotten (the sync token
/// has long moved past them).
pub const APPLIED_KEPT: usize = 2000;

fn key(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|p| (*p).to_owned()).collect()
}

impl Change<'_> {
    /// Sets (or clears) the home's Matrix account.
    pub fn set_social_account(&mut self, account: Option<&SocialAccount>) {
        match account {
            Some(account) => self.set(key(&["social", "account"]), account),
            None => self.delete(key(&["social", "account"])),
        }
    }

    /// Sets the `/sync` token the next poll starts from.
    pub fn set_social_since(&mut self, since: &str) {
        self.set(key(&["social", "since"]), &since);
    }

    /// Forgets the `/sync` token: the next poll is a first one.
    pub fn clear_social_since(&mut self) {
        self.delete(key(&["social", "since"]));
    }

    /// Notes an event applied, forgetting the oldest beyond `APPLIED_KEPT`.
    pub fn note_applied(&mut self, event_id: &str) {
        let now = self.now_ms();
        self.set(key(&["social", "applied", event_id]), &now);
        let applied = &self.state().social.applied;
        if applied.len() > APPLIED_KEPT {
            let mut by_age: Vec<(u64, String)> =
                applied.iter().map(|(id, at)| (*at, id.clone())).collect();
            by_age.sort();
            let over = by_age.len() - APPLIED_KEPT;
            for (_, id) in by_age.into_iter().take(over) {
                self.delete(key(&["social", "applied", &id]));
            }
        }
    }

    pub fn put_outbox(&mut self, item: &OutboxItem) {
        self.set(key(&["social", "outbox", &item.id]), item);
    }

    pub fn remove_outbox(&mut self, id: &str) {
        self.delete(key(&["social", "outbox", id]));
    }

    pub fn put_inbox(&mut self, line: &InboxLine) {
        self.set(key(&["social", "inbox", &line.event_id]), line);
    }

    pub fn remove_inbox(&mut self, event_id: &str) {
        self.delete(key(&["social", "inbox", event_id]));
    }

    pub fn put_friend(&mut self, friend: &Friend) {
        self.set(key(&["social", "friends", &friend.user_id]), friend);
    }

    pub fn put_social_room(&mut self, room: &SocialRoom) {
        self.set(key(&["social", "rooms", &room.room_id]), room);
    }
}
