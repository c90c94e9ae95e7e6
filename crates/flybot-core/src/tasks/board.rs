//! `task-update` on the Bot task board (#1058): priority, progress 0–100,
//! note, the contract fields (#1720) and a column. A column walks the states
//! forward (open → claimed → working → result-ready → accepted) and refuses a
//! reverse move or a blocked wait. The requester or the Bot's owner may
//! update; anyone else, a group admin included, may not.

use super::contract::write_contract;
use super::machine::{accepted, actor_label, is_requester, stale, step};
use super::text::{TEXT_MAX, nonblank};
use super::{Card, Outcome, Stamps, find};
use crate::access::{Actor, may_manage_bot};
use flybot_protocol::state::{TaskStatus, TeamState};
use flybot_protocol::task::{Column, column_of};
use flybot_protocol::task_requests::TaskUpdate;
use flybot_protocol::{ApiError, ErrorCode};

/// The statuses a column move walks through, in order, from `from`.
/// `None` is a move the board refuses (reverse, out of a blocked wait, or
/// off an ended card).
pub fn column_walk(from: TaskStatus, to: Column) -> Option<Vec<TaskStatus>> {
    use TaskStatus::{Accepted, Claimed, Open, ResultReady, Working};
    let forward = [Open, Claimed, Working, ResultReady, Accepted];
    let target = match to {
        Column::NotStarted => Claimed,
        Column::InProgress => Working,
        Column::Done => Accepted,
    };
    if column_of(from) == to {
        return Some(Vec::new());
    }
    let Some(start) = forward.iter().position(|s| *s == from) else {
        // Blocked waits on a person; an ended card has no later column.
        return None;
    };
    let end = forward.iter().position(|s| *s == target)?;
    if end <= start {
        return None;
    }
    Some(forward[start + 1..=end].to_vec())
}

/// `task-update {id, ...}`. Every field is checked before any is assigned.
pub fn update(
    state: &TeamState,
    actor: &Actor,
    req: &TaskUpdate,
    decider: &str,
    now: u64,
) -> Result<Outcome, ApiError> {
    let note = req
        .note
        .as_deref()
        .map(|n| {
            if n.trim().is_empty() {
                Ok(None)
            } else {
                nonblank("note", n, TEXT_MAX).map(Some)
            }
        })
        .transpose()?;
    if req.progress.is_some_and(|p| p > 100) {
        return Err(ApiError::invalid("progress", "Progress is 0 to 100."));
    }
    let task = find(state, &req.id)?;
    let owner = state
        .bots
        .get(&task.bot_id)
        .is_some_and(|bot| may_manage_bot(actor, bot));
    if !(is_requester(state, actor, task) || owner) {
        // No title: the caller may not see the card (issue 29).
        return Err(ApiError::forbidden(
            "Only the person who asked for that card or its Bot's owner can update it.",
        )
        .with("taskId", task.id.as_str()));
    }
    if task.status.is_terminal() {
        return Err(ApiError::new(
            ErrorCode::Stale,
            format!(
                "\"{}\" is {}; an ended card does not change.",
                task.title,
                task.status.as_str()
            ),
        )
        .with("taskId", task.id.as_str()));
    }
    let walk = match req.column {
        None => Vec::new(),
        Some(column) => column_walk(task.status, column).ok_or_else(|| {
            let to = match column {
                Column::NotStarted => TaskStatus::Claimed,
                Column::InProgress => TaskStatus::Working,
                Column::Done => TaskStatus::Accepted,
            };
            stale(task, to)
        })?,
    };
    let contract = write_contract(state, &task.id, Some(task.status), &req.contract(), now)?;

    let actor_id = actor_label(state, actor);
    let mut stamps = Stamps::new(now);
    let mut out = Outcome::default();
    let mut card = Card::of(task);
    if let Some(priority) = req.priority {
        card.fields.priority = Some(priority);
    }
    if let Some(progress) = req.progress {
        card.fields.progress = Some(progress);
    }
    if let Some(note) = note {
        card.fields.note = note;
    }
    contract.assign(&mut card.fields);
    let accepts = walk.last() == Some(&TaskStatus::Accepted);
    for status in walk.iter().filter(|s| **s != TaskStatus::Accepted) {
        step(&mut card, *status, &actor_id, &mut stamps, None);
    }
    if accepts {
        accepted(state, card, &actor_id, decider, &mut stamps, &mut out);
    } else {
        if walk.is_empty() {
            card.task.updated_at = stamps.for_task(&card.task);
        }
        out.write(card.into_task());
    }
    Ok(out.answer_with(&req.id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use TaskStatus::*;

    #[test]
    /// Rule #1058.
    fn a_column_walks_forward_only() {
        assert_eq!(
            column_walk(Open, Column::InProgress),
            Some(vec![Claimed, Working])
        );
        assert_eq!(
            column_walk(Working, Column::Done),
            Some(vec![ResultReady, Accepted])
        );
        assert_eq!(column_walk(Working, Column::InProgress), Some(vec![]));
        assert_eq!(column_walk(Working, Column::NotStarted), None);
        assert_eq!(column_walk(Blocked, Column::Done), None);
        assert_eq!(column_walk(Blocked, Column::InProgress), Some(vec![]));
    }
}
