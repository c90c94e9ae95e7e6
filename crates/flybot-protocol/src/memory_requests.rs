//! Request bodies of the memory endpoints (#450, #638): the owner reads,
//! appends to, edits and deletes a Bot's memory, and sets its pinned block.

use serde::Deserialize;

/// `memory {botId}`: the Bot's own entries (the newest 200) and its pinned block.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MemoryRead {
    pub bot_id: String,
}

/// `memory-append {botId, text, topic?}`: one entry, through the ordinary path.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MemoryAppend {
    pub bot_id: String,
    pub text: String,
    pub topic: Option<String>,
}

/// `memory-edit {botId, id, text, topic?}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MemoryEdit {
    pub bot_id: String,
    pub id: String,
    pub text: String,
    pub topic: Option<String>,
}

/// `memory-delete {botId, id}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MemoryDelete {
    pub bot_id: String,
    pub id: String,
}

/// `memory-pin {botId, text}`: the Bot's pinned block (empty clears it).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MemoryPin {
    pub bot_id: String,
    pub text: String,
}
