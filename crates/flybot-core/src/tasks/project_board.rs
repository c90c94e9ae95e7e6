//! `project-board {project}` (#1696, #1723): the read-only board over a
//! Project's bindings, `{tasks: [...]}`, one row per card of a bound room,
//! a bound Bot or a bound workflow run, newest first, that the caller may open through `tasks`
//! (the one card predicate). Each row is the card as the board shows it
//! with `source` (`bot`, `group` or `workflow`), `assignee` (the Bot that
//! holds the card), `runId` / `nodeId` when a workflow run holds it, and
//! `audit` when its audit block is not empty (#1730), and the caller's
//! `moves` (issue 31). Nothing to paint is
//! `[]`, not an error; it writes nothing.

use super::audit::audit;
use super::job_card::JOB_WORKFLOW;
use super::project_binds::{bot_project, room_project, run_project};
use super::projects::find_visible;
use super::read::{Viewer, row_for};
use crate::access::Actor;
use flybot_protocol::ApiError;
use flybot_protocol::state::{Task, TeamState};
use flybot_protocol::task::TaskFields;
use serde_json::Value;
use std::cmp::Reverse;

/// A workflow node card's key naming its node.
const NODE: &str = "node";

/// Where a card comes from, as the board labels it.
fn source(task: &Task) -> &'static str {
    if task.extra.contains_key(JOB_WORKFLOW) {
        "workflow"
    } else if task.room_id.is_some() {
        "group"
    } else {
        "bot"
    }
}

/// The run and node of a workflow card: a node card's job is its parent,
/// a job card is its own run.
fn run_and_node(task: &Task) -> Option<(String, Option<String>)> {
    task.extra.get(JOB_WORKFLOW)?;
    let node = task
        .extra
        .get(NODE)
        .and_then(Value::as_str)
        .map(str::to_owned);
    match (TaskFields::read(task).parent_id, node) {
        (Some(job), Some(node)) => Some((job, Some(node))),
        (None, _) => Some((task.id.clone(), None)),
        (Some(_), None) => None,
    }
}

/// Whether the card is in the Project's scope: a bound room's, a bound
/// Bot's, or a bound run's.
fn in_scope(state: &TeamState, project_id: &str, task: &Task) -> bool {
    let bound = Some(project_id);
    task.room_id
        .as_deref()
        .is_some_and(|r| room_project(state, r) == bound)
        || bot_project(state, &task.bot_id) == bound
        || run_and_node(task).is_some_and(|(run, _)| run_project(state, &run) == bound)
}

/// The board's rows for `actor`.
pub fn board(state: &TeamState, actor: &Actor, id: &str) -> Result<Vec<Value>, ApiError> {
    find_visible(state, actor, id)?;
    let viewer = Viewer::new(state, actor);
    let mut cards: Vec<&Task> = state
        .tasks
        .values()
        .filter(|t| in_scope(state, id, t))
        .filter(|t| viewer.may_open(state, actor, t))
        .collect();
    cards.sort_by_key(|t| (Reverse(t.updated_at), Reverse(t.created_at)));
    Ok(cards
        .into_iter()
        .map(|task| board_row(state, actor, task))
        .collect())
}

fn board_row(state: &TeamState, actor: &Actor, task: &Task) -> Value {
    let mut row = row_for(state, actor, task);
    let Some(object) = row.as_object_mut() else {
        return row;
    };
    object.insert("source".into(), source(task).into());
    object.insert("assignee".into(), task.bot_id.clone().into());
    if let Some((run, node)) = run_and_node(task) {
        object.insert("runId".into(), run.into());
        if let Some(node) = node {
            object.insert("nodeId".into(), node.into());
        }
    }
    let text = audit(state, task);
    if !text.is_empty() {
        object.insert("audit".into(), text.into());
    }
    row
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::fixture::{member, task};
    use super::super::project_binds::PROJECT_ID;
    use super::super::projects::tests::with_project;
    use super::*;
    use flybot_protocol::state::TaskStatus;

    #[test]
    /// Rule #1723.
    fn the_board_shows_only_cards_the_caller_may_open() {
        let mut state = with_project(Some("member-a"));
        let mut room = state.rooms["room-1"].clone();
        room.extra.insert(PROJECT_ID.into(), "project-1".into());
        state.rooms.insert(room.id.clone(), room);
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
        assert_eq!(rows[0]["source"], "group");
        // member-a owns the room: the group view shows both.
        let rows = board(&state, &member("member-a"), "project-1").unwrap();
        assert_eq!(rows.len(), 2);
        state.tasks.clear();
        assert!(
            board(&state, &member("member-b"), "project-1")
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    /// Rule #1696.
    fn a_node_card_names_its_run_and_node_and_reads_as_workflow() {
        let mut job = task("task-job", TaskStatus::Open);
        job.extra.insert(JOB_WORKFLOW.into(), "blank".into());
        let mut node = job.clone();
        node.id = "task-node".into();
        node.extra.insert(NODE.into(), "draft".into());
        let mut fields = TaskFields::read(&node);
        fields.parent_id = Some("task-job".into());
        fields.write(&mut node);
        assert_eq!(source(&node), "workflow");
        assert_eq!(
            run_and_node(&node),
            Some(("task-job".into(), Some("draft".into())))
        );
        assert_eq!(run_and_node(&job), Some(("task-job".into(), None)));
        let mut plain = task("task-plain", TaskStatus::Open);
        assert_eq!(source(&plain), "bot");
        plain.room_id = Some("room-1".into());
        assert_eq!(source(&plain), "group");
        assert_eq!(run_and_node(&plain), None);
    }
}
