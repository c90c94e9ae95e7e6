//! The Project endpoints (#1691, #1696, #1710, #1723): `projects`,
//! `project-create`, `project-read`, `project-bind`, `project-of`,
//! `project-board` and `project-delete`. The owner is the authenticated
//! caller; the board is open to a non-owner, read-only, with only the cards
//! the caller may open through `tasks`.

use crate::actor::{acting_member, journal_actor};
use crate::board::Board;
use crate::ids::new_id;
use flybot_core::access::Actor;
use flybot_core::tasks::projects::{self, Bindable, ProjectWrites};
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
        // Its memory goes with it (#1712).
        if change.state().project_memory.contains_key(id) {
            change.remove_project_memory(id);
        }
    }
    for bot in &writes.bots {
        change.put_bot(bot);
    }
    for room in &writes.rooms {
        change.put_room(room);
    }
    for (run, project) in &writes.runs {
        change.set_project_run(run, project.as_deref());
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

/// `project-bind {roomId | botId | runId, project}` → `{project}`;
/// refused `bot/forbidden` unless the caller may bind the room (its owner or
/// admin), the Bot (its owner) or the run (whoever acts for its lead Bot)
/// and manages the Project named.
pub async fn bind(
    board: &Board,
    actor: &Actor,
    req: ProjectBind,
) -> Result<ProjectAnswer, ApiError> {
    let what = Bindable::named(
        req.room_id.as_deref(),
        req.bot_id.as_deref(),
        req.run_id.as_deref(),
    )?;
    let project = board
        .team()
        .mutate(journal_actor(actor), |change| {
            let (state, now) = (change.state(), change.now_ms());
            let (bound, writes) = projects::bind(state, actor, what, req.project.as_deref(), now)?;
            write(change, &writes);
            Ok(bound)
        })
        .await?;
    Ok(ProjectAnswer {
        project: project.unwrap_or(Value::Null),
    })
}

/// `project-of {roomId | botId | runId}` → `{project}` (null when it has
/// none).
pub fn of(board: &Board, actor: &Actor, req: ProjectOf) -> Result<ProjectAnswer, ApiError> {
    let what = Bindable::named(
        req.room_id.as_deref(),
        req.bot_id.as_deref(),
        req.run_id.as_deref(),
    )?;
    board.team().store().read(|state| {
        let project = projects::project_of(state, actor, what)?;
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
            let (state, now) = (change.state(), change.now_ms());
            let (project, writes) = projects::delete(state, actor, &req.project, now)?;
            write(change, &writes);
            Ok(project)
        })
        .await?;
    Ok(ProjectDeleted {
        project,
        deleted: true,
    })
}
