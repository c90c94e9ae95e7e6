//! What a member sees of what is not its own (#49, #53, issue 29). Another
//! owner's Bot shows by its public face only; a Bot's own chat, the
//! approvals its turns ask and the decisions it records are its owner's
//! alone; a room's seats are every member's who sees the room. A room is
//! seen by whom `access::room_visible` admits and by a person seated in it
//! (#50: the rooms a member belongs to, and the Bots in them, stay
//! visible), as the room's own chat already reads it. Every surface that
//! shows one of these (the state view, the live stream, the chat
//! endpoints, the Projects) asks here, so each rule is written once. Who
//! may open a card is `tasks::read::Viewer::may_open` (#1723); a Project
//! is `tasks::projects::may_see`.

use crate::access::{Actor, bot_visible, may_manage_bot, room_visible};
use crate::approvals::STANDING;
use crate::rooms::participants::{ParticipantKind, participants_of};
use flybot_protocol::approval::Approval;
use flybot_protocol::state::{Bot, Grant, Room, TeamState};
use serde_json::Value;

/// The keys of another owner's Bot a member sees (#53): enough to name it,
/// tell whose it is, show its model and role in a room and seat it there.
/// Everything else is its owner's: its instructions, its `external` record
/// (a command line, a working folder, an environment), its own chat's
/// Session (unless the chat is open to the viewer, `own_chat_open`), its
/// standing approvals, its Project binding, who made it.
pub const SHARED_BOT_KEYS: [&str; 9] = [
    "id",
    "name",
    "ownerId",
    "model",
    "role",
    "hidden",
    "retired",
    "createdAt",
    "updatedAt",
];

/// Whether the actor sees the room: its owner, the owner of a Bot seated
/// in it (`access::room_visible`), or a person seated in it now (#50).
pub fn room_seen(state: &TeamState, actor: &Actor, room: &Room) -> bool {
    if room_visible(state, actor, room) {
        return true;
    }
    let Actor::Member { member_id, .. } = actor else {
        return true;
    };
    participants_of(room)
        .iter()
        .any(|seat| seat.is_live() && seat.kind == ParticipantKind::Human && seat.id == *member_id)
}

/// Whether the actor sees the Bot: whom `access::bot_visible` admits (its
/// owner, a grantee), and whoever sees a room it sits in (`room_seen`).
pub fn bot_seen(state: &TeamState, actor: &Actor, bot: &Bot) -> bool {
    bot_visible(state, actor, bot)
        || state
            .rooms
            .values()
            .any(|room| room.members.contains(&bot.id) && room_seen(state, actor, room))
}

/// Whether the actor sees the Bot's whole record: its owner does (and the
/// single owner, who owns everything); anyone else sees `SHARED_BOT_KEYS`,
/// and its own chat's `sessionId` when that chat is open to it.
pub fn sees_whole_bot(actor: &Actor, bot: &Bot) -> bool {
    may_manage_bot(actor, bot)
}

/// Narrows `record`, the Bot's record as the channel writes it, to what
/// `actor` may see of it.
pub fn narrow_bot_record(state: &TeamState, actor: &Actor, bot: &Bot, record: &mut Value) {
    if sees_whole_bot(actor, bot) {
        return;
    }
    let chat = own_chat_open(state, actor, bot);
    if let Some(object) = record.as_object_mut() {
        object.retain(|key, _| {
            SHARED_BOT_KEYS.contains(&key.as_str()) || (chat && key == "sessionId")
        });
    }
}

/// Narrows `record`, a room's record as the channel writes it, to what
/// `actor` may see of it: a room's standing approvals (#540) are each for
/// one owner's Bots, so a member sees its own (and any naming no owner),
/// never another member's.
pub fn narrow_room_record(actor: &Actor, record: &mut Value) {
    let Actor::Member { member_id, .. } = actor else {
        return;
    };
    let Some(object) = record.as_object_mut() else {
        return;
    };
    if let Some(Value::Array(grants)) = object.get_mut(STANDING) {
        grants.retain(|grant| {
            grant
                .get("ownerId")
                .and_then(Value::as_str)
                .is_none_or(|owner| owner == member_id)
        });
        if grants.is_empty() {
            object.remove(STANDING);
        }
    }
}

/// The grants of `bot` the actor sees: all of them on its own Bot; on
/// another owner's, only those to the actor itself or to a Bot it owns
/// (whom else the owner shares with is the owner's).
pub fn grants_seen<'a>(
    state: &TeamState,
    actor: &Actor,
    bot: &Bot,
    grants: &'a [Grant],
) -> Vec<&'a Grant> {
    let whole = sees_whole_bot(actor, bot);
    let me = actor.member_id(state);
    grants
        .iter()
        .filter(|grant| {
            whole
                || Some(&grant.grantee) == me.as_ref()
                || state
                    .bots
                    .get(&grant.grantee)
                    .is_some_and(|grantee| may_manage_bot(actor, grantee))
        })
        .collect()
}

/// Whether the actor may use and read the Bot's own chat: its owner, and a
/// member the owner shared the Bot with by an unscoped grant (#90: the
/// chat is one Session, so the grantee shares it with the owner). Seeing
/// the Bot in a room, or a grant scoped to one room, opens no chat: the
/// owner's conversation with her Bot stays hers (#53).
pub fn own_chat_open(state: &TeamState, actor: &Actor, bot: &Bot) -> bool {
    if may_manage_bot(actor, bot) {
        return true;
    }
    let Actor::Member { member_id, .. } = actor else {
        return true;
    };
    state.grants.get(&bot.id).is_some_and(|grants| {
        grants
            .iter()
            .any(|grant| grant.grantee == *member_id && grant.room_id.is_none())
    })
}

/// Whether the actor may see what a Session does (its steps, its streamed
/// text, its turn's end, its acknowledgments): a Bot's own chat is its
/// owner's (`own_chat_open`); a Bot's seat in a room is every member's who
/// sees the room. A Session no live Bot or room holds is nobody's.
pub fn session_visible(state: &TeamState, actor: &Actor, session_id: &str) -> bool {
    if let Some(bot) = state.bots.values().find(|b| b.session_id == session_id) {
        return own_chat_open(state, actor, bot);
    }
    state.rooms.values().any(|room| {
        room.sessions.values().any(|s| s == session_id) && room_seen(state, actor, room)
    })
}

/// Whether the actor may see an approval (a tool approval or a held send,
/// #540, #754): it is its owner's, the one who answers it; a record gone
/// from the team (or of a kind this build does not know) falls back to the
/// owner of the Bot it was for.
pub fn approval_visible(state: &TeamState, actor: &Actor, approval_id: &str, bot_id: &str) -> bool {
    let Actor::Member { member_id, .. } = actor else {
        return true;
    };
    let owner = match state.flybot.approvals.get(approval_id) {
        Some(Approval::Tool(record)) => Some(record.owner_id.as_str()),
        Some(Approval::HeldSend(record)) => Some(record.held.owner_id.as_str()),
        Some(Approval::Unknown(_)) | None => {
            state.bots.get(bot_id).map(|bot| bot.owner_id.as_str())
        }
    };
    owner == Some(member_id.as_str())
}

/// Whether the actor may see a decision the Bot recorded (#396): it is for
/// the Bot's owner's activity feed.
pub fn decision_visible(actor: &Actor, bot: &Bot) -> bool {
    may_manage_bot(actor, bot)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use flybot_protocol::state::{Member, Room};
    use serde_json::json;

    fn member(id: &str) -> Actor {
        Actor::Member {
            member_id: id.into(),
            session_id: "s".into(),
        }
    }

    /// Ann's Bot `bot-a` and Bob's `bot-b` share Ann's room `room-1`.
    fn team() -> TeamState {
        let mut state = TeamState::default();
        for (id, at) in [("ann", 1), ("bob", 2)] {
            let member = Member {
                id: id.into(),
                name: id.into(),
                created_at: at,
                extra: Default::default(),
            };
            state.members.insert(id.into(), member);
        }
        for (id, owner) in [("bot-a", "ann"), ("bot-b", "bob")] {
            let bot = Bot::new(id, id, owner, "mock", format!("chat-{id}"), 1);
            state.bots.insert(id.into(), bot);
        }
        let room: Room = serde_json::from_value(json!({
            "id": "room-1", "name": "Shared", "ownerId": "ann",
            "members": ["bot-a", "bot-b"],
            "sessions": {"bot-a": "seat-a", "bot-b": "seat-b"},
            "createdAt": 1, "updatedAt": 1
        }))
        .unwrap();
        state.rooms.insert(room.id.clone(), room);
        state
    }

    #[test]
    /// Rule #53.
    fn another_owners_bot_shows_only_its_public_keys() {
        let state = team();
        let mut bot = state.bots["bot-a"].clone();
        bot.instructions = "private brief".into();
        bot.external = Some(json!({"driver": "subprocess", "command": ["run"]}));
        bot.extra.insert("projectId".into(), "project-1".into());
        let whole = serde_json::to_value(&bot).unwrap();
        let mut seen = whole.clone();
        narrow_bot_record(&state, &member("bob"), &bot, &mut seen);
        let mut keys: Vec<&str> = seen
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            ["createdAt", "id", "model", "name", "ownerId", "updatedAt"]
        );
        let mut own = whole.clone();
        narrow_bot_record(&state, &member("ann"), &bot, &mut own);
        assert_eq!(own, whole);
        let mut single = whole.clone();
        narrow_bot_record(&state, &Actor::SingleOwner, &bot, &mut single);
        assert_eq!(single, whole);
    }

    #[test]
    /// Rule #53.
    fn a_bots_own_chat_is_its_owners_and_a_seat_is_the_rooms() {
        let state = team();
        let bob = member("bob");
        assert!(!session_visible(&state, &bob, "chat-bot-a"));
        assert!(session_visible(&state, &bob, "chat-bot-b"));
        assert!(session_visible(&state, &bob, "seat-a"));
        assert!(!session_visible(&state, &bob, "chat-nobody"));
        assert!(session_visible(&state, &member("ann"), "chat-bot-a"));
        // A grant scoped to the room opens no chat; an unscoped one does.
        let mut state = state;
        let grant = |room_id: Option<&str>| Grant {
            grantee: "bob".into(),
            room_id: room_id.map(str::to_owned),
        };
        state
            .grants
            .insert("bot-a".into(), vec![grant(Some("room-1"))]);
        assert!(!session_visible(&state, &bob, "chat-bot-a"));
        state.grants.insert("bot-a".into(), vec![grant(None)]);
        assert!(session_visible(&state, &bob, "chat-bot-a"));
        let mut seen = serde_json::to_value(&state.bots["bot-a"]).unwrap();
        narrow_bot_record(&state, &bob, &state.bots["bot-a"], &mut seen);
        assert_eq!(seen["sessionId"], "chat-bot-a");
    }

    #[test]
    /// Rule #540.
    fn a_room_shows_a_member_only_its_own_standing_approvals() {
        let standing = |owners: &[Option<&str>]| {
            let grants: Vec<Value> = owners
                .iter()
                .map(|o| json!({"kind": "run_command", "ownerId": o}))
                .collect();
            json!({"id": "room-1", "standingApprovals": grants})
        };
        let mut record = standing(&[Some("ann"), Some("bob"), None]);
        narrow_room_record(&member("bob"), &mut record);
        assert_eq!(record, standing(&[Some("bob"), None]));
        let mut record = standing(&[Some("ann")]);
        narrow_room_record(&member("bob"), &mut record);
        assert_eq!(record, json!({"id": "room-1"}));
        let mut record = standing(&[Some("ann")]);
        narrow_room_record(&Actor::SingleOwner, &mut record);
        assert_eq!(record, standing(&[Some("ann")]));
    }

    #[test]
    /// Rule #50.
    fn a_person_seated_in_a_room_sees_it_and_its_bots() {
        let mut state = team();
        let carol = member("carol");
        let mut room = state.rooms["room-1"].clone();
        assert!(!room_seen(&state, &carol, &room));
        assert!(!bot_seen(&state, &carol, &state.bots["bot-a"]));
        room.participants = vec![json!({"kind": "human", "memberId": "carol"})];
        state.rooms.insert(room.id.clone(), room.clone());
        assert!(room_seen(&state, &carol, &room));
        assert!(bot_seen(&state, &carol, &state.bots["bot-a"]));
        assert!(session_visible(&state, &carol, "seat-a"));
        assert!(!session_visible(&state, &carol, "chat-bot-a"));
        room.participants = vec![json!({"kind": "human", "id": "carol", "leftSeq": 4})];
        assert!(!room_seen(&state, &carol, &room));
    }

    #[test]
    /// Rule #90.
    fn another_owners_grants_show_only_those_to_the_viewer() {
        let state = team();
        let grants = vec![
            Grant {
                grantee: "bob".into(),
                room_id: None,
            },
            Grant {
                grantee: "carol".into(),
                room_id: None,
            },
            Grant {
                grantee: "bot-b".into(),
                room_id: None,
            },
        ];
        let bot = &state.bots["bot-a"];
        let seen = grants_seen(&state, &member("bob"), bot, &grants);
        assert_eq!(seen, [&grants[0], &grants[2]]);
        assert_eq!(grants_seen(&state, &member("ann"), bot, &grants).len(), 3);
    }

    #[test]
    /// Rule #540.
    fn an_approval_and_a_decision_are_their_owners() {
        let state = team();
        let bot = &state.bots["bot-a"];
        assert!(approval_visible(&state, &member("ann"), "gone", "bot-a"));
        assert!(!approval_visible(&state, &member("bob"), "gone", "bot-a"));
        assert!(!approval_visible(
            &state,
            &member("bob"),
            "gone",
            "bot-none"
        ));
        assert!(decision_visible(&member("ann"), bot));
        assert!(!decision_visible(&member("bob"), bot));
    }
}
