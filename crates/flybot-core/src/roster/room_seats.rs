//! A room's member Bots changing, written once (#50, #90): whoever changes
//! them (a person's `update-room`, a grant change that evicts a Bot no
//! longer shared), a Bot that left ends its window at the room's next line,
//! one that comes (back) starts a new window there, and an admin who left
//! the member list is admin no more.

use super::{RosterWrite, RosterWrites};
use crate::rooms::participants::{reseat_bots, to_values};
use crate::rooms::reach::evictions;
use flybot_protocol::state::{Room, TeamState};

/// Gives `room` the member Bots `members`; an admin not among them is
/// cleared.
pub fn set_member_bots(room: &mut Room, members: Vec<String>) {
    room.members = members;
    if room
        .admin
        .as_ref()
        .is_some_and(|a| !room.members.contains(a))
    {
        room.admin = None;
    }
}

/// Seats `room`'s member Bots and admin as they now stand against
/// `before`'s, at `next_seq`, the seq of the room's next line (#50).
pub fn reseat(before: &Room, room: &mut Room, next_seq: u64) {
    let seats = reseat_bots(before, &room.members, room.admin.as_deref(), next_seq);
    room.participants = to_values(&seats);
}

/// The Bots a grant change evicted from one room.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Eviction {
    pub room_id: String,
    pub bots: Vec<String>,
}

/// The evictions after a grant change and the rooms to write.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Evictions {
    pub evicted: Vec<Eviction>,
    pub writes: RosterWrites,
}

/// `evictUnshared` (#90): removes from every room the Bots the core
/// `evictions` rule answers for `state` (its grants as just changed); their
/// windows end at the room's next line, `next_seq(room id)`, which is read
/// only for a room that loses a Bot (#50).
pub fn evict_unshared(state: &TeamState, next_seq: impl Fn(&str) -> u64, now: u64) -> Evictions {
    let mut out = Evictions::default();
    for before in state.rooms.values() {
        let gone = evictions(state, before);
        if gone.is_empty() {
            continue;
        }
        let mut room = before.clone();
        let kept = room
            .members
            .iter()
            .filter(|m| !gone.contains(m))
            .cloned()
            .collect();
        set_member_bots(&mut room, kept);
        reseat(before, &mut room, next_seq(&before.id));
        room.updated_at = now;
        out.evicted.push(Eviction {
            room_id: room.id.clone(),
            bots: gone,
        });
        out.writes.push(RosterWrite::PutRoom(room));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{grant, shape, team};
    use super::*;
    use crate::rooms::participants::{Participant, participants_of};
    use std::cell::Cell;

    fn windows(room: &Room) -> Vec<(String, u64, Option<u64>)> {
        participants_of(room)
            .into_iter()
            .map(|p: Participant| (p.id, p.joined_seq, p.left_seq))
            .collect()
    }

    #[test]
    /// Rule #50.
    fn reseat_ends_a_leaving_bots_window_and_starts_a_coming_bots_at_the_next_seq() {
        let state = team();
        let before = &state.rooms["room-1"];
        let mut room = before.clone();
        set_member_bots(&mut room, vec!["bot-b".into(), "bot-rev".into()]);
        assert_eq!(room.admin, None, "Ada left, so she is admin no more");
        reseat(before, &mut room, 9);
        assert_eq!(
            windows(&room),
            [
                ("member-a".to_owned(), 0, None),
                ("bot-a".to_owned(), 0, Some(9)),
                ("bot-b".to_owned(), 0, None),
                ("bot-rev".to_owned(), 9, None),
            ]
        );
    }

    #[test]
    /// Rules #90, #50.
    fn evict_unshared_removes_an_ungranted_bot_once_at_the_rooms_next_seq() {
        let mut state = team();
        let room = state.rooms.get_mut("room-1").unwrap();
        room.members.push("bot-rev".into());
        state.grants.insert("bot-b".into(), vec![grant("member-b")]);
        state
            .grants
            .insert("bot-rev".into(), vec![grant("member-a")]);
        let reads = Cell::new(0);
        let next_seq = |room_id: &str| {
            assert_eq!(room_id, "room-1");
            reads.set(reads.get() + 1);
            8
        };

        let out = evict_unshared(&state, next_seq, 40);

        assert_eq!(reads.get(), 1);
        assert_eq!(
            out.evicted,
            [Eviction {
                room_id: "room-1".into(),
                bots: vec!["bot-a".into()],
            }]
        );
        assert_eq!(
            shape(&out.writes),
            ["room room-1 members [\"bot-b\", \"bot-rev\"] admin None at 40"]
        );
        let RosterWrite::PutRoom(room) = &out.writes.writes[0] else {
            panic!("the eviction writes the room");
        };
        assert_eq!(windows(room)[1], ("bot-a".to_owned(), 0, Some(8)));
    }

    #[test]
    /// Rule #90.
    fn evict_unshared_in_a_room_of_one_owner_writes_nothing_and_reads_no_seq() {
        let state = team();
        let out = evict_unshared(&state, |_| panic!("no room lost a Bot"), 40);
        assert_eq!(out, Evictions::default());
    }
}
