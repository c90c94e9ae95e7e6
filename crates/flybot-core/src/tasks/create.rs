//! `task-create` (#54): a new open card. Creating does not require owning the
//! Bot: a matching per-Bot grant, or the requester and the Bot both current
//! members of the named room, is enough. The requester is the server's
//! (the signed-in member or the single owner), never a body field.

use super::contract::write_contract;
use super::group::open_overall;
use super::machine::step;
use super::roles::task_lead;
use super::text::{TEXT_MAX, nonblank, title};
use super::{Card, Outcome, Stamps, target};
use crate::access::{Actor, may_manage_bot};
use flybot_protocol::ApiError;
use flybot_protocol::state::{Room, Task, TaskStatus, TeamState};
use flybot_protocol::task::{TaskFields, TaskKind, TaskSource};
use flybot_protocol::task_requests::TaskCreate;

/// Whether `member` is a current person of the room: its owner or a human
/// participant.
pub fn person_in_room(room: &Room, member: &str) -> bool {
    room.owner_id == member
        || room.participants.iter().any(|p| {
            p.get("kind").and_then(|k| k.as_str()) == Some("human")
                && p.get("memberId").and_then(|m| m.as_str()) == Some(member)
        })
}

fn may_ask(
    state: &TeamState,
    actor: &Actor,
    requester: &str,
    bot_id: &str,
    room: Option<&Room>,
) -> bool {
    let Some(bot) = state.bots.get(bot_id) else {
        return false;
    };
    if may_manage_bot(actor, bot) {
        return true;
    }
    let granted = state.grants.get(bot_id).is_some_and(|grants| {
        grants.iter().any(|g| {
            g.grantee == requester
                && g.room_id
                    .as_deref()
                    .is_none_or(|scoped| Some(scoped) == room.map(|r| r.id.as_str()))
        })
    });
    let together = room.is_some_and(|room| {
        person_in_room(room, requester) && room.members.iter().any(|m| m == bot_id)
    });
    granted || together
}

/// Checks and builds the card `id` asked for by `requester`.
pub fn create(
    state: &TeamState,
    actor: &Actor,
    requester: &str,
    req: &TaskCreate,
    id: &str,
    now: u64,
) -> Result<Outcome, ApiError> {
    let title = title(&req.title)?;
    let note = req
        .note
        .as_deref()
        .map(|n| nonblank("note", n, TEXT_MAX))
        .transpose()?;
    let target = req.target.as_deref().map(target::parse).transpose()?;
    let bot = state
        .bots
        .get(&req.bot_id)
        .ok_or_else(|| ApiError::not_found("Bot", &req.bot_id))?;
    let parent = match &req.parent_id {
        None => None,
        Some(parent_id) => {
            let parent = state
                .tasks
                .get(parent_id)
                .ok_or_else(|| ApiError::not_found("task", parent_id))?;
            let fields = TaskFields::read(parent);
            if fields.kind != Some(TaskKind::Group) || parent.status.is_terminal() {
                return Err(ApiError::invalid(
                    "parentId",
                    "A subtask's parent is its room's open overall card.",
                ));
            }
            if req.room_id.is_some() && req.room_id != parent.room_id {
                return Err(ApiError::invalid(
                    "roomId",
                    "A subtask sits in its overall card's room.",
                ));
            }
            Some(parent)
        }
    };
    let room_id = req
        .room_id
        .clone()
        .or_else(|| parent.and_then(|p| p.room_id.clone()));
    let room = match &room_id {
        Some(room_id) => Some(
            state
                .rooms
                .get(room_id)
                .ok_or_else(|| ApiError::not_found("room", room_id))?,
        ),
        None => None,
    };
    if !may_ask(state, actor, requester, &bot.id, room) {
        return Err(ApiError::forbidden(format!(
            "{} is not yours, not granted to you, and not with you in that room; ask its owner.",
            bot.name
        ))
        .with("botId", bot.id.as_str()));
    }
    let contract = write_contract(state, id, None, &req.contract(), now)?;

    let mut stamps = Stamps::new(now);
    let mut out = Outcome::default();
    if req.kind == Some(TaskKind::Group) {
        let Some(room) = room else {
            return Err(ApiError::invalid(
                "roomId",
                "An overall card names its room.",
            ));
        };
        if task_lead(room) != Some(bot.id.as_str()) {
            return Err(ApiError::forbidden(format!(
                "Only the room's task lead records its overall card; {} is not the lead.",
                bot.name
            ))
            .with("botId", bot.id.as_str()));
        }
        // A group keeps one open overall card; recording another updates it.
        if let Some(existing) = open_overall(state, &room.id) {
            let mut card = Card::of(existing);
            card.task.title = title;
            if note.is_some() {
                card.fields.note = note;
            }
            contract.assign(&mut card.fields);
            card.task.updated_at = stamps.for_task(&card.task);
            let existing_id = card.task.id.clone();
            out.write(card.into_task());
            return Ok(out.answer_with(&existing_id));
        }
    }
    let mut card = Card {
        task: Task {
            id: id.to_owned(),
            bot_id: bot.id.clone(),
            title,
            status: TaskStatus::Open,
            requester_id: Some(requester.to_owned()),
            room_id,
            created_at: now,
            updated_at: now.saturating_sub(1),
            extra: Default::default(),
        },
        fields: TaskFields {
            kind: req.kind,
            source: Some(TaskSource::Channel),
            priority: req.priority,
            note,
            parent_id: parent.map(|p| p.id.clone()),
            run: req.run.clone(),
            target,
            ..TaskFields::default()
        },
    };
    contract.assign(&mut card.fields);
    step(&mut card, TaskStatus::Open, requester, &mut stamps, None);
    out.write(card.into_task());
    Ok(out.answer_with(id))
}
