//! What a Project binds (#1691, #1710): a Bot (`bot.projectId`), a room
//! (`room.projectId`) and a workflow run (`state.projectRuns[runId]`, the run
//! named by its job card's id), each to at most one Project. `project-of`
//! answers for each; `project-bind` binds or unbinds one. To bind, the caller
//! must manage the Project named and the thing bound: a Bot its owner, a
//! room its owner or admin, a run whoever acts for its lead Bot; unbinding
//! needs only the latter. An unbound one resolves to none, and a refusal
//! writes nothing.

use super::job_card::is_job_card;
use super::projects::{ProjectWrites, can_manage, find_visible, forbidden, may_see};
use super::queue::acting_bot;
use super::read::{room_admin, task_visible};
use crate::access::Actor;
use crate::visibility::{bot_seen, room_seen};
use flybot_protocol::ApiError;
use flybot_protocol::state::{Extra, Task, TeamState};
use serde_json::Value;

/// The key a Bot and a room carry naming the Project they are bound to.
pub const PROJECT_ID: &str = "projectId";

/// What a `project-bind` or `project-of` names: exactly one of the three.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bindable<'a> {
    Room(&'a str),
    Bot(&'a str),
    Run(&'a str),
}

impl<'a> Bindable<'a> {
    /// The one of `roomId`, `botId`, `runId` a request names, or
    /// `bot/invalid` when it names none or several.
    pub fn named(
        room: Option<&'a str>,
        bot: Option<&'a str>,
        run: Option<&'a str>,
    ) -> Result<Bindable<'a>, ApiError> {
        match (room, bot, run) {
            (Some(room), None, None) => Ok(Bindable::Room(room)),
            (None, Some(bot), None) => Ok(Bindable::Bot(bot)),
            (None, None, Some(run)) => Ok(Bindable::Run(run)),
            _ => Err(ApiError::invalid(
                "roomId",
                "Name one of roomId, botId or runId, the one thing to bind.",
            )),
        }
    }
}

fn project_in(extra: &Extra) -> Option<&str> {
    extra.get(PROJECT_ID).and_then(Value::as_str)
}

/// The id of the Project a room is bound to, if any.
pub fn room_project<'a>(state: &'a TeamState, room_id: &str) -> Option<&'a str> {
    project_in(&state.rooms.get(room_id)?.extra)
}

/// The id of the Project a Bot is bound to, if any.
pub fn bot_project<'a>(state: &'a TeamState, bot_id: &str) -> Option<&'a str> {
    project_in(&state.bots.get(bot_id)?.extra)
}

/// The id of the Project a run (its job card's id) is bound to, if any.
pub fn run_project<'a>(state: &'a TeamState, run_id: &str) -> Option<&'a str> {
    state.project_runs.get(run_id).map(String::as_str)
}

/// The workflow run `run_id`: its job card, or `bot/not-found`.
fn find_run<'a>(state: &'a TeamState, run_id: &str) -> Result<&'a Task, ApiError> {
    state
        .tasks
        .get(run_id)
        .filter(|task| is_job_card(task))
        .ok_or_else(|| ApiError::not_found("workflow run", run_id))
}

/// `project-of`: the Project `what` is bound to (none when unbound). A Bot
/// or a run the caller cannot see answers like an unknown one.
pub fn project_of<'a>(
    state: &'a TeamState,
    actor: &Actor,
    what: Bindable<'_>,
) -> Result<Option<&'a Value>, ApiError> {
    let id = match what {
        Bindable::Room(room) => {
            let seen = state
                .rooms
                .get(room)
                .is_some_and(|r| room_seen(state, actor, r));
            if !seen {
                return Err(ApiError::not_found("room", room));
            }
            room_project(state, room)
        }
        Bindable::Bot(bot) => {
            let seen = state
                .bots
                .get(bot)
                .is_some_and(|b| bot_seen(state, actor, b));
            if !seen {
                return Err(ApiError::not_found("Bot", bot));
            }
            bot_project(state, bot)
        }
        Bindable::Run(run) => {
            let job = find_run(state, run)?;
            if !task_visible(state, actor, job) {
                return Err(ApiError::not_found("workflow run", run));
            }
            run_project(state, run)
        }
    };
    // What the caller sees binds only Projects it may see (`may_see`).
    Ok(id
        .and_then(|id| state.projects.get(id))
        .filter(|project| may_see(state, actor, project)))
}

/// `project-bind {roomId | botId | runId, project}`: binds `what` to
/// `project`, or unbinds it with `None`. Answers the Project now bound and
/// the writes; binding again where it is bound writes nothing.
pub fn bind(
    state: &TeamState,
    actor: &Actor,
    what: Bindable<'_>,
    project: Option<&str>,
    now: u64,
) -> Result<(Option<Value>, ProjectWrites), ApiError> {
    may_bind(state, actor, what)?;
    let target = project
        .map(|id| find_visible(state, actor, id))
        .transpose()?;
    if let Some(target) = target.filter(|t| !can_manage(actor, t)) {
        return Err(forbidden(target));
    }
    let mut writes = ProjectWrites::default();
    rebind(state, what, project, now, &mut writes);
    Ok((target.cloned(), writes))
}

/// Whether the caller may bind or unbind `what`: refused when not.
fn may_bind(state: &TeamState, actor: &Actor, what: Bindable<'_>) -> Result<(), ApiError> {
    match what {
        Bindable::Bot(bot) => {
            crate::roster::managed_bot_for(state, actor, bot, "bind it to a project")?;
        }
        Bindable::Room(room_id) => {
            let room = state
                .rooms
                .get(room_id)
                .ok_or_else(|| ApiError::not_found("room", room_id))?;
            if !room_admin(state, actor, room_id) {
                let why = crate::unseen::about_room(state, actor, room, |name| {
                    format!("Only the owner or admin of {name} can bind it to a project.")
                });
                return Err(ApiError::forbidden(why).with("roomId", room_id));
            }
        }
        Bindable::Run(run) => {
            let job = find_run(state, run)?;
            acting_bot(state, actor, &job.bot_id)?;
        }
    }
    Ok(())
}

/// The writes that bind `what` to `project` (none when it already is).
fn rebind(
    state: &TeamState,
    what: Bindable<'_>,
    project: Option<&str>,
    now: u64,
    writes: &mut ProjectWrites,
) {
    let set = |extra: &mut Extra| match project {
        Some(id) => extra.insert(PROJECT_ID.into(), Value::from(id)),
        None => extra.remove(PROJECT_ID),
    };
    match what {
        Bindable::Bot(id) => {
            if let Some(bot) = state.bots.get(id)
                && bot_project(state, id) != project
            {
                let mut next = bot.clone();
                set(&mut next.extra);
                next.updated_at = now.max(bot.updated_at + 1);
                writes.bots.push(next);
            }
        }
        Bindable::Room(id) => {
            if let Some(room) = state.rooms.get(id)
                && room_project(state, id) != project
            {
                let mut next = room.clone();
                set(&mut next.extra);
                next.updated_at = now.max(room.updated_at + 1);
                writes.rooms.push(next);
            }
        }
        Bindable::Run(id) => {
            if run_project(state, id) != project {
                writes
                    .runs
                    .push((id.to_owned(), project.map(str::to_owned)));
            }
        }
    }
}

/// The writes that take every Bot, room and run out of Project `id` (its
/// deletion leaves no binding behind).
pub fn unbind_all(state: &TeamState, id: &str, now: u64) -> ProjectWrites {
    let mut writes = ProjectWrites::default();
    let bound = |extra: &Extra| project_in(extra) == Some(id);
    let bots = state.bots.values().filter(|b| bound(&b.extra));
    for bot in bots {
        rebind(state, Bindable::Bot(&bot.id), None, now, &mut writes);
    }
    let rooms = state.rooms.values().filter(|r| bound(&r.extra));
    for room in rooms {
        rebind(state, Bindable::Room(&room.id), None, now, &mut writes);
    }
    let runs = state.project_runs.iter().filter(|(_, p)| p.as_str() == id);
    for (run, _) in runs {
        writes.runs.push((run.clone(), None));
    }
    writes
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::fixture::{member, task};
    use super::super::job_card::JOB_WORKFLOW;
    use super::super::projects::{board, delete, tests::with_project};
    use super::*;
    use flybot_protocol::ErrorCode;
    use flybot_protocol::state::TaskStatus;

    /// Applies a rule's writes the way the host's endpoint does.
    fn apply(state: &mut TeamState, writes: ProjectWrites) {
        for (id, project) in writes.put {
            state.projects.insert(id, project);
        }
        for id in writes.remove {
            state.projects.remove(&id);
        }
        for bot in writes.bots {
            state.bots.insert(bot.id.clone(), bot);
        }
        for room in writes.rooms {
            state.rooms.insert(room.id.clone(), room);
        }
        for (run, project) in writes.runs {
            match project {
                Some(project) => state.project_runs.insert(run, project),
                None => state.project_runs.remove(&run),
            };
        }
    }

    fn bound_id(state: &TeamState, actor: &Actor, what: Bindable<'_>) -> Option<String> {
        let project = project_of(state, actor, what).unwrap()?;
        Some(project["id"].as_str().unwrap().to_owned())
    }

    /// The fixture team with a job card `task-job` led by `bot-lead` in
    /// `room-1`, and one node card under it.
    fn with_run(owner: &str) -> TeamState {
        let mut state = with_project(Some(owner));
        let mut job = task("task-job", TaskStatus::Open);
        job.bot_id = "bot-lead".into();
        job.extra.insert(JOB_WORKFLOW.into(), "blank".into());
        let mut node = task("task-node", TaskStatus::Open);
        node.extra.insert(JOB_WORKFLOW.into(), "blank".into());
        node.extra.insert("node".into(), "draft".into());
        node.extra.insert("parentId".into(), "task-job".into());
        state.tasks.insert(job.id.clone(), job);
        state.tasks.insert(node.id.clone(), node);
        state
    }

    #[test]
    /// Rule #1710.
    fn a_bind_by_a_non_manager_is_forbidden_and_writes_nothing() {
        let state = with_project(Some("member-a"));
        let room = Bindable::Room("room-1");
        let err = bind(&state, &member("member-b"), room, Some("project-1"), 9).unwrap_err();
        assert_eq!(err.code, ErrorCode::Forbidden);
        let (bound, writes) =
            bind(&state, &member("member-a"), room, Some("project-1"), 9).unwrap();
        assert_eq!(bound.unwrap()["id"], "project-1");
        assert_eq!(writes.rooms.len(), 1);
        assert_eq!(writes.rooms[0].extra[PROJECT_ID], "project-1");
        let mut state = state;
        apply(&mut state, writes);
        // Binding again where it is bound writes nothing.
        let (_, again) = bind(&state, &member("member-a"), room, Some("project-1"), 10).unwrap();
        assert_eq!(again, ProjectWrites::default());
        // Leaving needs the room's owner or admin, too.
        let err = bind(&state, &member("member-b"), room, None, 10).unwrap_err();
        assert_eq!(err.code, ErrorCode::Forbidden);
        let owner = member("member-a");
        assert_eq!(bound_id(&state, &owner, room).as_deref(), Some("project-1"));
    }

    #[test]
    /// Rule #1710.
    fn binding_a_room_needs_its_owner_or_admin_as_well_as_the_projects_manager() {
        // member-b manages the Project but neither owns room-1 nor its admin.
        let mut state = with_project(Some("member-b"));
        let room = Bindable::Room("room-1");
        let err = bind(&state, &member("member-b"), room, Some("project-1"), 9).unwrap_err();
        assert_eq!(err.code, ErrorCode::Forbidden);
        assert_eq!(bound_id(&state, &member("member-b"), room), None);
        // The room's owner may take its room out of a Project it does not manage.
        let mut bound = state.rooms["room-1"].clone();
        bound.extra.insert(PROJECT_ID.into(), "project-1".into());
        state.rooms.insert("room-1".into(), bound);
        let (left, writes) = bind(&state, &member("member-a"), room, None, 10).unwrap();
        assert!(left.is_none());
        assert!(!writes.rooms[0].extra.contains_key(PROJECT_ID));
        assert_eq!(writes.rooms[0].updated_at, 10);
    }

    #[test]
    /// Rule #1691.
    fn a_run_binds_like_a_bot_and_project_of_answers_it() {
        let mut state = with_run("member-a");
        let run = Bindable::Run("task-job");
        // member-b cannot act for the run's lead Bot: refused, nothing bound.
        let err = bind(&state, &member("member-b"), run, Some("project-1"), 9).unwrap_err();
        assert_eq!(err.code, ErrorCode::Forbidden);
        // A node card is not a run.
        let node = Bindable::Run("task-node");
        let err = bind(&state, &member("member-a"), node, Some("project-1"), 9).unwrap_err();
        assert_eq!(err.code, ErrorCode::NotFound);
        let (_, writes) = bind(&state, &member("member-a"), run, Some("project-1"), 9).unwrap();
        assert_eq!(
            writes.runs,
            vec![("task-job".to_owned(), Some("project-1".to_owned()))]
        );
        apply(&mut state, writes);
        let owner = member("member-a");
        assert_eq!(bound_id(&state, &owner, run).as_deref(), Some("project-1"));
        // A run member-b cannot open answers like an unknown one.
        let err = project_of(&state, &member("member-b"), run).unwrap_err();
        assert_eq!(err.code, ErrorCode::NotFound);
        // The run's cards are on the Project's board, with their run and node.
        let rows = board(&state, &owner, "project-1").unwrap();
        let node_row = rows.iter().find(|r| r["id"] == "task-node").unwrap();
        assert_eq!(node_row["source"], "workflow");
        assert_eq!(node_row["runId"], "task-job");
        assert_eq!(node_row["nodeId"], "draft");
        let job_row = rows.iter().find(|r| r["id"] == "task-job").unwrap();
        assert_eq!(job_row["runId"], "task-job");
        assert!(job_row.get("nodeId").is_none());
    }

    #[test]
    /// Rule #1691.
    fn deleting_a_project_unbinds_every_bot_room_and_run() {
        let mut state = with_run("member-a");
        let owner = member("member-a");
        for what in [
            Bindable::Room("room-1"),
            Bindable::Bot("bot-dev1"),
            Bindable::Run("task-job"),
        ] {
            let (_, writes) = bind(&state, &owner, what, Some("project-1"), 9).unwrap();
            apply(&mut state, writes);
            assert_eq!(bound_id(&state, &owner, what).as_deref(), Some("project-1"));
        }
        let (_, writes) = delete(&state, &owner, "project-1", 10).unwrap();
        apply(&mut state, writes);
        assert!(state.projects.is_empty());
        assert!(state.project_runs.is_empty());
        assert!(!state.rooms["room-1"].extra.contains_key(PROJECT_ID));
        assert!(!state.bots["bot-dev1"].extra.contains_key(PROJECT_ID));
    }

    #[test]
    /// Rule #1691.
    fn a_request_names_exactly_one_thing_to_bind() {
        assert_eq!(
            Bindable::named(None, None, Some("task-job")).unwrap(),
            Bindable::Run("task-job")
        );
        for (room, bot, run) in [
            (None, None, None),
            (Some("room-1"), Some("bot-dev1"), None),
            (Some("room-1"), None, Some("task-job")),
        ] {
            let err = Bindable::named(room, bot, run).unwrap_err();
            assert_eq!(err.code, ErrorCode::Invalid);
        }
    }
}
