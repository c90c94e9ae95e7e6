//! Request bodies of the task, queue and project endpoints. Like every body
//! of the channel they refuse unknown fields and ignore `actorId`: the
//! requester is the session's member, never a field (#48, #54).

use crate::task::{Column, Lease, Priority, TaskClass, TaskKind};
use serde::{Deserialize, Serialize};

/// `tasks {archive?, limit?, botId?, roomId?}` (#1058, #1252).
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TasksRead {
    #[serde(default)]
    pub archive: bool,
    pub limit: Option<usize>,
    pub bot_id: Option<String>,
    pub room_id: Option<String>,
}

/// A handoff as a caller writes it; `at` defaults to the write's time.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HandoffInput {
    pub from: String,
    pub to: String,
    #[serde(default)]
    pub reason: String,
    pub at: Option<u64>,
}

/// An evidence pointer as a caller writes it; `at` defaults to now.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EvidenceInput {
    pub sha: Option<String>,
    pub pr: Option<u64>,
    pub check: Option<String>,
    pub at: Option<u64>,
}

/// The five contract fields of #1720 as one write asks for them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ContractInput {
    pub task_class: Option<TaskClass>,
    pub rework_of: Option<String>,
    pub handoff: Option<HandoffInput>,
    pub evidence: Option<Vec<EvidenceInput>>,
    pub lease: Option<Lease>,
}

/// `contract()`: a request's five contract fields as one `ContractInput`,
/// for each request that carries them inline (serde cannot flatten them
/// under `deny_unknown_fields`), written once here.
macro_rules! contract_of {
    ($request:ty) => {
        impl $request {
            /// The request's contract fields (#1720).
            pub fn contract(&self) -> ContractInput {
                ContractInput {
                    task_class: self.task_class,
                    rework_of: self.rework_of.clone(),
                    handoff: self.handoff.clone(),
                    evidence: self.evidence.clone(),
                    lease: self.lease.clone(),
                }
            }
        }
    };
}

/// `task-create {botId, title, ...}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskCreate {
    pub bot_id: String,
    pub title: String,
    pub room_id: Option<String>,
    pub note: Option<String>,
    pub priority: Option<Priority>,
    /// `https://github.com/<owner>/<repo>/issues|pull/<n>` or `<owner>/<repo>#<n>` (#1154).
    pub target: Option<String>,
    /// The overall card this one is part of (#1099).
    pub parent_id: Option<String>,
    /// `group` records the room's overall card (#1099).
    pub kind: Option<TaskKind>,
    pub run: Option<String>,
    pub task_class: Option<TaskClass>,
    pub rework_of: Option<String>,
    pub handoff: Option<HandoffInput>,
    pub evidence: Option<Vec<EvidenceInput>>,
    pub lease: Option<Lease>,
}

contract_of!(TaskCreate);

/// `task-update {id, priority?, progress?, note?, column?, ...contract}` (#1058).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskUpdate {
    pub id: String,
    pub priority: Option<Priority>,
    pub progress: Option<u8>,
    pub note: Option<String>,
    pub column: Option<Column>,
    pub task_class: Option<TaskClass>,
    pub rework_of: Option<String>,
    pub handoff: Option<HandoffInput>,
    pub evidence: Option<Vec<EvidenceInput>>,
    pub lease: Option<Lease>,
}

contract_of!(TaskUpdate);

/// `task-accept`, `task-start`, `task-accept-result`, `task-cancel`,
/// `task-lease`, `task-audit`: `{id}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskById {
    pub id: String,
}

/// `task-recovery-decide {taskId, decision}` (#198): a person's decision
/// on a card whose external turn is `recovery: uncertain`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskRecoveryDecide {
    pub task_id: String,
    pub decision: crate::task::RecoveryDecision,
}

/// `task-return {id, summary}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskReturn {
    pub id: String,
    pub summary: String,
}

/// `task-wait-input {id, question}` (#207).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskWaitInput {
    pub id: String,
    pub question: String,
}

/// `task-answer-input {id, questionId, answer}` (#207).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskAnswerInput {
    pub id: String,
    pub question_id: String,
    pub answer: String,
}

/// `task-send-back {id, note}` (#1730).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskSendBack {
    pub id: String,
    pub note: String,
}

/// `task-post-result {id, ok, error?}`: the owning Bot reports its comment (#1154).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskPostResult {
    pub id: String,
    pub ok: bool,
    pub error: Option<String>,
}

/// `task-enqueue {botId, roomId, role, title, ...}`: the room's lead (`botId`)
/// puts an item in a role's pull queue (#1247); `id` re-offers an item.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskEnqueue {
    pub bot_id: String,
    pub room_id: String,
    pub role: String,
    pub title: String,
    pub priority: Option<Priority>,
    pub note: Option<String>,
    pub cap: Option<u32>,
    pub id: Option<String>,
    pub run: Option<String>,
}

/// `task-claim {botId, roomId?, id?}` (#1247).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskClaim {
    pub bot_id: String,
    pub room_id: Option<String>,
    pub id: Option<String>,
}

/// `task-release {botId, id, reason?, retryInSec?}` (#1247).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskRelease {
    pub bot_id: String,
    pub id: String,
    pub reason: Option<String>,
    pub retry_in_sec: Option<u64>,
}

/// `task-counters {role?, run?}` (#1729).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskCounters {
    pub role: Option<String>,
    pub run: Option<String>,
}

/// `project-create {name, repository?, defaultBranch?, status?}` (#1691,
/// #1710): the owner is the caller.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProjectCreate {
    pub name: String,
    /// The repository the Project works on (`owner/name` or a URL).
    pub repository: Option<String>,
    /// Its default branch; `main` when absent.
    pub default_branch: Option<String>,
    /// `active` when absent.
    pub status: Option<ProjectStatus>,
}

/// Whether a Project is worked on (#1691).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProjectStatus {
    #[default]
    Active,
    Archived,
}

/// `project-read`, `project-board`, `project-delete`: `{project}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProjectById {
    pub project: String,
}

/// `project-bind {roomId | botId | runId, project}`: `project: null`
/// unbinds (#1691, #1710). A run is named by its job card's id.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProjectBind {
    pub room_id: Option<String>,
    pub bot_id: Option<String>,
    pub run_id: Option<String>,
    pub project: Option<String>,
}

/// `project-of {roomId | botId | runId}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProjectOf {
    pub room_id: Option<String>,
    pub bot_id: Option<String>,
    pub run_id: Option<String>,
}
