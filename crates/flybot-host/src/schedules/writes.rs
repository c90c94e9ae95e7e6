//! The channel's schedule writes (#354, #1287, #1321, #1166): each resolves
//! the source through the #1321 owner rule, runs the core rule, and writes
//! the record in one change; a refusal writes nothing.

use super::book::{ScheduleBook, context, row_of, team_quiet};
use crate::actor::journal_actor;
use flybot_core::access::Actor;
use flybot_core::schedules::edit::{self, Changes, NewTask};
use flybot_core::schedules::owner::{source_of, target_of};
use flybot_core::schedules::{Refusal, sentences};
use flybot_protocol::ApiError;
use flybot_protocol::schedule::{
    ScheduleCreate, ScheduleRef, ScheduleRow, ScheduleTask, ScheduleUpdate, WhenInput,
};
use flybot_protocol::state::TeamState;

/// A fresh task id in the spec's shape.
pub fn new_schedule_id() -> String {
    crate::ids::new_id("schedule")
}

fn creator(state: &TeamState, actor: &Actor) -> String {
    actor
        .member_id(state)
        .unwrap_or_else(|| journal_actor(actor).to_owned())
}

/// `schedule-create`: a new task, or a copy (`copyFrom`, #1287).
pub async fn create(
    book: &ScheduleBook,
    actor: &Actor,
    req: ScheduleCreate,
) -> Result<ScheduleRow, ApiError> {
    let (now, zone) = (book.now(), book.host_zone.clone());
    let id = new_schedule_id();
    book.write(journal_actor(actor), |change| {
        let state = change.state();
        let quiet = team_quiet(state);
        let ctx = context(now, &zone, quiet.as_ref());
        let task = match &req.copy_from {
            Some(from) => {
                let source = source_of(state, actor, &from.session_id, &from.id)?;
                let target =
                    target_of(state, actor, req.bot_id.as_deref(), req.room_id.as_deref())?;
                let by = creator(state, actor);
                edit::copy(source, id, target.session_id().to_owned(), by, &ctx)?
            }
            None => {
                let target =
                    target_of(state, actor, req.bot_id.as_deref(), req.room_id.as_deref())?;
                let when = req
                    .when
                    .as_ref()
                    .ok_or_else(|| Refusal::invalid("when", sentences::SAY_WHEN))?;
                let new = NewTask {
                    id,
                    session_id: target.session_id().to_owned(),
                    title: req.title.as_deref().unwrap_or_default(),
                    prompt: req.prompt.as_deref().unwrap_or_default(),
                    when,
                    created_by: creator(state, actor),
                };
                edit::create(new, &ctx)?
            }
        };
        change.put_schedule(&task);
        Ok(row_of(change.state(), &task))
    })
    .await
}

/// `schedule-update`: in place on the same Session (id and next run kept
/// when only the text changes); moved to another Bot or room, the new task
/// is written and the old one removed in the same change.
pub async fn update(
    book: &ScheduleBook,
    actor: &Actor,
    req: ScheduleUpdate,
) -> Result<ScheduleRow, ApiError> {
    let (now, zone) = (book.now(), book.host_zone.clone());
    let new_id = new_schedule_id();
    book.write(journal_actor(actor), |change| {
        let state = change.state();
        let source = source_of(state, actor, &req.session_id, &req.id)?.clone();
        let quiet = team_quiet(state);
        let ctx = context(now, &zone, quiet.as_ref());
        let when = match &req.when {
            None | Some(WhenInput::Keep(_)) => None,
            Some(WhenInput::Timing(timing)) => Some(timing),
        };
        let changes = Changes {
            title: req.title.as_deref(),
            prompt: req.prompt.as_deref(),
            when,
        };
        let edited = edit::edit(&source, &changes, &ctx)?;
        let moving = req.bot_id.is_some() || req.room_id.is_some();
        let task = if moving {
            let target = target_of(state, actor, req.bot_id.as_deref(), req.room_id.as_deref())?;
            if target.session_id() == source.session_id {
                edited
            } else {
                let moved = edit::copy(
                    &edited,
                    new_id,
                    target.session_id().to_owned(),
                    edited.created_by.clone(),
                    &ctx,
                )?;
                change.put_schedule(&moved);
                change.remove_schedule(&source.id);
                return Ok(row_of(change.state(), &moved));
            }
        } else {
            edited
        };
        change.put_schedule(&task);
        Ok(row_of(change.state(), &task))
    })
    .await
}

/// Which of pause, resume and delete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Switch {
    Pause,
    Resume,
    Delete,
}

/// `schedule-pause`, `schedule-resume`, `schedule-delete`; a delete answers
/// no row.
pub async fn switch(
    book: &ScheduleBook,
    actor: &Actor,
    req: ScheduleRef,
    what: Switch,
) -> Result<Option<ScheduleRow>, ApiError> {
    let (now, zone) = (book.now(), book.host_zone.clone());
    book.write(journal_actor(actor), |change| {
        let state = change.state();
        let task: ScheduleTask = source_of(state, actor, &req.session_id, &req.id)?.clone();
        let next = match what {
            Switch::Pause => edit::pause(&task, now),
            Switch::Resume => {
                let quiet = team_quiet(state);
                edit::resume(&task, &context(now, &zone, quiet.as_ref()))?
            }
            Switch::Delete => {
                change.remove_schedule(&task.id);
                return Ok(None);
            }
        };
        change.put_schedule(&next);
        Ok(Some(row_of(change.state(), &next)))
    })
    .await
}
