//! The task board's endpoints (#54, #1058): `tasks`, `task-create` and
//! `task-update`. Every write runs a pure rule of `flybot_core::tasks`
//! through the board's one write path, `Board::write`.

use crate::actor::{acting_member, journal_actor};
use crate::board::Board;
use crate::ids::new_id;
use flybot_core::access::Actor;
use flybot_core::tasks::{Outcome, create, read};
use flybot_protocol::ApiError;
use flybot_protocol::answers::{TaskAnswer, TaskRows};
use flybot_protocol::state::TeamState;
use flybot_protocol::task_requests::{TaskCreate, TaskUpdate, TasksRead};

/// `{"task": <the record>}`, or `{"task": null}` when a rule took nothing.
pub fn answer(out: &Outcome) -> TaskAnswer {
    TaskAnswer {
        task: out.answer.clone(),
    }
}

/// The name a decision comment carries: the acting member's (#1172).
pub fn decider_name(state: &TeamState, actor: &Actor) -> String {
    actor
        .member_id(state)
        .and_then(|id| state.members.get(&id))
        .map_or_else(|| "the owner".to_owned(), |m| m.name.clone())
}

/// `tasks {archive?, limit?, botId?, roomId?}` → `{tasks: [rows]}`.
pub fn list(board: &Board, actor: &Actor, req: TasksRead) -> Result<TaskRows, ApiError> {
    board
        .team()
        .read(|state| read::list(state, actor, &req))
        .map(|tasks| TaskRows { tasks })
}

/// `task-create {botId, title, ...}` → `{task}`; the requester is the
/// signed-in member or the single owner.
pub async fn create(board: &Board, actor: &Actor, req: TaskCreate) -> Result<TaskAnswer, ApiError> {
    let id = new_id("task");
    let task = board
        .write_change(journal_actor(actor), |change| {
            // A refusal rolls the whole change back, the owner record included.
            let requester = acting_member(change, actor);
            create::create(
                change.state(),
                actor,
                &requester,
                &req,
                &id,
                change.now_ms(),
            )
        })
        .await?;
    Ok(answer(&task))
}

/// `task-update {id, priority?, progress?, note?, column?, ...contract}`.
pub async fn update(board: &Board, actor: &Actor, req: TaskUpdate) -> Result<TaskAnswer, ApiError> {
    let out = board
        .write(journal_actor(actor), |state, now| {
            let decider = decider_name(state, actor);
            flybot_core::tasks::board::update(state, actor, &req, &decider, now)
        })
        .await?;
    Ok(answer(&out))
}
