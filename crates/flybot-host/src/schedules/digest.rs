//! The Project Assistant's daily task (#1712): when the 09:00
//! Asia/Shanghai task on a Project assistant's Session is due, the host
//! builds the digest itself, as the Project's owner (no model turn):
//! `run_digest`, the same rule `project-digest` runs, so a second run the
//! same day answers `skipped` and nothing is stored or delivered twice.
//! The run is recorded `ran`, or `failed` with the refusal's sentence; an
//! escalation has already notified the owner (`run_digest`).

use super::scheduler::Scheduler;
use crate::board::Board;
use crate::connectors::Connectors;
use crate::endpoints::tasks::project_assistant::{DigestParts, GITHUB_LOGIN, run_digest};
use flybot_core::access::Actor;
use flybot_core::tasks::project_assistant::project_of_session;
use flybot_protocol::schedule::{RunResult, ScheduleRun, ScheduleTask};
use flybot_protocol::state::TeamState;
use serde_json::Value;
use std::path::PathBuf;

/// What the scheduler builds a digest with.
#[derive(Clone)]
pub struct Digests {
    pub board: Board,
    pub connectors: Connectors,
    pub home: PathBuf,
}

impl Digests {
    pub fn of(board: &Board, connectors: &Connectors, home: &std::path::Path) -> Digests {
        Digests {
            board: board.clone(),
            connectors: connectors.clone(),
            home: home.to_path_buf(),
        }
    }
}

/// The Project a due task builds the digest of: the task is on a Project
/// assistant's Session.
pub fn digest_project(state: &TeamState, task: &ScheduleTask) -> Option<String> {
    project_of_session(state, &task.session_id)
}

/// The Project's owner as the actor its digest runs for: the one person on
/// a home with no other member, else the member the record names.
fn owner_actor(state: &TeamState, project: &str) -> Option<Actor> {
    let owner = state
        .projects
        .get(project)?
        .get("ownerUserId")
        .and_then(Value::as_str)?;
    if state.members.len() <= 1 {
        return Some(Actor::SingleOwner);
    }
    Some(Actor::Member {
        member_id: owner.to_owned(),
        session_id: String::new(),
    })
}

impl Scheduler {
    /// Builds the digest `task` is due for and records how its run went.
    pub(super) async fn run_digest_task(&self, task: &ScheduleTask, run: &ScheduleRun) {
        let Some(digests) = &self.digests else {
            return;
        };
        let team = &self.book.team;
        let found = team.read(|state| {
            let project = digest_project(state, task)?;
            Some((owner_actor(state, &project)?, project))
        });
        let result = match found {
            None => Err("The Project this assistant worked for is gone.".to_owned()),
            Some((actor, project)) => {
                let parts = DigestParts {
                    account: digests
                        .connectors
                        .ready_env(flybot_core::connectors::GITHUB, GITHUB_LOGIN),
                    out_of_app: &self.out_of_app,
                    now: self.book.now(),
                    sessions: &self.sessions,
                    home: &digests.home,
                };
                run_digest(&digests.board, &actor, &parts, &project)
                    .await
                    .map(|_| ())
                    .map_err(|e| e.message)
            }
        };
        let mut settled = run.clone();
        match result {
            Ok(()) => settled.result = RunResult::Ran,
            Err(reason) => {
                settled.result = RunResult::Failed;
                settled.reason = Some(reason);
            }
        }
        let recorded = self
            .book
            .write("scheduler", |change| {
                if change.state().schedules.contains_key(&task.id) {
                    change.put_schedule_run(&task.id, &settled);
                }
                Ok(())
            })
            .await;
        if let Err(e) = recorded {
            tracing::warn!(
                "the digest run of {} was not recorded: {}",
                task.id,
                e.message
            );
        }
    }
}
