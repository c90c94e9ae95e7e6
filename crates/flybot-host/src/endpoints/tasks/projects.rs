//! The Project endpoints (#1691, #1696, #1710, #1723): `projects`,
//! `project-create`, `project-read`, `project-bind`, `project-of`,
//! `project-board` and `project-delete`. The owner is the authenticated
//! caller; the board is open to a non-owner, read-only, with only the cards
//! the caller may open through `tasks`.

use crate::actor::{acting_member, journal_actor};
use crate::board::Board;
use crate::ids::new_id;
use flybot_core::access::{Actor, bot_visible};
use flybot_core::tasks::projects::{self, ProjectWrites};
use flybot_protocol::ApiError;
use flybot_protocol::answers::{ProjectAnswer, ProjectDeleted, ProjectsAnswer, TaskRows};
use flybot_protocol::task_requests::{ProjectBind, ProjectById, ProjectCreate, ProjectOf};
use flybot_store::Change;
use serde_json::Value;

fn write(change: &mut Change<'_>, writes: &ProjectWrites) {
    for (id, project) in &writes.put {
        change.put_project(id, project);
    }
    for id in &writes.remove {
        change.remove_project(id);
    }
    for bot in &writes.bots {
        change.put_bot(bot);
    }
}

/// `projects` → `{projects: [{..., canManage}]}`.
pub fn list(board: &Board, actor: &Actor) -> Result<ProjectsAnswer, ApiError> {
    Ok(board.team().store().read(|state| ProjectsAnswer {
        projects: projects::list(state, actor),
    }))
}

/// `project-create {name}` → `{project}`; `ownerUserId` is the caller (an
/// install with no session falls back to the host's owner).
pub async fn create(
    board: &Board,
    actor: &Actor,
    req: ProjectCreate,
) -> Result<ProjectAnswer, ApiError> {
    let id = new_id("project");
    let project = board
        .team()
        .mutate(journal_actor(actor), |change| {
            let owner = acting_member(change, actor);
            let (project, writes) = projects::create(&req, &owner, &id, change.now_ms())?;
            write(change, &writes);
            Ok(project)
        })
        .await?;
    Ok(ProjectAnswer { project })
}

/// `project-read {project}` → `{project, canManage}`.
pub fn read(board: &Board, actor: &Actor, req: ProjectById) -> Result<Value, ApiError> {
    board
        .team()
        .store()
        .read(|state| projects::read(state, actor, &req.project))
}

/// `project-bind {roomId | botId, project}` → `{project}`; refused
/// `bot/forbidden` unless the caller may bind the room (its owner or admin)
/// or the Bot (its owner) and manages the Project named.
pub async fn bind(
    board: &Board,
    actor: &Actor,
    req: ProjectBind,
) -> Result<ProjectAnswer, ApiError> {
    let project = board
        .team()
        .mutate(journal_actor(actor), |change| {
            let (state, now) = (change.state(), change.now_ms());
            let target = req.project.as_deref();
            let (bound, writes) = match (&req.room_id, &req.bot_id) {
                (Some(room), None) => projects::bind(state, actor, room, target, now)?,
                (None, Some(bot)) => projects::bind_bot(state, actor, bot, target, now)?,
                (Some(_), Some(_)) | (None, None) => return Err(one_of()),
            };
            write(change, &writes);
            Ok(bound)
        })
        .await?;
    Ok(ProjectAnswer {
        project: project.unwrap_or(Value::Null),
    })
}

/// The refusal of a binding that names both a room and a Bot, or neither.
fn one_of() -> ApiError {
    ApiError::invalid(
        "roomId",
        "Name the roomId or the botId to bind, one of the two.",
    )
}

/// `project-of {roomId | botId}` → `{project}` (null when it has none).
pub fn of(board: &Board, actor: &Actor, req: ProjectOf) -> Result<ProjectAnswer, ApiError> {
    board.team().store().read(|state| {
        let project = match (&req.room_id, &req.bot_id) {
            (Some(room), None) => {
                if !state.rooms.contains_key(room) {
                    return Err(ApiError::not_found("room", room));
                }
                projects::project_of(state, room)
            }
            (None, Some(bot)) => {
                // A Bot the caller cannot see answers like an unknown one.
                let seen = state
                    .bots
                    .get(bot)
                    .is_some_and(|b| bot_visible(state, actor, b));
                if !seen {
                    return Err(ApiError::not_found("Bot", bot));
                }
                projects::project_of_bot(state, bot)
            }
            (Some(_), Some(_)) | (None, None) => return Err(one_of()),
        };
        Ok(ProjectAnswer {
            project: project.cloned().unwrap_or(Value::Null),
        })
    })
}

/// `project-board {project}` → `{tasks}` (#1696); `[]` when nothing is
/// visible.
pub fn board(board: &Board, actor: &Actor, req: ProjectById) -> Result<TaskRows, ApiError> {
    board
        .team()
        .store()
        .read(|state| projects::board(state, actor, &req.project).map(|tasks| TaskRows { tasks }))
}

/// `project-delete {project}` → `{project, deleted}`; the owner only.
pub async fn delete(
    board: &Board,
    actor: &Actor,
    req: ProjectById,
) -> Result<ProjectDeleted, ApiError> {
    let project = board
        .team()
        .mutate(journal_actor(actor), |change| {
            let (project, writes) = projects::delete(change.state(), actor, &req.project)?;
            write(change, &writes);
            Ok(project)
        })
        .await?;
    Ok(ProjectDeleted {
        project,
        deleted: true,
    })
}
