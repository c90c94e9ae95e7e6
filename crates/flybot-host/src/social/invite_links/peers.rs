//! `ticketPeers` (#923, #929): the only pairs of Bots a room invite link
//! opens, enumerated from the link's own record of whom it admitted, and
//! the reach check that reads the same list. On the inviter's side a seat
//! a link made is paired with the room's Bot it knocked on (`hostBotId`,
//! or the link's own Bot when the seat record is older than the field);
//! on the invitee's side each Bot of a claim is paired with the Bot of
//! the inviter's home the link named. A friend's Bot added by hand is
//! named by no link and stays out. `link_seats` and `may_call` are how a
//! send out of a room asks the same list. Read-only: nothing here writes.

use super::records::{invites, ticket_seats};
use crate::social::shared_rooms::records::{seat_id, shared_from};
use flybot_core::rooms::participants::{ParticipantKind, participants_of};
use flybot_protocol::state::{Room, TeamState};

/// One pair a link opens: `from` a Bot of this home to a remote Bot
/// (`to_home`/`to_handle`), under `scope` (the room), by `ticket`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TicketPeer {
    pub from: String,
    pub to_home: String,
    pub to_handle: String,
    pub scope: String,
    pub ticket: String,
}

/// Every pair a link opens on this home.
pub fn ticket_peers(state: &TeamState) -> Vec<TicketPeer> {
    let mut peers = Vec::new();
    for room in state.rooms.values() {
        let live: Vec<String> = (participants_of(room).into_iter())
            .filter(|p| p.is_live())
            .map(|p| p.id)
            .collect();
        let seats = ticket_seats(room);
        for link in invites(room) {
            for (home, handles) in &link.homes {
                for handle in handles {
                    let id = seat_id(home, handle);
                    if !live.contains(&id) {
                        continue;
                    }
                    let from = (seats.get(&id))
                        .map(|s| s.host_bot_id.clone())
                        .filter(|b| !b.is_empty())
                        .unwrap_or_else(|| link.bot_id.clone());
                    peers.push(TicketPeer {
                        from,
                        to_home: home.clone(),
                        to_handle: handle.clone(),
                        scope: room.id.clone(),
                        ticket: link.ticket.clone(),
                    });
                }
            }
        }
    }
    for claim in state.social.room_claims.values() {
        let mirror = (state.rooms.values())
            .filter_map(|r| shared_from(r).map(|f| (r, f)))
            .find(|(r, f)| {
                f.home == claim.inviter && claim.bots.iter().any(|b| r.members.contains(b))
            });
        for bot in &claim.bots {
            let scope = match &mirror {
                Some((room, from)) if room.members.contains(bot) => from.remote_room_id.clone(),
                Some(_) => continue,
                // The accepting knock's way out, before any join came.
                None => claim.lobby.clone(),
            };
            peers.push(TicketPeer {
                from: bot.clone(),
                to_home: claim.inviter.clone(),
                to_handle: claim.handle.clone(),
                scope,
                ticket: claim.ticket.clone(),
            });
        }
    }
    peers
}

/// Whether a link opens a pair from `bot` of this home to `home`: the
/// same list `ticket_peers` gives, so both halves read one record.
pub fn opened_by_link(state: &TeamState, bot: &str, home: &str) -> bool {
    ticket_peers(state)
        .iter()
        .any(|p| p.from == bot && p.to_home == home)
}

/// `reach()` with links (#923): the grant rule (#90), or a pair a link
/// opened, matched exactly (that handle of that home, in that room).
pub fn reach(state: &TeamState, from: &str, to_home: &str, to_handle: &str, scope: &str) -> bool {
    flybot_core::social::reach(state, from, to_home).is_ok()
        || ticket_peers(state).iter().any(|p| {
            p.from == from && p.to_home == to_home && p.to_handle == to_handle && p.scope == scope
        })
}

/// A remote seat this home writes to only because a link let it in: the
/// room here, the scope its pair is under, the seat and its shown name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkSeat {
    pub room_id: String,
    pub scope: String,
    pub home: String,
    pub handle: String,
    pub name: String,
}

/// The live remote seats of `room` a link stands behind (#923): in a room
/// of this home, the seats a link made (`ticketSeats`); in a room shared
/// here through a claim of this home, the inviter's Bots. A friend's Bot
/// added by hand is no link's and is not listed.
pub fn link_seats(state: &TeamState, room: &Room) -> Vec<LinkSeat> {
    // Which seats a link stands behind: the inviter's, or those it made.
    enum Behind {
        Inviter(String),
        Made(std::collections::BTreeMap<String, super::records::TicketSeat>),
    }
    let (scope, behind) = match shared_from(room) {
        Some(from) => {
            let claimed = (state.social.room_claims.values())
                .any(|c| c.inviter == from.home && c.bots.iter().any(|b| room.members.contains(b)));
            if !claimed {
                return Vec::new();
            }
            (from.remote_room_id, Behind::Inviter(from.home))
        }
        None => (room.id.clone(), Behind::Made(ticket_seats(room))),
    };
    (participants_of(room).into_iter())
        .filter(|p| p.kind == ParticipantKind::RemoteBot && p.is_live())
        .filter_map(|p| {
            let home = p.owner.clone()?;
            let handle = p.id.strip_prefix(&format!("{home}/"))?.to_owned();
            let admitted = match &behind {
                Behind::Inviter(inviter) => *inviter == home,
                Behind::Made(seats) => seats.contains_key(&p.id),
            };
            admitted.then(|| LinkSeat {
                room_id: room.id.clone(),
                scope: scope.clone(),
                name: p.name.clone().unwrap_or_else(|| handle.clone()),
                home,
                handle,
            })
        })
        .collect()
}

/// Whether this home's Bot `author` may call the remote seat `seat`
/// (`<home>/<handle>`) in `room`: a seat no link stands behind is not this
/// rule's to judge; one a link made only through an exact pair (#923).
pub fn may_call(state: &TeamState, room: &Room, author: &str, seat: &str) -> bool {
    match (link_seats(state, room).into_iter()).find(|s| seat_id(&s.home, &s.handle) == seat) {
        None => true,
        Some(s) => reach(state, author, &s.home, &s.handle, &s.scope),
    }
}
