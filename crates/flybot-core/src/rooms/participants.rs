//! Typed room participants and the membership window (#50).
//!
//! A participant is a person, a local Bot or a granted remote Bot, with the
//! role admin or member and the seq interval it sits in: `joinedSeq` on, and
//! `leftSeq` once it left. A member sees the lines from its join on; leaving
//! withdraws that access; rejoining starts a new window at the new join.

use flybot_protocol::state::{Room, TeamState};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What sits in a seat (#50).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ParticipantKind {
    Human,
    LocalBot,
    RemoteBot,
}

/// A seat's role in the room.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RoomRole {
    Admin,
    Member,
}

fn member_role() -> RoomRole {
    RoomRole::Member
}

/// One seat of a room (#50).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Participant {
    /// A member id, a local Bot id, or a remote Bot's handle. A seat stored
    /// before this slice as `{kind: "human", memberId}` reads as a member
    /// from seq 0.
    #[serde(alias = "memberId")]
    pub id: String,
    pub kind: ParticipantKind,
    #[serde(default = "member_role")]
    pub role: RoomRole,
    #[serde(default)]
    pub joined_seq: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left_seq: Option<u64>,
    /// A remote Bot's owner (#90); a local seat's owner is the roster's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// A remote Bot's display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A local Bot brought into this room only, by its number (#90, #948).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub via_code: bool,
    /// A remote Bot's color (`#rrggbb`) as its home gave it (issue 34, the
    /// face-to-face participant look); none: the page seeds one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    /// A remote Bot's avatar: an emoji or initials its home gave it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avatar: Option<String>,
    /// A remote Bot's role as its home gave it (#476 `roleLabel`), cleaned
    /// like a name: the face room's roster names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role_label: Option<String>,
}

impl Participant {
    pub fn new(id: &str, kind: ParticipantKind, role: RoomRole, joined_seq: u64) -> Participant {
        Participant {
            id: id.to_string(),
            kind,
            role,
            joined_seq,
            left_seq: None,
            owner: None,
            name: None,
            via_code: false,
            color: None,
            avatar: None,
            role_label: None,
        }
    }

    /// Whether the seat is held now.
    pub fn is_live(&self) -> bool {
        self.left_seq.is_none()
    }

    /// Whether this seat may read the line at `seq` (#50).
    pub fn sees(&self, seq: u64) -> bool {
        self.is_live() && seq >= self.joined_seq
    }
}

/// The room's seats (`deriveParticipants`): the stored participants, then
/// the owner as a human admin and each member Bot from seq 0 when no stored
/// seat names them. The member list stays the speaking order's authority.
pub fn participants_of(room: &Room) -> Vec<Participant> {
    let mut seats: Vec<Participant> = room
        .participants
        .iter()
        .filter_map(|v| serde_json::from_value(v.clone()).ok())
        .collect();
    if !seats.iter().any(|p| p.id == room.owner_id) {
        seats.insert(
            0,
            Participant::new(&room.owner_id, ParticipantKind::Human, RoomRole::Admin, 0),
        );
    }
    for m in &room.members {
        if !seats.iter().any(|p| &p.id == m) {
            let role = if room.admin.as_deref() == Some(m) {
                RoomRole::Admin
            } else {
                RoomRole::Member
            };
            seats.push(Participant::new(m, ParticipantKind::LocalBot, role, 0));
        }
    }
    seats
}

/// The stored form of the seats; a person's seat also carries `memberId`,
/// the spelling the task rules read (#50).
pub fn to_values(seats: &[Participant]) -> Vec<Value> {
    seats
        .iter()
        .filter_map(|p| {
            let mut v = serde_json::to_value(p).ok()?;
            if p.kind == ParticipantKind::Human
                && let Some(o) = v.as_object_mut()
            {
                o.insert("memberId".into(), Value::from(p.id.clone()));
            }
            Some(v)
        })
        .collect()
}

/// The seats after the member Bots changed from `before` to `after` at
/// `seq`: a Bot that left ends its window, a Bot that came (back) starts a
/// new one (#50).
pub fn reseat_bots(
    room_before: &Room,
    after: &[String],
    admin: Option<&str>,
    seq: u64,
) -> Vec<Participant> {
    let mut seats = participants_of(room_before);
    for gone in room_before.members.iter().filter(|m| !after.contains(m)) {
        leave(&mut seats, gone, seq);
    }
    for id in after {
        let role = if admin == Some(id.as_str()) {
            RoomRole::Admin
        } else {
            RoomRole::Member
        };
        let came = !room_before.members.contains(id);
        let at = if came { seq } else { 0 };
        join(&mut seats, id, ParticipantKind::LocalBot, role, at);
    }
    seats
}

/// Seats `id` at `seq`: a new seat, or a new window for one that left
/// (#50). A live seat keeps its window and takes the role given.
pub fn join(
    seats: &mut Vec<Participant>,
    id: &str,
    kind: ParticipantKind,
    role: RoomRole,
    seq: u64,
) {
    match seats.iter_mut().find(|p| p.id == id) {
        Some(p) if p.is_live() => p.role = role,
        Some(p) => {
            p.joined_seq = seq;
            p.left_seq = None;
            p.role = role;
            p.kind = kind;
        }
        None => seats.push(Participant::new(id, kind, role, seq)),
    }
}

/// Ends `id`'s window at `seq` (#50). Answers whether a live seat left.
pub fn leave(seats: &mut [Participant], id: &str, seq: u64) -> bool {
    match seats.iter_mut().find(|p| p.id == id && p.is_live()) {
        Some(p) => {
            p.left_seq = Some(seq);
            true
        }
        None => false,
    }
}

/// The live local Bots in the room's speaking order (admin not moved).
pub fn live_bots(seats: &[Participant]) -> Vec<String> {
    seats
        .iter()
        .filter(|p| p.is_live() && p.kind == ParticipantKind::LocalBot)
        .map(|p| p.id.clone())
        .collect()
}

/// The first seq a member of the team may read in the room: its own live
/// seat, or the live seat of a Bot it owns, whichever started earlier
/// (#50). `None` is no window at all.
pub fn window_start(state: &TeamState, seats: &[Participant], member_id: &str) -> Option<u64> {
    seats
        .iter()
        .filter(|p| p.is_live())
        .filter(|p| match p.kind {
            ParticipantKind::Human => p.id == member_id,
            ParticipantKind::LocalBot => state
                .bots
                .get(&p.id)
                .is_some_and(|b| b.owner_id == member_id),
            ParticipantKind::RemoteBot => false,
        })
        .map(|p| p.joined_seq)
        .min()
}

/// The owners a room holds: the owners of its live local Bots and its live
/// people (#90: several owners make the room shared).
pub fn owners(state: &TeamState, seats: &[Participant]) -> Vec<String> {
    let mut out: Vec<String> = seats
        .iter()
        .filter(|p| p.is_live())
        .filter_map(|p| match p.kind {
            ParticipantKind::Human => Some(p.id.clone()),
            ParticipantKind::LocalBot => state.bots.get(&p.id).map(|b| b.owner_id.clone()),
            ParticipantKind::RemoteBot => None,
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::fixture::{room, team};
    use super::*;

    #[test]
    /// Rule #50.
    fn a_member_sees_from_its_join_leaving_withdraws_and_rejoin_starts_a_new_window() {
        let mut seats = participants_of(&room());
        join(
            &mut seats,
            "member-b",
            ParticipantKind::Human,
            RoomRole::Member,
            5,
        );
        let p = seats.iter().find(|p| p.id == "member-b").cloned();
        let p =
            p.unwrap_or_else(|| Participant::new("x", ParticipantKind::Human, RoomRole::Member, 0));
        assert!(!p.sees(4) && p.sees(5) && p.sees(9));
        assert!(leave(&mut seats, "member-b", 10));
        assert!(seats.iter().all(|p| p.id != "member-b" || !p.sees(6)));
        join(
            &mut seats,
            "member-b",
            ParticipantKind::Human,
            RoomRole::Member,
            20,
        );
        let again = seats
            .iter()
            .filter(|p| p.id == "member-b")
            .collect::<Vec<_>>();
        assert_eq!(again.len(), 1);
        assert!(!again[0].sees(6) && !again[0].sees(19) && again[0].sees(20));
    }

    #[test]
    /// Rule #50.
    fn a_room_without_participants_derives_its_seats() {
        let seats = participants_of(&room());
        assert_eq!(seats[0].kind, ParticipantKind::Human);
        assert_eq!(seats[0].role, RoomRole::Admin);
        assert_eq!(live_bots(&seats), vec!["bot-a", "bot-b", "bot-c"]);
        assert_eq!(
            seats.iter().find(|p| p.id == "bot-a").map(|p| p.role),
            Some(RoomRole::Admin)
        );
    }

    #[test]
    /// Rule #50.
    fn an_owner_reads_through_its_bots_seat_and_a_stranger_reads_nothing() {
        let state = team();
        let mut seats = participants_of(&room());
        for p in seats.iter_mut() {
            p.joined_seq = 3;
        }
        join(
            &mut seats,
            "bot-rev",
            ParticipantKind::LocalBot,
            RoomRole::Member,
            7,
        );
        assert_eq!(window_start(&state, &seats, "member-a"), Some(3));
        assert_eq!(window_start(&state, &seats, "member-b"), Some(7));
        assert_eq!(window_start(&state, &seats, "member-z"), None);
        leave(&mut seats, "bot-rev", 9);
        assert_eq!(window_start(&state, &seats, "member-b"), None);
        assert_eq!(owners(&state, &seats), vec!["member-a"]);
    }

    #[test]
    /// Rule #50.
    fn a_seat_stored_as_kind_and_member_id_reads_and_is_written_back_with_it() {
        let mut legacy = room();
        legacy.participants = vec![serde_json::json!({"kind": "human", "memberId": "member-b"})];
        let seats = participants_of(&legacy);
        let b = seats.iter().find(|p| p.id == "member-b").unwrap();
        assert_eq!(
            (b.kind, b.role, b.joined_seq),
            (ParticipantKind::Human, RoomRole::Member, 0)
        );
        assert_eq!(live_bots(&seats).len(), 3);
        let stored = to_values(&seats);
        assert!(stored.iter().any(|v| v["memberId"] == "member-b"));
    }

    #[test]
    /// Rule #50.
    fn reseating_ends_a_removed_bots_window_and_starts_a_returning_ones_anew() {
        let mut before = room();
        let seats = reseat_bots(&before, &["bot-a".into(), "bot-b".into()], Some("bot-a"), 5);
        let c = seats.iter().find(|p| p.id == "bot-c").unwrap();
        assert_eq!(c.left_seq, Some(5));
        before.participants = to_values(&seats);
        before.members = vec!["bot-a".into(), "bot-b".into()];
        let all = ["bot-a".into(), "bot-b".into(), "bot-c".into()];
        let back = reseat_bots(&before, &all, Some("bot-a"), 9);
        let c = back.iter().find(|p| p.id == "bot-c").unwrap();
        assert!(c.is_live() && !c.sees(8) && c.sees(9));
        assert_eq!(back.iter().find(|p| p.id == "bot-a").unwrap().joined_seq, 0);
    }
}
