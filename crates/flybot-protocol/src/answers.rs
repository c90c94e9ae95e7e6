//! The channel's answers: what an endpoint answers inside `{ok: true, ...}`,
//! one type per shape, so a handler says what it answers and a client reads
//! the same names. Fields whose inner shape a core rule owns (a board row, a
//! lease view, a project record) are carried as JSON values here.

mod access;
mod approvals;
mod chat;
mod host;
mod memory;
mod search;
mod state_view;
mod workflow;

pub use access::*;
pub use approvals::*;
pub use chat::*;
pub use host::*;
pub use memory::*;
pub use search::*;
pub use state_view::*;
pub use workflow::*;

use crate::state::Task;
use crate::task_view::{public_list, public_one};
use serde::Serialize;
use serde_json::Value;

/// `{task}`: the card a rule wrote or took (`null` when it took nothing).
#[derive(Debug, Clone, Serialize)]
pub struct TaskAnswer {
    #[serde(serialize_with = "public_one")]
    pub task: Option<Task>,
}

/// `task-send-back` → `{task, rework}`: the card and its rework child (#1730).
#[derive(Debug, Clone, Serialize)]
pub struct SentBack {
    #[serde(serialize_with = "public_one")]
    pub task: Option<Task>,
    #[serde(serialize_with = "public_one")]
    pub rework: Option<Task>,
}

/// `tasks` → `{tasks}`: the board's rows.
#[derive(Debug, Clone, Serialize)]
pub struct TaskRows {
    pub tasks: Vec<Value>,
}

/// `task-expire-leases` → `{expired, tasks}` (#1729).
#[derive(Debug, Clone, Serialize)]
pub struct LeasesExpired {
    pub expired: usize,
    #[serde(serialize_with = "public_list")]
    pub tasks: Vec<Task>,
}

/// `task-lease` → `{lease}`: the lease view, or null.
#[derive(Debug, Clone, Serialize)]
pub struct LeaseAnswer {
    pub lease: Value,
}

/// `task-audit` → `{audit}`: the card's audit text block (#1730).
#[derive(Debug, Clone, Serialize)]
pub struct AuditAnswer {
    pub audit: String,
}

/// `task-counters` → `{counters}`.
#[derive(Debug, Clone, Serialize)]
pub struct CountersAnswer<C> {
    pub counters: C,
}

/// `projects` → `{projects}`.
#[derive(Debug, Clone, Serialize)]
pub struct ProjectsAnswer {
    pub projects: Value,
}

/// `{project}`: a project record (null when none is bound).
#[derive(Debug, Clone, Serialize)]
pub struct ProjectAnswer {
    pub project: Value,
}

/// `project-delete` → `{project, deleted}`.
#[derive(Debug, Clone, Serialize)]
pub struct ProjectDeleted {
    pub project: Value,
    pub deleted: bool,
}

/// `{rows}`: a project's board (#1696) or the usage ledger's rows (#903).
#[derive(Debug, Clone, Serialize)]
pub struct Rows<R = Value> {
    pub rows: Vec<R>,
}

/// What `send {botId, text}` did with the line (#642, #1509).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LineQueued {
    Held,
    Queued,
    Interrupted,
}

/// `send {botId, text}` → `{sessionId, botId, queued}`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LineSent {
    pub session_id: String,
    pub bot_id: String,
    pub queued: LineQueued,
}

/// `messages {botId | sessionId}` → `{sessionId, botId, running, messages, last}`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatMessages {
    pub session_id: String,
    pub bot_id: String,
    pub running: bool,
    pub messages: Vec<ChatLine>,
    pub last: u64,
    /// Older lines are left before these (`before` pages back to them).
    pub earlier: bool,
    /// The answer streaming now, from its turn's start: a page that opens
    /// mid-answer draws it, then the `text.delta`s numbered after `at`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draft: Option<ChatDraft>,
}

/// The text a running turn has streamed so far, as of the live feed's
/// entry `at` (`<epoch>.<n>`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatDraft {
    pub turn_id: String,
    pub text: String,
    pub at: String,
}

/// `cancel` → `{sessionId, wasRunning, dropped}`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Cancelled {
    pub session_id: String,
    pub was_running: bool,
    pub dropped: usize,
}

/// What a room's `send` did with a person's line (#1267, #1650).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RoomQueued {
    Round,
    Steer,
    Stop,
    Interrupt,
    NextRound,
    /// A face-to-face room (#124): the line is in the room and goes to the
    /// other homes; no Bot of this home was named, so no round opened.
    Posted,
}

/// `send {roomId, text}` → `{roomId, seq, queued}`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RoomLineSent {
    pub room_id: String,
    pub seq: u64,
    pub queued: RoomQueued,
}

/// `messages {roomId}` → `{roomId, running, speaking, messages}` (#50).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RoomMessages {
    pub room_id: String,
    pub running: bool,
    pub speaking: Option<String>,
    pub messages: Vec<RoomLineShown>,
    /// Older lines of the reader's window are left before these (`before`
    /// pages back to them).
    pub earlier: bool,
    /// What the member speaking now has streamed of its line so far.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draft: Option<ChatDraft>,
}

/// `set-prefs` → `{prefs}`.
#[derive(Debug, Clone, Serialize)]
pub struct PrefsAnswer {
    pub prefs: std::collections::BTreeMap<String, Value>,
}

/// `{bot}`: a Bot as the channel shows it.
#[derive(Debug, Clone, Serialize)]
pub struct BotAnswer {
    pub bot: Value,
}

/// `{room}`: a room as the channel shows it.
#[derive(Debug, Clone, Serialize)]
pub struct RoomAnswer {
    pub room: Value,
}

/// `delete-bot` → `{bot, deleted}`.
#[derive(Debug, Clone, Serialize)]
pub struct BotDeleted {
    pub bot: Value,
    pub deleted: bool,
}

/// `delete-room` → `{room, deleted}`.
#[derive(Debug, Clone, Serialize)]
pub struct RoomDeleted {
    pub room: Value,
    pub deleted: bool,
}

/// `set-main` → `{mainBotIds, bot}` (#613).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MainSet {
    pub main_bot_ids: Vec<String>,
    pub bot: Value,
}

/// `set-grants` → `{botId, grants}`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GrantsAnswer {
    pub bot_id: String,
    pub grants: Vec<crate::state::Grant>,
}

/// `room-stop` → `{roomId, wasRunning}`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RoomStopped {
    pub room_id: String,
    pub was_running: bool,
}
