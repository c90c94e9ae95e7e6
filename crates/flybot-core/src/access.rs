//! Owner-scoped access (#49): who may see and change which Bot and room.
//!
//! While the home has one person (its owner, who signs in with the owner
//! token, issue 29), every rule here allows: everything is hers. Once a
//! second member exists, cross-owner access is denied by default: a member
//! acts on its own Bots and rooms, and uses another owner's Bot only through
//! a grant to it (#90). Whether access is scoped follows who the home's
//! members are, never whether some sign-in session happens to be live: a
//! host whose members all signed out is as closed as one where they are in.

use flybot_protocol::state::{Bot, Room, TeamState};

/// Who is asking, as the channel resolved it from the session header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Actor {
    /// The owner of a home that has no other member: the one person, who
    /// owns everything.
    SingleOwner,
    /// A signed-in member (#48).
    Member {
        member_id: String,
        session_id: String,
    },
}

impl Actor {
    /// The member this actor acts as; the single owner is the host's owner.
    pub fn member_id(&self, state: &TeamState) -> Option<String> {
        match self {
            Actor::SingleOwner => host_owner_id(state),
            Actor::Member { member_id, .. } => Some(member_id.clone()),
        }
    }

    fn signed_in_as(&self) -> Option<&str> {
        match self {
            Actor::SingleOwner => None,
            Actor::Member { member_id, .. } => Some(member_id),
        }
    }
}

/// The host's owner: the earliest member (the one the home was made for).
pub fn host_owner_id(state: &TeamState) -> Option<String> {
    state
        .members
        .values()
        .min_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)))
        .map(|m| m.id.clone())
}

/// Whether owner-scoped access is on: the home has a member besides its
/// owner (issue 29: never whether a session is live, so signing everyone
/// out opens nothing).
pub fn enforced(state: &TeamState) -> bool {
    state.members.len() > 1
}

/// Shared, non-isolatable writes (secrets, connectors, diagnostics, prefs, ...)
/// are blocked while access is enforced and more than one member exists.
pub fn shared_blocked(state: &TeamState) -> bool {
    enforced(state)
}

/// Whether the actor may change or delete this Bot, or act for it.
pub fn may_manage_bot(actor: &Actor, bot: &Bot) -> bool {
    match actor.signed_in_as() {
        None => true,
        Some(member) => bot.owner_id == member,
    }
}

/// Whether the actor may put this Bot in a room: its own Bot, or one granted
/// to the actor (unscoped, or scoped to that room).
pub fn may_seat_bot(state: &TeamState, actor: &Actor, bot: &Bot, room_id: Option<&str>) -> bool {
    if may_manage_bot(actor, bot) {
        return true;
    }
    let Some(member) = actor.signed_in_as() else {
        return true;
    };
    state.grants.get(&bot.id).is_some_and(|grants| {
        grants.iter().any(|grant| {
            grant.grantee == member
                && grant
                    .room_id
                    .as_deref()
                    .is_none_or(|scoped| Some(scoped) == room_id)
        })
    })
}

/// Whether the actor may change or delete this room.
pub fn may_manage_room(actor: &Actor, room: &Room) -> bool {
    match actor.signed_in_as() {
        None => true,
        Some(member) => room.owner_id == member,
    }
}

/// A room is visible to its owner and to the owner of any Bot seated in it.
pub fn room_visible(state: &TeamState, actor: &Actor, room: &Room) -> bool {
    match actor.signed_in_as() {
        None => true,
        Some(member) => {
            room.owner_id == member
                || room
                    .members
                    .iter()
                    .filter_map(|id| state.bots.get(id))
                    .any(|bot| bot.owner_id == member)
        }
    }
}

/// A Bot is visible to its owner, to a grantee, and to whoever can see a room
/// it sits in.
pub fn bot_visible(state: &TeamState, actor: &Actor, bot: &Bot) -> bool {
    let Some(member) = actor.signed_in_as() else {
        return true;
    };
    bot.owner_id == member
        || state
            .grants
            .get(&bot.id)
            .is_some_and(|grants| grants.iter().any(|g| g.grantee == member))
        || state
            .rooms
            .values()
            .any(|room| room.members.contains(&bot.id) && room_visible(state, actor, room))
}

#[cfg(test)]
mod tests {
    use super::*;
    use flybot_protocol::state::{Grant, Member};

    fn team() -> TeamState {
        let mut state = TeamState::default();
        for (id, at) in [("member-a", 1), ("member-b", 2)] {
            state.members.insert(
                id.into(),
                Member {
                    id: id.into(),
                    name: id.into(),
                    created_at: at,
                    extra: Default::default(),
                },
            );
        }
        for (id, owner) in [("bot-a", "member-a"), ("bot-b", "member-b")] {
            state.bots.insert(id.into(), bot(id, owner));
        }
        state
    }

    fn bot(id: &str, owner: &str) -> Bot {
        Bot::new(id, id, owner, "mock", format!("session-{id}"), 1)
    }

    fn member(id: &str) -> Actor {
        Actor::Member {
            member_id: id.into(),
            session_id: "s".into(),
        }
    }

    #[test]
    /// Rule #49.
    fn single_owner_may_do_everything() {
        let state = team();
        assert!(may_manage_bot(&Actor::SingleOwner, &state.bots["bot-b"]));
        assert_eq!(
            Actor::SingleOwner.member_id(&state).as_deref(),
            Some("member-a")
        );
    }

    #[test]
    /// Rule #49.
    fn cross_owner_is_denied_by_default() {
        let state = team();
        assert!(may_manage_bot(&member("member-a"), &state.bots["bot-a"]));
        assert!(!may_manage_bot(&member("member-a"), &state.bots["bot-b"]));
        assert!(!may_seat_bot(
            &state,
            &member("member-a"),
            &state.bots["bot-b"],
            None
        ));
        assert!(!bot_visible(
            &state,
            &member("member-a"),
            &state.bots["bot-b"]
        ));
    }

    #[test]
    /// Rule #90.
    fn a_grant_lets_the_grantee_seat_the_bot() {
        let mut state = team();
        state.grants.insert(
            "bot-b".into(),
            vec![Grant {
                grantee: "member-a".into(),
                room_id: Some("room-1".into()),
            }],
        );
        let actor = member("member-a");
        assert!(may_seat_bot(
            &state,
            &actor,
            &state.bots["bot-b"],
            Some("room-1")
        ));
        assert!(!may_seat_bot(
            &state,
            &actor,
            &state.bots["bot-b"],
            Some("room-2")
        ));
        assert!(!may_manage_bot(&actor, &state.bots["bot-b"]));
        assert!(bot_visible(&state, &actor, &state.bots["bot-b"]));
    }
}
