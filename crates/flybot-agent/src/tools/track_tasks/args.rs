//! The arguments of `track_tasks` as the model writes them, and how they
//! become one `TaskCall`. The doc comments are what the model reads.

use super::access::{CardWrite, QueueItem, TaskCall};
use super::contract_args::{ContractArgs, EvidenceArg, HandoffArg, LeaseArg, TaskClassArg};
use crate::tools::ToolError;
use flybot_core::tasks::track::TrackItem;
use flybot_protocol::task::{Column, Priority};
use schemars::JsonSchema;
use serde::Deserialize;

/// A card's priority.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PriorityArg {
    Urgent,
    High,
    Normal,
    Low,
}

impl From<PriorityArg> for Priority {
    fn from(p: PriorityArg) -> Priority {
        match p {
            PriorityArg::Urgent => Priority::Urgent,
            PriorityArg::High => Priority::High,
            PriorityArg::Normal => Priority::Normal,
            PriorityArg::Low => Priority::Low,
        }
    }
}

/// A board column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ColumnArg {
    NotStarted,
    InProgress,
    Done,
}

impl From<ColumnArg> for Column {
    fn from(c: ColumnArg) -> Column {
        match c {
            ColumnArg::NotStarted => Column::NotStarted,
            ColumnArg::InProgress => Column::InProgress,
            ColumnArg::Done => Column::Done,
        }
    }
}

/// One card to record or update.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CardArg {
    /// The card's id, to update a card you hold. Without it, the same title
    /// in the same group updates the open card instead of adding another.
    #[serde(default)]
    pub id: Option<String>,
    /// A short title; a new card needs one.
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub priority: Option<PriorityArg>,
    /// One line: the next step or what happened.
    #[serde(default)]
    pub note: Option<String>,
    /// 0 to 100.
    #[serde(default)]
    pub progress: Option<u8>,
    /// Moves the card forward: not-started, in-progress or done.
    #[serde(default)]
    pub column: Option<ColumnArg>,
    /// The group's overall card (only the group's task lead records it).
    #[serde(default)]
    pub overall: bool,
    /// The member Bot (by name) this subtask is for; only the task lead
    /// assigns work to another member, and that member is woken in its own
    /// chat.
    #[serde(default)]
    pub assignee: Option<String>,
    /// The overall card this subtask belongs to.
    #[serde(default)]
    pub parent_id: Option<String>,
    /// A question you cannot continue without: the card waits for the
    /// answer.
    #[serde(default)]
    pub ask: Option<String>,
    /// The answer to the card's waiting question.
    #[serde(default)]
    pub answer: Option<String>,
    /// Put this item in the pull queue of `role` instead of naming an
    /// assignee (task lead only).
    #[serde(default)]
    pub queue: bool,
    /// The role whose queue takes the item.
    #[serde(default)]
    pub role: Option<String>,
    /// The kind of work (#1720).
    #[serde(default)]
    pub task_class: Option<TaskClassArg>,
    /// The card id this one reworks.
    #[serde(default)]
    pub rework_of: Option<String>,
    /// A hand-over between two roles.
    #[serde(default)]
    pub handoff: Option<HandoffArg>,
    /// Up to 8 evidence pointers (commits, pull requests, checks); replaces
    /// the card's list.
    #[serde(default)]
    pub evidence: Option<Vec<EvidenceArg>>,
    /// A claim's lease, on a claimed card only.
    #[serde(default)]
    pub lease: Option<LeaseArg>,
}

/// A claimed item to give back.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReleaseArg {
    pub task: String,
    #[serde(default)]
    pub reason: Option<String>,
    /// Seconds before the item is offered again.
    #[serde(default)]
    pub retry_in_sec: Option<u64>,
}

/// How posting a decision's comment went.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PostResultArg {
    pub task: String,
    pub ok: bool,
    /// The one line a failure shows; required when ok is false.
    #[serde(default)]
    pub error: Option<String>,
}

/// `track_tasks`: exactly one of `tasks`, `claim`, `release` or `postResult`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TrackTasksArgs {
    /// Cards to record or update, in order.
    #[serde(default)]
    pub tasks: Vec<CardArg>,
    /// true: take the highest-priority item waiting for your role (with `id`,
    /// that item).
    #[serde(default)]
    pub claim: bool,
    /// The queue item to claim.
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub release: Option<ReleaseArg>,
    #[serde(default)]
    pub post_result: Option<PostResultArg>,
}

fn card_write(arg: CardArg) -> Result<CardWrite, ToolError> {
    if arg.queue {
        let (Some(role), Some(title)) = (arg.role, arg.title) else {
            return Err(ToolError::Invalid(
                "A queue item needs a role and a title.".to_owned(),
            ));
        };
        return Ok(CardWrite::Queue(QueueItem {
            role,
            title,
            priority: arg.priority.map(Priority::from),
            note: arg.note,
        }));
    }
    Ok(CardWrite::Track(Box::new(TrackItem {
        id: arg.id,
        title: arg.title,
        priority: arg.priority.map(Priority::from),
        note: arg.note,
        progress: arg.progress,
        column: arg.column.map(Column::from),
        overall: arg.overall,
        assignee: arg.assignee,
        parent_id: arg.parent_id,
        ask: arg.ask,
        answer: arg.answer,
        contract: ContractArgs {
            task_class: arg.task_class,
            rework_of: arg.rework_of,
            handoff: arg.handoff,
            evidence: arg.evidence,
            lease: arg.lease,
        }
        .into_input(),
    })))
}

impl TrackTasksArgs {
    /// The one call these arguments ask for.
    pub fn into_call(self) -> Result<TaskCall, ToolError> {
        let asked = [
            !self.tasks.is_empty(),
            self.claim,
            self.release.is_some(),
            self.post_result.is_some(),
        ]
        .iter()
        .filter(|x| **x)
        .count();
        if asked != 1 {
            return Err(ToolError::Invalid(
                "Pass exactly one of tasks, claim, release or postResult.".to_owned(),
            ));
        }
        if let Some(r) = self.release {
            return Ok(TaskCall::Release {
                task: r.task,
                reason: r.reason,
                retry_in_sec: r.retry_in_sec,
            });
        }
        if let Some(p) = self.post_result {
            return Ok(TaskCall::PostResult {
                task: p.task,
                ok: p.ok,
                error: p.error,
            });
        }
        if self.claim {
            return Ok(TaskCall::Claim { id: self.id });
        }
        let writes = self
            .tasks
            .into_iter()
            .map(card_write)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(TaskCall::Write(writes))
    }
}
