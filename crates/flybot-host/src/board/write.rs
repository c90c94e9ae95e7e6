//! `Board`: the one write path of the task board. Every task change (a
//! person's endpoint, a Bot's `track_tasks`, the task drive's reads, the
//! OpenCode seam, a workflow job) runs its pure rule of `flybot_core::tasks`
//! as one change through `Board::write`, which puts the records the rule
//! answers, applies its worker effects once they are on disk (#1729), posts
//! the claim lines in the member's voice (#1253) and announces
//! `tasks.written` so the drive runs after it (#1109). A refusal writes
//! nothing and announces nothing.

use super::claim_lines::{Before, post_claim_lines};
use crate::events::HostEvent;
use crate::rooms::RoomLogs;
use crate::team::Team;
use flybot_core::sync::lock;
use flybot_core::tasks::workers::{WorkerPool, WorkerState};
use flybot_core::tasks::{Effect, Outcome};
use flybot_protocol::ApiError;
use flybot_protocol::state::TeamState;
use flybot_store::Change;
use std::sync::{Arc, Mutex};

/// The task board's writer. Cheap to clone.
#[derive(Clone)]
pub struct Board {
    team: Team,
    logs: Arc<RoomLogs>,
    /// Claims' isolated workers (#1729): process memory, not team state.
    workers: Arc<Mutex<WorkerPool>>,
}

impl Board {
    pub fn new(team: Team, logs: Arc<RoomLogs>) -> Board {
        Board {
            team,
            logs,
            workers: Arc::default(),
        }
    }

    /// The team the board writes to.
    pub fn team(&self) -> &Team {
        &self.team
    }

    /// The room logs the claim lines go to.
    pub fn logs(&self) -> &Arc<RoomLogs> {
        &self.logs
    }

    /// Runs `rule` as one change (a refusal writes nothing), then applies
    /// it, posts its claim lines and announces it.
    pub async fn write(
        &self,
        journal: &str,
        rule: impl FnOnce(&TeamState, u64) -> Result<Outcome, ApiError>,
    ) -> Result<Outcome, ApiError> {
        let out = self.write_quietly(journal, rule).await?;
        self.announce(&out);
        Ok(out)
    }

    /// `write` for a rule that needs the change itself (a first write that
    /// makes the host's owner record, #47).
    pub async fn write_change(
        &self,
        journal: &str,
        rule: impl FnOnce(&mut Change<'_>) -> Result<Outcome, ApiError>,
    ) -> Result<Outcome, ApiError> {
        let out = self.commit(journal, rule).await?;
        self.announce(&out);
        Ok(out)
    }

    /// `write` without `tasks.written`: a call of several writes announces
    /// once, after the last (`announce_ids`), so the drive never wakes a
    /// member between two parts of one plan.
    pub async fn write_quietly(
        &self,
        journal: &str,
        rule: impl FnOnce(&TeamState, u64) -> Result<Outcome, ApiError>,
    ) -> Result<Outcome, ApiError> {
        self.commit(journal, |change| rule(change.state(), change.now_ms()))
            .await
    }

    async fn commit(
        &self,
        journal: &str,
        rule: impl FnOnce(&mut Change<'_>) -> Result<Outcome, ApiError>,
    ) -> Result<Outcome, ApiError> {
        let (out, before) = self
            .team
            .mutate(journal, |change| {
                let out = rule(change)?;
                let before: Before = out
                    .writes
                    .iter()
                    .map(|t| {
                        let was = change.state().tasks.get(&t.id).map(|old| old.status);
                        (t.id.clone(), was)
                    })
                    .collect();
                for task in &out.writes {
                    change.put_task(task);
                }
                Ok((out, before))
            })
            .await?;
        self.apply_effects(&out.effects);
        post_claim_lines(&self.team, &self.logs, &before, &out).await;
        Ok(out)
    }

    /// Announces the cards an outcome wrote.
    pub fn announce(&self, out: &Outcome) {
        self.announce_ids(out.writes.iter().map(|t| t.id.clone()).collect());
    }

    /// Tells the drive and the board's readers which cards were written.
    pub fn announce_ids(&self, task_ids: Vec<String>) {
        if !task_ids.is_empty() {
            self.team.emit(HostEvent::TasksWritten { task_ids });
        }
    }

    /// Applies a committed task change's worker effects (#1729).
    pub fn apply_effects(&self, effects: &[Effect]) {
        if !effects.is_empty() {
            lock(&self.workers).apply(effects);
        }
    }

    /// The state of a claim's worker; an unknown id answers `None`, so one
    /// claim never sees another's files or vars (#1729).
    pub fn worker(&self, worker_id: &str) -> Option<WorkerState> {
        lock(&self.workers).get(worker_id).cloned()
    }

    /// Sets one variable of a live worker; answers whether it exists.
    pub fn set_worker_var(&self, worker_id: &str, key: &str, value: &str) -> bool {
        match lock(&self.workers).get_mut(worker_id) {
            Some(worker) => {
                worker.vars.insert(key.to_owned(), value.to_owned());
                true
            }
            None => false,
        }
    }
}
