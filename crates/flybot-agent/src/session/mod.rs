//! Sessions: a Bot chat's durable log, its inbox, and the runtime that runs
//! one turn at a time per Session (`Sessions`).

pub mod conversations;
mod durable;
pub mod event;
mod evict;
pub mod inbox;
pub mod log;
pub mod pickup;
pub(crate) mod runtime;
pub mod settle;
mod turn_outcome;
pub mod work;

pub use conversations::{Conversation, NEW_CONVERSATION, NewConversation};
pub use event::{AbortedBy, EndReason, LogEntry, SessionEvent, Source};
pub use evict::{KEPT_IDLE, KEPT_IDLE_BYTES, KEPT_PARTS_BYTES};
pub use inbox::{Inbox, InboxItem, ItemKind};
pub use log::SessionLog;
pub use pickup::{Pickup, was_cut};
pub use runtime::{
    CancelOutcome, INTERRUPT_AFTER, INTERRUPT_REASON, STOPPED_REASON, SendOutcome, Sessions,
    WeakSessions,
};
pub use settle::SETTLE;
pub use turn_outcome::{TurnOutcome, of_turn};
