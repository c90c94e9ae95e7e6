//! A small team for the roster and approval rules' tests: `member-a` (the
//! host's owner) owns Ada and Bo, seated in `room-1` with Ada as admin;
//! `member-b` owns Rex. Ada is the Main Bot and the designated Chief.
#![allow(dead_code)]

use crate::access::Actor;
use flybot_protocol::state::{AuthSession, Bot, Grant, Member, Room, TeamState};

/// A grant of a Bot to `grantee` in every room.
pub fn grant(grantee: &str) -> Grant {
    Grant {
        grantee: grantee.into(),
        room_id: None,
    }
}

pub fn member(id: &str) -> Actor {
    Actor::Member {
        member_id: id.into(),
        session_id: format!("auth-{id}"),
    }
}

pub fn bot(id: &str, name: &str, owner: &str) -> Bot {
    let mut bot = Bot::new(id, name, owner, "mock", format!("session-{id}"), 1);
    bot.created_by = Some(owner.into());
    bot
}

pub fn room() -> Room {
    Room {
        id: "room-1".into(),
        name: "Build".into(),
        owner_id: "member-a".into(),
        members: vec!["bot-a".into(), "bot-b".into()],
        admin: Some("bot-a".into()),
        participants: vec![],
        sessions: [
            ("bot-a".to_owned(), "room-session-a".to_owned()),
            ("bot-b".to_owned(), "room-session-b".to_owned()),
        ]
        .into(),
        created_at: 1,
        updated_at: 1,
        extra: Default::default(),
    }
}

pub fn team() -> TeamState {
    let mut state = TeamState::default();
    for (id, name, at) in [("member-a", "Alice", 1), ("member-b", "Bob", 2)] {
        state.members.insert(
            id.into(),
            Member {
                id: id.into(),
                name: name.into(),
                created_at: at,
                extra: Default::default(),
            },
        );
        let session = format!("auth-{id}");
        state.auth_sessions.insert(
            session.clone(),
            AuthSession {
                id: session,
                member_id: id.into(),
                token_hash: format!("hash-{id}"),
                created_at: at,
                last_seen_at: None,
                extra: Default::default(),
            },
        );
    }
    for (id, name, owner) in [
        ("bot-a", "Ada", "member-a"),
        ("bot-b", "Bo", "member-a"),
        ("bot-rev", "Rex", "member-b"),
    ] {
        state.bots.insert(id.into(), bot(id, name, owner));
    }
    state.rooms.insert("room-1".into(), room());
    state.main_bot_ids = vec!["bot-a".into()];
    state.designated_chief_id = Some("bot-a".into());
    state
}

/// Each write as one short line, for whole-list assertions.
pub fn shape(writes: &crate::roster::RosterWrites) -> Vec<String> {
    use crate::roster::RosterWrite;
    writes
        .iter()
        .map(|write| match write {
            RosterWrite::PutBot(bot) => {
                format!("bot {} {} at {}", bot.id, bot.name, bot.updated_at)
            }
            RosterWrite::RemoveBot(id) => format!("remove bot {id}"),
            RosterWrite::PutRoom(room) => format!(
                "room {} members {:?} admin {:?} at {}",
                room.id, room.members, room.admin, room.updated_at
            ),
            RosterWrite::PutTask(task) => format!("task {} {:?}", task.id, task.status),
            RosterWrite::SetGrants { bot_id, grants } => {
                let to: Vec<&str> = grants.iter().map(|g| g.grantee.as_str()).collect();
                format!("grants {bot_id} {to:?}")
            }
            RosterWrite::RetireSession { session_id, bot_id } => {
                format!("retire {session_id} of {bot_id}")
            }
            RosterWrite::SetMainBotIds(ids) => format!("main {ids:?}"),
            RosterWrite::SetDesignatedChief(id) => format!("chief {id:?}"),
            RosterWrite::PutToolApproval(record) => format!(
                "approval {} {:?} {:?}",
                record.id, record.status, record.answer
            ),
            RosterWrite::PutHeldSend(record) => format!(
                "held {} {:?} {:?}",
                record.id, record.held.status, record.stale_reason
            ),
            RosterWrite::PutInvitation(invitation) => {
                format!("invitation {} {:?}", invitation.id, invitation.status)
            }
            RosterWrite::RemoveAuthSession(id) => format!("sign out {id}"),
            RosterWrite::RemoveMember(id) => format!("remove member {id}"),
        })
        .collect()
}

/// A waiting held send `id` from `from` to `to` (#52).
pub fn held(state: &TeamState, id: &str, from: &str, to: &str) -> crate::rooms::hold::HeldRecord {
    use crate::rooms::hold::{HeldRecord, SendRequest, hold};
    use crate::rooms::reach::Party;
    use flybot_protocol::approval::HeldSendKind;
    let req = SendRequest {
        from_bot: from.into(),
        to: Party::Bot(to.into()),
        room_id: None,
        text: "ship it".into(),
        via: "message_bot".into(),
        hop: 1,
    };
    let Ok(held) = hold(state, &req, id, 5) else {
        panic!("{from} is not on the team");
    };
    HeldRecord {
        id: id.into(),
        kind: HeldSendKind::HeldSend,
        held,
        to_bot: to.into(),
        text: "ship it".into(),
        decided_at: None,
        stale_reason: None,
        extra: Default::default(),
    }
}

/// Puts `record` among the team's approvals as the host stores it.
pub fn put_approval(state: &mut TeamState, id: &str, record: &impl serde::Serialize) {
    let Ok(value) = serde_json::to_value(record) else {
        panic!("an approval record always serialises");
    };
    state.flybot.approvals.insert(id.into(), value.into());
}
