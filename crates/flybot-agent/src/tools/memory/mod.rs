//! The memory tools: `remember` (one entry, the Bot's own or the team's),
//! `recall` (exact words by default, `semantic`, `related`), `pin_memory`
//! (the bounded block its system prompt carries, one snapshot per part) and
//! `session_search` (lines of its own conversations, earlier parts too).
//! The files and the one writer are the host's, through `MemoryAccess`;
//! the recall rules are `flybot_core::memory`.

mod pin;
mod recall;
mod remember;
mod session_search;
#[cfg(test)]
mod tests;

pub use pin::PinMemory;
pub use recall::{Recall, RecallMode};
pub use remember::Remember;
pub use session_search::SessionSearch;

use super::{BoxFuture, DynTool, ToolContext, ToolError};
use flybot_core::memory::MemoryEntry;
use flybot_core::memory::index::RecallIndex;
use std::sync::Arc;

/// The host as the memory tools see it. A refusal is one sentence the model
/// can act on.
pub trait MemoryAccess: Send + Sync {
    /// Saves one entry by `bot_id`, to the team scope when `team`.
    fn save<'a>(
        &'a self,
        bot_id: &'a str,
        team: bool,
        topic: Option<String>,
        text: String,
    ) -> BoxFuture<'a, Result<MemoryEntry, String>>;
    /// The recall index of what `bot_id` may read: its own entries, then
    /// the team's it may see.
    fn recall_index<'a>(
        &'a self,
        bot_id: &'a str,
    ) -> BoxFuture<'a, Result<Arc<RecallIndex>, String>>;
    /// Replaces the Bot's pinned block.
    fn pin<'a>(&'a self, bot_id: &'a str, text: String) -> BoxFuture<'a, Result<(), String>>;
    /// The Bot's own Sessions: its chat, then its seats in rooms.
    fn own_sessions(&self, bot_id: &str) -> Vec<String>;
}

/// The four memory tools.
pub fn memory_tools() -> Vec<Arc<dyn DynTool>> {
    vec![
        Arc::new(Remember),
        Arc::new(Recall),
        Arc::new(PinMemory),
        Arc::new(SessionSearch),
    ]
}

fn access(ctx: &ToolContext) -> Result<&Arc<dyn MemoryAccess>, ToolError> {
    ctx.env
        .service::<dyn MemoryAccess>("Memory is not available here.")
}

/// One entry as the model reads it back.
fn entry_line(entry: &MemoryEntry) -> String {
    format!(
        "- [{}] {} (by {}, {})",
        entry.topic, entry.text, entry.by, entry.id
    )
}
