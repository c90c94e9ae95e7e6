//! The A2A protocol values FlyBot reads (protocol 1.0 as the pinned
//! `a2a-sdk` serves it: JSON-RPC methods `SendMessage`,
//! `SendStreamingMessage`, `GetTask`, `CancelTask`, protobuf JSON with
//! `TASK_STATE_*` and `ROLE_*` spellings). Everything here comes from the
//! agent and is hostile: closed enums, bounded ids and texts, unknown
//! states refused rather than guessed.

use serde::Deserialize;

/// The JSON-RPC binding's protocol version FlyBot speaks (the
/// `A2A-Version` header and the card's interface must name it).
pub const PROTOCOL_VERSION: &str = "1.0";
/// Longest id (task, context, message, artifact) taken from the agent.
pub const ID_CHARS: usize = 128;
/// Longest text taken from one message or artifact (the contract's 16 KiB
/// result limit).
pub const TEXT_BYTES: usize = 16 * 1024;

/// A task's state, as the protocol spells it. A state outside this list
/// fails to parse, so it is never mistaken for one FlyBot knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum TaskState {
    #[serde(rename = "TASK_STATE_SUBMITTED")]
    Submitted,
    #[serde(rename = "TASK_STATE_WORKING")]
    Working,
    #[serde(rename = "TASK_STATE_INPUT_REQUIRED")]
    InputRequired,
    #[serde(rename = "TASK_STATE_AUTH_REQUIRED")]
    AuthRequired,
    #[serde(rename = "TASK_STATE_COMPLETED")]
    Completed,
    #[serde(rename = "TASK_STATE_CANCELED")]
    Canceled,
    #[serde(rename = "TASK_STATE_FAILED")]
    Failed,
    #[serde(rename = "TASK_STATE_REJECTED")]
    Rejected,
}

impl TaskState {
    /// The protocol's own spelling, for raw statuses in reports.
    pub fn raw(self) -> &'static str {
        match self {
            TaskState::Submitted => "TASK_STATE_SUBMITTED",
            TaskState::Working => "TASK_STATE_WORKING",
            TaskState::InputRequired => "TASK_STATE_INPUT_REQUIRED",
            TaskState::AuthRequired => "TASK_STATE_AUTH_REQUIRED",
            TaskState::Completed => "TASK_STATE_COMPLETED",
            TaskState::Canceled => "TASK_STATE_CANCELED",
            TaskState::Failed => "TASK_STATE_FAILED",
            TaskState::Rejected => "TASK_STATE_REJECTED",
        }
    }

    /// Whether the task waits for its client (a turn ends here).
    pub fn interrupted(self) -> bool {
        matches!(self, TaskState::InputRequired | TaskState::AuthRequired)
    }

    /// Whether the task can change no more.
    pub fn terminal(self) -> bool {
        matches!(
            self,
            TaskState::Completed | TaskState::Canceled | TaskState::Failed | TaskState::Rejected
        )
    }
}

/// One part of a message or artifact; only text is read.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Part {
    #[serde(default)]
    pub text: Option<String>,
}

/// A message the agent sent.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    pub message_id: String,
    #[serde(default)]
    pub parts: Vec<Part>,
}

/// A task's status: its state and the message that came with it.
#[derive(Debug, Clone, Deserialize)]
pub struct Status {
    pub state: TaskState,
    #[serde(default)]
    pub message: Option<Message>,
}

/// An output of the task.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Artifact {
    pub artifact_id: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub parts: Vec<Part>,
}

/// A task as `GetTask` (the record) or a send answers it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    pub id: String,
    pub context_id: String,
    pub status: Status,
    #[serde(default)]
    pub artifacts: Vec<Artifact>,
    /// The messages the agent recorded for the task, both sides.
    #[serde(default)]
    pub history: Vec<Message>,
}

/// `SendMessage`'s result: a task, or a plain message (no task at all).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SendResult {
    Task(Task),
    Message(Message),
}

/// One event of `SendStreamingMessage` (a notification, not the record).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StreamEvent {
    Task(Task),
    Message(Message),
    StatusUpdate(StatusUpdate),
    ArtifactUpdate(ArtifactUpdate),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusUpdate {
    pub task_id: String,
    pub context_id: String,
    pub status: Status,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactUpdate {
    pub task_id: String,
    pub context_id: String,
    pub artifact: Artifact,
}

impl StreamEvent {
    /// The task and context the event claims to belong to (a plain message
    /// names none).
    pub fn ids(&self) -> Option<(&str, &str)> {
        match self {
            StreamEvent::Task(t) => Some((&t.id, &t.context_id)),
            StreamEvent::Message(_) => None,
            StreamEvent::StatusUpdate(u) => Some((&u.task_id, &u.context_id)),
            StreamEvent::ArtifactUpdate(u) => Some((&u.task_id, &u.context_id)),
        }
    }
}

/// The text of `parts`, joined by new lines.
pub fn text_of(parts: &[Part]) -> String {
    let texts: Vec<&str> = parts.iter().filter_map(|p| p.text.as_deref()).collect();
    texts.join("\n")
}

/// Whether `id` may be kept: non-empty, short, printable ASCII without
/// spaces (it goes into journal records and reports).
pub fn valid_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= ID_CHARS && id.bytes().all(|b| b.is_ascii_graphic())
}

/// Why a value from the agent was refused.
pub fn refuse_task(task: &Task) -> Option<String> {
    if !valid_id(&task.id) || !valid_id(&task.context_id) {
        return Some("the agent named its task with an id FlyBot does not keep".to_owned());
    }
    let mut bytes = task
        .status
        .message
        .as_ref()
        .map_or(0, |m| text_of(&m.parts).len());
    for artifact in &task.artifacts {
        bytes += text_of(&artifact.parts).len();
    }
    for message in &task.history {
        bytes += text_of(&message.parts).len();
    }
    (bytes > TEXT_BYTES).then(|| {
        format!("the agent's task carries {bytes} bytes of text, over the {TEXT_BYTES}-byte result limit")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_the_protocol_does_not_list_is_refused_not_guessed() {
        let parsed: Result<Status, _> =
            serde_json::from_value(serde_json::json!({"state": "TASK_STATE_DONE_TRUST_ME"}));
        assert!(parsed.is_err());
        let parsed: Status =
            serde_json::from_value(serde_json::json!({"state": "TASK_STATE_INPUT_REQUIRED"}))
                .unwrap();
        assert_eq!(parsed.state, TaskState::InputRequired);
        assert!(parsed.state.interrupted() && !parsed.state.terminal());
    }

    #[test]
    fn an_event_of_two_kinds_at_once_is_refused() {
        let both = serde_json::json!({
            "statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}},
            "artifactUpdate": {"taskId": "t", "contextId": "c", "artifact": {"artifactId": "a"}}
        });
        assert!(serde_json::from_value::<StreamEvent>(both).is_err());
    }

    #[test]
    fn ids_with_spaces_or_too_long_are_not_kept() {
        assert!(valid_id("8403ae93-c215"));
        assert!(!valid_id("a b"));
        assert!(!valid_id(""));
        assert!(!valid_id(&"x".repeat(ID_CHARS + 1)));
    }

    #[test]
    fn a_task_over_the_result_limit_is_refused() {
        let task: Task = serde_json::from_value(serde_json::json!({
            "id": "t", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"},
            "artifacts": [{"artifactId": "a", "parts": [{"text": "x".repeat(TEXT_BYTES + 1)}]}]
        }))
        .unwrap();
        assert!(refuse_task(&task).unwrap().contains("result limit"));
    }
}
