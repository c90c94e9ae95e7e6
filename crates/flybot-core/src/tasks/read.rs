//! The `tasks` read (#1058, #1252) and who may see a card. A card is visible
//! to its requester and to the owner of its Bot or of an ancestor of that Bot
//! (through `createdBy`); `{roomId}` is the group view, open to the room's
//! human admin and the owner of its admin Bot. The default read is active
//! work; `{archive: true}` adds the finished rows; `{archive: true, limit: N}`
//! is the newest N finished rows only, after the `botId` / `roomId` filter,
//! less the cards a person archived (issue 31), which only the whole
//! archive lists.

use super::moves::moves_for;
use super::roles::bot_name;
use crate::access::Actor;
use flybot_protocol::state::{Task, TaskStatus, TeamState};
use flybot_protocol::task::{Column, column_of, priority_of};
use flybot_protocol::task_requests::TasksRead;
use flybot_protocol::{ApiError, ErrorCode};
use serde_json::{Map, Value};
use std::cmp::Reverse;
use std::collections::HashSet;

/// The most rows one `limit` may ask for.
pub const LIMIT_MAX: usize = 1_000;

/// Who is reading, computed once per read.
pub struct Viewer<'a> {
    everything: bool,
    member: Option<String>,
    /// Bots the member owns, or whose ancestor the member owns.
    bots: HashSet<&'a str>,
}

impl<'a> Viewer<'a> {
    pub fn new(state: &'a TeamState, actor: &Actor) -> Viewer<'a> {
        let member = match actor {
            Actor::SingleOwner => None,
            Actor::Member { member_id, .. } => Some(member_id.clone()),
        };
        let bots = match &member {
            None => HashSet::new(),
            Some(member) => state
                .bots
                .values()
                .filter(|bot| owned_through_ancestry(state, &bot.id, member))
                .map(|bot| bot.id.as_str())
                .collect(),
        };
        Viewer {
            everything: member.is_none(),
            member,
            bots,
        }
    }

    /// Whether the card is visible outside the group view.
    pub fn sees(&self, task: &Task) -> bool {
        self.everything
            || self.bots.contains(task.bot_id.as_str())
            || (task.requester_id.is_some() && task.requester_id == self.member)
    }

    /// Whether the actor may open the card at all (#1723): `sees`, or the
    /// admin of the room the card came from. Every surface that shows a card
    /// (the state view, the live stream, the project board, `tasks`) asks
    /// this, with one `Viewer` built per read.
    pub fn may_open(&self, state: &TeamState, actor: &Actor, task: &Task) -> bool {
        self.sees(task)
            || task
                .room_id
                .as_deref()
                .is_some_and(|room| room_admin(state, actor, room))
    }
}

/// Whether `member` owns the Bot or one of its ancestors (`createdBy`).
fn owned_through_ancestry(state: &TeamState, bot_id: &str, member: &str) -> bool {
    let mut cursor = bot_id;
    for _ in 0..32 {
        let Some(bot) = state.bots.get(cursor) else {
            return false;
        };
        if bot.owner_id == member {
            return true;
        }
        match bot.created_by.as_deref() {
            Some(parent) if parent != cursor && state.bots.contains_key(parent) => cursor = parent,
            _ => return false,
        }
    }
    false
}

/// Whether the actor may read the room's group view.
pub fn room_admin(state: &TeamState, actor: &Actor, room_id: &str) -> bool {
    let Some(room) = state.rooms.get(room_id) else {
        return false;
    };
    match actor {
        Actor::SingleOwner => true,
        Actor::Member { member_id, .. } => {
            room.owner_id == *member_id
                || room
                    .admin
                    .as_deref()
                    .and_then(|a| state.bots.get(a))
                    .is_some_and(|bot| bot.owner_id == *member_id)
        }
    }
}

/// Whether `actor` may open this card through `tasks` (#1723): the rule the
/// project board reads too.
pub fn task_visible(state: &TeamState, actor: &Actor, task: &Task) -> bool {
    Viewer::new(state, actor).may_open(state, actor, task)
}

/// Unfinished work: priority first, then in progress before not started,
/// then the newest (compareForWork).
fn work_key(task: &Task) -> (u8, u8, Reverse<u64>, Reverse<u64>) {
    let column = match column_of(task.status) {
        Column::InProgress => 0,
        Column::NotStarted | Column::Done => 1,
    };
    (
        priority_of(task).rank(),
        column,
        Reverse(task.updated_at),
        Reverse(task.created_at),
    )
}

/// Finished rows: newest first by `updatedAt`, then `createdAt`.
fn finished_key(task: &Task) -> (Reverse<u64>, Reverse<u64>) {
    (Reverse(task.updated_at), Reverse(task.created_at))
}

/// The cards a read answers, in board order.
pub fn select<'a>(
    state: &'a TeamState,
    actor: &Actor,
    query: &TasksRead,
) -> Result<Vec<&'a Task>, ApiError> {
    if query.limit.is_some() && !query.archive {
        return Err(ApiError::invalid(
            "limit",
            "limit pages the finished rows; ask with archive: true.",
        ));
    }
    if query.limit.is_some_and(|n| n == 0 || n > LIMIT_MAX) {
        return Err(ApiError::invalid(
            "limit",
            format!("limit is 1 to {LIMIT_MAX}."),
        ));
    }
    let room_view = match &query.room_id {
        Some(room_id) => {
            let room = state
                .rooms
                .get(room_id)
                .ok_or_else(|| ApiError::not_found("room", room_id))?;
            if !room_admin(state, actor, room_id) {
                let why = crate::unseen::about_room(state, actor, room, |name| {
                    format!("Only the admin of {name} sees its group board.")
                });
                return Err(
                    ApiError::new(ErrorCode::Forbidden, why).with("roomId", room_id.as_str())
                );
            }
            Some(room)
        }
        None => None,
    };
    let viewer = Viewer::new(state, actor);
    let visible = state.tasks.values().filter(|task| {
        let in_scope = match room_view {
            Some(room) => {
                task.room_id.as_deref() == Some(room.id.as_str())
                    && room.members.contains(&task.bot_id)
            }
            None => viewer.sees(task),
        };
        in_scope && query.bot_id.as_ref().is_none_or(|bot| *bot == task.bot_id)
    });
    if !query.archive {
        let mut active: Vec<&Task> = visible.filter(|t| !t.status.is_terminal()).collect();
        active.sort_by_cached_key(|t| work_key(t));
        return Ok(active);
    }
    let (mut active, mut finished): (Vec<&Task>, Vec<&Task>) =
        visible.partition(|t| !t.status.is_terminal());
    if let Some(limit) = query.limit {
        // The newest N finished rows and no active ones (#1252); an
        // archived card has left this Done slice (issue 31).
        finished.retain(|t| !t.extra.contains_key("archivedAt"));
        if finished.len() > limit {
            finished.select_nth_unstable_by_key(limit - 1, |t| finished_key(t));
            finished.truncate(limit);
        }
        finished.sort_by_key(|t| finished_key(t));
        return Ok(finished);
    }
    active.sort_by_cached_key(|t| work_key(t));
    finished.sort_by_key(|t| finished_key(t));
    active.extend(finished);
    Ok(active)
}

/// A card as the board shows it: the record (the same keys, in the same
/// order, as the stored record), its column, its Bot's name and its parent's
/// title. Built by hand rather than through `serde_json::to_value`: cloning
/// the values the card already holds is several times cheaper, and the board
/// builds hundreds of rows per poll (#1252).
pub fn row(state: &TeamState, task: &Task) -> Value {
    let mut row = Map::with_capacity(task.extra.len() + 11);
    row.insert("id".into(), Value::String(task.id.clone()));
    row.insert("botId".into(), Value::String(task.bot_id.clone()));
    row.insert("title".into(), Value::String(task.title.clone()));
    row.insert("status".into(), task.status.as_str().into());
    if let Some(requester) = &task.requester_id {
        row.insert("requesterId".into(), Value::String(requester.clone()));
    }
    if let Some(room) = &task.room_id {
        row.insert("roomId".into(), Value::String(room.clone()));
    }
    row.insert("createdAt".into(), task.created_at.into());
    row.insert("updatedAt".into(), task.updated_at.into());
    // The host's own bookkeeping (`claimCue`, #1253) is no reader's.
    for (key, value) in &task.extra {
        if !flybot_protocol::task_view::is_host_only(key) {
            row.insert(key.clone(), value.clone());
        }
    }
    let column = match column_of(task.status) {
        Column::NotStarted => "not-started",
        Column::InProgress => "in-progress",
        Column::Done => "done",
    };
    row.insert("column".into(), column.into());
    row.insert("ownerBotName".into(), bot_name(state, &task.bot_id).into());
    if let Some(parent) = task
        .extra
        .get("parentId")
        .and_then(Value::as_str)
        .and_then(|id| state.tasks.get(id))
    {
        row.insert("parentTitle".into(), parent.title.clone().into());
    }
    Value::Object(row)
}

/// `row`, with the moves `actor` may make on the card (issue 31): what the
/// page draws, and all it draws.
pub fn row_for(state: &TeamState, actor: &Actor, task: &Task) -> Value {
    let mut row = row(state, task);
    if let Value::Object(map) = &mut row {
        let moves = moves_for(task, actor, state)
            .into_iter()
            .map(|m| Value::from(m.as_str()))
            .collect();
        map.insert("moves".into(), Value::Array(moves));
    }
    row
}

/// `tasks`: the rows of `select`, each with its viewer's moves.
pub fn list(state: &TeamState, actor: &Actor, query: &TasksRead) -> Result<Vec<Value>, ApiError> {
    Ok(select(state, actor, query)?
        .into_iter()
        .map(|task| row_for(state, actor, task))
        .collect())
}

/// Whether a status is unfinished work for the board's default read.
pub fn is_active(status: TaskStatus) -> bool {
    !status.is_terminal()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::fixture::{member, task, team, with_fields};
    use super::*;
    use flybot_protocol::task::Priority;

    fn board() -> TeamState {
        let mut state = team();
        let rows = [
            ("t-low", TaskStatus::Working, Some(Priority::Low), 10),
            (
                "t-urgent-open",
                TaskStatus::Open,
                Some(Priority::Urgent),
                11,
            ),
            (
                "t-urgent-working",
                TaskStatus::Working,
                Some(Priority::Urgent),
                5,
            ),
            ("t-normal", TaskStatus::Claimed, None, 12),
            ("t-done-old", TaskStatus::Accepted, None, 20),
            ("t-done-new", TaskStatus::Cancelled, None, 30),
            ("t-done-tie", TaskStatus::Failed, None, 30),
        ];
        for (id, status, priority, at) in rows {
            let mut t = with_fields(task(id, status), |f| f.priority = priority);
            t.updated_at = at;
            t.created_at = if id == "t-done-tie" { 2 } else { 1 };
            state.tasks.insert(id.into(), t);
        }
        state
    }

    fn ids(state: &TeamState, actor: &Actor, q: TasksRead) -> Vec<String> {
        select(state, actor, &q)
            .unwrap()
            .into_iter()
            .map(|t| t.id.clone())
            .collect()
    }

    #[test]
    /// Rule #1058.
    fn a_row_is_the_record_plus_the_board_fields() {
        let state = board();
        let task = &state.tasks["t-low"];
        let mut expected = serde_json::to_value(task).unwrap();
        let row = row(&state, task);
        let object = expected.as_object_mut().unwrap();
        object.insert("column".into(), "in-progress".into());
        object.insert("ownerBotName".into(), "Name bot-dev1".into());
        let want: Vec<String> = object.keys().cloned().collect();
        let keys: Vec<String> = row.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, want);
        assert_eq!(row, expected);
    }

    #[test]
    /// Rule #1058.
    fn unfinished_work_orders_by_priority_and_in_progress_first() {
        let state = board();
        assert_eq!(
            ids(&state, &member("member-a"), TasksRead::default()),
            ["t-urgent-working", "t-urgent-open", "t-normal", "t-low"]
        );
    }

    #[test]
    /// Rule #1252.
    fn archive_with_limit_is_the_newest_finished_rows_only() {
        let state = board();
        let q = TasksRead {
            archive: true,
            limit: Some(2),
            ..TasksRead::default()
        };
        assert_eq!(
            ids(&state, &member("member-a"), q),
            ["t-done-tie", "t-done-new"]
        );
        let all = TasksRead {
            archive: true,
            ..TasksRead::default()
        };
        assert_eq!(ids(&state, &member("member-a"), all).len(), 7);
    }

    #[test]
    /// Rule #1058.
    fn a_stranger_sees_nothing_and_a_descendant_bot_is_visible_to_the_ancestor_owner() {
        let mut state = board();
        assert!(ids(&state, &member("member-b"), TasksRead::default()).is_empty());
        // bot-child belongs to member-b but was made by member-a's bot-dev1.
        let mut child = super::super::fixture::bot("bot-child", "member-b", None);
        child.created_by = Some("bot-dev1".into());
        state.bots.insert("bot-child".into(), child);
        let mut t = task("t-child", TaskStatus::Open);
        t.bot_id = "bot-child".into();
        t.requester_id = Some("member-b".into());
        state.tasks.insert("t-child".into(), t);
        assert!(
            ids(&state, &member("member-a"), TasksRead::default()).contains(&"t-child".to_owned())
        );
        assert_eq!(
            ids(&state, &member("member-b"), TasksRead::default()),
            ["t-child"]
        );
    }
}
