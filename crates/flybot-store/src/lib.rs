//! The home folder: the team's snapshot (`state.json`), the write-ahead
//! journal (`journal.jsonl`), the one-writer lock (`state.lock`), migrations
//! and replay. Only this crate touches the home's files.

mod acks;
pub mod apply;
mod atomic;
pub mod attachments;
mod back_lines;
pub mod burst_marks;
pub mod change;
pub mod channels;
pub mod connectors;
pub mod decisions;
pub mod diagnostics_log;
pub mod engine;
mod error;
pub mod experience;
mod group_commit;
mod housekeeping;
pub mod inflight;
pub mod interop_journal;
mod journal;
pub mod jsonl;
mod load;
mod lock;
pub mod memory;
mod migrate;
mod opening;
pub mod parts;
pub mod private;
pub mod replay;
mod room_ahead;
mod room_cards;
pub mod room_log;
mod roster_writes;
mod schedules;
pub mod search;
pub mod secrets;
pub mod sessions;
pub mod social;
mod store;
pub mod turn_log;
pub mod usage;
pub mod workflows;
pub mod workspaces;
mod writer;

#[cfg(feature = "testing")]
pub mod faults;
mod options;
pub mod owner_token;
mod refusal;
pub use atomic::{atomic_write, write_new_file};
pub use change::Change;
pub use engine::{Engine, PostgresOptions};
pub use error::{StoreError, StoreResult};
pub use replay::{ReplayError, replay_file, replay_to};
pub use store::{
    Clock, ReadOnlyReason, Store, StoreOptions, StoreStatus, read_only_error, system_now_ms,
};

pub(crate) use flybot_core::hex::lower_hex as hex;
