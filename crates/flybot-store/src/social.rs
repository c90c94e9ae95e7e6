//! Bot Social's writes (issue 33): the account, the sync token, the event
//! ids applied, the outbox, the inbox of friends' lines, friends and rooms,
//! each one journaled record of `state.social`, so a batch of events and
//! the token after it land in one change or not at all.

use crate::change::Change;
use flybot_protocol::social::{
    Friend, HeldItem, HeldReply, InboxLine, OutboxItem, RemoteContact, RoomClaim, SendPolicy,
    SocialAccount, SocialRoom,
};

/// The friends' homes kept per Bot (#420), and the replies kept (#417).
pub const CONTACTS_KEPT: usize = 200;
pub const REPLIES_KEPT: usize = 200;

/// The oldest keys beyond `keep`, by the time each was written.
fn oldest_beyond<'a>(items: impl Iterator<Item = (&'a String, u64)>, keep: usize) -> Vec<String> {
    let mut by_age: Vec<(u64, String)> = items.map(|(id, at)| (at, id.clone())).collect();
    by_age.sort();
    let over = by_age.len().saturating_sub(keep);
    by_age.into_iter().take(over).map(|(_, id)| id).collect()
}

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

    /// #420: notes that `sender` wrote to Bot `bot_id`; answers whether it
    /// was the sender's first line. The oldest beyond `CONTACTS_KEPT` go,
    /// and so do the contacts of Bots no longer in the team.
    pub fn note_contact(&mut self, bot_id: &str, sender: &str) -> bool {
        let now = self.now_ms();
        let gone: Vec<String> = (self.state().social.contacts.keys())
            .filter(|bot| !self.state().bots.contains_key(*bot))
            .cloned()
            .collect();
        for bot in gone {
            self.delete(key(&["social", "contacts", &bot]));
        }
        let mut contacts = (self.state().social.contacts.get(bot_id))
            .cloned()
            .unwrap_or_default();
        let first_at = contacts.get(sender).map(|c| c.first_at);
        let contact = RemoteContact {
            first_at: first_at.unwrap_or(now),
            last_at: now,
        };
        contacts.insert(sender.to_owned(), contact);
        let ages = contacts.iter().map(|(id, c)| (id, c.last_at));
        for old in oldest_beyond(ages, CONTACTS_KEPT) {
            contacts.remove(&old);
        }
        self.set(key(&["social", "contacts", bot_id]), &contacts);
        first_at.is_none()
    }

    /// #52, #417: sets how Bot `bot_id` sends to friends; Auto-send is
    /// the default and is kept as no record.
    pub fn set_send_policy(&mut self, bot_id: &str, policy: SendPolicy) {
        match policy {
            SendPolicy::AutoSend => self.delete(key(&["social", "policies", bot_id])),
            SendPolicy::AskFirst => self.set(key(&["social", "policies", bot_id]), &policy),
        }
    }

    /// #52: holds a send for the owner's word.
    pub fn put_held(&mut self, held: &HeldItem) {
        self.set(key(&["social", "held", &held.item.id]), held);
    }

    pub fn remove_held(&mut self, id: &str) {
        self.delete(key(&["social", "held", id]));
    }

    /// An invite from a user who is not a friend yet, kept for the owner.
    pub fn put_invite(&mut self, room_id: &str, inviter: &str) {
        self.set(key(&["social", "invites", room_id]), &inviter);
    }

    pub fn remove_invite(&mut self, room_id: &str) {
        self.delete(key(&["social", "invites", room_id]));
    }

    /// Issue 34 (#884): a room invite link this home claimed.
    pub fn put_room_claim(&mut self, claim: &RoomClaim) {
        self.set(key(&["social", "roomClaims", &claim.ticket]), claim);
    }

    pub fn remove_room_claim(&mut self, ticket: &str) {
        self.delete(key(&["social", "roomClaims", ticket]));
    }

    /// #417: puts a Bot's reply record, forgetting the oldest beyond
    /// `REPLIES_KEPT`.
    pub fn put_reply(&mut self, reply: &HeldReply) {
        self.set(key(&["social", "replies", &reply.id]), reply);
        let ages = self.state().social.replies.iter().map(|(id, r)| (id, r.at));
        for old in oldest_beyond(ages, REPLIES_KEPT) {
            self.delete(key(&["social", "replies", &old]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flybot_protocol::TeamState;

    fn with_bot(id: &str) -> TeamState {
        let mut state = TeamState::default();
        let bot = serde_json::json!({
            "id": id, "name": "Helper", "ownerId": "m1", "model": "mock", "instructions": "",
            "sessionId": "s1", "createdAt": 1, "updatedAt": 1
        });
        if let Ok(bot) = serde_json::from_value(bot) {
            state.bots.insert(id.to_owned(), bot);
        }
        state
    }

    #[test]
    /// Rule #420.
    fn remote_contacts_mark_the_first_line_keep_200_and_go_with_the_bot() {
        let mut state = with_bot("b1");
        assert!(state.bots.contains_key("b1"), "the fixture Bot parses");
        let mut change = Change::new(&mut state, 1_000);
        assert!(change.note_contact("b1", "@bob:x"), "first line");
        assert!(!change.note_contact("b1", "@bob:x"), "a second line");
        for n in 0..CONTACTS_KEPT + 5 {
            change.note_contact("b1", &format!("@p{n}:x"));
        }
        let kept = &change.state().social.contacts["b1"];
        assert_eq!(kept.len(), CONTACTS_KEPT);
        // A Bot that left the team takes its contacts with it.
        let mut state = with_bot("b1");
        let mut change = Change::new(&mut state, 1_000);
        change.note_contact("b1", "@bob:x");
        change.remove_bot("b1");
        change.note_contact("b2", "@bob:x");
        assert!(!change.state().social.contacts.contains_key("b1"));
    }
}
