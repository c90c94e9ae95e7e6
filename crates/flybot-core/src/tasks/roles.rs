//! Roles and the room's task lead. A Bot carries a role in its record's
//! `role` field; a role is known when some Bot carries it, or it is
//! `requester` (#1720). One Bot divides a room's board: `taskLead` when that
//! Bot is still a member, otherwise the room's admin (#1182).

use flybot_protocol::state::{Bot, Room, TeamState};
use serde_json::Value;

/// The pseudo-role of the person who asked for the work.
pub const REQUESTER_ROLE: &str = "requester";

/// The role a Bot carries, if any.
pub fn bot_role(bot: &Bot) -> Option<&str> {
    bot.role.as_deref().map(str::trim).filter(|r| !r.is_empty())
}

/// Whether some Bot carries `role`, or it is `requester`.
pub fn role_known(state: &TeamState, role: &str) -> bool {
    role == REQUESTER_ROLE || state.bots.values().any(|b| bot_role(b) == Some(role))
}

/// The Bot that divides the room's board, if any.
pub fn task_lead(room: &Room) -> Option<&str> {
    let picked = room
        .extra
        .get("taskLead")
        .and_then(Value::as_str)
        .filter(|lead| room.members.iter().any(|m| m == lead));
    picked.or(room.admin.as_deref())
}

/// The live members of a room (Bots that still exist) carrying `role`.
pub fn members_with_role<'a>(
    state: &'a TeamState,
    room: &'a Room,
    role: &'a str,
) -> impl Iterator<Item = &'a Bot> + 'a {
    room.members
        .iter()
        .filter_map(|id| state.bots.get(id))
        .filter(move |bot| bot_role(bot) == Some(role))
}

/// A Bot's name for a sentence, or its id when it is gone.
pub fn bot_name(state: &TeamState, id: &str) -> String {
    state
        .bots
        .get(id)
        .map_or_else(|| id.to_owned(), |b| b.name.clone())
}
