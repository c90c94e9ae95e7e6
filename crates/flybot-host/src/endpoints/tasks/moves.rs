//! The requester's moves on a card (#54, #202, #207, #1730) and the owning
//! Bot's write-back report (#1154). Each answers `{task}`; a move by anyone
//! but the requester is `bot/forbidden`, a move the machine does not draw is
//! `bot/stale`, and both leave the record byte-identical.

use super::board::{answer, decider_name};
use crate::actor::journal_actor;
use crate::board::Board;
use crate::ids::new_id;
use flybot_core::access::Actor;
use flybot_core::tasks::{input, machine, rework, target};
use flybot_protocol::ApiError;
use flybot_protocol::answers::{SentBack, TaskAnswer};
use flybot_protocol::task_requests::{
    TaskAnswerInput, TaskById, TaskPostResult, TaskReturn, TaskSendBack, TaskWaitInput,
};

/// `task-accept {id}`: open → claimed.
pub async fn accept(board: &Board, actor: &Actor, req: TaskById) -> Result<TaskAnswer, ApiError> {
    let out = board
        .write(journal_actor(actor), |s, now| {
            machine::accept(s, actor, &req.id, now)
        })
        .await?;
    Ok(answer(&out))
}

/// `task-start {id}`: claimed → working.
pub async fn start(board: &Board, actor: &Actor, req: TaskById) -> Result<TaskAnswer, ApiError> {
    let out = board
        .write(journal_actor(actor), |s, now| {
            machine::start(s, actor, &req.id, now)
        })
        .await?;
    Ok(answer(&out))
}

/// `task-return {id, summary}`: working → result-ready.
pub async fn return_result(
    board: &Board,
    actor: &Actor,
    req: TaskReturn,
) -> Result<TaskAnswer, ApiError> {
    let out = board
        .write(journal_actor(actor), |s, now| {
            machine::return_result(s, actor, &req.id, &req.summary, now)
        })
        .await?;
    Ok(answer(&out))
}

/// `task-accept-result {id}`: result-ready → accepted.
pub async fn accept_result(
    board: &Board,
    actor: &Actor,
    req: TaskById,
) -> Result<TaskAnswer, ApiError> {
    let out = board
        .write(journal_actor(actor), |s, now| {
            let decider = decider_name(s, actor);
            machine::accept_result(s, actor, &req.id, &decider, now)
        })
        .await?;
    Ok(answer(&out))
}

/// `task-cancel {id}`: any unfinished card, result-ready included (#202).
pub async fn cancel(board: &Board, actor: &Actor, req: TaskById) -> Result<TaskAnswer, ApiError> {
    let out = board
        .write(journal_actor(actor), |s, now| {
            machine::cancel(s, actor, &req.id, now)
        })
        .await?;
    Ok(answer(&out))
}

/// `task-archive {id}`: a finished card leaves the Done column for the
/// archive (issue 31), by its requester or its Bot's owner (#1058).
pub async fn archive(board: &Board, actor: &Actor, req: TaskById) -> Result<TaskAnswer, ApiError> {
    let out = board
        .write(journal_actor(actor), |s, now| {
            flybot_core::tasks::archive::archive(s, actor, &req.id, now)
        })
        .await?;
    Ok(answer(&out))
}

/// `task-wait-input {id, question}` (#207).
pub async fn wait_input(
    board: &Board,
    actor: &Actor,
    req: TaskWaitInput,
) -> Result<TaskAnswer, ApiError> {
    let question_id = new_id("question");
    let out = board
        .write(journal_actor(actor), |s, now| {
            input::wait_input(s, actor, &req.id, &req.question, &question_id, now)
        })
        .await?;
    Ok(answer(&out))
}

/// `task-answer-input {id, questionId, answer}` (#207).
pub async fn answer_input(
    board: &Board,
    actor: &Actor,
    req: TaskAnswerInput,
) -> Result<TaskAnswer, ApiError> {
    let out = board
        .write(journal_actor(actor), |s, now| {
            input::answer_input(s, actor, &req.id, &req.question_id, &req.answer, now)
        })
        .await?;
    Ok(answer(&out))
}

/// `task-send-back {id, note}` → `{task, rework}` (#1730).
pub async fn send_back(
    board: &Board,
    actor: &Actor,
    req: TaskSendBack,
) -> Result<SentBack, ApiError> {
    let child_id = new_id("task");
    let out = board
        .write(journal_actor(actor), |s, now| {
            let decider = decider_name(s, actor);
            rework::send_back(s, actor, &req.id, &req.note, &child_id, &decider, now)
        })
        .await?;
    Ok(SentBack {
        task: out.answer.clone(),
        rework: out.writes.iter().find(|t| t.id == child_id).cloned(),
    })
}

/// `task-post-result {id, ok, error?}`: how the decision comment went (#1154).
pub async fn post_result(
    board: &Board,
    actor: &Actor,
    req: TaskPostResult,
) -> Result<TaskAnswer, ApiError> {
    let out = board
        .write(journal_actor(actor), |s, now| {
            target::post_result(s, actor, &req.id, req.ok, req.error.as_deref(), now)
        })
        .await?;
    Ok(answer(&out))
}
