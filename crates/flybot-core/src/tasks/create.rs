//! `task-create` (#54): a new open card. Creating does not require owning the
//! Bot: a matching per-Bot grant, or the requester and the Bot both current
//! members of the named room, is enough. The requester is the server's
//! (the signed-in member or the single owner), never a body field.

use super::contract::{Checked, write_contract};
use super::group::open_overall;
use super::machine::step;
use super::roles::task_lead;
use super::text::{TEXT_MAX, nonblank, title};
use super::{Card, Outcome, Stamps, target};
use crate::access::{Actor, may_manage_bot};
use flybot_protocol::ApiError;
use flybot_protocol::state::{Bot, Room, Task, TaskStatus, TeamState};
use flybot_protocol::task::{Target, TaskFields, TaskKind, TaskSource};
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

/// The request's own fields, checked before the team is read.
struct CheckedCard {
    title: String,
    note: Option<String>,
    target: Option<Target>,
}

/// Whose a new card is and where it sits: the Bot, the room and the overall
/// card it belongs to.
struct Placement {
    bot_id: String,
    room_id: Option<String>,
    parent_id: Option<String>,
}

/// Who asks for a new card, under which id and when.
#[derive(Clone, Copy)]
struct Asked<'a> {
    id: &'a str,
    requester: &'a str,
    now: u64,
}

/// The refusal when `requester` may not ask `bot` for work in `room`.
fn require_may_ask(
    state: &TeamState,
    actor: &Actor,
    requester: &str,
    bot: &Bot,
    room: Option<&Room>,
) -> Result<(), ApiError> {
    if may_ask(state, actor, requester, &bot.id, room) {
        return Ok(());
    }
    let why = crate::unseen::about_bot(state, actor, bot, |name| {
        format!(
            "{name} is not yours, not granted to you, and not with you in that room; ask its owner."
        )
    });
    Err(ApiError::forbidden(why).with("botId", bot.id.as_str()))
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
    let checked = checked_card(req)?;
    let bot = state
        .bots
        .get(&req.bot_id)
        .ok_or_else(|| ApiError::not_found("Bot", &req.bot_id))?;
    let parent = open_parent(state, req)?;
    let room_id = req
        .room_id
        .clone()
        .or_else(|| parent.and_then(|p| p.room_id.clone()));
    let room = room_id
        .as_deref()
        .map(|room_id| {
            state
                .rooms
                .get(room_id)
                .ok_or_else(|| ApiError::not_found("room", room_id))
        })
        .transpose()?;
    require_may_ask(state, actor, requester, bot, room)?;
    let contract = write_contract(state, id, None, &req.contract(), now)?;
    if req.kind == Some(TaskKind::Group) {
        let room = overall_room(bot, room)?;
        // A group keeps one open overall card; recording another updates it.
        if let Some(existing) = open_overall(state, &room.id) {
            return Ok(updated_overall(existing, checked, contract, now));
        }
    }
    let placement = Placement {
        bot_id: bot.id.clone(),
        room_id,
        parent_id: parent.map(|p| p.id.clone()),
    };
    let asked = Asked { id, requester, now };
    let card = new_card(req, checked, contract, placement, asked);
    Ok(Outcome::one(card.into_task()))
}

/// The title, the note and the target, in the order the refusals name them.
fn checked_card(req: &TaskCreate) -> Result<CheckedCard, ApiError> {
    let title = title(&req.title)?;
    let note = req
        .note
        .as_deref()
        .map(|n| nonblank("note", n, TEXT_MAX))
        .transpose()?;
    let target = req.target.as_deref().map(target::parse).transpose()?;
    Ok(CheckedCard {
        title,
        note,
        target,
    })
}

/// The parent the request names, which must be an open overall card in the
/// request's room (#1099).
fn open_parent<'a>(state: &'a TeamState, req: &TaskCreate) -> Result<Option<&'a Task>, ApiError> {
    let Some(parent_id) = &req.parent_id else {
        return Ok(None);
    };
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
    Ok(Some(parent))
}

/// The room of an overall card: one must be named, and only its task lead
/// records the card.
fn overall_room<'a>(bot: &Bot, room: Option<&'a Room>) -> Result<&'a Room, ApiError> {
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
    Ok(room)
}

/// The room's open overall card, renamed and given the request's note and
/// contract; its target and kind stay as they are.
fn updated_overall(existing: &Task, checked: CheckedCard, contract: Checked, now: u64) -> Outcome {
    let mut stamps = Stamps::new(now);
    let mut card = Card::of(existing);
    card.task.title = checked.title;
    if checked.note.is_some() {
        card.fields.note = checked.note;
    }
    contract.assign(&mut card.fields);
    card.task.updated_at = stamps.for_task(&card.task);
    let existing_id = card.task.id.clone();
    let mut out = Outcome::default();
    out.write(card.into_task());
    out.answer_with(&existing_id)
}

/// A new open card from the channel, opened by its requester.
fn new_card(
    req: &TaskCreate,
    checked: CheckedCard,
    contract: Checked,
    placement: Placement,
    asked: Asked<'_>,
) -> Card {
    let mut card = Card {
        task: Task {
            id: asked.id.to_owned(),
            bot_id: placement.bot_id,
            title: checked.title,
            status: TaskStatus::Open,
            requester_id: Some(asked.requester.to_owned()),
            room_id: placement.room_id,
            created_at: asked.now,
            updated_at: asked.now.saturating_sub(1),
            extra: Default::default(),
        },
        fields: TaskFields {
            kind: req.kind,
            source: Some(TaskSource::Channel),
            priority: req.priority,
            note: checked.note,
            parent_id: placement.parent_id,
            run: req.run.clone(),
            target: checked.target,
            ..TaskFields::default()
        },
    };
    contract.assign(&mut card.fields);
    let mut stamps = Stamps::new(asked.now);
    step(
        &mut card,
        TaskStatus::Open,
        asked.requester,
        &mut stamps,
        None,
    );
    card
}
