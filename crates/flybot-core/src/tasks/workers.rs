//! Isolated workers (#1729): a claim makes a worker (`worker-<hex>`) that the
//! card names in `worker`. The pool keeps at most 64, dropping the oldest; an
//! unknown id answers nothing, so a second claim never sees the first's
//! files or vars. A requeue or an expired lease drops the worker, so the next
//! claim starts clean. The pool is process memory, not team state.

use std::collections::{BTreeMap, VecDeque};

/// The most workers the pool keeps.
pub const WORKERS_MAX: usize = 64;

/// One claim's private scratch state.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WorkerState {
    pub id: String,
    pub task_id: String,
    pub vars: BTreeMap<String, String>,
    pub files: BTreeMap<String, String>,
}

/// Workers by id, oldest first.
#[derive(Debug, Default)]
pub struct WorkerPool {
    workers: VecDeque<WorkerState>,
}

impl WorkerPool {
    pub fn start(&mut self, worker_id: &str, task_id: &str) {
        self.drop_worker(worker_id);
        if self.workers.len() >= WORKERS_MAX {
            self.workers.pop_front();
        }
        self.workers.push_back(WorkerState {
            id: worker_id.to_owned(),
            task_id: task_id.to_owned(),
            ..WorkerState::default()
        });
    }

    pub fn drop_worker(&mut self, worker_id: &str) {
        self.workers.retain(|w| w.id != worker_id);
    }

    /// The worker's state; an unknown id answers `None`.
    pub fn get(&self, worker_id: &str) -> Option<&WorkerState> {
        self.workers.iter().find(|w| w.id == worker_id)
    }

    pub fn get_mut(&mut self, worker_id: &str) -> Option<&mut WorkerState> {
        self.workers.iter_mut().find(|w| w.id == worker_id)
    }

    pub fn len(&self) -> usize {
        self.workers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.workers.is_empty()
    }

    /// Applies a rule's effects.
    pub fn apply(&mut self, effects: &[super::Effect]) {
        for effect in effects {
            match effect {
                super::Effect::WorkerStarted { worker_id, task_id } => {
                    self.start(worker_id, task_id)
                }
                super::Effect::WorkerDropped { worker_id } => self.drop_worker(worker_id),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    /// Rule #1729.
    fn two_claims_share_no_worker_state_and_the_pool_keeps_64() {
        let mut pool = WorkerPool::default();
        pool.start("worker-a", "task-1");
        pool.start("worker-b", "task-2");
        pool.get_mut("worker-a")
            .unwrap()
            .vars
            .insert("k".into(), "v".into());
        assert!(pool.get("worker-b").unwrap().vars.is_empty());
        assert!(pool.get("worker-unknown").is_none());
        for i in 0..70 {
            pool.start(&format!("worker-{i}"), "t");
        }
        assert_eq!(pool.len(), WORKERS_MAX);
        assert!(pool.get("worker-a").is_none());
        assert!(pool.get("worker-69").is_some());
    }
}
