//! `TaskAccess`: what `track_tasks` may reach of the running host. The host
//! runs the pure rules of `flybot_core::tasks` inside one change, posts the
//! claim line (#1253) and runs the task drive (#1109) after the write; the
//! tool only turns the model's arguments into one `TaskCall` and the cards
//! it gets back into text.

use crate::tools::BoxFuture;
use flybot_core::tasks::track::TrackItem;
use flybot_protocol::state::Task;
use flybot_protocol::task::Priority;

/// Who is calling: the Bot and the Session its turn runs in (its own chat,
/// or its seat in a room).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskCaller {
    pub bot_id: String,
    pub session_id: String,
}

/// One item the room's lead puts in a role's pull queue (#1247).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueItem {
    pub role: String,
    pub title: String,
    pub priority: Option<Priority>,
    pub note: Option<String>,
}

/// One card write of a `track_tasks` call. `assignee` in `TrackItem` is a
/// member's name as the model wrote it; the host resolves it in the room.
#[derive(Debug, Clone, PartialEq)]
pub enum CardWrite {
    Track(Box<TrackItem>),
    Queue(QueueItem),
}

/// What one `track_tasks` call asks the board.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskCall {
    /// Record or update cards, in order; the first refusal stops the rest.
    Write(Vec<CardWrite>),
    /// Take the highest-priority item of the caller's role, or the named one.
    Claim { id: Option<String> },
    /// Return a claimed item to its queue, offered again after `retry_in_sec`.
    Release {
        task: String,
        reason: Option<String>,
        retry_in_sec: Option<u64>,
    },
    /// How posting a decision's comment went (#1172).
    PostResult {
        task: String,
        ok: bool,
        error: Option<String>,
    },
}

/// What the board answered: the cards as written, and for a claim that took
/// nothing, no card.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TaskReply {
    pub cards: Vec<Task>,
}

/// The host as `track_tasks` sees it. A refusal is one sentence the model
/// can act on.
pub trait TaskAccess: Send + Sync {
    fn track<'a>(
        &'a self,
        caller: TaskCaller,
        call: TaskCall,
    ) -> BoxFuture<'a, Result<TaskReply, String>>;
}
