//! Group jobs (#1099): one overall card (`kind: "group"`) per room and a
//! subtask per Bot (`parentId`). When every child has ended, the overall card
//! completes through the same edges a person's move walks: accepted with
//! progress 100 when each child ended accepted or cancelled, failed when any
//! child failed, so a failed part is never hidden behind a green card. An
//! overall card already blocked or waiting on a result is left to its owner
//! (#1252).

use super::machine::step;
use super::{Card, Outcome, Stamps};
use flybot_protocol::state::{Task, TaskStatus, TeamState};
use flybot_protocol::task::{TaskFields, TaskKind};

/// The room's open overall card, if it has one.
pub fn open_overall<'a>(state: &'a TeamState, room_id: &str) -> Option<&'a Task> {
    state.tasks.values().find(|t| {
        t.room_id.as_deref() == Some(room_id)
            && !t.status.is_terminal()
            && TaskFields::read(t).kind == Some(TaskKind::Group)
    })
}

/// After `child_id` changed: settles its overall card when every child has
/// ended.
pub fn settle_parent_of(state: &TeamState, child_id: &str, stamps: &mut Stamps, out: &mut Outcome) {
    let Some(child) = out.current(state, child_id) else {
        return;
    };
    let Some(parent_id) = TaskFields::read(child).parent_id else {
        return;
    };
    settle(state, &parent_id, stamps, out);
}

/// Settles the overall card `parent_id` if all its children have ended.
pub fn settle(state: &TeamState, parent_id: &str, stamps: &mut Stamps, out: &mut Outcome) {
    let Some(parent) = out.current(state, parent_id) else {
        return;
    };
    let mut card = Card::of(parent);
    if card.fields.kind != Some(TaskKind::Group) {
        return;
    }
    let walk: &[TaskStatus] = match card.task.status {
        TaskStatus::Open => &[
            TaskStatus::Claimed,
            TaskStatus::Working,
            TaskStatus::ResultReady,
        ],
        TaskStatus::Claimed => &[TaskStatus::Working, TaskStatus::ResultReady],
        TaskStatus::Working => &[TaskStatus::ResultReady],
        // Blocked waits on a person and result-ready on a decision: both are
        // the owner's (#1252); an ended card stays ended.
        TaskStatus::Blocked
        | TaskStatus::ResultReady
        | TaskStatus::Accepted
        | TaskStatus::Cancelled
        | TaskStatus::Failed => return,
    };
    let child_ids: Vec<String> = state
        .tasks
        .values()
        .chain(out.writes.iter())
        .filter(|t| t.extra.get("parentId").and_then(|v| v.as_str()) == Some(parent_id))
        .map(|t| t.id.clone())
        .collect();
    let statuses: Vec<TaskStatus> = child_ids
        .iter()
        .filter_map(|id| out.current(state, id).map(|t| t.status))
        .collect();
    if statuses.is_empty() || statuses.iter().any(|s| !s.is_terminal()) {
        return;
    }
    let actor = card.task.bot_id.clone();
    if statuses.contains(&TaskStatus::Failed) {
        step(&mut card, TaskStatus::Failed, &actor, stamps, None);
    } else {
        for status in walk {
            step(&mut card, *status, &actor, stamps, None);
        }
        step(&mut card, TaskStatus::Accepted, &actor, stamps, None);
        card.fields.progress = Some(100);
    }
    out.write(card.into_task());
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{task, with_fields};
    use super::*;

    fn overall(status: TaskStatus) -> Task {
        with_fields(task("task-all", status), |f| f.kind = Some(TaskKind::Group))
    }

    fn child(id: &str, status: TaskStatus) -> Task {
        with_fields(task(id, status), |f| f.parent_id = Some("task-all".into()))
    }

    fn settled(parent: Task, children: Vec<Task>) -> Option<Task> {
        let mut state = TeamState::default();
        state.tasks.insert(parent.id.clone(), parent);
        for c in children {
            state.tasks.insert(c.id.clone(), c);
        }
        let mut out = Outcome::default();
        settle(&state, "task-all", &mut Stamps::new(100), &mut out);
        out.writes.into_iter().find(|t| t.id == "task-all")
    }

    #[test]
    /// Rule #1099.
    fn every_child_accepted_or_cancelled_accepts_the_overall_card_with_progress_100() {
        let done = settled(
            overall(TaskStatus::Working),
            vec![
                child("a", TaskStatus::Accepted),
                child("b", TaskStatus::Cancelled),
            ],
        )
        .unwrap();
        assert_eq!(done.status, TaskStatus::Accepted);
        let fields = TaskFields::read(&done);
        assert_eq!(fields.progress, Some(100));
        // It walked through result-ready: accepted only from result-ready (#54).
        assert!(fields.actors.contains_key(&TaskStatus::ResultReady));
    }

    #[test]
    /// Rule #1099.
    fn a_failed_child_fails_the_overall_card() {
        let done = settled(
            overall(TaskStatus::Open),
            vec![
                child("a", TaskStatus::Accepted),
                child("b", TaskStatus::Failed),
            ],
        )
        .unwrap();
        assert_eq!(done.status, TaskStatus::Failed);
    }

    #[test]
    /// Rule #1252.
    fn an_unfinished_child_or_a_blocked_or_result_ready_overall_card_is_left_alone() {
        assert!(
            settled(
                overall(TaskStatus::Working),
                vec![
                    child("a", TaskStatus::Accepted),
                    child("b", TaskStatus::Working)
                ],
            )
            .is_none()
        );
        for status in [TaskStatus::Blocked, TaskStatus::ResultReady] {
            assert!(settled(overall(status), vec![child("a", TaskStatus::Accepted)]).is_none());
        }
        assert!(settled(overall(TaskStatus::Working), vec![]).is_none());
    }
}
