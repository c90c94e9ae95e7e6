//! The context steward and a Session's parts (#796, #917, #1233, #1245,
//! #1285, #1447). Before each step the request is measured against the
//! check line; past it the steward (one model call on the Bot's own route)
//! decides to condense in place (a checkpoint summary replaces the older
//! span) or to move the conversation to a fresh part of the same Session
//! (committed first, then its handoff note; rolled back if the note fails).
//! The lines and the retry policy are `flybot_core::context`; the parts
//! record is `flybot_store::parts`.

mod moves;
pub mod parts;
pub mod prompts;
mod room;
mod summary;
mod view;

pub use parts::{PartRecord, PartView, Parts};
pub(crate) use room::{NoRequest, Room, make_room};
pub use summary::ask;
pub use view::part_messages;

use crate::model::ModelProvider;
use flybot_core::context::COMPACT_DEADLINE_MS;
use std::sync::Arc;
use std::time::Duration;

/// How a Session's context is kept, per turn (the host fills it from
/// `config.toml` and the Bot's memory).
#[derive(Clone)]
pub struct ContextSetup {
    /// The Bot's pinned memory block as it stands now; a part snapshots it
    /// once, so the system prompt stays byte-identical within a part.
    /// `None` where the turn runs without memory.
    pub pinned: Option<String>,
    /// `checkRatio`: the check line's share of the usable window.
    pub check_ratio: Option<f64>,
    /// `compactDeadlineMs`: how long making room before a step may take.
    pub compact_deadline: Duration,
    /// The route's provider without the turn's rate-limit retries: the
    /// steward has its own (#1447). `None`: the turn's provider.
    pub steward_provider: Option<Arc<dyn ModelProvider>>,
}

impl Default for ContextSetup {
    fn default() -> Self {
        ContextSetup {
            pinned: None,
            check_ratio: None,
            compact_deadline: Duration::from_millis(COMPACT_DEADLINE_MS),
            steward_provider: None,
        }
    }
}
