//! Projects and who may act on them (#1691, #1696, #1710, #1723). A Project
//! is a record in `state.projects`: `{id, name, ownerUserId, roomIds,
//! createdAt, updatedAt}`. `project-create` stamps the caller as owner; only
//! the owner manages it (or everyone, on a record that names no owner); a
//! binding is refused unless the caller is the room's owner or admin and
//! manages the Project it names. The board stays open to a non-owner, read-only, and shows
//! only the cards the caller may open through `tasks` (#1723).

use super::project_board::BOT_PROJECT;
pub use super::project_board::board;
use super::read::room_admin;
use crate::access::Actor;
use crate::names::clean_name;
use flybot_protocol::ApiError;
use flybot_protocol::state::{Bot, TeamState};
use flybot_protocol::task_requests::ProjectCreate;
use serde_json::{Value, json};

/// What a project rule writes: records to put and ids to remove.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProjectWrites {
    pub put: Vec<(String, Value)>,
    pub remove: Vec<String>,
    /// Bots whose `projectId` a binding changed.
    pub bots: Vec<Bot>,
}

/// The Project `id`, or `bot/not-found`.
pub fn find_project<'a>(state: &'a TeamState, id: &str) -> Result<&'a Value, ApiError> {
    state
        .projects
        .get(id)
        .ok_or_else(|| ApiError::not_found("project", id))
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

fn forbidden(project: &Value) -> ApiError {
    let name = project
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("This project");
    ApiError::forbidden(format!(
        "{name} belongs to another member; only its owner can change it."
    ))
    .with("project", project.get("id").cloned().unwrap_or(Value::Null))
}

/// The room ids a Project binds.
pub fn room_ids(project: &Value) -> Vec<String> {
    project
        .get("roomIds")
        .and_then(Value::as_array)
        .map(|ids| {
            ids.iter()
                .filter_map(|id| id.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn with_rooms(project: &Value, rooms: Vec<String>, now: u64) -> Value {
    let mut next = project.clone();
    if let Some(object) = next.as_object_mut() {
        object.insert("roomIds".into(), json!(rooms));
        object.insert("updatedAt".into(), now.into());
    }
    next
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
        "roomIds": [],
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
    let project = find_project(state, id)?;
    Ok(json!({"project": project, "canManage": can_manage(actor, project)}))
}

/// `projects` → every Project with `canManage`, oldest first.
pub fn list(state: &TeamState, actor: &Actor) -> Value {
    let mut projects: Vec<&Value> = state.projects.values().collect();
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

/// The Project a Bot is bound to (`bot.projectId`), if any.
pub fn project_of_bot<'a>(state: &'a TeamState, bot_id: &str) -> Option<&'a Value> {
    let id = state.bots.get(bot_id)?.extra.get(BOT_PROJECT)?.as_str()?;
    state.projects.get(id)
}

/// `project-bind {botId, project}`: binds the Bot to `project` (or unbinds
/// it with `None`). The caller must manage the Bot and, to bind, the
/// Project; a refusal writes nothing.
pub fn bind_bot(
    state: &TeamState,
    actor: &Actor,
    bot_id: &str,
    project: Option<&str>,
    now: u64,
) -> Result<(Option<Value>, ProjectWrites), ApiError> {
    let bot = crate::roster::managed_bot_for(state, actor, bot_id, "bind it to a project")?;
    let target = project.map(|id| find_project(state, id)).transpose()?;
    if let Some(target) = target.filter(|t| !can_manage(actor, t)) {
        return Err(forbidden(target));
    }
    let mut next = bot.clone();
    match project {
        Some(id) => next.extra.insert(BOT_PROJECT.into(), Value::from(id)),
        None => next.extra.remove(BOT_PROJECT),
    };
    let mut writes = ProjectWrites::default();
    if next.extra != bot.extra {
        next.updated_at = now.max(bot.updated_at + 1);
        writes.bots.push(next);
    }
    Ok((target.cloned(), writes))
}

/// The Project a room is bound to, if any.
pub fn project_of<'a>(state: &'a TeamState, room_id: &str) -> Option<&'a Value> {
    state
        .projects
        .values()
        .find(|p| room_ids(p).iter().any(|r| r == room_id))
}

/// `project-bind {roomId, project}`: binds the room to `project`, or unbinds
/// it when `project` is `None`. The caller must be the room's owner or admin
/// and, to bind, manage the
/// Project the binding names; the room's owner or admin may always take the
/// room out of a Project (issue 14). A refusal writes nothing.
pub fn bind(
    state: &TeamState,
    actor: &Actor,
    room_id: &str,
    project: Option<&str>,
    now: u64,
) -> Result<(Option<Value>, ProjectWrites), ApiError> {
    let room = state
        .rooms
        .get(room_id)
        .ok_or_else(|| ApiError::not_found("room", room_id))?;
    if !room_admin(state, actor, room_id) {
        return Err(ApiError::forbidden(format!(
            "Only the owner or admin of {} can bind it to a project.",
            room.name
        ))
        .with("roomId", room_id));
    }
    let target = project.map(|id| find_project(state, id)).transpose()?;
    let leaving = project_of(state, room_id);
    if let Some(target) = target.filter(|t| !can_manage(actor, t)) {
        return Err(forbidden(target));
    }
    if let Some(leaving) = leaving
        && target.is_some_and(|t| t.get("id") == leaving.get("id"))
    {
        return Ok((target.cloned(), ProjectWrites::default()));
    }
    let mut writes = ProjectWrites::default();
    if let Some(leaving) = leaving {
        let rooms = room_ids(leaving)
            .into_iter()
            .filter(|r| r != room_id)
            .collect();
        let id = leaving
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default();
        writes
            .put
            .push((id.to_owned(), with_rooms(leaving, rooms, now)));
    }
    let bound = target.map(|target| {
        let mut rooms = room_ids(target);
        rooms.push(room_id.to_owned());
        let next = with_rooms(target, rooms, now);
        let id = target.get("id").and_then(Value::as_str).unwrap_or_default();
        writes.put.push((id.to_owned(), next.clone()));
        next
    });
    Ok((bound, writes))
}

/// `project-delete {project}`: the owner removes it.
pub fn delete(
    state: &TeamState,
    actor: &Actor,
    id: &str,
) -> Result<(Value, ProjectWrites), ApiError> {
    let project = find_project(state, id)?;
    if !can_manage(actor, project) {
        return Err(forbidden(project));
    }
    let writes = ProjectWrites {
        remove: vec![id.to_owned()],
        ..ProjectWrites::default()
    };
    Ok((project.clone(), writes))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::fixture::{member, task, team};
    use super::*;
    use flybot_protocol::ErrorCode;
    use flybot_protocol::state::TaskStatus;

    fn with_project(owner: Option<&str>) -> TeamState {
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
    fn only_the_owner_manages_and_an_ownerless_record_is_everyones_1710() {
        let state = with_project(Some("member-a"));
        assert_eq!(
            read(&state, &member("member-a"), "project-1").unwrap()["canManage"],
            true
        );
        assert_eq!(
            read(&state, &member("member-b"), "project-1").unwrap()["canManage"],
            false
        );
        let open = with_project(None);
        assert_eq!(
            read(&open, &member("member-b"), "project-1").unwrap()["canManage"],
            true
        );
    }

    #[test]
    fn a_bind_by_a_non_manager_is_forbidden_and_writes_nothing_1710() {
        let state = with_project(Some("member-a"));
        let err = bind(&state, &member("member-b"), "room-1", Some("project-1"), 9).unwrap_err();
        assert_eq!(err.code, ErrorCode::Forbidden);
        let (bound, writes) =
            bind(&state, &member("member-a"), "room-1", Some("project-1"), 9).unwrap();
        assert_eq!(bound.unwrap()["roomIds"], json!(["room-1"]));
        assert_eq!(writes.put.len(), 1);
        // Leaving needs the room's owner or admin, too.
        let mut state = state;
        state
            .projects
            .insert("project-1".into(), writes.put[0].1.clone());
        let err = bind(&state, &member("member-b"), "room-1", None, 10).unwrap_err();
        assert_eq!(err.code, ErrorCode::Forbidden);
        assert_eq!(project_of(&state, "room-1").unwrap()["id"], "project-1");
    }

    #[test]
    fn binding_a_room_needs_its_owner_or_admin_as_well_as_the_projects_manager_1710() {
        // member-b manages the Project but neither owns room-1 nor its admin.
        let mut state = with_project(Some("member-b"));
        let err = bind(&state, &member("member-b"), "room-1", Some("project-1"), 9).unwrap_err();
        assert_eq!(err.code, ErrorCode::Forbidden);
        assert!(project_of(&state, "room-1").is_none());
        // The room's owner may take its room out of a Project it does not manage.
        let bound = with_rooms(&state.projects["project-1"], vec!["room-1".into()], 9);
        state.projects.insert("project-1".into(), bound);
        let (left, writes) = bind(&state, &member("member-a"), "room-1", None, 10).unwrap();
        assert!(left.is_none());
        assert_eq!(writes.put[0].1["roomIds"], json!([]));
    }

    #[test]
    fn the_board_shows_only_cards_the_caller_may_open_1723() {
        let mut state = with_project(Some("member-a"));
        let (_, writes) =
            bind(&state, &member("member-a"), "room-1", Some("project-1"), 9).unwrap();
        state
            .projects
            .insert("project-1".into(), writes.put[0].1.clone());
        let mut mine = task("task-mine", TaskStatus::Open);
        mine.room_id = Some("room-1".into());
        let mut theirs = task("task-theirs", TaskStatus::Open);
        theirs.room_id = Some("room-1".into());
        theirs.bot_id = "bot-rev".into();
        theirs.requester_id = Some("member-b".into());
        state.tasks.insert(mine.id.clone(), mine);
        state.tasks.insert(theirs.id.clone(), theirs);
        // member-b owns neither the room nor its admin Bot: only its own card.
        let rows = board(&state, &member("member-b"), "project-1").unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0]["id"], "task-theirs");
        // member-a owns the room: the group view shows both.
        assert_eq!(
            board(&state, &member("member-a"), "project-1")
                .unwrap()
                .len(),
            2
        );
        state.tasks.clear();
        assert!(
            board(&state, &member("member-b"), "project-1")
                .unwrap()
                .is_empty()
        );
    }
}
