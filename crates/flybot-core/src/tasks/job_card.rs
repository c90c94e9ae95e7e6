//! A workflow job's own card (pin 6, #1316): it names its workflow and
//! hangs under no card. It is not its lead's work (the drive never wakes
//! the lead for it, the node cards are the work), and it closes as
//! accepted once its job is done, which only the terminal nodes' current
//! outputs decide (`workflow::plan::job_done`), never a card that moved.

use super::board::column_walk;
use super::machine::step;
use super::{Card, Stamps};
use flybot_protocol::state::Task;
use flybot_protocol::task::{Column, TaskFields};

/// The job card's key naming its workflow.
pub const JOB_WORKFLOW: &str = "workflow";

/// The journal's actor of a job card's close.
const JOB_ACTOR: &str = "workflow";

/// Whether the card is a workflow job's own card.
pub fn is_job_card(task: &Task) -> bool {
    task.extra.contains_key(JOB_WORKFLOW) && TaskFields::read(task).parent_id.is_none()
}

/// The job card walked to accepted at `now`, when it is not finished yet;
/// `None` when it already ended or waits on a person (blocked).
pub fn close_job_card(job: &Task, now: u64) -> Option<Task> {
    let walk = column_walk(job.status, Column::Done)?;
    if walk.is_empty() || job.status.is_terminal() {
        return None;
    }
    let mut card = Card::of(job);
    let mut stamps = Stamps::new(now);
    for status in walk {
        step(&mut card, status, JOB_ACTOR, &mut stamps, None);
    }
    Some(card.into_task())
}

#[cfg(test)]
mod tests {
    use super::super::fixture::task;
    use super::*;
    use flybot_protocol::state::TaskStatus;

    #[test]
    fn a_job_card_closes_as_accepted_once_and_a_node_card_is_no_job_card_pin_6() {
        let mut job = task("task-job", TaskStatus::Open);
        job.extra.insert(JOB_WORKFLOW.into(), "blank".into());
        assert!(is_job_card(&job));
        let closed = close_job_card(&job, 50).unwrap();
        assert_eq!(closed.status, TaskStatus::Accepted);
        assert!(close_job_card(&closed, 60).is_none());
        let mut node = job.clone();
        let mut fields = TaskFields::read(&node);
        fields.parent_id = Some("task-job".into());
        fields.write(&mut node);
        assert!(!is_job_card(&node));
    }
}
