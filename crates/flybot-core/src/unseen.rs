//! Refusals name nothing the caller may not see (issue 29): a refusal about
//! a Bot or a room the caller may not see (#49: not hers, not granted, in
//! no room she can see) says a neutral sentence instead of echoing the
//! record's name, so an id cannot be probed for what stands behind it. A
//! card's title and a project's name are never echoed in a refusal of who
//! may change it: a card's visibility rule (#1723) is the board's, and the
//! caller named the card herself.

use crate::access::{Actor, bot_visible, room_visible};
use flybot_protocol::state::{Bot, Room, TeamState};

/// The sentence for a Bot the caller may not see.
pub const UNSEEN_BOT: &str = "There is no Bot with that id you can see.";
/// The sentence for a room the caller may not see.
pub const UNSEEN_ROOM: &str = "There is no room with that id you can see.";

/// `said(name)` when the actor may see `bot`, else [`UNSEEN_BOT`].
pub fn about_bot(
    state: &TeamState,
    actor: &Actor,
    bot: &Bot,
    said: impl FnOnce(&str) -> String,
) -> String {
    if bot_visible(state, actor, bot) {
        said(&bot.name)
    } else {
        UNSEEN_BOT.to_owned()
    }
}

/// `said(name)` when the actor may see `room`, else [`UNSEEN_ROOM`].
pub fn about_room(
    state: &TeamState,
    actor: &Actor,
    room: &Room,
    said: impl FnOnce(&str) -> String,
) -> String {
    if room_visible(state, actor, room) {
        said(&room.name)
    } else {
        UNSEEN_ROOM.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::roster::fixture::team;

    fn bob() -> Actor {
        Actor::Member {
            member_id: "member-b".into(),
            session_id: "auth-member-b".into(),
        }
    }

    #[test]
    fn unseen_names_29_a_refusal_names_only_what_the_caller_may_see() {
        let mut state = team();
        let said = |name: &str| format!("{name} is not yours.");
        let ada = state.bots["bot-a"].clone();
        let room = state.rooms["room-1"].clone();
        assert_eq!(about_bot(&state, &bob(), &ada, said), UNSEEN_BOT);
        assert_eq!(about_room(&state, &bob(), &room, said), UNSEEN_ROOM);
        // Once Bob's Bot sits in the room, he sees the room and its Bots.
        if let Some(room) = state.rooms.get_mut("room-1") {
            room.members.push("bot-rev".into());
        }
        let room = state.rooms["room-1"].clone();
        assert_eq!(about_bot(&state, &bob(), &ada, said), "Ada is not yours.");
        assert_eq!(
            about_room(&state, &bob(), &room, said),
            "Build is not yours."
        );
    }
}
