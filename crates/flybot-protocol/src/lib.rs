//! The serde types every FlyBot crate shares: the saved team (`state.json`
//! version 2), the journal's lines, the channel's requests, its error codes and
//! the codes a failed turn ends with.
//! This crate holds data only; the rules that read it live in `flybot-core`.

pub mod answers;
pub mod approval;
pub mod attachment;
mod bot_record;
pub mod channel;
pub mod channel_connectors;
pub mod connectors;
pub mod error;
pub mod evidence;
pub mod failure;
pub mod group_question;
pub mod harness;
pub mod journal;
pub mod memory_requests;
pub mod project_memory;
pub mod room_line;
pub mod schedule;
pub mod secrets;
pub mod social;
pub mod state;
pub mod task;
pub mod task_requests;
pub mod task_view;
pub mod thinking;
pub mod tool_names;
pub mod workflow;

pub use error::{ApiError, ErrorCode};
pub use failure::FailureCode;
pub use harness::HarnessId;
pub use state::TeamState;
pub use thinking::ThinkingLevel;
