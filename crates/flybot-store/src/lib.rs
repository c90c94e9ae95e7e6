//! The home folder: the team's snapshot (`state.json`), the write-ahead
//! journal (`journal.jsonl`), the one-writer lock (`state.lock`), migrations
//! and replay. Only this crate touches the home's files.

pub mod apply;
pub mod change;
mod store;

pub use change::Change;
pub use store::{ReadOnlyReason, Store, StoreError, StoreOptions, StoreStatus};
