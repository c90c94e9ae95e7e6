//! The typed task contract (#1720) as `track_tasks` takes it on a card:
//! `taskClass`, `reworkOf`, `handoff`, `evidence` and `lease`, the same
//! fields `task-create` / `task-update` accept and checked by the same core
//! rule (`tasks::contract::write_contract`). The doc comments are what the
//! model reads.

use flybot_protocol::task::{Lease, TaskClass};
use flybot_protocol::task_requests::{ContractInput, EvidenceInput, HandoffInput};
use schemars::JsonSchema;
use serde::Deserialize;

/// The kind of work a card is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TaskClassArg {
    Work,
    Rework,
    Release,
    Triage,
    Meeting,
}

impl From<TaskClassArg> for TaskClass {
    fn from(c: TaskClassArg) -> TaskClass {
        match c {
            TaskClassArg::Work => TaskClass::Work,
            TaskClassArg::Rework => TaskClass::Rework,
            TaskClassArg::Release => TaskClass::Release,
            TaskClassArg::Triage => TaskClass::Triage,
            TaskClassArg::Meeting => TaskClass::Meeting,
        }
    }
}

/// A hand-over between two roles.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HandoffArg {
    /// The role handing over: a role a Bot carries, or `requester`.
    pub from: String,
    /// The role taking over: a role a Bot carries, or `requester`.
    pub to: String,
    /// Why, in at most 300 characters.
    #[serde(default)]
    pub reason: String,
}

/// One evidence pointer: at least one of its fields.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EvidenceArg {
    /// A commit: 7 to 64 hex characters.
    #[serde(default)]
    pub sha: Option<String>,
    /// A pull request number.
    #[serde(default)]
    pub pr: Option<u64>,
    /// A one-line check of at most 200 characters ("tests pass").
    #[serde(default)]
    pub check: Option<String>,
}

/// A claim's lease on a claimed card.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LeaseArg {
    /// The Bot id holding the card.
    pub holder: String,
    /// When the lease was taken, in ms since the epoch.
    pub taken_at: u64,
    /// When it ends, in ms since the epoch.
    pub expires_at: u64,
}

/// The contract fields of one card write.
#[derive(Debug, Clone, Default)]
pub struct ContractArgs {
    pub task_class: Option<TaskClassArg>,
    pub rework_of: Option<String>,
    pub handoff: Option<HandoffArg>,
    pub evidence: Option<Vec<EvidenceArg>>,
    pub lease: Option<LeaseArg>,
}

impl ContractArgs {
    /// The contract as the core rule reads it; `at` is the write's time.
    pub fn into_input(self) -> ContractInput {
        ContractInput {
            task_class: self.task_class.map(TaskClass::from),
            rework_of: self.rework_of,
            handoff: self.handoff.map(|h| HandoffInput {
                from: h.from,
                to: h.to,
                reason: h.reason,
                at: None,
            }),
            evidence: self.evidence.map(|list| {
                list.into_iter()
                    .map(|e| EvidenceInput {
                        sha: e.sha,
                        pr: e.pr,
                        check: e.check,
                        at: None,
                    })
                    .collect()
            }),
            lease: self.lease.map(|l| Lease {
                holder: l.holder,
                taken_at: l.taken_at,
                expires_at: l.expires_at,
            }),
        }
    }
}
