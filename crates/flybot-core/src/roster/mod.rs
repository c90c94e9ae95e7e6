//! The roster's rules (#47, #48, #49, #50, #90): changing and deleting a
//! Bot, removing a member, changing a room's member Bots and the grant
//! evictions, each a function of the team, the actor, its input and `now`
//! that answers the records to write (`RosterWrites`) or the refusal, and
//! writes nothing itself. The channel's endpoint and the Bot's tool call the
//! same rule; the host puts the writes inside one `Team::mutate`, so a
//! refusal leaves the team byte-identical.

pub mod delete_bot;
pub mod members;
pub mod retire_bot;
pub mod room_seats;
pub mod session_owner;
pub mod team_list;
pub mod update_bot;
pub mod update_room;
pub mod writes;

#[cfg(test)]
pub(crate) mod fixture;

pub use writes::{RosterWrite, RosterWrites};

use crate::access::{Actor, may_manage_bot, may_manage_room};
use flybot_protocol::ApiError;
use flybot_protocol::state::{Bot, Room, TeamState};

/// The Bot `id`, if the actor may change it (#49).
pub fn managed_bot<'a>(state: &'a TeamState, actor: &Actor, id: &str) -> Result<&'a Bot, ApiError> {
    managed_bot_for(state, actor, id, "change it")
}

/// The Bot `id`, if the actor manages it; the refusal says what only its
/// owner can do (`doing`, such as "grant it") (#49).
pub fn managed_bot_for<'a>(
    state: &'a TeamState,
    actor: &Actor,
    id: &str,
    doing: &str,
) -> Result<&'a Bot, ApiError> {
    let bot = state
        .bots
        .get(id)
        .ok_or_else(|| ApiError::not_found("Bot", id))?;
    if !may_manage_bot(actor, bot) {
        let why = crate::unseen::about_bot(state, actor, bot, |name| {
            format!("{name} belongs to another member; only its owner can {doing}.")
        });
        return Err(ApiError::forbidden(why).with("botId", id));
    }
    Ok(bot)
}

/// The room `id`, if the actor may change it (#49).
pub fn managed_room<'a>(
    state: &'a TeamState,
    actor: &Actor,
    id: &str,
) -> Result<&'a Room, ApiError> {
    let room = state
        .rooms
        .get(id)
        .ok_or_else(|| ApiError::not_found("room", id))?;
    if !may_manage_room(actor, room) {
        let why = crate::unseen::about_room(state, actor, room, |name| {
            format!("The room {name} belongs to another member; only its owner can change it.")
        });
        return Err(ApiError::forbidden(why).with("roomId", id));
    }
    Ok(room)
}
