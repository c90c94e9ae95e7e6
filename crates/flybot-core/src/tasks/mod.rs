//! The task model (#54): a tracked request with a small state machine, the
//! Bot task board (#1058), input waits (#207), the typed contract and rework
//! (#1720, #1730), targets and their write-back (#1154, #1172), pull queues,
//! leases and workers (#1247, #1729) and group jobs (#1099).
//!
//! Every rule is a function of the team, the actor, its input and `now`; it
//! answers the records to write (`Outcome`) or the refusal, and writes nothing
//! itself. The host puts the records inside one `Team::mutate`, so a refusal
//! leaves the team byte-identical.

pub mod approval;
pub mod archive;
pub mod audit;
pub mod board;
pub mod claim;
pub mod contract;
pub mod counters;
pub mod create;
pub mod deleted_bot;
pub mod drive;
pub mod execution_seam;
pub mod group;
pub mod input;
pub mod job_card;
pub mod lease;
pub mod machine;
pub mod moves;
pub mod project_assistant;
pub mod project_binds;
pub mod project_board;
pub mod project_digest;
pub mod project_memory;
pub mod projects;
pub mod prune;
pub mod queue;
pub mod read;
pub mod recovery;
pub mod rework;
pub mod roles;
pub mod target;
pub mod text;
pub mod track;
pub mod workers;

#[cfg(test)]
mod fixture;

use flybot_protocol::ApiError;
use flybot_protocol::state::{Task, TeamState};
use flybot_protocol::task::TaskFields;
use std::collections::BTreeMap;

/// What a rule asks the host to do once its records are on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// A claim made a fresh isolated worker for the card (#1729).
    WorkerStarted { worker_id: String, task_id: String },
    /// A release, an expired lease or an end dropped the card's worker.
    WorkerDropped { worker_id: String },
}

/// The records a rule writes, in order, and the effects that follow them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    /// The card the caller asked about, as written (or as it stands).
    pub answer: Option<Task>,
    pub writes: Vec<Task>,
    pub effects: Vec<Effect>,
}

impl Outcome {
    /// Records `task` as written, replacing an earlier write of the same card.
    pub fn write(&mut self, task: Task) {
        match self.writes.iter_mut().find(|t| t.id == task.id) {
            Some(slot) => *slot = task,
            None => self.writes.push(task),
        }
    }

    /// The card as this outcome leaves it: its own write, else the team's.
    pub fn current<'a>(&'a self, state: &'a TeamState, id: &str) -> Option<&'a Task> {
        self.writes
            .iter()
            .find(|t| t.id == id)
            .or_else(|| state.tasks.get(id))
    }

    /// One card written, and answered: a rule that changes one card.
    pub fn one(task: Task) -> Outcome {
        Outcome {
            answer: Some(task.clone()),
            writes: vec![task],
            effects: Vec::new(),
        }
    }

    /// Sets the answer to the latest write of `id`.
    pub fn answer_with(mut self, id: &str) -> Self {
        self.answer = self.writes.iter().find(|t| t.id == id).cloned();
        self
    }
}

/// Hands out `updatedAt` stamps inside one change: never below `now`, always
/// above the card's previous stamp and above every stamp already handed out,
/// so two moves in one millisecond still order (#54).
#[derive(Debug, Clone)]
pub struct Stamps {
    next: u64,
}

impl Stamps {
    pub fn new(now: u64) -> Stamps {
        Stamps { next: now }
    }

    /// The stamp for a write of `task`.
    pub fn for_task(&mut self, task: &Task) -> u64 {
        let at = self.next.max(task.updated_at.saturating_add(1));
        self.next = at.saturating_add(1);
        at
    }

    /// The time of this change (the first stamp), for fields such as `at`.
    pub fn peek(&self) -> u64 {
        self.next
    }
}

/// A card and its typed fields, lifted once for a rule to change.
#[derive(Debug, Clone)]
pub struct Card {
    pub task: Task,
    pub fields: TaskFields,
}

impl Card {
    pub fn of(task: &Task) -> Card {
        Card {
            task: task.clone(),
            fields: TaskFields::read(task),
        }
    }

    /// The record with the fields written back.
    pub fn into_task(self) -> Task {
        let mut task = self.task;
        self.fields.write(&mut task);
        task
    }
}

/// The card `id`, or `bot/not-found`.
pub fn find<'a>(state: &'a TeamState, id: &str) -> Result<&'a Task, ApiError> {
    state
        .tasks
        .get(id)
        .ok_or_else(|| ApiError::not_found("task", id))
}

/// Ids of the cards whose `parentId` is set, by parent; built once per read.
pub fn children_by_parent(state: &TeamState) -> BTreeMap<String, Vec<String>> {
    let mut map: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for task in state.tasks.values() {
        if let Some(parent) = task.extra.get("parentId").and_then(|v| v.as_str()) {
            map.entry(parent.to_owned())
                .or_default()
                .push(task.id.clone());
        }
    }
    map
}
