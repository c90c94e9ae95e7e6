//! Calls inside the running round (#557, #804, #932, #1254): the names in a
//! member's reply or post, queued within the per-member caps and the round's
//! own limit, except a member's @ of the admin.

use super::super::mentions::calls;
use super::super::{ROOM_ADMIN_TURNS_EACH, ROOM_ROUND_TURNS_MAX, ROOM_TURNS_EACH};
use super::{Round, Slot};

/// Why a call inside the round was not queued.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Dropped {
    NotAMember,
    Sender,
    Cap,
    RoundLimit,
}

impl Round {
    fn cap_of(&self, id: &str) -> u32 {
        if self.setup.admin.as_deref() == Some(id) {
            ROOM_ADMIN_TURNS_EACH
        } else {
            ROOM_TURNS_EACH
        }
    }

    fn planned(&self, id: &str) -> u32 {
        let queued = self.queue.iter().filter(|s| s.bot_id == id).count() as u32;
        let running = u32::from(self.current.as_ref().is_some_and(|s| s.bot_id == id));
        self.turns.get(id).copied().unwrap_or(0) + queued + running
    }

    fn total(&self) -> u32 {
        self.slots.len() as u32 + self.queue.len() as u32 + u32::from(self.current.is_some())
    }

    /// A call of `id` by `from` inside the round, checked against the caps
    /// (#557) and the admin-mention exception (#804).
    fn enqueue_call(&mut self, from: &str, id: &str) -> Result<(), Dropped> {
        if !self.setup.is_member(id) {
            return Err(Dropped::NotAMember);
        }
        if from == id {
            return Err(Dropped::Sender);
        }
        if self.total() >= ROOM_ROUND_TURNS_MAX {
            return Err(Dropped::RoundLimit);
        }
        let admin_called = self.setup.admin.as_deref() == Some(id);
        if !admin_called && self.planned(id) >= self.cap_of(id) {
            return Err(Dropped::Cap);
        }
        if let Some(slot) = self
            .queue
            .iter_mut()
            .find(|s| s.bot_id == id && s.outcome.is_none())
        {
            // Already queued: the call keeps that slot from the routed-round
            // skip, so the member named in a reply still speaks (#932).
            if slot.by.is_none() && !slot.addressed {
                slot.by = Some(from.to_string());
            }
            return Ok(());
        }
        self.queue.push_back(Slot {
            bot_id: id.to_string(),
            addressed: false,
            by: Some(from.to_string()),
            forced: false,
            outcome: None,
        });
        Ok(())
    }

    /// #932: a `post_to_group` line of `from` while the round runs; its @
    /// names (members, never the sender) are called at the next loop head.
    /// An event post calls nobody. Answers whether the line named anyone
    /// here: a line that named nobody waits for the next round instead.
    pub fn call_from_post(&mut self, from: &str, text: &str) -> bool {
        // #475: another home's Bot answered the line; a routed round here
        // ends as it would on a local answer.
        if self.other_homes_answer && !self.setup.is_member(from) && self.routed && !self.broadcast
        {
            self.answered = true;
        }
        let mut named = false;
        for id in calls(text, &self.setup.order).ids {
            named |= id != from;
            self.calls.push((from.to_string(), id));
        }
        named
    }

    /// #1254: a dispatch the board took calls nobody: drops the pending
    /// call of `id` by `from`, so the member works from its card instead of
    /// a round turn.
    pub fn uncall(&mut self, from: &str, id: &str) {
        self.calls.retain(|(f, i)| !(f == from && i == id));
    }

    pub(super) fn drain_calls(&mut self) {
        for (from, id) in std::mem::take(&mut self.calls) {
            if let Err(why) = self.enqueue_call(&from, &id) {
                self.dropped.push((id, why));
            }
        }
    }
}
