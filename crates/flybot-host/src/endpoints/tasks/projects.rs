//! The Project endpoints (#1691, #1696, #1710, #1723): `projects`,
//! `project-create`, `project-read`, `project-bind`, `project-of`,
//! `project-board` and `project-delete`. The owner is the authenticated
//! caller; the board is open to a non-owner, read-only, with only the cards
//! the caller may open through `tasks`.

use crate::actor::{acting_member, journal_actor};
use crate::board::Board;
use crate::ids::new_id;
use flybot_core::access::Actor;
use flybot_core::tasks::projects::{self, ProjectWrites};
use flybot_protocol::ApiError;
use flybot_protocol::answers::{ProjectAnswer, ProjectDeleted, ProjectsAnswer, Rows};
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
            let (project, writes) = projects::create(&req.name, &owner, &id, change.now_ms())?;
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

/// `project-bind {roomId, project}` → `{project}`; refused `bot/forbidden`
/// unless the caller manages the Project named (and the one left).
pub async fn bind(
    board: &Board,
    actor: &Actor,
    req: ProjectBind,
) -> Result<ProjectAnswer, ApiError> {
    let project = board
        .team()
        .mutate(journal_actor(actor), |change| {
            let (bound, writes) = projects::bind(
                change.state(),
                actor,
                &req.room_id,
                req.project.as_deref(),
                change.now_ms(),
            )?;
            write(change, &writes);
            Ok(bound)
        })
        .await?;
    Ok(ProjectAnswer {
        project: project.unwrap_or(Value::Null),
    })
}

/// `project-of {roomId}` → `{project}` (null when the room has none).
pub fn of(board: &Board, _actor: &Actor, req: ProjectOf) -> Result<ProjectAnswer, ApiError> {
    board.team().store().read(|state| {
        if !state.rooms.contains_key(&req.room_id) {
            return Err(ApiError::not_found("room", &req.room_id));
        }
        Ok(ProjectAnswer {
            project: projects::project_of(state, &req.room_id)
                .cloned()
                .unwrap_or(Value::Null),
        })
    })
}

/// `project-board {project}` → `{rows}`; `[]` when nothing is visible.
pub fn board(board: &Board, actor: &Actor, req: ProjectById) -> Result<Rows, ApiError> {
    board
        .team()
        .store()
        .read(|state| projects::board(state, actor, &req.project).map(|rows| Rows { rows }))
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
