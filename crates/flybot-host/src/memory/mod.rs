//! `Memory`: a Bot's memory files and the team scope, written through the
//! team's one writer (each write replaces one Markdown file atomically and
//! journals the scope's mark, `flybot_store::memory`) and read straight from
//! the files, which stay the only source of truth. The channel's memory
//! endpoints and the memory tools (`tools.rs`) both come here.

mod pinned_cache;
mod recall_cache;
mod tools;

pub use tools::HostMemoryTools;

use crate::ids::new_id;
use crate::team::Team;
use flybot_core::memory::index::RecallIndex;
use flybot_core::memory::scope::team_entries_for;
use flybot_core::memory::{MemoryEntry, Scope, checked_entry, checked_pinned};
use flybot_protocol::state::{Bot, TeamState};
use flybot_protocol::{ApiError, ErrorCode};
use flybot_store::memory::MemoryFiles;
use pinned_cache::PinnedCache;
use recall_cache::{RecallCache, Stamp, owners_fingerprint};
use std::path::Path;
use std::sync::Arc;

/// The memory service. Cheap to clone.
#[derive(Clone)]
pub struct Memory {
    team: Team,
    files: MemoryFiles,
    recall: RecallCache,
    pinned: PinnedCache,
}

/// A memory file that could not be read or written: said once, logged once.
pub(crate) fn memory_io(error: &std::io::Error) -> ApiError {
    tracing::warn!("a memory file could not be used: {error}");
    // A fault of the host's disk, not a home another FlyBot saves (issue 38).
    ApiError::new(
        ErrorCode::Unavailable,
        "The memory files could not be written; check that the home folder is writable.",
    )
}

fn entry_not_found(id: &str) -> ApiError {
    ApiError::not_found("memory entry", id)
}

impl Memory {
    pub fn new(team: &Team, home: &Path) -> Memory {
        Memory {
            team: team.clone(),
            files: MemoryFiles::new(home),
            recall: RecallCache::default(),
            pinned: PinnedCache::default(),
        }
    }

    /// The Bot's pinned block for a turn: read once while the file stands.
    pub fn pinned(&self, bot_id: &str) -> std::io::Result<String> {
        self.pinned.pinned(&self.files, bot_id)
    }

    pub fn files(&self) -> &MemoryFiles {
        &self.files
    }

    pub fn team(&self) -> &Team {
        &self.team
    }

    /// Appends one entry by `by` to `scope` once `allowed` passes on the
    /// team: secret-scanned, size-capped, one writer, journaled.
    pub async fn append(
        &self,
        actor: &str,
        scope: Scope,
        by: &str,
        topic: Option<&str>,
        text: &str,
        allowed: impl FnOnce(&TeamState) -> Result<(), ApiError>,
    ) -> Result<MemoryEntry, ApiError> {
        let (topic, text) = checked_entry(topic, text)?;
        self.team
            .mutate(actor, |change| {
                allowed(change.state())?;
                let mut entries = self.files.read(&scope).map_err(|e| memory_io(&e))?;
                let entry = MemoryEntry {
                    id: new_id("mem"),
                    topic,
                    by: by.to_owned(),
                    at: change.now_ms(),
                    text,
                };
                entries.push(entry.clone());
                self.files
                    .write(change, &scope, &entries)
                    .map_err(|e| memory_io(&e))?;
                Ok(entry)
            })
            .await
    }

    /// Rewrites entry `id` of `scope` (`text`, and `topic` when given), or
    /// removes it when `text` is `None`. Answers the entry as it stood.
    pub async fn rewrite(
        &self,
        actor: &str,
        scope: Scope,
        id: &str,
        edit: Option<(Option<&str>, &str)>,
        allowed: impl FnOnce(&TeamState) -> Result<(), ApiError>,
    ) -> Result<MemoryEntry, ApiError> {
        let edit = match edit {
            Some((topic, text)) => {
                let (checked_topic, text) = checked_entry(topic, text)?;
                Some((topic.map(|_| checked_topic), text))
            }
            None => None,
        };
        self.team
            .mutate(actor, |change| {
                allowed(change.state())?;
                let mut entries = self.files.read(&scope).map_err(|e| memory_io(&e))?;
                let at = entries
                    .iter()
                    .position(|e| e.id == id)
                    .ok_or_else(|| entry_not_found(id))?;
                let answer = match edit {
                    Some((topic, text)) => {
                        let entry = &mut entries[at];
                        if let Some(topic) = topic {
                            entry.topic = topic;
                        }
                        entry.text = text;
                        entry.clone()
                    }
                    None => entries.remove(at),
                };
                self.files
                    .write(change, &scope, &entries)
                    .map_err(|e| memory_io(&e))?;
                Ok(answer)
            })
            .await
    }

    /// Replaces the Bot's pinned block; answers it as saved.
    pub async fn pin(
        &self,
        actor: &str,
        bot_id: &str,
        text: &str,
        allowed: impl FnOnce(&TeamState) -> Result<(), ApiError>,
    ) -> Result<String, ApiError> {
        let text = checked_pinned(text)?;
        self.team
            .mutate(actor, |change| {
                allowed(change.state())?;
                self.files
                    .write_pinned(change, bot_id, &text)
                    .map_err(|e| memory_io(&e))?;
                Ok(text)
            })
            .await
    }

    /// What `bot` reads: its own entries, then the team's it may see (#53).
    pub fn readable(&self, state: &TeamState, bot: &Bot) -> Result<Vec<MemoryEntry>, ApiError> {
        let mut own = self
            .files
            .read(&Scope::bot(&bot.id))
            .map_err(|e| memory_io(&e))?;
        let team = self.files.read(&Scope::Team).map_err(|e| memory_io(&e))?;
        own.extend(team_entries_for(state, bot, team));
        Ok(own)
    }

    /// The recall index of what `bot_id` reads, kept while its files and
    /// the team's owners stand (`recall_cache`); built off the async
    /// threads when it must be.
    pub async fn recall_index(&self, bot_id: &str) -> Result<Arc<RecallIndex>, ApiError> {
        let (bot, owners) = self.team.read(|state| {
            let bot = state.bots.get(bot_id).cloned();
            (bot, owners_fingerprint(state))
        });
        let bot = bot.ok_or_else(|| ApiError::not_found("Bot", bot_id))?;
        let stamp = Stamp {
            own: self
                .files
                .stamp(&Scope::bot(bot_id))
                .map_err(|e| memory_io(&e))?,
            team: self.files.stamp(&Scope::Team).map_err(|e| memory_io(&e))?,
            owners,
        };
        if let Some(index) = self.recall.get(bot_id, &stamp) {
            return Ok(index);
        }
        let memory = self.clone();
        let index = tokio::task::spawn_blocking(move || {
            let entries = memory.team.read(|state| memory.readable(state, &bot))?;
            Ok::<_, ApiError>(Arc::new(RecallIndex::build(entries)))
        })
        .await
        .map_err(|_| {
            ApiError::new(
                ErrorCode::Busy,
                "Recall stopped before it finished; try again.",
            )
        })??;
        self.recall.put(bot_id, stamp, index.clone());
        Ok(index)
    }
}
