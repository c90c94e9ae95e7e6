//! The typed fields of a task card beyond the roster's minimal `Task`: the
//! board (#1058), input waits (#207), the typed contract (#1720), pull queues
//! and leases (#1247, #1729), group jobs (#1099) and targets (#1154).
//!
//! They live in the record's `extra` map, so a card stored before any of them
//! existed reads back unchanged and carries none of them. `TaskFields::read`
//! lifts them into types (a corrupt value is reset, as the spec asks of
//! `state.tasks`); `TaskFields::write` puts them back, leaving every key this
//! build does not know where it was.

use crate::state::{Extra, Task, TaskStatus};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Board priority (#1058); a card that names none is `normal`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    Urgent,
    High,
    Normal,
    Low,
}

impl Priority {
    /// Urgent first: the rank the board sorts by.
    pub fn rank(self) -> u8 {
        match self {
            Priority::Urgent => 0,
            Priority::High => 1,
            Priority::Normal => 2,
            Priority::Low => 3,
        }
    }

    pub fn parse(text: &str) -> Option<Priority> {
        match text {
            "urgent" => Some(Priority::Urgent),
            "high" => Some(Priority::High),
            "normal" => Some(Priority::Normal),
            "low" => Some(Priority::Low),
            _ => None,
        }
    }
}

/// The board's three columns, read from the status (#1058).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Column {
    NotStarted,
    InProgress,
    Done,
}

/// A move a person may make on a card, as its row carries it (issue 31):
/// decided by `flybot_core::tasks::moves::moves_for`, drawn by the page and
/// nothing else. Claim, start and return are the requester's moves by #54
/// as well as the Bot's own (`track_tasks`): the host takes them from the
/// requester, so the row offers them to the requester too, and the page
/// draws them apart, as moves made for the Bot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[derive(strum::IntoStaticStr, strum::EnumString)]
#[strum(serialize_all = "kebab-case")]
pub enum TaskMove {
    /// `task-accept`: open → claimed, for the Bot.
    Claim,
    /// `task-start`: claimed → working, for the Bot.
    Start,
    /// `task-return {summary}`: working → result-ready, for the Bot.
    Return,
    /// `task-accept-result`: result-ready → accepted (the Done column).
    AcceptResult,
    /// `task-send-back {note}`: result-ready → working, with a rework card.
    SendBack,
    /// `task-answer-input {questionId, answer}`: the card's current question.
    Answer,
    /// `task-cancel`: any unfinished card ends, for good.
    Cancel,
    /// `task-update {priority, progress, note}` on an unfinished card.
    Edit,
    /// `task-archive`: a finished card leaves the Done column for the
    /// archive (issue 31).
    Archive,
}

impl TaskMove {
    /// Every move, in the order a card draws them.
    pub const ALL: [TaskMove; 9] = [
        TaskMove::Claim,
        TaskMove::Start,
        TaskMove::Return,
        TaskMove::AcceptResult,
        TaskMove::SendBack,
        TaskMove::Answer,
        TaskMove::Edit,
        TaskMove::Cancel,
        TaskMove::Archive,
    ];

    /// The wire spelling (`"accept-result"`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// The overall card of a group job (#1099) is `kind: "group"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskKind {
    Group,
}

/// Where a card was recorded: the channel (a person) or a Bot's turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskSource {
    Channel,
    Conversation,
}

/// The typed kind of work (#1720); not `kind`, which keeps its group meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskClass {
    Work,
    Rework,
    Release,
    Triage,
    Meeting,
}

/// What a blocked card waits on (#207).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WaitingFor {
    Input,
    Approval,
}

/// Who moved the card into a status, and when; `questionId` links an input
/// wait or answer to its question (#207).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ActorEntry {
    pub actor_id: String,
    pub at: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question_id: Option<String>,
}

/// The current question of an input wait (#207).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputRequest {
    pub id: String,
    pub question: String,
    pub requested_at: u64,
}

/// The answer to the latest question; only this one snapshot is kept (#207).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputAnswer {
    pub question_id: String,
    pub answer: String,
    pub answered_at: u64,
}

/// A review hand-over between two named roles (#1720).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Handoff {
    pub from: String,
    pub to: String,
    pub at: u64,
    pub reason: String,
}

/// One evidence pointer (#1720); a card keeps at most eight.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Evidence {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pr: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<String>,
    pub at: u64,
}

/// A claim's lease (#1720, #1729): `holder` is the claiming Bot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Lease {
    pub holder: String,
    pub taken_at: u64,
    pub expires_at: u64,
}

/// The issue or pull request a card came from (#1154); `href` is always the
/// `/issues/<n>` form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Target {
    pub owner: String,
    pub repo: String,
    pub number: u64,
    pub href: String,
}

/// How the decision comment of a targeted card fared (#1154, #1172).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WriteBackState {
    Pending,
    Posted,
    Failed,
    Unconfirmed,
}

/// The one comment a decision leaves for the card's Bot to post (#1154).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WriteBack {
    pub target: Target,
    pub at: u64,
    pub state: WriteBackState,
    pub body: String,
    /// Wakes that actually went out for this comment (#1172).
    #[serde(default)]
    pub wakes: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported_at: Option<u64>,
}

/// Where a conversation card was recorded: the turn's Session and its group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Origin {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub room_id: Option<String>,
}

/// Every typed field a card may carry beside the roster's own.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskFields {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<TaskKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<TaskSource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<Priority>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The result summary `task-return` copied onto the card.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Per-status actor entries (#54).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub actors: BTreeMap<TaskStatus, ActorEntry>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting_for: Option<WaitingFor>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_request: Option<InputRequest>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_answer: Option<InputAnswer>,
    /// The held send an approval-only wait blocks on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_id: Option<String>,
    /// Holds stamped on an input-waiting card; each approval clears its own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub input_approval_ids: Vec<String>,
    /// The overall card this one is part of (#1099).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_class: Option<TaskClass>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rework_of: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handoff: Option<Handoff>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<Evidence>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease: Option<Lease>,
    /// The role a pull-queue item waits for (#1247).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_role: Option<String>,
    /// The lead Bot that enqueued the item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_by: Option<String>,
    /// The item's own queue ceiling (#1729).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_cap: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claimed_by: Option<String>,
    /// A released item is not offered again before this time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_at: Option<u64>,
    /// The isolated worker of the current claim (#1729).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker: Option<String>,
    /// The workflow run a card belongs to, for counters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Target>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_back: Option<WriteBack>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<Origin>,
    /// An external runtime's turn whose effect is unknown (#198), until a
    /// person decides it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery: Option<Recovery>,
    /// The evidence level of an external runtime's verified result (#198):
    /// 1 to 3 as the runtime ran, 4 once a person accepted it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence_level: Option<crate::evidence::EvidenceLevel>,
    /// When a person archived the finished card (issue 31, `task-archive`):
    /// it leaves the board's Done slice (`tasks {archive, limit}`) and stays
    /// in the whole archive (`tasks {archive}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archived_at: Option<u64>,
}

/// `recovery: uncertain` beside the card's status (#198, "Lost connection
/// or ambiguous write"): the raw status the runtime showed, kept as it
/// was; the card takes no automatic dispatch until a person decides it with
/// `task-recovery-decide`, and the decision stays on the card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Recovery {
    pub state: RecoveryState,
    pub raw_status: String,
    pub since: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<RecoveryDecision>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_at: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RecoveryState {
    /// Nothing matched the turn unambiguously: a person decides.
    Uncertain,
    /// A person decided (`decision`).
    Decided,
}

/// A person's decision on an uncertain turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RecoveryDecision {
    /// Send the turn again under its one reservation.
    Retry,
    /// Take what the runtime shows as the turn's end.
    Accept,
    /// Give the work up: the card is cancelled.
    Cancel,
}

/// The wire names of `TaskFields`, in declaration order.
pub const TASK_FIELD_KEYS: [&str; 31] = [
    "kind",
    "source",
    "priority",
    "progress",
    "note",
    "summary",
    "actors",
    "waitingFor",
    "inputRequest",
    "inputAnswer",
    "approvalId",
    "inputApprovalIds",
    "parentId",
    "taskClass",
    "reworkOf",
    "handoff",
    "evidence",
    "lease",
    "queueRole",
    "queueBy",
    "queueCap",
    "claimedBy",
    "retryAt",
    "worker",
    "run",
    "target",
    "writeBack",
    "origin",
    "recovery",
    "evidenceLevel",
    "archivedAt",
];

impl TaskFields {
    /// The typed fields of `task`; a value that does not parse is reset.
    pub fn read(task: &Task) -> TaskFields {
        Self::from_extra(&task.extra)
    }

    pub fn from_extra(extra: &Extra) -> TaskFields {
        let known: Map<String, Value> = TASK_FIELD_KEYS
            .iter()
            .filter_map(|key| extra.get(*key).map(|v| ((*key).to_owned(), v.clone())))
            .collect();
        if known.is_empty() {
            return TaskFields::default();
        }
        if let Ok(fields) = serde_json::from_value(Value::Object(known.clone())) {
            return fields;
        }
        // One corrupt value must not cost the others: keep each key that
        // reads on its own.
        let good: Map<String, Value> = known
            .into_iter()
            .filter(|(key, value)| {
                let single: Map<String, Value> =
                    [(key.clone(), value.clone())].into_iter().collect();
                serde_json::from_value::<TaskFields>(Value::Object(single)).is_ok()
            })
            .collect();
        serde_json::from_value(Value::Object(good)).unwrap_or_default()
    }

    /// Puts these fields on `task`, replacing the ones it had.
    pub fn write(&self, task: &mut Task) {
        for key in TASK_FIELD_KEYS {
            task.extra.remove(key);
        }
        if let Ok(Value::Object(map)) = serde_json::to_value(self) {
            task.extra.extend(map);
        }
    }

    pub fn priority_or_normal(&self) -> Priority {
        self.priority.unwrap_or(Priority::Normal)
    }
}

/// A card's priority read straight from its record, without lifting every
/// field: the board sorts thousands of rows by it (#1252).
pub fn priority_of(task: &Task) -> Priority {
    task.extra
        .get("priority")
        .and_then(Value::as_str)
        .and_then(Priority::parse)
        .unwrap_or(Priority::Normal)
}

/// The board column a status reads as (#1058).
pub fn column_of(status: TaskStatus) -> Column {
    match status {
        TaskStatus::Open | TaskStatus::Claimed => Column::NotStarted,
        TaskStatus::Working | TaskStatus::Blocked | TaskStatus::ResultReady => Column::InProgress,
        TaskStatus::Accepted | TaskStatus::Cancelled | TaskStatus::Failed => Column::Done,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn task(extra: Extra) -> Task {
        Task {
            id: "task-1".into(),
            bot_id: "bot-1".into(),
            title: "t".into(),
            status: TaskStatus::Open,
            requester_id: None,
            room_id: None,
            created_at: 1,
            updated_at: 1,
            extra,
        }
    }

    #[test]
    fn the_key_list_names_every_field() {
        let full = TaskFields {
            kind: Some(TaskKind::Group),
            source: Some(TaskSource::Channel),
            priority: Some(Priority::High),
            progress: Some(1),
            note: Some("n".into()),
            summary: Some("s".into()),
            actors: [(
                TaskStatus::Open,
                ActorEntry {
                    actor_id: "m".into(),
                    at: 1,
                    question_id: None,
                },
            )]
            .into_iter()
            .collect(),
            waiting_for: Some(WaitingFor::Input),
            input_request: Some(InputRequest {
                id: "q".into(),
                question: "?".into(),
                requested_at: 1,
            }),
            input_answer: Some(InputAnswer {
                question_id: "q".into(),
                answer: "a".into(),
                answered_at: 2,
            }),
            approval_id: Some("a".into()),
            input_approval_ids: vec!["a".into()],
            parent_id: Some("p".into()),
            task_class: Some(TaskClass::Work),
            rework_of: Some("r".into()),
            handoff: Some(Handoff {
                from: "a".into(),
                to: "b".into(),
                at: 1,
                reason: "r".into(),
            }),
            evidence: vec![Evidence {
                sha: None,
                pr: Some(1),
                check: None,
                at: 1,
            }],
            lease: Some(Lease {
                holder: "b".into(),
                taken_at: 1,
                expires_at: 2,
            }),
            queue_role: Some("Dev".into()),
            queue_by: Some("b".into()),
            queue_cap: Some(8),
            claimed_by: Some("b".into()),
            retry_at: Some(1),
            worker: Some("w".into()),
            run: Some("r".into()),
            target: Some(Target {
                owner: "o".into(),
                repo: "r".into(),
                number: 1,
                href: "h".into(),
            }),
            write_back: None,
            origin: Some(Origin {
                session_id: Some("s".into()),
                room_id: None,
            }),
            recovery: Some(Recovery {
                state: RecoveryState::Uncertain,
                raw_status: "timeout".into(),
                since: 1,
                decision: None,
                decided_by: None,
                decided_at: None,
            }),
            evidence_level: Some(crate::evidence::EvidenceLevel::RealProcessInterface),
            archived_at: Some(2),
        };
        let Value::Object(map) = serde_json::to_value(&full).unwrap() else {
            panic!("an object");
        };
        let keys: Vec<&str> = map.keys().map(String::as_str).collect();
        let mut expected: Vec<&str> = TASK_FIELD_KEYS.to_vec();
        expected.retain(|k| *k != "writeBack");
        assert_eq!(keys, expected);
        let mut t = task(Extra::new());
        full.write(&mut t);
        assert_eq!(TaskFields::read(&t), full);
    }

    #[test]
    /// Rule #1720.
    fn a_record_stored_before_reads_back_unchanged() {
        let mut extra = Extra::new();
        extra.insert("failure".into(), Value::from("gone"));
        let mut t = task(extra);
        let before = serde_json::to_value(&t).unwrap();
        let fields = TaskFields::read(&t);
        assert_eq!(fields, TaskFields::default());
        fields.write(&mut t);
        assert_eq!(serde_json::to_value(&t).unwrap(), before);
    }

    #[test]
    fn a_corrupt_value_is_reset_and_the_rest_kept() {
        let mut extra = Extra::new();
        extra.insert("priority".into(), Value::from(5));
        extra.insert("note".into(), Value::from("kept"));
        let fields = TaskFields::read(&task(extra));
        assert_eq!(fields.priority, None);
        assert_eq!(fields.note.as_deref(), Some("kept"));
    }
}
