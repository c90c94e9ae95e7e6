//! Which cards a prune may drop (#54): only ended cards beyond the newest
//! `keep`, never one whose decision comment is still pending, never the
//! parent or rework original of a card still in play. A result-ready card
//! is not ended, so it is protected while it waits for acceptance.

use super::target::wants_wake;
use flybot_protocol::state::{Task, TeamState};
use flybot_protocol::task::TaskFields;
use std::cmp::Reverse;
use std::collections::BTreeSet;

/// The ids a prune may remove, oldest first.
pub fn prunable(state: &TeamState, keep: usize, now: u64) -> Vec<String> {
    let referenced: BTreeSet<String> = state
        .tasks
        .values()
        .filter(|t| !t.status.is_terminal())
        .flat_map(|t| {
            let f = TaskFields::read(t);
            [f.parent_id, f.rework_of]
        })
        .flatten()
        .collect();
    let mut ended: Vec<&Task> = state
        .tasks
        .values()
        .filter(|t| t.status.is_terminal())
        .collect();
    ended.sort_by_key(|t| (Reverse(t.updated_at), Reverse(t.created_at)));
    let mut out: Vec<String> = ended
        .into_iter()
        .skip(keep)
        .filter(|t| !referenced.contains(&t.id))
        .filter(|t| {
            TaskFields::read(t)
                .write_back
                .is_none_or(|wb| !wants_wake(&wb, now))
        })
        .map(|t| t.id.clone())
        .collect();
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{task, team, with_fields};
    use super::*;
    use flybot_protocol::state::TaskStatus;

    #[test]
    /// Rule #54.
    fn result_ready_survives_pruning_and_only_old_ended_cards_go() {
        let mut state = team();
        for (id, status, at) in [
            ("t-ready", TaskStatus::ResultReady, 1),
            ("t-old", TaskStatus::Accepted, 2),
            ("t-parent", TaskStatus::Accepted, 3),
            ("t-new", TaskStatus::Cancelled, 9),
        ] {
            let mut t = task(id, status);
            t.updated_at = at;
            state.tasks.insert(id.into(), t);
        }
        let child = with_fields(task("t-child", TaskStatus::Working), |f| {
            f.rework_of = Some("t-parent".into())
        });
        state.tasks.insert("t-child".into(), child);
        assert_eq!(prunable(&state, 1, 100), ["t-old"]);
        assert!(prunable(&state, 0, 100).iter().all(|id| id != "t-ready"));
    }
}
