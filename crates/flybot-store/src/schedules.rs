//! Scheduled tasks and their last runs as writes of one change (#354,
//! #473): the scheduler, the channel and the Bots' tools write them here,
//! through the one writer, so each survives a kill -9 once acknowledged.

use crate::change::Change;
use flybot_core::schedules::runs::runs_to_drop;
use flybot_protocol::schedule::{ScheduleRun, ScheduleTask};

impl Change<'_> {
    pub fn put_schedule(&mut self, task: &ScheduleTask) {
        self.set(vec!["schedules".into(), task.id.clone()], task);
    }

    pub fn remove_schedule(&mut self, id: &str) {
        self.delete(vec!["schedules".into(), id.to_owned()]);
        self.delete(vec!["scheduleRuns".into(), id.to_owned()]);
    }

    /// Writes a task's last run, dropping the oldest past the newest 200.
    pub fn put_schedule_run(&mut self, task_id: &str, run: &ScheduleRun) {
        for old in runs_to_drop(&self.state().schedule_runs, task_id) {
            self.delete(vec!["scheduleRuns".into(), old]);
        }
        self.set(vec!["scheduleRuns".into(), task_id.to_owned()], run);
    }
}
