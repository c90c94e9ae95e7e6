//! The room's one execution boundary (#216, #198): `open`, `run_turn`,
//! `snapshot` and `cancel`. The internal agent is the first implementation;
//! external participants plug into the same trait.

use flybot_protocol::FailureCode;
use std::future::Future;
use std::pin::Pin;

/// One member turn the round asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberTurn {
    pub room_id: String,
    pub bot_id: String,
    /// The member's group Session in this room.
    pub session_id: String,
    /// The round, the route note and the reply rule (#894).
    pub text: String,
    /// The hop of the line that opened the round (#557).
    pub hop: u32,
}

/// How a member turn ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnOutcome {
    /// The member's reply (a line, or `[PASS]`).
    Text(String),
    /// The member's reply with the files it attached to it (`attach_file`,
    /// issue 32): the room line carries their ids.
    TextWithFiles {
        text: String,
        attachments: Vec<String>,
    },
    /// Stopped by the person (#1267) before it said anything.
    Stopped,
    /// Stopped by the person while its answer streamed: what it had said
    /// is posted as its line, with a room line saying it was cut (issue 31).
    Cut { kept: String },
    /// A model or host failure, by its fixed code (#1347).
    Failed { code: FailureCode },
    /// An external member's failure (#198): a crash with its stderr tail, a
    /// timeout, a refused record; `line` is posted as the member's own line.
    FailedWithLine { code: FailureCode, line: String },
}

/// What a seat is doing now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Snapshot {
    pub running: bool,
}

/// A boxed future, so the trait stays object safe.
pub type TurnFuture<'a> = Pin<Box<dyn Future<Output = TurnOutcome> + Send + 'a>>;

/// A cut turn's answer after a restart; `None`: no turn ran, run it again.
pub type ResumeFuture<'a> = Pin<Box<dyn Future<Output = Option<TurnOutcome>> + Send + 'a>>;

/// The boundary a room runs its members through.
pub trait RoomParticipant: Send + Sync {
    /// Readies the member's seat (its group Session) before its first turn.
    fn open(&self, room_id: &str, bot_id: &str, session_id: &str) -> Result<(), String>;
    /// Runs one member turn to its end.
    fn run_turn(&self, turn: MemberTurn) -> TurnFuture<'_>;
    /// Whether the seat is running a turn.
    fn snapshot(&self, session_id: &str) -> Snapshot;
    /// Stops the running turn; answers whether one ran.
    fn cancel(&self, session_id: &str) -> bool;
    /// Hands a person's line to the running turn as a steer (#1267).
    fn steer(&self, session_id: &str, text: &str) -> bool;
    /// Where the seat's own log stands before a turn (the agent: its
    /// Session log's last seq), noted with the round so a restart finds
    /// the turn that began after it. A seat with no log answers 0.
    fn mark(&self, _session_id: &str) -> u64 {
        0
    }
    /// After a restart: the answer of the turn that began after `after`,
    /// once the seat's pickup of it has ended; `None` when no turn began
    /// there (nothing reached the seat), so the round runs it again. A seat
    /// that cannot pick a turn up answers `None`.
    fn resume_turn(&self, _session_id: &str, _after: u64) -> ResumeFuture<'_> {
        Box::pin(async { None })
    }
}
