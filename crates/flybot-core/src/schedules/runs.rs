//! A task's last run (#473): `running` when delivered, then `ran`,
//! `failed` or `stopped`; `scheduleRuns` keeps the newest 200 tasks.

use flybot_protocol::schedule::{RunResult, ScheduleRun, ScheduleRuns};

/// How many tasks' last runs are kept.
pub const RUNS_KEPT: usize = 200;

/// The run record's reason when a due task could not be delivered.
pub const NOT_DELIVERED: &str = "The scheduled task could not be delivered.";

/// How a run's turn or round ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// The turn (every member turn of the round) finished, with or without
    /// an answer: an empty answer has still run.
    Completed,
    /// The turn errored, or a member's turn in the group round failed.
    Failed(String),
    /// A person stopped it.
    Stopped,
}

/// `run` settled by how its turn ended at `now`.
pub fn settle(run: &ScheduleRun, ending: &Ending, now: u64) -> ScheduleRun {
    let (result, reason) = match ending {
        Ending::Completed => (RunResult::Ran, None),
        Ending::Failed(reason) => (RunResult::Failed, Some(reason.clone())),
        Ending::Stopped => (RunResult::Stopped, None),
    };
    ScheduleRun {
        at: now,
        result,
        reason,
        ..run.clone()
    }
}

/// The task ids whose records go when `adding` is written: the oldest past
/// the newest 200.
pub fn runs_to_drop(runs: &ScheduleRuns, adding: &str) -> Vec<String> {
    let total = runs.len() + usize::from(!runs.contains_key(adding));
    if total <= RUNS_KEPT {
        return Vec::new();
    }
    let mut old: Vec<(&u64, &String)> = runs
        .iter()
        .filter(|(id, _)| id.as_str() != adding)
        .map(|(id, run)| (&run.at, id))
        .collect();
    old.sort();
    old.into_iter()
        .take(total - RUNS_KEPT)
        .map(|(_, id)| id.clone())
        .collect()
}
