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
use super::group::open_overall;
use super::machine::{accepted, step};
use super::roles::task_lead;
use super::text::{TEXT_MAX, nonblank, title};
use super::{Card, Outcome, Stamps};
use flybot_protocol::state::{Room, Task, TaskStatus, TeamState};
use flybot_protocol::task::{
    Column, InputAnswer, InputRequest, Origin, Priority, TaskFields, TaskKind, TaskSource,
    WaitingFor,
};
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

/// Records or updates one card for the calling Bot.
pub fn track(
    state: &TeamState,
    ctx: TrackContext<'_>,
    item: &TrackItem,
    fresh: Fresh<'_>,
    now: u64,
) -> Result<Outcome, ApiError> {
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
                return Err(ApiError::forbidden(format!(
                    "{} is not a member of {}.",
                    bot.name, room.name
                )));
            }
            Some(room)
        }
    };
    let new_title = item.title.as_deref().map(title).transpose()?;
    let note = item
        .note
        .as_deref()
        .map(|n| nonblank("note", n, TEXT_MAX))
        .transpose()?;
    let ask = item
        .ask
        .as_deref()
        .map(|q| nonblank("ask", q, TEXT_MAX))
        .transpose()?;
    let answer = item
        .answer
        .as_deref()
        .map(|a| nonblank("answer", a, TEXT_MAX))
        .transpose()?;
    if item.progress.is_some_and(|p| p > 100) {
        return Err(ApiError::invalid("progress", "Progress is 0 to 100."));
    }
    let is_lead = room.is_some_and(|r| task_lead(r) == Some(ctx.bot_id));
    let assignee = item.assignee.as_deref().filter(|a| *a != ctx.bot_id);
    if (item.overall || assignee.is_some()) && !is_lead {
        return Err(ApiError::forbidden(
            "Only the room's task lead records the overall card or assigns work to another member.",
        ));
    }
    if let Some(assignee) = assignee {
        let seated = room.is_some_and(|r| r.members.iter().any(|m| m == assignee));
        if !seated || !state.bots.contains_key(assignee) {
            return Err(ApiError::invalid(
                "assignee",
                "The assignee is a member Bot of this room.",
            ));
        }
    }
    let owner_bot = assignee.unwrap_or(ctx.bot_id);
    let existing = existing_card(state, ctx, item, room, owner_bot, new_title.as_deref())?;
    let parent = match &item.parent_id {
        Some(id) => Some(checked_parent(state, id, room)?),
        None if assignee.is_some() => room.and_then(|r| open_overall(state, &r.id)),
        None => None,
    };

    let mut stamps = Stamps::new(now);
    let mut out = Outcome::default();
    let mut card = match existing {
        Some(task) => {
            let mut card = Card::of(task);
            if let Some(t) = new_title {
                card.task.title = t;
            }
            card
        }
        None => {
            let Some(t) = new_title else {
                return Err(ApiError::invalid("title", "A new card needs a title."));
            };
            let mut card = Card {
                task: Task {
                    id: fresh.task_id.to_owned(),
                    bot_id: owner_bot.to_owned(),
                    title: t,
                    status: TaskStatus::Open,
                    requester_id: Some(bot.owner_id.clone()),
                    room_id: room.map(|r| r.id.clone()),
                    created_at: now,
                    updated_at: now.saturating_sub(1),
                    extra: Default::default(),
                },
                fields: TaskFields {
                    kind: item.overall.then_some(TaskKind::Group),
                    source: Some(TaskSource::Conversation),
                    origin: Some(Origin {
                        session_id: ctx.session_id.map(str::to_owned),
                        room_id: room.map(|r| r.id.clone()),
                    }),
                    ..TaskFields::default()
                },
            };
            step(&mut card, TaskStatus::Open, ctx.bot_id, &mut stamps, None);
            // Assigning claims it, so the assignee starts without a confirmation.
            if assignee.is_some() {
                step(
                    &mut card,
                    TaskStatus::Claimed,
                    ctx.bot_id,
                    &mut stamps,
                    None,
                );
            }
            card
        }
    };
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
    let mut walk = match item.column {
        None => Vec::new(),
        Some(column) => column_walk(card.task.status, column)
            .ok_or_else(|| stale("The card cannot move back, or out of a wait, by its column."))?,
    };
    if let Some(question) = ask {
        let open_to_ask = matches!(
            card.task.status,
            TaskStatus::Open | TaskStatus::Claimed | TaskStatus::Working
        );
        if !open_to_ask {
            return Err(stale(
                "Only unfinished work that is not waiting can ask a question.",
            ));
        }
        walk = column_walk(card.task.status, Column::InProgress).unwrap_or_default();
        for status in &walk {
            step(&mut card, *status, ctx.bot_id, &mut stamps, None);
        }
        card.fields.waiting_for = Some(WaitingFor::Input);
        card.fields.input_request = Some(InputRequest {
            id: fresh.question_id.to_owned(),
            question,
            requested_at: now,
        });
        card.fields.input_answer = None;
        let question_id = Some(fresh.question_id.to_owned());
        step(
            &mut card,
            TaskStatus::Blocked,
            ctx.bot_id,
            &mut stamps,
            question_id,
        );
        let id = card.task.id.clone();
        out.write(card.into_task());
        return Ok(out.answer_with(&id));
    }
    if let Some(answer) = answer {
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
            answered_at: now,
        });
        step(
            &mut card,
            TaskStatus::Working,
            ctx.bot_id,
            &mut stamps,
            Some(question_id),
        );
        walk.clear();
    }
    let accepts = walk.last() == Some(&TaskStatus::Accepted);
    for status in walk.iter().filter(|s| **s != TaskStatus::Accepted) {
        step(&mut card, *status, ctx.bot_id, &mut stamps, None);
    }
    let id = card.task.id.clone();
    if accepts {
        accepted(state, card, ctx.bot_id, &bot.name, &mut stamps, &mut out);
    } else {
        if card.task.updated_at < now {
            card.task.updated_at = stamps.for_task(&card.task);
        }
        out.write(card.into_task());
    }
    Ok(out.answer_with(&id))
}

/// The card an item updates: named by id (the caller's own), the room's open
/// overall card, or the open card of the same title in the same group.
fn existing_card<'a>(
    state: &'a TeamState,
    ctx: TrackContext<'_>,
    item: &TrackItem,
    room: Option<&Room>,
    owner_bot: &str,
    new_title: Option<&str>,
) -> Result<Option<&'a Task>, ApiError> {
    if let Some(id) = &item.id {
        let task = super::find(state, id)?;
        if task.bot_id != ctx.bot_id {
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
        return Ok(room.and_then(|r| open_overall(state, &r.id)));
    }
    let room_id = room.map(|r| r.id.as_str());
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
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::fixture::{apply, team};
    use super::*;

    fn ctx(bot: &str) -> TrackContext<'_> {
        TrackContext {
            bot_id: bot,
            room_id: Some("room-1"),
            session_id: Some("session-turn"),
        }
    }

    fn titled(title: &str) -> TrackItem {
        TrackItem {
            title: Some(title.into()),
            ..TrackItem::default()
        }
    }

    fn fresh(id: &str) -> Fresh<'_> {
        Fresh {
            task_id: id,
            question_id: "question-1",
        }
    }

    #[test]
    fn the_same_title_in_the_same_group_updates_the_open_card_1058() {
        let mut state = team();
        let out = track(
            &state,
            ctx("bot-dev1"),
            &titled("Fix login"),
            fresh("t-1"),
            10,
        )
        .unwrap();
        apply(&mut state, &out);
        let card = &state.tasks["t-1"];
        assert_eq!(card.requester_id.as_deref(), Some("member-a"));
        let f = TaskFields::read(card);
        assert_eq!(f.source, Some(TaskSource::Conversation));
        assert_eq!(
            f.origin.unwrap().session_id.as_deref(),
            Some("session-turn")
        );
        let mut again = titled("Fix login");
        again.progress = Some(30);
        again.column = Some(Column::InProgress);
        let out = track(&state, ctx("bot-dev1"), &again, fresh("t-2"), 11).unwrap();
        assert_eq!(out.answer.as_ref().unwrap().id, "t-1");
        apply(&mut state, &out);
        assert_eq!(state.tasks.len(), 1);
        assert_eq!(state.tasks["t-1"].status, TaskStatus::Working);
    }

    #[test]
    fn only_the_lead_records_the_overall_card_and_assigning_claims_the_subtask_1099_1205() {
        let mut state = team();
        let mut overall = titled("Plan");
        overall.overall = true;
        let err = track(&state, ctx("bot-dev1"), &overall, fresh("t-x"), 5).unwrap_err();
        assert_eq!(err.code, ErrorCode::Forbidden);
        let out = track(&state, ctx("bot-lead"), &overall, fresh("t-all"), 5).unwrap();
        apply(&mut state, &out);
        let mut assign = titled("Build it");
        assign.assignee = Some("bot-dev1".into());
        let out = track(&state, ctx("bot-lead"), &assign, fresh("t-sub"), 6).unwrap();
        apply(&mut state, &out);
        let sub = &state.tasks["t-sub"];
        assert_eq!(sub.bot_id, "bot-dev1");
        assert_eq!(sub.status, TaskStatus::Claimed);
        assert_eq!(TaskFields::read(sub).parent_id.as_deref(), Some("t-all"));
        // The assignee finishes its card; the overall card settles.
        let mut done = TrackItem {
            id: Some("t-sub".into()),
            column: Some(Column::Done),
            ..TrackItem::default()
        };
        done.progress = Some(100);
        let out = track(&state, ctx("bot-dev1"), &done, fresh("t-unused"), 7).unwrap();
        apply(&mut state, &out);
        assert_eq!(state.tasks["t-all"].status, TaskStatus::Accepted);
        // Another member's card is not the caller's to update.
        let err = track(
            &state,
            ctx("bot-dev2"),
            &TrackItem {
                id: Some("t-sub".into()),
                ..TrackItem::default()
            },
            fresh("t-y"),
            8,
        )
        .unwrap_err();
        assert!(matches!(err.code, ErrorCode::Forbidden | ErrorCode::Stale));
    }

    #[test]
    fn ask_walks_to_working_then_waits_and_answer_resumes_207() {
        let mut state = team();
        let mut ask = titled("Pick a DB");
        ask.ask = Some("Postgres or SQLite?".into());
        let out = track(&state, ctx("bot-dev1"), &ask, fresh("t-1"), 5).unwrap();
        apply(&mut state, &out);
        let card = &state.tasks["t-1"];
        let f = TaskFields::read(card);
        assert_eq!(card.status, TaskStatus::Blocked);
        assert_eq!(f.waiting_for, Some(WaitingFor::Input));
        assert!(f.actors.contains_key(&TaskStatus::Working));
        let answer = TrackItem {
            id: Some("t-1".into()),
            answer: Some("SQLite".into()),
            ..TrackItem::default()
        };
        let out = track(&state, ctx("bot-dev1"), &answer, fresh("t-2"), 6).unwrap();
        apply(&mut state, &out);
        assert_eq!(state.tasks["t-1"].status, TaskStatus::Working);
        let again = track(&state, ctx("bot-dev1"), &answer, fresh("t-2"), 7).unwrap_err();
        assert_eq!(again.code, ErrorCode::Stale);
    }
}
