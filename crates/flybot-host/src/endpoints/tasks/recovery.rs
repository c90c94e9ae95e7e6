//! `task-recovery-decide {taskId, decision}` (#198, delivery and crash): the
//! requester decides a card whose OpenCode turn is `recovery: uncertain`.
//! The board's rule is checked first (unknown card `bot/not-found`, anyone
//! but the requester `bot/forbidden`, a card with nothing uncertain
//! `bot/stale`), then the decision is journaled in the card's execution
//! journal (retry: the same reservation, charged to its retry counter;
//! accept: what the runtime shows becomes the turn's end; cancel: the work
//! is given up and aborted), then written on the card. A refusal changes
//! nothing.

use super::board::answer;
use crate::actor::journal_actor;
use crate::rooms::Rounds;
use crate::rooms::opencode::recovery::project_end;
use flybot_core::access::Actor;
use flybot_core::tasks::recovery;
use flybot_interop::opencode::{RecoveryChoice, RecoveryDone};
use flybot_protocol::answers::TaskAnswer;
use flybot_protocol::task::RecoveryDecision;
use flybot_protocol::task_requests::TaskRecoveryDecide;
use flybot_protocol::{ApiError, ErrorCode};

pub async fn decide(
    rounds: &Rounds,
    actor: &Actor,
    req: TaskRecoveryDecide,
) -> Result<TaskAnswer, ApiError> {
    let now = flybot_store::system_now_ms();
    rounds
        .team()
        .read(|s| recovery::decide(s, actor, &req.task_id, req.decision, now))?;
    let choice = match req.decision {
        RecoveryDecision::Retry => RecoveryChoice::Retry,
        RecoveryDecision::Accept => RecoveryChoice::Accept,
        RecoveryDecision::Cancel => RecoveryChoice::Cancel,
    };
    let (seat, card, done) = rounds
        .externals()
        .opencode()
        .decide(rounds, &req.task_id, choice, journal_actor(actor))
        .await
        .map_err(|why| {
            ApiError::new(
                ErrorCode::Stale,
                format!("The decision could not be applied: {why}."),
            )
            .with("taskId", req.task_id.as_str())
        })?;
    let out = rounds
        .board()
        .write(journal_actor(actor), |s, now| {
            recovery::decide(s, actor, &req.task_id, req.decision, now)
        })
        .await?;
    if let RecoveryDone::Accepted(Some(end)) = done {
        // The runtime's showing is the turn's end: said and projected as
        // one would be, after the decision is on the card.
        let rounds = rounds.clone();
        tokio::spawn(async move { project_end(&rounds, &seat, &card, &end).await });
    }
    Ok(answer(&out))
}
