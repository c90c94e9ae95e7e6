//! Pull queues, leases and their reads (#1247, #1729, #1730): a person acts
//! for a Bot they manage (the room's lead enqueues, a member claims and
//! releases). `task-expire-leases` is the single-owner recovery read, and
//! `task-lease`, `task-counters` and `task-audit` only read.

use super::board::answer;
use crate::actor::journal_actor;
use crate::board::Board;
use crate::ids::new_id;
use flybot_core::access::Actor;
use flybot_core::tasks::read::task_visible;
use flybot_core::tasks::{audit, claim, counters, find, lease, queue};
use flybot_protocol::ApiError;
use flybot_protocol::answers::{
    AuditAnswer, CountersAnswer, LeaseAnswer, LeasesExpired, TaskAnswer,
};
use flybot_protocol::task_requests::{TaskById, TaskClaim, TaskCounters, TaskEnqueue, TaskRelease};

/// `task-enqueue {botId, roomId, role, title, ...}` → `{task}`.
pub async fn enqueue(
    board: &Board,
    actor: &Actor,
    req: TaskEnqueue,
) -> Result<TaskAnswer, ApiError> {
    let id = new_id("task");
    let out = board
        .write(journal_actor(actor), |s, now| {
            queue::enqueue(s, actor, &req, &id, now)
        })
        .await?;
    Ok(answer(&out))
}

/// `task-claim {botId, roomId?, id?}` → `{task}` (null when nothing was taken).
pub async fn claim(board: &Board, actor: &Actor, req: TaskClaim) -> Result<TaskAnswer, ApiError> {
    let worker_id = new_id("worker");
    let out = board
        .write(journal_actor(actor), |s, now| {
            claim::claim(
                s,
                actor,
                &req.bot_id,
                req.room_id.as_deref(),
                req.id.as_deref(),
                &worker_id,
                now,
            )
        })
        .await?;
    Ok(answer(&out))
}

/// `task-release {botId, id, reason?, retryInSec?}` → `{task}`.
pub async fn release(
    board: &Board,
    actor: &Actor,
    req: TaskRelease,
) -> Result<TaskAnswer, ApiError> {
    let out = board
        .write(journal_actor(actor), |s, now| {
            claim::release(
                s,
                actor,
                &req.bot_id,
                &req.id,
                req.reason.as_deref(),
                req.retry_in_sec,
                now,
            )
        })
        .await?;
    Ok(answer(&out))
}

/// `task-expire-leases {}` → `{expired: n, tasks}`: one owner per expired
/// lease; a second read in the same tick answers 0. A member expires only
/// the leases of cards it manages; the host's timer expires the rest.
pub async fn expire_leases(board: &Board, actor: &Actor) -> Result<LeasesExpired, ApiError> {
    let out = board
        .write(journal_actor(actor), |s, now| {
            Ok(lease::expire_leases(s, now, |t| {
                lease::manages_card(s, actor, t)
            }))
        })
        .await?;
    Ok(LeasesExpired {
        expired: out.writes.len(),
        tasks: out.writes,
    })
}

/// `task-lease {id}` → `{lease}`.
pub fn lease(board: &Board, actor: &Actor, req: TaskById) -> Result<LeaseAnswer, ApiError> {
    let now = flybot_store::system_now_ms();
    board.team().store().read(|state| {
        let task = find(state, &req.id)?;
        if !task_visible(state, actor, task) {
            return Err(ApiError::not_found("task", &req.id));
        }
        Ok(LeaseAnswer {
            lease: lease::lease_view(state, &req.id, now)?,
        })
    })
}

/// `task-audit {id}` → `{audit}`: the card's audit text block (#1730).
pub fn audit(board: &Board, actor: &Actor, req: TaskById) -> Result<AuditAnswer, ApiError> {
    board.team().store().read(|state| {
        let task = find(state, &req.id)?;
        if !task_visible(state, actor, task) {
            return Err(ApiError::not_found("task", &req.id));
        }
        Ok(AuditAnswer {
            audit: audit::audit(state, task),
        })
    })
}

/// `task-counters {role?, run?}` → `{counters}` over the cards the caller sees.
pub fn counters(
    board: &Board,
    actor: &Actor,
    req: TaskCounters,
) -> Result<CountersAnswer<counters::Counters>, ApiError> {
    board.team().store().read(|state| {
        let counted = counters::counters(state, req.role.as_deref(), req.run.as_deref(), |t| {
            task_visible(state, actor, t)
        });
        Ok(CountersAnswer { counters: counted })
    })
}
