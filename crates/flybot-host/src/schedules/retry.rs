//! `schedule-retry` (#473): the task's prompt once now, as a run of that
//! task; its own times are untouched (no missed time is delivered again).
//! A paused task is refused ("Resume the task first").

use super::book::row_of;
use super::scheduler::Scheduler;
use flybot_core::access::Actor;
use flybot_core::schedules::owner::source_of;
use flybot_core::schedules::{Refusal, sentences};
use flybot_protocol::ApiError;
use flybot_protocol::schedule::{RunResult, ScheduleRef, ScheduleRow, ScheduleStatus};

pub async fn retry(
    scheduler: &Scheduler,
    actor: &Actor,
    req: ScheduleRef,
) -> Result<ScheduleRow, ApiError> {
    let book = &scheduler.book;
    let task = book
        .team
        .read(|state| source_of(state, actor, &req.session_id, &req.id).cloned())?;
    if task.status == ScheduleStatus::Paused {
        return Err(Refusal::invalid("id", sentences::RESUME_FIRST).into());
    }
    let now = book.now();
    let run = scheduler.deliver_run(&task, now, false, now);
    let row = book
        .write(crate::actor::journal_actor(actor), |change| {
            change.put_schedule_run(&task.id, &run);
            Ok(row_of(change.state(), &task))
        })
        .await?;
    if run.result == RunResult::Failed {
        scheduler.announce_failure(&task, &run).await;
    }
    Ok(row)
}
