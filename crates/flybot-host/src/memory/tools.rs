//! `MemoryAccess` for a Bot's turn: the memory tools reach the files and the
//! one writer here, never the host.

use super::Memory;
use crate::turns::bot_of_session;
use flybot_agent::tools::BoxFuture;
use flybot_agent::tools::memory::MemoryAccess;
use flybot_core::memory::MemoryEntry;
use flybot_core::memory::index::RecallIndex;
use flybot_core::memory::scope::writable_scope;
use flybot_protocol::ApiError;
use std::sync::Arc;

/// The memory tools' access to the running host.
pub struct HostMemoryTools {
    pub memory: Memory,
}

fn bot_gone() -> ApiError {
    ApiError::not_found("Bot", "this turn's Bot")
}

impl MemoryAccess for HostMemoryTools {
    fn save<'a>(
        &'a self,
        bot_id: &'a str,
        team: bool,
        topic: Option<String>,
        text: String,
    ) -> BoxFuture<'a, Result<MemoryEntry, String>> {
        Box::pin(async move {
            let writer = self
                .memory
                .team()
                .read(|state| state.bots.get(bot_id).cloned());
            let writer = writer.ok_or_else(|| bot_gone().message)?;
            let scope = writable_scope(&writer, team).map_err(|e| e.message)?;
            self.memory
                .append(bot_id, scope, bot_id, topic.as_deref(), &text, |state| {
                    state.bots.get(bot_id).map(|_| ()).ok_or_else(bot_gone)
                })
                .await
                .map_err(|e| e.message)
        })
    }

    fn recall_index<'a>(
        &'a self,
        bot_id: &'a str,
    ) -> BoxFuture<'a, Result<Arc<RecallIndex>, String>> {
        Box::pin(async move {
            self.memory
                .recall_index(bot_id)
                .await
                .map_err(|e| e.message)
        })
    }

    fn pin<'a>(&'a self, bot_id: &'a str, text: String) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(async move {
            self.memory
                .pin(bot_id, bot_id, &text, |state| {
                    state.bots.get(bot_id).map(|_| ()).ok_or_else(bot_gone)
                })
                .await
                .map(|_| ())
                .map_err(|e| e.message)
        })
    }

    fn own_sessions(&self, bot_id: &str) -> Vec<String> {
        self.memory.team().read(|state| {
            let mut sessions: Vec<String> = state
                .bots
                .get(bot_id)
                .map(|bot| bot.session_id.clone())
                .into_iter()
                .collect();
            sessions.extend(
                state
                    .rooms
                    .values()
                    .filter_map(|room| room.sessions.get(bot_id).cloned()),
            );
            sessions.retain(|s| bot_of_session(state, s).is_none_or(|b| b.id == bot_id));
            sessions
        })
    }
}
