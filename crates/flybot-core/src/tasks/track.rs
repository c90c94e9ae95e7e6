//! `track_tasks`, the conversation path (#1058, #1099, #1182, #1205): the
//! calling Bot records and updates its own cards (source `conversation`,
//! requester its owner, origin the turn's Session and group). The same title
//! in the same group updates the open card instead of adding another. Only
//! the room's task lead records the overall card or assigns a subtask to
//! another member, and assigning claims it (open → claimed) so the assignee
//! starts without a confirmation. `ask` walks the card to working and into
//! an input wait; `answer` resumes it. The tool's wording and the wake that
//! follows belong to the conversation side; this is the rule.

use super::board::column_walk;
use super::contract::write_contract;
use super::group::open_overall;
use super::machine::{accepted, step};
use super::roles::task_lead;
use super::text::{TEXT_MAX, nonblank, title};
use super::{Card, Outcome, Stamps};
use flybot_protocol::state::{Bot, Room, Task, TaskStatus, TeamState};
use flybot_protocol::task::{
    Column, InputAnswer, InputRequest, Origin, Priority, TaskFields, TaskKind, TaskSource,
    WaitingFor,
};
use flybot_protocol::task_requests::ContractInput;
use flybot_protocol::{ApiError, ErrorCode};

/// Who is recording: the Bot and the turn it is in.
#[derive(Debug, Clone, Copy)]
pub struct TrackContext<'a> {
    pub bot_id: &'a str,
    pub room_id: Option<&'a str>,
    pub session_id: Option<&'a str>,
}

/// One item of a `track_tasks` call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TrackItem {
    pub id: Option<String>,
    pub title: Option<String>,
    pub priority: Option<Priority>,
    pub note: Option<String>,
    pub progress: Option<u8>,
    pub column: Option<Column>,
    /// Records the room's overall card (#1099).
    pub overall: bool,
    /// Assigns the card to another member Bot of the room (#1205).
    pub assignee: Option<String>,
    pub parent_id: Option<String>,
    /// A question that needs a person: the card waits for input (#207).
    pub ask: Option<String>,
    /// The answer to the card's current question.
    pub answer: Option<String>,
    /// The typed contract fields (#1720), checked as `task-update` checks
    /// them.
    pub contract: ContractInput,
}

/// Ids the host minted for a new card and a new question.
#[derive(Debug, Clone, Copy)]
pub struct Fresh<'a> {
    pub task_id: &'a str,
    pub question_id: &'a str,
}

fn stale(message: &str) -> ApiError {
    ApiError::new(ErrorCode::Stale, message)
}

/// What every step of one `track` call reads: the team, the calling Bot, the
/// room it records in and the time.
struct Recording<'a> {
    state: &'a TeamState,
    ctx: TrackContext<'a>,
    bot: &'a Bot,
    room: Option<&'a Room>,
    now: u64,
}

/// The item's free texts, each checked before the team is read further.
struct CheckedTexts {
    title: Option<String>,
    note: Option<String>,
    ask: Option<String>,
    answer: Option<String>,
}

/// Records or updates one card for the calling Bot.
pub fn track(
    state: &TeamState,
    ctx: TrackContext<'_>,
    item: &TrackItem,
    fresh: Fresh<'_>,
    now: u64,
) -> Result<Outcome, ApiError> {
    let rec = Recording::of(state, ctx, now)?;
    let texts = checked_texts(item)?;
    let assignee = permitted_assignee(&rec, item)?;
    let owner_bot = assignee.unwrap_or(rec.ctx.bot_id);
    let existing = existing_card(&rec, item, owner_bot, texts.title.as_deref())?;
    let parent = linked_parent(&rec, item, assignee.is_some())?;

    let mut stamps = Stamps::new(now);
    let mut card = match existing {
        Some(task) => retitled(task, texts.title),
        None => {
            let new = NewCard {
                task_id: fresh.task_id,
                owner_bot,
                title: texts.title,
                assigned: assignee.is_some(),
            };
            new_card(&rec, item, new, &mut stamps)?
        }
    };
    // Checked before anything is written: a refusal leaves the card as it was.
    let status = existing.map(|t| t.status);
    write_contract(state, &card.task.id, status, &item.contract, now)?.assign(&mut card.fields);
    set_item_fields(&mut card, parent, item, texts.note);
    let walk = column_steps(&card, item.column)?;
    if let Some(question) = texts.ask {
        ask_question(&rec, &mut card, question, fresh.question_id, &mut stamps)?;
        return Ok(written(card));
    }
    let walk = match texts.answer {
        // An answer resumes the card; the column asked for alongside is not walked.
        Some(answer) => {
            answer_question(&rec, &mut card, answer, &mut stamps)?;
            Vec::new()
        }
        None => walk,
    };
    Ok(walk_and_write(&rec, card, &walk, &mut stamps))
}

impl<'a> Recording<'a> {
    /// The calling Bot and the room it records in (none outside a room),
    /// which it must be a member of.
    fn of(state: &'a TeamState, ctx: TrackContext<'a>, now: u64) -> Result<Self, ApiError> {
        let bot = state
            .bots
            .get(ctx.bot_id)
            .ok_or_else(|| ApiError::not_found("Bot", ctx.bot_id))?;
        let room = match ctx.room_id {
            None => None,
            Some(id) => {
                let room = state
                    .rooms
                    .get(id)
                    .ok_or_else(|| ApiError::not_found("room", id))?;
                if !room.members.iter().any(|m| m == ctx.bot_id) {
                    // The room's name is not the Bot's to learn (issue 29).
                    return Err(ApiError::forbidden(format!(
                        "{} is not a member of that room.",
                        bot.name
                    )));
                }
                Some(room)
            }
        };
        Ok(Recording {
            state,
            ctx,
            bot,
            room,
            now,
        })
    }
}

/// The item's texts and progress, checked in the order the refusals name them.
fn checked_texts(item: &TrackItem) -> Result<CheckedTexts, ApiError> {
    let text = |field: &str, value: &Option<String>| {
        value
            .as_deref()
            .map(|v| nonblank(field, v, TEXT_MAX))
            .transpose()
    };
    let texts = CheckedTexts {
        title: item.title.as_deref().map(title).transpose()?,
        note: text("note", &item.note)?,
        ask: text("ask", &item.ask)?,
        answer: text("answer", &item.answer)?,
    };
    if item.progress.is_some_and(|p| p > 100) {
        return Err(ApiError::invalid("progress", "Progress is 0 to 100."));
    }
    Ok(texts)
}

/// The other member the item assigns the card to, if any: only the room's
/// task lead assigns (or records the overall card), and only to a member Bot
/// of the room (#1099, #1205).
fn permitted_assignee<'i>(
    rec: &Recording<'_>,
    item: &'i TrackItem,
) -> Result<Option<&'i str>, ApiError> {
    let is_lead = rec
        .room
        .is_some_and(|r| task_lead(r) == Some(rec.ctx.bot_id));
    let assignee = item.assignee.as_deref().filter(|a| *a != rec.ctx.bot_id);
    if (item.overall || assignee.is_some()) && !is_lead {
        return Err(ApiError::forbidden(
            "Only the room's task lead records the overall card or assigns work to another member.",
        ));
    }
    if let Some(assignee) = assignee {
        let seated = rec
            .room
            .is_some_and(|r| r.members.iter().any(|m| m == assignee));
        if !seated || !rec.state.bots.contains_key(assignee) {
            return Err(ApiError::invalid(
                "assignee",
                "The assignee is a member Bot of this room.",
            ));
        }
    }
    Ok(assignee)
}

/// The overall card the item links to: the named parent, or for an assigned
/// subtask the room's open overall card.
fn linked_parent<'a>(
    rec: &Recording<'a>,
    item: &TrackItem,
    assigned: bool,
) -> Result<Option<&'a Task>, ApiError> {
    match &item.parent_id {
        Some(id) => Ok(Some(checked_parent(rec.state, id, rec.room)?)),
        None if assigned => Ok(rec.room.and_then(|r| open_overall(rec.state, &r.id))),
        None => Ok(None),
    }
}

/// An existing card, renamed when the item gives a title.
fn retitled(task: &Task, new_title: Option<String>) -> Card {
    let mut card = Card::of(task);
    if let Some(t) = new_title {
        card.task.title = t;
    }
    card
}

/// What a new card is made of besides the call's own context.
struct NewCard<'a> {
    task_id: &'a str,
    owner_bot: &'a str,
    /// The item's title; a new card cannot do without one.
    title: Option<String>,
    assigned: bool,
}

/// A new conversation card, opened by the caller and, when assigned, claimed
/// for the assignee.
fn new_card(
    rec: &Recording<'_>,
    item: &TrackItem,
    new: NewCard<'_>,
    stamps: &mut Stamps,
) -> Result<Card, ApiError> {
    let Some(title) = new.title else {
        return Err(ApiError::invalid("title", "A new card needs a title."));
    };
    let room_id = rec.room.map(|r| r.id.clone());
    let mut card = Card {
        task: Task {
            id: new.task_id.to_owned(),
            bot_id: new.owner_bot.to_owned(),
            title,
            status: TaskStatus::Open,
            requester_id: Some(rec.bot.owner_id.clone()),
            room_id: room_id.clone(),
            created_at: rec.now,
            updated_at: rec.now.saturating_sub(1),
            extra: Default::default(),
        },
        fields: TaskFields {
            kind: item.overall.then_some(TaskKind::Group),
            source: Some(TaskSource::Conversation),
            origin: Some(Origin {
                session_id: rec.ctx.session_id.map(str::to_owned),
                room_id,
            }),
            ..TaskFields::default()
        },
    };
    step(&mut card, TaskStatus::Open, rec.ctx.bot_id, stamps, None);
    // Assigning claims it, so the assignee starts without a confirmation.
    if new.assigned {
        step(&mut card, TaskStatus::Claimed, rec.ctx.bot_id, stamps, None);
    }
    Ok(card)
}

/// Sets the parent link and the fields the item gives; an absent field keeps
/// the card's value.
fn set_item_fields(card: &mut Card, parent: Option<&Task>, item: &TrackItem, note: Option<String>) {
    if let Some(parent) = parent {
        card.fields.parent_id = Some(parent.id.clone());
    }
    if item.priority.is_some() {
        card.fields.priority = item.priority;
    }
    if note.is_some() {
        card.fields.note = note;
    }
    if item.progress.is_some() {
        card.fields.progress = item.progress;
    }
}

/// The statuses the card walks through to reach the item's column; a column
/// behind the card, or out of a wait, is stale.
fn column_steps(card: &Card, column: Option<Column>) -> Result<Vec<TaskStatus>, ApiError> {
    match column {
        None => Ok(Vec::new()),
        Some(column) => column_walk(card.task.status, column)
            .ok_or_else(|| stale("The card cannot move back, or out of a wait, by its column.")),
    }
}

/// `ask` (#207): walks unfinished work to working, then into an input wait
/// on the new question.
fn ask_question(
    rec: &Recording<'_>,
    card: &mut Card,
    question: String,
    question_id: &str,
    stamps: &mut Stamps,
) -> Result<(), ApiError> {
    let open_to_ask = matches!(
        card.task.status,
        TaskStatus::Open | TaskStatus::Claimed | TaskStatus::Working
    );
    if !open_to_ask {
        return Err(stale(
            "Only unfinished work that is not waiting can ask a question.",
        ));
    }
    let walk = column_walk(card.task.status, Column::InProgress).unwrap_or_default();
    for status in &walk {
        step(card, *status, rec.ctx.bot_id, stamps, None);
    }
    card.fields.waiting_for = Some(WaitingFor::Input);
    card.fields.input_request = Some(InputRequest {
        id: question_id.to_owned(),
        question,
        requested_at: rec.now,
    });
    card.fields.input_answer = None;
    step(
        card,
        TaskStatus::Blocked,
        rec.ctx.bot_id,
        stamps,
        Some(question_id.to_owned()),
    );
    Ok(())
}

/// `answer` (#207): resumes a card waiting on its own question (not on an
/// approval) with the answer.
fn answer_question(
    rec: &Recording<'_>,
    card: &mut Card,
    answer: String,
    stamps: &mut Stamps,
) -> Result<(), ApiError> {
    let waiting = card.task.status == TaskStatus::Blocked
        && card.fields.waiting_for == Some(WaitingFor::Input)
        && card.fields.input_approval_ids.is_empty();
    let Some(question_id) = card.fields.input_request.as_ref().map(|q| q.id.clone()) else {
        return Err(stale("The card asks no question."));
    };
    if !waiting {
        return Err(stale("The card is not waiting for an answer."));
    }
    card.fields.waiting_for = None;
    card.fields.input_answer = Some(InputAnswer {
        question_id: question_id.clone(),
        answer,
        answered_at: rec.now,
    });
    step(
        card,
        TaskStatus::Working,
        rec.ctx.bot_id,
        stamps,
        Some(question_id),
    );
    Ok(())
}

/// Walks the card to its column and writes it; a walk that ends in accepted
/// goes through the acceptance rule, which also settles its overall card.
fn walk_and_write(
    rec: &Recording<'_>,
    mut card: Card,
    walk: &[TaskStatus],
    stamps: &mut Stamps,
) -> Outcome {
    let accepts = walk.last() == Some(&TaskStatus::Accepted);
    for status in walk.iter().filter(|s| **s != TaskStatus::Accepted) {
        step(&mut card, *status, rec.ctx.bot_id, stamps, None);
    }
    if !accepts {
        if card.task.updated_at < rec.now {
            card.task.updated_at = stamps.for_task(&card.task);
        }
        return written(card);
    }
    let id = card.task.id.clone();
    let mut out = Outcome::default();
    accepted(
        rec.state,
        card,
        rec.ctx.bot_id,
        &rec.bot.name,
        stamps,
        &mut out,
    );
    out.answer_with(&id)
}

/// The outcome that writes `card` and answers it.
fn written(card: Card) -> Outcome {
    let id = card.task.id.clone();
    let mut out = Outcome::default();
    out.write(card.into_task());
    out.answer_with(&id)
}

/// The card an item updates: named by id (the caller's own), the room's open
/// overall card, or the open card of the same title in the same group.
fn existing_card<'a>(
    rec: &Recording<'a>,
    item: &TrackItem,
    owner_bot: &str,
    new_title: Option<&str>,
) -> Result<Option<&'a Task>, ApiError> {
    let state = rec.state;
    if let Some(id) = &item.id {
        let task = super::find(state, id)?;
        if task.bot_id != rec.ctx.bot_id {
            return Err(ApiError::forbidden(
                "A Bot updates only its own cards and the cards assigned to it.",
            )
            .with("taskId", id.as_str()));
        }
        if task.status.is_terminal() {
            return Err(stale("That card has ended; record a new one."));
        }
        return Ok(Some(task));
    }
    if item.overall {
        return Ok(rec.room.and_then(|r| open_overall(state, &r.id)));
    }
    let room_id = rec.room.map(|r| r.id.as_str());
    Ok(new_title.and_then(|t| {
        state.tasks.values().find(|task| {
            task.bot_id == owner_bot
                && task.title == t
                && task.room_id.as_deref() == room_id
                && !task.status.is_terminal()
        })
    }))
}

fn checked_parent<'a>(
    state: &'a TeamState,
    id: &str,
    room: Option<&Room>,
) -> Result<&'a Task, ApiError> {
    let parent = super::find(state, id)?;
    let group = TaskFields::read(parent).kind == Some(TaskKind::Group);
    let same_room = room.is_some_and(|r| parent.room_id.as_deref() == Some(r.id.as_str()));
    if !group || parent.status.is_terminal() || !same_room {
        return Err(ApiError::invalid(
            "parentId",
            "A subtask links to its room's open overall card.",
        ));
    }
    Ok(parent)
}

#[cfg(test)]
#[path = "track_tests.rs"]
mod tests;
