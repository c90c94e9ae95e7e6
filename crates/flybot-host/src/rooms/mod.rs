//! Room execution (issue 5): the `RoomParticipant` boundary, the internal
//! agent as its first implementation, the room logs and the round runner.
//! The rules themselves are `flybot_core::rooms`; this module runs them.

pub mod agent;
pub mod dispatch;
mod durable;
pub mod external;
pub mod handed_reply;
pub mod hold;
pub mod interrupt;
pub mod log_reads;
pub mod logs;
pub mod opencode;
pub mod participant;
pub mod round_resume;
pub mod round_steps;
pub mod rounds;
pub mod run_note;
pub mod runner;
pub mod taking;

pub use logs::RoomLogs;
pub use participant::{MemberTurn, ResumeFuture, RoomParticipant, Snapshot, TurnOutcome};
pub use rounds::Rounds;
