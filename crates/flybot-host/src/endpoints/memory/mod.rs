//! The memory endpoints (#450, #638): a Bot's owner reads its own entries
//! (the newest 200) and pinned block, appends one entry through the
//! ordinary path (secret-scanned, size-capped, one writer, journaled),
//! edits or deletes one, and sets the pinned block.

use crate::actor::journal_actor;
use crate::memory::{Memory, memory_io};
use flybot_core::access::Actor;
use flybot_core::memory::{MemoryEntry, Scope, own_entries_capped};
use flybot_core::roster::managed_bot;
use flybot_protocol::ApiError;
use flybot_protocol::answers::{MemoryAnswer, MemoryEntryAnswer, MemoryPinned};
use flybot_protocol::memory_requests::{
    MemoryAppend, MemoryDelete, MemoryEdit, MemoryPin, MemoryRead,
};
use flybot_protocol::state::TeamState;

fn entry_value(entry: &MemoryEntry) -> serde_json::Value {
    serde_json::to_value(entry).unwrap_or_default()
}

fn owns<'a>(
    actor: &'a Actor,
    bot_id: &'a str,
) -> impl FnOnce(&TeamState) -> Result<(), ApiError> + 'a {
    move |state| managed_bot(state, actor, bot_id).map(|_| ())
}

/// `memory {botId}` → `{entries, total, pinned}`.
pub fn read(memory: &Memory, actor: &Actor, req: MemoryRead) -> Result<MemoryAnswer, ApiError> {
    memory
        .team()
        .read(|state| owns(actor, &req.bot_id)(state))?;
    let files = memory.files();
    let entries = files
        .read(&Scope::bot(&req.bot_id))
        .map_err(|e| memory_io(&e))?;
    let pinned = files.read_pinned(&req.bot_id).map_err(|e| memory_io(&e))?;
    Ok(MemoryAnswer {
        entries: own_entries_capped(&entries)
            .iter()
            .map(entry_value)
            .collect(),
        total: entries.len(),
        pinned,
    })
}

/// `memory-append {botId, text, topic?}` → `{entry}`, by the actor.
pub async fn append(
    memory: &Memory,
    actor: &Actor,
    req: MemoryAppend,
) -> Result<MemoryEntryAnswer, ApiError> {
    let by = journal_actor(actor);
    let entry = memory
        .append(
            by,
            Scope::bot(&req.bot_id),
            by,
            req.topic.as_deref(),
            &req.text,
            owns(actor, &req.bot_id),
        )
        .await?;
    Ok(MemoryEntryAnswer {
        entry: entry_value(&entry),
    })
}

/// `memory-edit {botId, id, text, topic?}` → `{entry}` as it now stands.
pub async fn edit(
    memory: &Memory,
    actor: &Actor,
    req: MemoryEdit,
) -> Result<MemoryEntryAnswer, ApiError> {
    let entry = memory
        .rewrite(
            journal_actor(actor),
            Scope::bot(&req.bot_id),
            &req.id,
            Some((req.topic.as_deref(), &req.text)),
            owns(actor, &req.bot_id),
        )
        .await?;
    Ok(MemoryEntryAnswer {
        entry: entry_value(&entry),
    })
}

/// `memory-delete {botId, id}` → `{entry}` as it was.
pub async fn delete(
    memory: &Memory,
    actor: &Actor,
    req: MemoryDelete,
) -> Result<MemoryEntryAnswer, ApiError> {
    let entry = memory
        .rewrite(
            journal_actor(actor),
            Scope::bot(&req.bot_id),
            &req.id,
            None,
            owns(actor, &req.bot_id),
        )
        .await?;
    Ok(MemoryEntryAnswer {
        entry: entry_value(&entry),
    })
}

/// `memory-pin {botId, text}` → `{pinned}`.
pub async fn pin(memory: &Memory, actor: &Actor, req: MemoryPin) -> Result<MemoryPinned, ApiError> {
    let pinned = memory
        .pin(
            journal_actor(actor),
            &req.bot_id,
            &req.text,
            owns(actor, &req.bot_id),
        )
        .await?;
    Ok(MemoryPinned { pinned })
}
