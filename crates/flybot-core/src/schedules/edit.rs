//! The task records a write makes (#354, #1287): create, edit (id and next
//! run kept when only the text changes), pause, resume (next run afresh; a
//! one-time task whose time passed refused until edited), copy (the source's
//! next run, an empty history). Each answers the new record or the refusal;
//! the caller checks ownership first (`owner`) and writes the record.

use super::quiet::{QuietHours, check_new_time};
use super::refusal::{Refusal, sentences};
use super::timing::{Calendar, calendar, zone_of};
use flybot_protocol::schedule::{ScheduleStatus, ScheduleTask, Timing};

/// The longest title and prompt, in characters.
pub const TITLE_MAX: usize = 200;
pub const PROMPT_MAX: usize = 8_000;

/// What every write is checked against.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    pub now: u64,
    pub host_zone: &'a str,
    pub quiet: Option<&'a QuietHours>,
}

/// The first time a timing is due, counted from `now`.
fn first_run(calendar: &Calendar, now: u64) -> Result<u64, Refusal> {
    match calendar {
        Calendar::Once(at, _) if *at <= now => {
            Err(Refusal::invalid("when.at", sentences::PICK_FUTURE))
        }
        Calendar::Every(seconds) => Ok(now + seconds * 1000),
        _ => calendar
            .next_after(now, now)
            .ok_or_else(|| Refusal::invalid("when", sentences::PICK_FUTURE)),
    }
}

/// Checks a timing and its first run against quiet hours (#1166).
fn checked_first_run(timing: &Timing, ctx: &Context<'_>) -> Result<u64, Refusal> {
    let calendar = calendar(timing, ctx.host_zone)?;
    let next = first_run(&calendar, ctx.now)?;
    let host = zone_of(None, ctx.host_zone)?;
    check_new_time(ctx.quiet, &calendar, Some(next), &host)?;
    Ok(next)
}

fn text(value: &str, field: &'static str, max: usize, sentence: &str) -> Result<String, Refusal> {
    let trimmed = value.trim();
    if trimmed.is_empty() || trimmed.chars().count() > max {
        return Err(Refusal::invalid(field, sentence));
    }
    Ok(trimmed.to_owned())
}

/// The fields of a new task.
pub struct NewTask<'a> {
    pub id: String,
    pub session_id: String,
    pub title: &'a str,
    pub prompt: &'a str,
    pub when: &'a Timing,
    pub created_by: String,
}

/// `schedule-create`: an active task first due at its first time.
pub fn create(new: NewTask<'_>, ctx: &Context<'_>) -> Result<ScheduleTask, Refusal> {
    let title = text(new.title, "title", TITLE_MAX, sentences::TITLE)?;
    let prompt = text(new.prompt, "prompt", PROMPT_MAX, sentences::PROMPT)?;
    let next = checked_first_run(new.when, ctx)?;
    Ok(ScheduleTask {
        id: new.id,
        session_id: new.session_id,
        title,
        prompt,
        when: new.when.clone(),
        status: ScheduleStatus::Active,
        next_run_at: Some(next),
        held_until: None,
        suppressed: Vec::new(),
        created_by: new.created_by,
        created_at: ctx.now,
        updated_at: ctx.now,
        paused_at: None,
    })
}

/// What an edit changes; `None` keeps the field (`when: keep` too).
pub struct Changes<'a> {
    pub title: Option<&'a str>,
    pub prompt: Option<&'a str>,
    pub when: Option<&'a Timing>,
}

/// `schedule-update` on the same Session: the id stays; the next run moves
/// only when the timing changed (#354). A paused task stays paused; a done
/// one-time task given a new time is active again.
pub fn edit(
    task: &ScheduleTask,
    changes: &Changes<'_>,
    ctx: &Context<'_>,
) -> Result<ScheduleTask, Refusal> {
    let mut next = task.clone();
    if let Some(title) = changes.title {
        next.title = text(title, "title", TITLE_MAX, sentences::TITLE)?;
    }
    if let Some(prompt) = changes.prompt {
        next.prompt = text(prompt, "prompt", PROMPT_MAX, sentences::PROMPT)?;
    }
    if let Some(when) = changes.when.filter(|when| **when != task.when) {
        let first = checked_first_run(when, ctx)?;
        next.when = when.clone();
        next.held_until = None;
        if task.status == ScheduleStatus::Paused {
            next.next_run_at = None;
        } else {
            next.next_run_at = Some(first);
            next.status = ScheduleStatus::Active;
        }
    }
    next.updated_at = ctx.now;
    Ok(next)
}

/// `schedule-pause`: nothing runs, no missed time either.
pub fn pause(task: &ScheduleTask, now: u64) -> ScheduleTask {
    let mut next = task.clone();
    next.status = ScheduleStatus::Paused;
    next.next_run_at = None;
    next.held_until = None;
    next.paused_at = Some(now);
    next.updated_at = now;
    next
}

/// `schedule-resume`: the next run computed afresh; a one-time task whose
/// time passed is refused until it is edited.
pub fn resume(task: &ScheduleTask, ctx: &Context<'_>) -> Result<ScheduleTask, Refusal> {
    let calendar = calendar(&task.when, ctx.host_zone)?;
    let first = match first_run(&calendar, ctx.now) {
        Ok(first) => first,
        Err(_) => return Err(Refusal::invalid("when.at", sentences::AT_ONLY_EDIT)),
    };
    let mut next = task.clone();
    next.status = ScheduleStatus::Active;
    next.next_run_at = Some(first);
    next.paused_at = None;
    next.updated_at = ctx.now;
    Ok(next)
}

/// `copyFrom` (#1287): the same title, prompt and timing under `id` on
/// `session_id`, keeping an active source's next run; a paused source's
/// copy starts like a resume. The caller writes no run record: the copy
/// starts with an empty history.
pub fn copy(
    source: &ScheduleTask,
    id: String,
    session_id: String,
    created_by: String,
    ctx: &Context<'_>,
) -> Result<ScheduleTask, Refusal> {
    if source.session_id == session_id {
        return Err(Refusal::invalid("copyFrom", sentences::SAME_CHAT));
    }
    let next_run_at = match (source.status, source.next_run_at) {
        (ScheduleStatus::Active, Some(next)) => {
            let calendar = calendar(&source.when, ctx.host_zone)?;
            let host = zone_of(None, ctx.host_zone)?;
            check_new_time(ctx.quiet, &calendar, Some(next), &host)?;
            next
        }
        _ => checked_first_run(&source.when, ctx)?,
    };
    Ok(ScheduleTask {
        id,
        session_id,
        status: ScheduleStatus::Active,
        next_run_at: Some(next_run_at),
        held_until: None,
        suppressed: Vec::new(),
        created_by,
        created_at: ctx.now,
        updated_at: ctx.now,
        paused_at: None,
        ..source.clone()
    })
}
