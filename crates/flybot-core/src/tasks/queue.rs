//! Pull queues (#1247, #1729): the room's lead puts work in a role's queue
//! instead of naming an assignee. Only the lead enqueues, only for a role a
//! live member of the room carries, and a role's queue holds at most its cap.
//! An unclaimed item stays the enqueuer's and wakes nobody; claims are in
//! `claim`.

use super::machine::step;
use super::roles::{members_with_role, task_lead};
use super::text::{TEXT_MAX, nonblank, title};
use super::{Card, Outcome, Stamps, find};
use crate::access::{Actor, may_manage_bot};
use flybot_protocol::state::{Bot, Room, Task, TaskStatus, TeamState};
use flybot_protocol::task::{TaskFields, TaskSource};
use flybot_protocol::task_requests::TaskEnqueue;
use flybot_protocol::{ApiError, ErrorCode};

/// ROLE_QUEUE_CAP: one role's queue in one room holds at most this many
/// items unless the item states its own cap (#1729).
pub const ROLE_QUEUE_CAP: u32 = 8;
/// The largest cap an item may state.
pub const QUEUE_CAP_MAX: u32 = 64;
/// The longest wait a release may ask before its item is offered again.
pub const RETRY_MAX_SEC: u64 = 7 * 24 * 60 * 60;

/// The Bot an actor acts for, if the actor may manage it.
pub fn acting_bot<'a>(
    state: &'a TeamState,
    actor: &Actor,
    bot_id: &str,
) -> Result<&'a Bot, ApiError> {
    let bot = state
        .bots
        .get(bot_id)
        .ok_or_else(|| ApiError::not_found("Bot", bot_id))?;
    if !may_manage_bot(actor, bot) {
        let why = crate::unseen::about_bot(state, actor, bot, |name| {
            format!("{name} belongs to another member; only its owner acts for it.")
        });
        return Err(ApiError::forbidden(why).with("botId", bot_id));
    }
    Ok(bot)
}

/// Whether a card is an unclaimed queue item of `role` in `room_id`.
fn queued_in(task: &Task, fields: &TaskFields, room_id: &str, role: &str) -> bool {
    task.status == TaskStatus::Open
        && task.room_id.as_deref() == Some(room_id)
        && fields.queue_role.as_deref() == Some(role)
}

/// The request's own fields, checked before the team is read.
struct CheckedItem<'r> {
    title: String,
    note: Option<String>,
    role: &'r str,
}

/// The queue an item goes in: the room's lead who enqueues, the room and the
/// role.
struct RoleQueue<'a> {
    lead: &'a Bot,
    room: &'a Room,
    role: &'a str,
}

/// `task-enqueue`: the room's lead records one item for `role` (`id` is the
/// host's fresh id; `req.id` re-offers an item, keeping its id).
pub fn enqueue(
    state: &TeamState,
    actor: &Actor,
    req: &TaskEnqueue,
    id: &str,
    now: u64,
) -> Result<Outcome, ApiError> {
    let item = checked_item(req)?;
    let (lead, room) = lead_and_room(state, actor, req)?;
    let queue = RoleQueue {
        lead,
        room,
        role: item.role,
    };
    require_role_carried(state, &queue)?;
    let reoffer = reoffered_item(state, req, &queue)?;
    let cap = req
        .cap
        .or_else(|| reoffer.as_ref().and_then(|c| c.fields.queue_cap))
        .unwrap_or(ROLE_QUEUE_CAP);
    let own_id = reoffer.as_ref().map_or(id, |c| c.task.id.as_str());
    require_queue_room(state, &queue, own_id, cap)?;
    let mut stamps = Stamps::new(now);
    let mut card = match reoffer {
        Some(mut card) => {
            card.task.title = item.title;
            card.task.updated_at = stamps.for_task(&card.task);
            card
        }
        None => new_item(&queue, id, item.title, req, now, &mut stamps),
    };
    if req.priority.is_some() {
        card.fields.priority = req.priority;
    }
    if item.note.is_some() {
        card.fields.note = item.note;
    }
    if req.cap.is_some() {
        card.fields.queue_cap = req.cap;
    }
    Ok(Outcome::one(card.into_task()))
}

/// The title, the note, the role (1 to 64 characters) and the cap (1 to
/// `QUEUE_CAP_MAX`), in the order the refusals name them.
fn checked_item(req: &TaskEnqueue) -> Result<CheckedItem<'_>, ApiError> {
    let title = title(&req.title)?;
    let note = req
        .note
        .as_deref()
        .map(|n| nonblank("note", n, TEXT_MAX))
        .transpose()?;
    let role = req.role.trim();
    if role.is_empty() || role.chars().count() > 64 {
        return Err(ApiError::invalid("role", "A role is 1 to 64 characters."));
    }
    if req.cap.is_some_and(|c| c == 0 || c > QUEUE_CAP_MAX) {
        return Err(ApiError::invalid(
            "cap",
            format!("A queue cap is 1 to {QUEUE_CAP_MAX}."),
        ));
    }
    Ok(CheckedItem { title, note, role })
}

/// The enqueuing Bot, which the actor must manage and which must be the
/// room's task lead, and the room.
fn lead_and_room<'a>(
    state: &'a TeamState,
    actor: &Actor,
    req: &TaskEnqueue,
) -> Result<(&'a Bot, &'a Room), ApiError> {
    let lead = acting_bot(state, actor, &req.bot_id)?;
    let room = state
        .rooms
        .get(&req.room_id)
        .ok_or_else(|| ApiError::not_found("room", &req.room_id))?;
    if task_lead(room) != Some(lead.id.as_str()) {
        let why = crate::unseen::about_room(state, actor, room, |name| {
            format!(
                "Only the task lead of {name} puts work in its queues; {} is not the lead.",
                lead.name
            )
        });
        return Err(ApiError::forbidden(why).with("botId", lead.id.as_str()));
    }
    Ok((lead, room))
}

/// A queue is only for a role some member of the room carries.
fn require_role_carried(state: &TeamState, queue: &RoleQueue<'_>) -> Result<(), ApiError> {
    let (room, role) = (queue.room, queue.role);
    if members_with_role(state, room, role).next().is_some() {
        return Ok(());
    }
    Err(ApiError::new(
        ErrorCode::NoMemberWithRole,
        format!(
            "No member of {} carries the role {role}; add a {role} to the room or pick another role.",
            room.name
        ),
    )
    .with("role", role)
    .with("roomId", room.id.as_str()))
}

/// The item `req.id` re-offers, which must still be an unclaimed item of this
/// room and role; none for a new item.
fn reoffered_item(
    state: &TeamState,
    req: &TaskEnqueue,
    queue: &RoleQueue<'_>,
) -> Result<Option<Card>, ApiError> {
    let Some(item_id) = &req.id else {
        return Ok(None);
    };
    let item = find(state, item_id)?;
    let fields = TaskFields::read(item);
    if !queued_in(item, &fields, &queue.room.id, queue.role) {
        return Err(ApiError::new(
            ErrorCode::Stale,
            "Only an unclaimed item of this room and role is re-offered.",
        )
        .with("taskId", item_id.as_str()));
    }
    Ok(Some(Card {
        task: item.clone(),
        fields,
    }))
}

/// The role's queue must hold fewer than `cap` items besides `own_id`: a
/// re-offer is never counted against itself (#1729).
fn require_queue_room(
    state: &TeamState,
    queue: &RoleQueue<'_>,
    own_id: &str,
    cap: u32,
) -> Result<(), ApiError> {
    let role = queue.role;
    let held = state
        .tasks
        .values()
        .filter(|t| t.id != own_id && t.status == TaskStatus::Open)
        .filter(|t| queued_in(t, &TaskFields::read(t), &queue.room.id, role))
        .count();
    if held < cap as usize {
        return Ok(());
    }
    Err(ApiError::new(
        ErrorCode::QueueFull,
        format!("The {role} queue already holds {held} items, its cap is {cap}."),
    )
    .with("role", role)
    .with("cap", cap))
}

/// A new open item in the queue, still the enqueuer's (#1247).
fn new_item(
    queue: &RoleQueue<'_>,
    id: &str,
    title: String,
    req: &TaskEnqueue,
    now: u64,
    stamps: &mut Stamps,
) -> Card {
    let lead = queue.lead;
    let mut card = Card {
        task: Task {
            id: id.to_owned(),
            // ownerBotId stays the enqueuer until a claim (#1247).
            bot_id: lead.id.clone(),
            title,
            status: TaskStatus::Open,
            requester_id: Some(lead.owner_id.clone()),
            room_id: Some(queue.room.id.clone()),
            created_at: now,
            updated_at: now.saturating_sub(1),
            extra: Default::default(),
        },
        fields: TaskFields {
            source: Some(TaskSource::Conversation),
            queue_role: Some(queue.role.to_owned()),
            queue_by: Some(lead.id.clone()),
            run: req.run.clone(),
            ..TaskFields::default()
        },
    };
    step(&mut card, TaskStatus::Open, &lead.id, stamps, None);
    card
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::fixture::{enqueue_req, member, queue, team};
    use super::*;
    use flybot_protocol::task::Priority;

    #[test]
    /// Rule #1729.
    fn the_cap_refusal_names_role_and_cap() {
        let mut state = team();
        for i in 0..8 {
            queue(&mut state, &format!("task-{i}"), "Dev", None, 10 + i);
        }
        let err = enqueue(
            &state,
            &member("member-a"),
            &enqueue_req("Dev", "one more", None),
            "task-9",
            30,
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::QueueFull);
        assert_eq!(
            err.message,
            "The Dev queue already holds 8 items, its cap is 8."
        );
        // A re-offer keeps its id and is never counted against itself.
        let mut again = enqueue_req("Dev", "renamed", Some(Priority::High));
        again.id = Some("task-3".into());
        let out = enqueue(&state, &member("member-a"), &again, "task-unused", 31).unwrap();
        assert_eq!(out.answer.unwrap().id, "task-3");
    }

    #[test]
    /// Rule #1247.
    fn only_the_lead_enqueues_and_only_for_a_role_a_member_carries() {
        let state = team();
        let mut not_lead = enqueue_req("Dev", "x", None);
        not_lead.bot_id = "bot-dev1".into();
        assert_eq!(
            enqueue(&state, &member("member-a"), &not_lead, "t", 1)
                .unwrap_err()
                .code,
            ErrorCode::Forbidden
        );
        let err = enqueue(
            &state,
            &member("member-a"),
            &enqueue_req("Designer", "x", None),
            "t",
            1,
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::NoMemberWithRole);
    }
}
