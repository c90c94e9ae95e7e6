//! The Project endpoints (#1691, #1696, #1710, #1723): `projects`,
//! `project-create`, `project-read`, `project-bind`, `project-of`,
//! `project-board` and `project-delete`. The owner is the authenticated
//! caller; the board is open to a non-owner, read-only, with only the cards
//! the caller may open through `tasks`. `project-create` also makes the
//! Project's hidden assistant Bot and its one daily 09:00 Asia/Shanghai
//! task in the same change, through the core rule `schedule-create` runs;
//! `project-delete` removes both with the Project and its memory (#1712).

use crate::actor::{acting_member, journal_actor};
use crate::board::Board;
use crate::ids::new_id;
use crate::schedules::ScheduleBook;
use crate::schedules::book::{context, team_quiet};
use flybot_core::access::Actor;
use flybot_core::schedules::edit::{NewTask, create as create_task};
use flybot_core::tasks::project_assistant::{
    ASSISTANT_BOT, DIGEST_PROMPT, DIGEST_TITLE, assistant_bot, assistant_of, assistant_tasks,
    digest_timing,
};
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

/// What `project-create` makes the Project's assistant with (#1712).
pub struct AssistantParts<'a> {
    /// The model the hidden Bot is made on: the host's default.
    pub model: &'a str,
    /// The schedule book the daily task is written through.
    pub book: &'a ScheduleBook,
}

/// `project-create {name}` → `{project}`; `ownerUserId` is the caller (an
/// install with no session falls back to the host's owner). The Project's
/// hidden assistant and its daily task are made in the same change.
pub async fn create(
    actor: &Actor,
    parts: AssistantParts<'_>,
    req: ProjectCreate,
) -> Result<ProjectAnswer, ApiError> {
    let id = new_id("project");
    let (bot_id, session_id, task_id) = (new_id("bot"), new_id("session"), new_id("schedule"));
    let (now, zone) = (parts.book.now(), parts.book.host_zone.clone());
    let project = parts
        .book
        .write(journal_actor(actor), |change| {
            let owner = acting_member(change, actor);
            let (mut project, writes) = projects::create(&req, &owner, &id, change.now_ms())?;
            write(change, &writes);
            let bot = assistant_bot(&project, &bot_id, &session_id, parts.model, change.now_ms());
            project[ASSISTANT_BOT] = bot_id.clone().into();
            let quiet = team_quiet(change.state());
            let task = create_task(
                NewTask {
                    id: task_id.clone(),
                    session_id: session_id.clone(),
                    title: DIGEST_TITLE,
                    prompt: DIGEST_PROMPT,
                    when: &digest_timing(),
                    created_by: owner,
                },
                &context(now, &zone, quiet.as_ref()),
            )?;
            change.put_project(&id, &project);
            change.put_bot(&bot);
            change.put_schedule(&task);
            Ok(project)
        })
        .await?;
    Ok(ProjectAnswer { project })
}

/// `project-read {project}` → `{project, canManage, daily?}`: its owner
/// also reads the assistant's daily task (#1712), which the schedule list
/// leaves out: when it runs next and its last run, a failed one with the
/// reason it escalated.
pub fn read(board: &Board, actor: &Actor, req: ProjectById) -> Result<Value, ApiError> {
    board.team().store().read(|state| {
        let mut answer = projects::read(state, actor, &req.project)?;
        if answer["canManage"] == true {
            let task = assistant_tasks(state, &req.project)
                .into_iter()
                .find_map(|id| state.schedules.get(&id));
            if let Some(task) = task {
                answer["daily"] = serde_json::json!({
                    "title": task.title,
                    "when": task.when,
                    "nextRunAt": task.next_run_at,
                    "lastRun": state.schedule_runs.get(&task.id),
                });
            }
        }
        Ok(answer)
    })
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
            // The assistant and its daily task go with it (#1712).
            let assistant = assistant_of(state, &req.project).map(|b| b.id.clone());
            let tasks = assistant_tasks(state, &req.project);
            write(change, &writes);
            for task in &tasks {
                change.remove_schedule(task);
            }
            if let Some(bot) = assistant {
                change.remove_bot(&bot);
            }
            Ok(project)
        })
        .await?;
    Ok(ProjectDeleted {
        project,
        deleted: true,
    })
}
