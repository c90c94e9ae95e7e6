//! Which cards each room holds (issue 38): a room's round reads its own
//! cards at each member turn, and scanning a board of 10,000 cards for them
//! cost 3.5-6.5 ms a turn in `flybot-bench store` (the index: 0.15-0.27 ms),
//! a cache miss a card. The index is
//! kept beside the team, moved by each change's task keys and stamped with
//! the team's seq and digest; a team put in place whole (a load, a reload,
//! a standby's catch-up) leaves the stamp behind, and the next read builds
//! the index again from the team.

use flybot_protocol::journal::Op;
use flybot_protocol::state::TeamState;
use std::collections::{BTreeSet, HashMap};

/// The journal's place the index stands for: seq and digest.
type Stamp = (u64, Option<String>);

/// Each room's card ids, and each card's room.
#[derive(Debug, Default)]
pub(crate) struct RoomCards {
    by_room: HashMap<String, BTreeSet<String>>,
    room_of: HashMap<String, String>,
    /// `None` until built, and once a change it could not follow was made.
    stamp: Option<Stamp>,
}

impl RoomCards {
    /// The ids of `room_id`'s cards in `team`, built again first when the
    /// index does not stand for this team.
    pub(crate) fn of(&mut self, team: &TeamState, room_id: &str) -> Vec<String> {
        if !self.stands_for(team) {
            self.build(team);
        }
        self.by_room
            .get(room_id)
            .map(|ids| ids.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Whether the index stands for `team` as it is (its seq and digest),
    /// compared in place: a change asks this on the write path.
    pub(crate) fn stands_for(&self, team: &TeamState) -> bool {
        self.stamp
            .as_ref()
            .is_some_and(|(seq, digest)| *seq == team.journal_seq && *digest == team.journal_digest)
    }

    /// Follows a change just made to `team` (now at its new seq and
    /// digest) by the task keys of `ops`, if the index stood for the team
    /// before it (`stood`); otherwise it stays behind, to be built again.
    pub(crate) fn follow<V>(&mut self, team: &TeamState, stood: bool, ops: &[Op<V>]) {
        if !stood {
            return;
        }
        for op in ops {
            let key = match op {
                Op::Set { key, .. } | Op::Delete { key } => key,
            };
            match key.as_slice() {
                [tasks, id, ..] if tasks == "tasks" => self.refresh(team, id),
                [tasks] if tasks == "tasks" => {
                    self.stamp = None;
                    return;
                }
                _ => {}
            }
        }
        self.stamp = Some(stamp_of(team));
    }

    fn build(&mut self, team: &TeamState) {
        self.by_room.clear();
        self.room_of.clear();
        for (id, task) in &team.tasks {
            if let Some(room) = &task.room_id {
                self.place(id, room);
            }
        }
        self.stamp = Some(stamp_of(team));
    }

    /// Puts card `id` where `team` has it now: in its room, or in none.
    fn refresh(&mut self, team: &TeamState, id: &str) {
        if let Some(room) = self.room_of.remove(id)
            && let Some(ids) = self.by_room.get_mut(&room)
        {
            ids.remove(id);
            if ids.is_empty() {
                self.by_room.remove(&room);
            }
        }
        if let Some(room) = team.tasks.get(id).and_then(|task| task.room_id.as_ref()) {
            self.place(id, room);
        }
    }

    fn place(&mut self, id: &str, room: &str) {
        self.room_of.insert(id.to_owned(), room.to_owned());
        self.by_room
            .entry(room.to_owned())
            .or_default()
            .insert(id.to_owned());
    }
}

fn stamp_of(team: &TeamState) -> Stamp {
    (team.journal_seq, team.journal_digest.clone())
}

#[cfg(test)]
#[path = "room_cards_tests.rs"]
mod tests;
