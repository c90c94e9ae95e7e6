//! `reach()` (#90, #948, #1126): the owner policy judged before every send,
//! again on approval release, and on every delivery with a sender (queued,
//! resumed, retried), so a grant revoked while a message waits stops it. A
//! pure function of the team and the send.

use super::participants::{Participant, ParticipantKind, participants_of};
use flybot_protocol::state::{Room, TeamState};

/// One end of a send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Party {
    /// A Bot of this home.
    Bot(String),
    /// A friend's Bot: its handle and its owner.
    Remote { handle: String, owner: String },
    /// A person of this home.
    Person(String),
}

/// What kind of send it is: a user-mention may find its room (#1126); a
/// plain line and `message_bot` stay on the grant rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendKind {
    Plain,
    MessageBot,
    UserMention,
    RoomLine,
}

/// A send as `reach()` judges it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Send {
    pub from: Party,
    pub to: Party,
    pub room_id: Option<String>,
    pub kind: SendKind,
}

/// Why a send may not go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Denied {
    /// A Bot this home does not have.
    UnknownBot(String),
    /// A local Bot toward a friend's Bot it is not shared with (#273).
    NotShared { bot: String, with: String },
    /// No grant and no room both sides sit in.
    NoGrant,
}

/// The verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The send may go, in the room it belongs to (found by #948 / #1126
    /// when the caller named none).
    Allow {
        room_id: Option<String>,
    },
    Deny(Denied),
}

impl Denied {
    /// The sentence the sender is told.
    pub fn sentence(&self, state: &TeamState) -> String {
        match self {
            Denied::UnknownBot(id) => format!("There is no Bot {id} here."),
            Denied::NotShared { bot, with } => {
                let name = state
                    .bots
                    .get(bot)
                    .map_or(bot.as_str(), |b| b.name.as_str());
                format!("{name} is not shared with {with}. Share it in Settings → Sharing.")
            }
            Denied::NoGrant => {
                "This Bot may not reach that one: no grant and no room in common.".to_string()
            }
        }
    }
}

/// Whether `bot` holds a grant to `grantee` that covers `room` (#90).
pub fn has_grant(state: &TeamState, bot: &str, grantee: &str, room: Option<&str>) -> bool {
    state.grants.get(bot).is_some_and(|gs| {
        gs.iter()
            .any(|g| g.grantee == grantee && g.room_id.as_deref().is_none_or(|r| Some(r) == room))
    })
}

/// Whether `bot` holds any grant at all.
pub fn has_any_grant(state: &TeamState, bot: &str) -> bool {
    state.grants.get(bot).is_some_and(|gs| !gs.is_empty())
}

fn live_seat<'a>(seats: &'a [Participant], id: &str) -> Option<&'a Participant> {
    seats.iter().find(|p| p.id == id && p.is_live())
}

fn seated(room: &Room, id: &str) -> bool {
    live_seat(&participants_of(room), id).is_some()
}

/// `reach()` (#90): default deny, Chief included.
pub fn reach(state: &TeamState, send: &Send) -> Verdict {
    let room = send.room_id.as_deref().and_then(|r| state.rooms.get(r));
    match (&send.from, &send.to) {
        (Party::Bot(a), Party::Bot(b)) => bot_to_bot(state, send, room, a, b),
        (Party::Remote { handle, owner }, Party::Bot(b)) => {
            remote_to_bot(state, send, handle, owner, b)
        }
        (Party::Bot(a), Party::Remote { handle, owner }) => {
            bot_to_remote(state, send, room, a, handle, owner)
        }
        (Party::Person(m), Party::Bot(b)) => person_to_bot(state, send, room, m, b),
        (Party::Bot(a), Party::Person(m)) => bot_to_person(state, send, room, a, m),
        (Party::Person(_), Party::Person(_))
        | (Party::Person(_), Party::Remote { .. })
        | (Party::Remote { .. }, Party::Person(_))
        | (Party::Remote { .. }, Party::Remote { .. }) => Verdict::Deny(Denied::NoGrant),
    }
}

/// The send may go in the room it names (or none).
fn allowed(send: &Send) -> Verdict {
    Verdict::Allow {
        room_id: send.room_id.clone(),
    }
}

/// Two local Bots: the same owner, a room both sit in, or a grant each way.
fn bot_to_bot(state: &TeamState, send: &Send, room: Option<&Room>, a: &str, b: &str) -> Verdict {
    let (Some(ba), Some(bb)) = (state.bots.get(a), state.bots.get(b)) else {
        let missing = if state.bots.contains_key(a) { b } else { a };
        return Verdict::Deny(Denied::UnknownBot(missing.to_owned()));
    };
    if ba.owner_id == bb.owner_id {
        return allowed(send);
    }
    if room.is_some_and(|r| seated(r, a) && seated(r, b)) {
        return allowed(send);
    }
    let r = send.room_id.as_deref();
    let a_to_b = has_grant(state, a, &bb.owner_id, r) || has_grant(state, a, b, r);
    let b_to_a = has_grant(state, b, &ba.owner_id, r) || has_grant(state, b, a, r);
    if a_to_b && b_to_a {
        allowed(send)
    } else {
        Verdict::Deny(Denied::NoGrant)
    }
}

/// A friend's Bot toward a local Bot: the local Bot is granted to the friend's
/// Bot or to its owner.
fn remote_to_bot(state: &TeamState, send: &Send, handle: &str, owner: &str, b: &str) -> Verdict {
    if !state.bots.contains_key(b) {
        return Verdict::Deny(Denied::UnknownBot(b.to_owned()));
    }
    let r = send.room_id.as_deref();
    if has_grant(state, b, handle, r) || has_grant(state, b, owner, r) {
        allowed(send)
    } else {
        Verdict::Deny(Denied::NoGrant)
    }
}

/// A local Bot toward a friend's Bot: a grant, a room both joined (the local
/// Bot by the room's number), or with no room named the one room #948 or
/// #1126 finds.
fn bot_to_remote(
    state: &TeamState,
    send: &Send,
    room: Option<&Room>,
    a: &str,
    handle: &str,
    owner: &str,
) -> Verdict {
    if !state.bots.contains_key(a) {
        return Verdict::Deny(Denied::UnknownBot(a.to_owned()));
    }
    let r = send.room_id.as_deref();
    if has_grant(state, a, handle, r) || has_grant(state, a, owner, r) {
        return allowed(send);
    }
    let denied = Verdict::Deny(Denied::NotShared {
        bot: a.to_owned(),
        with: owner.to_owned(),
    });
    if let Some(room) = room {
        let seats = participants_of(room);
        let code_joined = live_seat(&seats, a).is_some_and(|p| p.via_code);
        return if code_joined && live_seat(&seats, handle).is_some() {
            allowed(send)
        } else {
            denied
        };
    }
    if send.room_id.is_some() {
        return denied;
    }
    match found_room(state, send.kind, a, handle) {
        Some(room_id) => Verdict::Allow {
            room_id: Some(room_id),
        },
        None => denied,
    }
}

/// The one room a send naming no room belongs to, when exactly one fits.
fn found_room(state: &TeamState, kind: SendKind, a: &str, handle: &str) -> Option<String> {
    // #948: a room-only identity (no grant at all, joined by number)
    // reaches the one room where the exact target is still seated.
    if !has_any_grant(state, a) {
        let rooms = rooms_where(state, |seats| {
            live_seat(seats, a).is_some_and(|p| p.via_code) && live_seat(seats, handle).is_some()
        });
        if let [only] = rooms.as_slice() {
            return Some(only.clone());
        }
    }
    // #1126: a user-mention finds the one live room where this Bot is
    // a member and the exact target is still a remote seat.
    if kind == SendKind::UserMention {
        let rooms = rooms_where(state, |seats| {
            live_seat(seats, a).is_some()
                && live_seat(seats, handle).is_some_and(|p| p.kind == ParticipantKind::RemoteBot)
        });
        if let [only] = rooms.as_slice() {
            return Some(only.clone());
        }
    }
    None
}

/// A person toward a local Bot: its owner, a grant, or a room both sit in.
fn person_to_bot(state: &TeamState, send: &Send, room: Option<&Room>, m: &str, b: &str) -> Verdict {
    match state.bots.get(b) {
        None => Verdict::Deny(Denied::UnknownBot(b.to_owned())),
        Some(bot) if bot.owner_id == *m => allowed(send),
        Some(_) if has_grant(state, b, m, send.room_id.as_deref()) => allowed(send),
        Some(_) if room.is_some_and(|r| seated(r, m) && seated(r, b)) => allowed(send),
        Some(_) => Verdict::Deny(Denied::NoGrant),
    }
}

/// A local Bot toward a person: its owner, or a room both sit in.
fn bot_to_person(state: &TeamState, send: &Send, room: Option<&Room>, a: &str, m: &str) -> Verdict {
    match state.bots.get(a) {
        None => Verdict::Deny(Denied::UnknownBot(a.to_owned())),
        Some(bot) if bot.owner_id == *m => allowed(send),
        Some(_) if room.is_some_and(|r| seated(r, m) && seated(r, a)) => allowed(send),
        Some(_) => Verdict::Deny(Denied::NoGrant),
    }
}

fn rooms_where(state: &TeamState, test: impl Fn(&[Participant]) -> bool) -> Vec<String> {
    state
        .rooms
        .values()
        .filter(|r| test(&participants_of(r)))
        .map(|r| r.id.clone())
        .collect()
}

/// `evictUnshared` (#90): in a room with friends' Bots or several owners, a
/// local Bot stays only while it is granted to every other party (or came
/// in by the room's number). Answers the Bots to remove.
pub fn evictions(state: &TeamState, room: &Room) -> Vec<String> {
    let seats = participants_of(room);
    let remotes: Vec<&Participant> = seats
        .iter()
        .filter(|p| p.is_live() && p.kind == ParticipantKind::RemoteBot)
        .collect();
    let owners = super::participants::owners(state, &seats);
    if remotes.is_empty() && owners.len() < 2 {
        return Vec::new();
    }
    seats
        .iter()
        .filter(|p| p.is_live() && p.kind == ParticipantKind::LocalBot && !p.via_code)
        .filter(|p| {
            let Some(bot) = state.bots.get(&p.id) else {
                return true;
            };
            let r = Some(room.id.as_str());
            let owners_ok = owners
                .iter()
                .filter(|o| **o != bot.owner_id)
                .all(|o| has_grant(state, &p.id, o, r));
            let remotes_ok = remotes.iter().all(|rm| {
                has_grant(state, &p.id, &rm.id, r)
                    || rm
                        .owner
                        .as_deref()
                        .is_some_and(|o| has_grant(state, &p.id, o, r))
            });
            !(owners_ok && remotes_ok)
        })
        .map(|p| p.id.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::fixture::team;
    use super::super::participants::{RoomRole, join, to_values};
    use super::*;
    use flybot_protocol::state::Grant;

    fn grant(state: &mut TeamState, bot: &str, grantee: &str, room: Option<&str>) {
        state.grants.entry(bot.into()).or_default().push(Grant {
            grantee: grantee.into(),
            room_id: room.map(Into::into),
        });
    }

    fn send(from: Party, to: Party, room: Option<&str>, kind: SendKind) -> Send {
        Send {
            from,
            to,
            room_id: room.map(Into::into),
            kind,
        }
    }

    fn friend() -> Party {
        Party::Remote {
            handle: "fred.bot".into(),
            owner: "Fred".into(),
        }
    }

    #[test]
    /// Rule #90.
    fn reach_is_default_deny_and_grants_open_each_direction() {
        let mut state = team();
        let b = |id: &str| Party::Bot(id.into());
        assert!(matches!(
            reach(
                &state,
                &send(b("bot-a"), b("bot-b"), None, SendKind::MessageBot)
            ),
            Verdict::Allow { .. }
        ));
        let cross = send(b("bot-a"), b("bot-rev"), None, SendKind::MessageBot);
        assert_eq!(reach(&state, &cross), Verdict::Deny(Denied::NoGrant));
        grant(&mut state, "bot-a", "member-b", None);
        assert_eq!(reach(&state, &cross), Verdict::Deny(Denied::NoGrant));
        grant(&mut state, "bot-rev", "member-a", None);
        assert!(matches!(reach(&state, &cross), Verdict::Allow { .. }));
        // A friend's Bot reaches only a Bot granted to it.
        let inbound = send(friend(), b("bot-a"), None, SendKind::MessageBot);
        assert_eq!(reach(&state, &inbound), Verdict::Deny(Denied::NoGrant));
        grant(&mut state, "bot-a", "Fred", None);
        assert!(matches!(reach(&state, &inbound), Verdict::Allow { .. }));
        // Revoking the grant stops a message already queued: the verdict is
        // what is true at delivery.
        state.grants.remove("bot-a");
        assert_eq!(reach(&state, &inbound), Verdict::Deny(Denied::NoGrant));
        let out = send(b("bot-a"), friend(), None, SendKind::Plain);
        let Verdict::Deny(d) = reach(&state, &out) else {
            panic!("allowed")
        };
        assert!(d.sentence(&state).contains("not shared with Fred"));
    }

    #[test]
    /// Rule #90.
    fn two_owners_in_one_room_reach_each_other_there() {
        let mut state = team();
        let room = state.rooms.get_mut("room-1").unwrap();
        let mut seats = participants_of(room);
        join(
            &mut seats,
            "bot-rev",
            ParticipantKind::LocalBot,
            RoomRole::Member,
            4,
        );
        room.participants = to_values(&seats);
        let s = send(
            Party::Bot("bot-rev".into()),
            Party::Bot("bot-b".into()),
            Some("room-1"),
            SendKind::RoomLine,
        );
        assert!(matches!(reach(&state, &s), Verdict::Allow { .. }));
        let outside = send(
            Party::Bot("bot-rev".into()),
            Party::Bot("bot-b".into()),
            None,
            SendKind::MessageBot,
        );
        assert_eq!(reach(&state, &outside), Verdict::Deny(Denied::NoGrant));
    }

    fn seat_friend(state: &mut TeamState, code_joined: bool) {
        let room = state.rooms.get_mut("room-1").unwrap();
        let mut seats = participants_of(room);
        join(
            &mut seats,
            "fred.bot",
            ParticipantKind::RemoteBot,
            RoomRole::Member,
            3,
        );
        if let Some(p) = seats.iter_mut().find(|p| p.id == "fred.bot") {
            p.owner = Some("Fred".into());
        }
        if let Some(p) = seats.iter_mut().find(|p| p.id == "bot-b") {
            p.via_code = code_joined;
        }
        room.participants = to_values(&seats);
    }

    #[test]
    /// Rule #948.
    fn a_room_only_bot_reaches_the_one_room_where_the_target_is_seated() {
        let mut state = team();
        seat_friend(&mut state, true);
        let s = send(Party::Bot("bot-b".into()), friend(), None, SendKind::Plain);
        assert_eq!(
            reach(&state, &s),
            Verdict::Allow {
                room_id: Some("room-1".into())
            }
        );
        // A Bot that holds any grant keeps asking for an explicit room.
        grant(&mut state, "bot-b", "someone-else", None);
        assert!(matches!(reach(&state, &s), Verdict::Deny(_)));
    }

    #[test]
    /// Rule #1126.
    fn a_user_mention_with_no_room_finds_the_one_live_room() {
        let mut state = team();
        seat_friend(&mut state, false);
        let mention = send(
            Party::Bot("bot-c".into()),
            friend(),
            None,
            SendKind::UserMention,
        );
        assert_eq!(
            reach(&state, &mention),
            Verdict::Allow {
                room_id: Some("room-1".into())
            }
        );
        let plain = send(Party::Bot("bot-c".into()), friend(), None, SendKind::Plain);
        assert!(matches!(reach(&state, &plain), Verdict::Deny(_)));
        let msg = send(
            Party::Bot("bot-c".into()),
            friend(),
            None,
            SendKind::MessageBot,
        );
        assert!(matches!(reach(&state, &msg), Verdict::Deny(_)));
        // A seat that has left is no longer a way in.
        let room = state.rooms.get_mut("room-1").unwrap();
        let mut seats = participants_of(room);
        super::super::participants::leave(&mut seats, "fred.bot", 9);
        room.participants = to_values(&seats);
        assert!(matches!(reach(&state, &mention), Verdict::Deny(_)));
    }

    #[test]
    /// Rule #90.
    fn revoking_a_grant_evicts_the_bot_from_rooms_with_friends_bots() {
        let mut state = team();
        seat_friend(&mut state, false);
        for b in ["bot-a", "bot-b", "bot-c"] {
            grant(&mut state, b, "Fred", None);
        }
        let room = state.rooms.get("room-1").unwrap().clone();
        assert!(evictions(&state, &room).is_empty());
        state.grants.remove("bot-c");
        assert_eq!(evictions(&state, &room), vec!["bot-c"]);
        // A room of one owner and no friends evicts nobody.
        let mut plain = state.clone();
        plain.rooms.get_mut("room-1").unwrap().participants.clear();
        let room = plain.rooms.get("room-1").unwrap().clone();
        assert!(evictions(&plain, &room).is_empty());
    }
}
