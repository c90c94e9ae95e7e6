//! What the one sync hands the invite links (one dispatch arm): a knock on
//! a lobby of this home is noted on its room (`inviteKnocks`) in the sync's
//! own change, and seated or refused after it (`seat`), since that needs
//! the homeserver. A knock is only a request: nothing is seated from it.
//! On the invitee's side, an invite from a home this one claimed a link of
//! is joined like a friend's (the claim is the owner's consent), and
//! nothing else of a stranger's is.

use super::records::{knocks, lobby, set_knocks};
use crate::social::client::RoomEvent;
use flybot_protocol::state::TeamState;
use flybot_store::Change;

/// Whether the sync hands this event to the invite links: a knock.
pub fn takes(event: &RoomEvent) -> bool {
    event.kind == "m.room.member"
        && event.content["membership"] == "knock"
        && event.state_key.as_deref() == Some(event.sender.as_str())
}

/// Notes a knock on the room whose lobby `matrix_room` is.
pub fn receive(change: &mut Change<'_>, matrix_room: &str, event: &RoomEvent) {
    let room = (change.state().rooms.values())
        .find(|r| lobby(r).as_deref() == Some(matrix_room))
        .cloned();
    let Some(mut room) = room else {
        return;
    };
    let mut waiting = knocks(&room);
    if !waiting.contains(&event.sender) {
        waiting.push(event.sender.clone());
        set_knocks(&mut room, &waiting);
        change.put_room(&room);
    }
}

/// Whether an invite from `inviter` is one a claim of this home awaits.
pub fn expects_invite_from(state: &TeamState, inviter: &str) -> bool {
    state
        .social
        .room_claims
        .values()
        .any(|c| c.inviter == inviter)
}
