//! A small team for the room rules' tests: `member-a` owns three Bots in
//! `room-1` (Ada the admin and lead, Bo and Cy the Devs); `member-b` owns a
//! Reviewer outside it.
#![allow(dead_code)]

use flybot_protocol::state::{Bot, Member, Room, TeamState};

pub fn bot(id: &str, name: &str, owner: &str, role: &str) -> Bot {
    let mut bot = crate::roster::fixture::bot(id, name, owner);
    bot.role = Some(role.into());
    bot
}

pub fn room() -> Room {
    Room {
        id: "room-1".into(),
        name: "Build".into(),
        owner_id: "member-a".into(),
        members: vec!["bot-a".into(), "bot-b".into(), "bot-c".into()],
        admin: Some("bot-a".into()),
        participants: vec![],
        sessions: Default::default(),
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
    }
    for (id, name, owner, role) in [
        ("bot-a", "Ada", "member-a", "Lead"),
        ("bot-b", "Bo", "member-a", "Dev"),
        ("bot-c", "Cy", "member-a", "Dev"),
        ("bot-rev", "Rex", "member-b", "Reviewer"),
    ] {
        state.bots.insert(id.into(), bot(id, name, owner, role));
    }
    state.rooms.insert("room-1".into(), room());
    state
}
