//! Measured deliveries (#1729, #1730): counts per role and per run read from
//! the rows, with no metric store. A rework chain is one delivery: an
//! accepted rework child whose original is also accepted folds into the
//! original's delivery; a child whose original never landed is its own.

use flybot_protocol::state::{Task, TaskStatus, TeamState};
use flybot_protocol::task::{TaskClass, TaskFields};
use serde::Serialize;
use std::collections::BTreeMap;

/// One role's or one run's figures.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    pub queued: u64,
    pub claimed: u64,
    pub working: u64,
    pub blocked: u64,
    pub result_ready: u64,
    pub accepted: u64,
    pub failed: u64,
    pub cancelled: u64,
    pub deliveries: u64,
    pub worker_seconds: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Counters {
    pub by_role: BTreeMap<String, Counts>,
    pub by_run: BTreeMap<String, Counts>,
}

impl Counts {
    fn add(&mut self, state: &TeamState, task: &Task, fields: &TaskFields) {
        match task.status {
            TaskStatus::Open => self.queued += 1,
            TaskStatus::Claimed => self.claimed += 1,
            TaskStatus::Working => self.working += 1,
            TaskStatus::Blocked => self.blocked += 1,
            TaskStatus::ResultReady => self.result_ready += 1,
            TaskStatus::Accepted => self.accepted += 1,
            TaskStatus::Failed => self.failed += 1,
            TaskStatus::Cancelled => self.cancelled += 1,
        }
        if task.status != TaskStatus::Accepted {
            return;
        }
        let folds = fields.task_class == Some(TaskClass::Rework)
            && fields
                .rework_of
                .as_deref()
                .and_then(|id| state.tasks.get(id))
                .is_some_and(|original| original.status == TaskStatus::Accepted);
        if !folds {
            self.deliveries += 1;
        }
        if let Some(lease) = &fields.lease {
            self.worker_seconds += task.updated_at.saturating_sub(lease.taken_at) / 1000;
        }
    }
}

/// The role a card counts under: its queue role, or its original's for a
/// rework child.
fn role_of(state: &TeamState, fields: &TaskFields) -> Option<String> {
    fields.queue_role.clone().or_else(|| {
        fields
            .rework_of
            .as_deref()
            .and_then(|id| state.tasks.get(id))
            .and_then(|t| TaskFields::read(t).queue_role)
    })
}

/// `task-counters {role?, run?}` over the cards `visible` lets through.
pub fn counters(
    state: &TeamState,
    role: Option<&str>,
    run: Option<&str>,
    visible: impl Fn(&Task) -> bool,
) -> Counters {
    let mut out = Counters::default();
    for task in state.tasks.values().filter(|t| visible(t)) {
        let fields = TaskFields::read(task);
        let card_role = role_of(state, &fields);
        if role.is_some_and(|r| card_role.as_deref() != Some(r))
            || run.is_some_and(|r| fields.run.as_deref() != Some(r))
        {
            continue;
        }
        if let Some(card_role) = card_role {
            out.by_role
                .entry(card_role)
                .or_default()
                .add(state, task, &fields);
        }
        if let Some(card_run) = fields.run.clone() {
            out.by_run
                .entry(card_run)
                .or_default()
                .add(state, task, &fields);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::fixture::{task, team, with_fields};
    use super::*;
    use flybot_protocol::task::Lease;

    #[test]
    /// Rule #1730.
    fn a_rejection_rework_accept_cycle_is_two_records_and_one_delivery() {
        let mut state = team();
        let original = with_fields(task("task-o", TaskStatus::Accepted), |f| {
            f.queue_role = Some("Dev".into());
            f.run = Some("run-1".into());
            f.lease = Some(Lease {
                holder: "bot-dev1".into(),
                taken_at: 1_000,
                expires_at: 9_000,
            });
        });
        let mut original = original;
        original.updated_at = 61_000;
        let child = with_fields(task("task-c", TaskStatus::Accepted), |f| {
            f.task_class = Some(TaskClass::Rework);
            f.rework_of = Some("task-o".into());
            f.run = Some("run-1".into());
        });
        let lone = with_fields(task("task-lone", TaskStatus::Accepted), |f| {
            f.task_class = Some(TaskClass::Rework);
            f.rework_of = Some("task-gone".into());
            f.queue_role = Some("Dev".into());
        });
        for t in [original, child, lone] {
            state.tasks.insert(t.id.clone(), t);
        }
        let c = counters(&state, None, Some("run-1"), |_| true);
        assert_eq!(c.by_run["run-1"].accepted, 2);
        assert_eq!(c.by_run["run-1"].deliveries, 1);
        assert_eq!(c.by_run["run-1"].worker_seconds, 60);
        let c = counters(&state, Some("Dev"), None, |_| true);
        // The lone child's original never landed: a delivery of its own.
        assert_eq!(c.by_role["Dev"].deliveries, 2);
        // A read writes nothing, so the same rows count the same twice.
        assert_eq!(counters(&state, Some("Dev"), None, |_| true), c);
    }
}
