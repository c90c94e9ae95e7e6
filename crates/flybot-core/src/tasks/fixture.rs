//! A small team for the task rules' unit tests: two members, Bots with roles,
//! one room led by `bot-lead`.
#![allow(dead_code)]

use crate::access::Actor;
use flybot_protocol::state::{Bot, Member, Room, Task, TaskStatus, TeamState};
use flybot_protocol::task::TaskFields;

pub fn task(id: &str, status: TaskStatus) -> Task {
    Task {
        id: id.into(),
        bot_id: "bot-dev1".into(),
        title: format!("title of {id}"),
        status,
        requester_id: Some("member-a".into()),
        room_id: None,
        created_at: 1,
        updated_at: 1,
        extra: Default::default(),
    }
}

pub fn with_fields(mut task: Task, f: impl FnOnce(&mut TaskFields)) -> Task {
    let mut fields = TaskFields::read(&task);
    f(&mut fields);
    fields.write(&mut task);
    task
}

pub fn bot(id: &str, owner: &str, role: Option<&str>) -> Bot {
    let mut bot = Bot::new(
        id,
        format!("Name {id}"),
        owner,
        "mock",
        format!("session-{id}"),
        1,
    );
    bot.created_by = Some(owner.into());
    bot.role = role.map(str::to_owned);
    bot
}

pub fn member(id: &str) -> Actor {
    Actor::Member {
        member_id: id.into(),
        session_id: format!("s-{id}"),
    }
}

/// `member-a` owns the lead and two Dev Bots; `member-b` owns a Reviewer.
pub fn team() -> TeamState {
    let mut state = TeamState::default();
    for (id, at) in [("member-a", 1), ("member-b", 2)] {
        state.members.insert(
            id.into(),
            Member {
                id: id.into(),
                name: format!("Name {id}"),
                created_at: at,
                extra: Default::default(),
            },
        );
    }
    for (id, owner, role) in [
        ("bot-lead", "member-a", Some("Lead")),
        ("bot-dev1", "member-a", Some("Dev")),
        ("bot-dev2", "member-a", Some("Dev")),
        ("bot-rev", "member-b", Some("Reviewer")),
        ("bot-plain", "member-a", None),
    ] {
        state.bots.insert(id.into(), bot(id, owner, role));
    }
    state.rooms.insert(
        "room-1".into(),
        Room {
            id: "room-1".into(),
            name: "Room".into(),
            owner_id: "member-a".into(),
            members: vec![
                "bot-lead".into(),
                "bot-dev1".into(),
                "bot-dev2".into(),
                "bot-rev".into(),
            ],
            admin: Some("bot-lead".into()),
            participants: vec![],
            sessions: Default::default(),
            created_at: 1,
            updated_at: 1,
            extra: Default::default(),
        },
    );
    state
}

/// Applies an outcome's writes to the team, as the host would.
pub fn apply(state: &mut TeamState, out: &super::Outcome) {
    for task in &out.writes {
        state.tasks.insert(task.id.clone(), task.clone());
    }
}

/// An enqueue request from the room's lead for `role`.
pub fn enqueue_req(
    role: &str,
    title: &str,
    priority: Option<flybot_protocol::task::Priority>,
) -> flybot_protocol::task_requests::TaskEnqueue {
    flybot_protocol::task_requests::TaskEnqueue {
        bot_id: "bot-lead".into(),
        room_id: "room-1".into(),
        role: role.into(),
        title: title.into(),
        priority,
        note: None,
        cap: None,
        id: None,
        run: None,
    }
}

/// Queues an item `id` for `role` at `at` and applies it to the team.
pub fn queue(
    state: &mut TeamState,
    id: &str,
    role: &str,
    priority: Option<flybot_protocol::task::Priority>,
    at: u64,
) {
    let out = super::queue::enqueue(
        state,
        &member("member-a"),
        &enqueue_req(role, id, priority),
        id,
        at,
    );
    match out {
        Ok(out) => apply(state, &out),
        Err(refusal) => panic!("enqueue {id}: {refusal}"),
    }
}
