//! Projects and who may act on them (#1691, #1696, #1710, #1723). A Project
//! is a record in `state.projects`: `{id, name, repository, defaultBranch,
//! status, ownerUserId, createdAt, updatedAt}`. `project-create` stamps the
//! caller as owner; only the owner manages it (or everyone, on a record that
//! names no owner). What it binds is `project_binds`; deleting it unbinds
//! all of that. The board stays open to a non-owner, read-only, and shows
//! only the cards the caller may open through `tasks` (#1723).

use super::project_binds::PROJECT_ID;
use super::project_binds::unbind_all;
pub use super::project_binds::{Bindable, bind, project_of};
pub use super::project_board::board;
use super::read::task_visible;
use crate::access::Actor;
use crate::names::clean_name;
use crate::visibility::{bot_seen, room_seen};
use flybot_protocol::ApiError;
use flybot_protocol::state::{Bot, Extra, Room, TeamState};
use flybot_protocol::task_requests::ProjectCreate;
use serde_json::{Value, json};

/// What a project rule writes: records to put and ids to remove.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProjectWrites {
    pub put: Vec<(String, Value)>,
    pub remove: Vec<String>,
    /// Bots whose `projectId` a binding changed.
    pub bots: Vec<Bot>,
    /// Rooms whose `projectId` a binding changed.
    pub rooms: Vec<Room>,
    /// Runs (job card ids) bound to a Project, or unbound with `None`.
    pub runs: Vec<(String, Option<String>)>,
}

/// The Project `id`, or `bot/not-found`.
fn find_project<'a>(state: &'a TeamState, id: &str) -> Result<&'a Value, ApiError> {
    state
        .projects
        .get(id)
        .ok_or_else(|| ApiError::not_found("project", id))
}

/// The Project `id` if `actor` may see it (`may_see`), else `bot/not-found`
/// as for an id that does not exist: no probing another member's Projects.
pub fn find_visible<'a>(
    state: &'a TeamState,
    actor: &Actor,
    id: &str,
) -> Result<&'a Value, ApiError> {
    find_project(state, id)
        .ok()
        .filter(|project| may_see(state, actor, project))
        .ok_or_else(|| ApiError::not_found("project", id))
}

/// Whether `actor` may see the Project at all (issue 29, the Projects'
/// counterpart of #1723's card predicate): one it manages (its own, or a
/// record naming no owner), or the Project of something it sees: a room
/// it sees, a Bot it sees, or a workflow run whose job card it may open.
/// Every surface that shows a Project asks this: the state view,
/// `projects`, `project-read`, `project-board`, `project-of`,
/// `project-bind` and `project-delete`.
pub fn may_see(state: &TeamState, actor: &Actor, project: &Value) -> bool {
    if can_manage(actor, project) {
        return true;
    }
    let Some(id) = project.get("id").and_then(Value::as_str) else {
        return false;
    };
    let bound = |extra: &Extra| extra.get(PROJECT_ID).and_then(Value::as_str) == Some(id);
    state
        .rooms
        .values()
        .any(|room| bound(&room.extra) && room_seen(state, actor, room))
        || state
            .bots
            .values()
            .any(|bot| !bot.run && bound(&bot.extra) && bot_seen(state, actor, bot))
        || state.project_runs.iter().any(|(run, project)| {
            project == id
                && state
                    .tasks
                    .get(run)
                    .is_some_and(|job| task_visible(state, actor, job))
        })
}

/// The Projects `actor` may see (`may_see`), in id order.
pub fn visible<'a>(state: &'a TeamState, actor: &Actor) -> impl Iterator<Item = &'a Value> {
    state
        .projects
        .values()
        .filter(move |project| may_see(state, actor, project))
}

fn owner_of(project: &Value) -> Option<&str> {
    project
        .get("ownerUserId")
        .and_then(Value::as_str)
        .filter(|o| !o.is_empty())
}

/// Whether `actor` manages the Project: its owner, or anyone when the record
/// names no owner; the single owner manages everything.
pub fn can_manage(actor: &Actor, project: &Value) -> bool {
    match (actor, owner_of(project)) {
        (Actor::SingleOwner, _) | (_, None) => true,
        (Actor::Member { member_id, .. }, Some(owner)) => owner == member_id,
    }
}

/// A change of another member's project; its name is not echoed (issue
/// 29: the caller may not see it).
pub(super) fn forbidden(project: &Value) -> ApiError {
    ApiError::forbidden("That project belongs to another member; only its owner can change it.")
        .with("project", project.get("id").cloned().unwrap_or(Value::Null))
}

/// `project-create {name, repository?, defaultBranch?, status?}` (#1691):
/// `owner` is the caller's member id, never a body field (#1710).
pub fn create(
    req: &ProjectCreate,
    owner: &str,
    id: &str,
    now: u64,
) -> Result<(Value, ProjectWrites), ApiError> {
    let name = clean_name("name", &req.name)?;
    let repository = req
        .repository
        .as_deref()
        .map(|r| one_word("repository", r, 200))
        .transpose()?;
    let branch = one_word(
        "defaultBranch",
        req.default_branch.as_deref().unwrap_or("main"),
        100,
    )?;
    let project = json!({
        "id": id,
        "name": name,
        "repository": repository,
        "defaultBranch": branch,
        "status": req.status.unwrap_or_default(),
        "ownerUserId": owner,
        "createdAt": now,
        "updatedAt": now,
    });
    let writes = ProjectWrites {
        put: vec![(id.to_owned(), project.clone())],
        ..ProjectWrites::default()
    };
    Ok((project, writes))
}

/// A repository or branch name: 1 to `max` characters, no spaces.
fn one_word(field: &str, text: &str, max: usize) -> Result<String, ApiError> {
    let text = text.trim();
    if text.is_empty() || text.chars().count() > max || text.chars().any(char::is_whitespace) {
        return Err(ApiError::invalid(
            field,
            format!("{field} is 1 to {max} characters with no spaces."),
        ));
    }
    Ok(text.to_owned())
}

/// `project-read {project}` → `{project, canManage}`.
pub fn read(state: &TeamState, actor: &Actor, id: &str) -> Result<Value, ApiError> {
    let project = find_visible(state, actor, id)?;
    Ok(json!({"project": project, "canManage": can_manage(actor, project)}))
}

/// `projects` → every Project the actor may see, with `canManage`, oldest
/// first.
pub fn list(state: &TeamState, actor: &Actor) -> Value {
    let mut projects: Vec<&Value> = visible(state, actor).collect();
    projects.sort_by_key(|p| {
        (
            p.get("createdAt").and_then(Value::as_u64),
            p.get("id").and_then(Value::as_str).map(str::to_owned),
        )
    });
    Value::Array(
        projects
            .into_iter()
            .map(|p| {
                let mut row = p.clone();
                if let Some(object) = row.as_object_mut() {
                    object.insert("canManage".into(), can_manage(actor, p).into());
                }
                row
            })
            .collect(),
    )
}

/// `project-delete {project}`: the owner removes it and every binding to it.
pub fn delete(
    state: &TeamState,
    actor: &Actor,
    id: &str,
    now: u64,
) -> Result<(Value, ProjectWrites), ApiError> {
    let project = find_visible(state, actor, id)?;
    if !can_manage(actor, project) {
        return Err(forbidden(project));
    }
    let mut writes = unbind_all(state, id, now);
    writes.remove.push(id.to_owned());
    Ok((project.clone(), writes))
}

#[cfg(test)]
pub(super) mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::fixture::{member, team};
    use super::*;
    use flybot_protocol::ErrorCode;

    /// The fixture team with `project-1`, owned by `owner` (none: ownerless).
    pub(in super::super) fn with_project(owner: Option<&str>) -> TeamState {
        let mut state = team();
        let req = ProjectCreate {
            name: "Site".into(),
            ..ProjectCreate::default()
        };
        let (mut project, _) = create(&req, owner.unwrap_or("x"), "project-1", 5).unwrap();
        if owner.is_none() {
            project.as_object_mut().unwrap().remove("ownerUserId");
        }
        state.projects.insert("project-1".into(), project);
        state
    }

    #[test]
    /// Rule #1710.
    fn only_the_owner_manages_and_an_ownerless_record_is_everyones() {
        let mut state = with_project(Some("member-a"));
        assert_eq!(
            read(&state, &member("member-a"), "project-1").unwrap()["canManage"],
            true
        );
        // Another member sees it only once it binds something it sees: here
        // room-1, where member-b's Reviewer sits (issue 29).
        let err = read(&state, &member("member-b"), "project-1").unwrap_err();
        assert_eq!(err.code, ErrorCode::NotFound);
        assert_eq!(list(&state, &member("member-b")), serde_json::json!([]));
        let mut room = state.rooms["room-1"].clone();
        room.extra.insert(
            super::super::project_binds::PROJECT_ID.into(),
            "project-1".into(),
        );
        state.rooms.insert(room.id.clone(), room);
        assert_eq!(
            read(&state, &member("member-b"), "project-1").unwrap()["canManage"],
            false
        );
        let open = with_project(None);
        assert_eq!(
            read(&open, &member("member-b"), "project-1").unwrap()["canManage"],
            true
        );
        let err = delete(&state, &member("member-b"), "project-1", 9).unwrap_err();
        assert_eq!(err.code, ErrorCode::Forbidden);
    }
}
