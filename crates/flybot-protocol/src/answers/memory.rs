//! The memory endpoints' answers. An entry's shape is the core's
//! (`flybot_core::memory::MemoryEntry`: id, topic, by, at, text).

use serde::Serialize;
use serde_json::Value;

/// `memory` → `{entries, total, pinned}`: the newest 200 of `total`.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryAnswer {
    pub entries: Vec<Value>,
    pub total: usize,
    pub pinned: String,
}

/// `memory-append`, `memory-edit`, `memory-delete` → `{entry}`.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryEntryAnswer {
    pub entry: Value,
}

/// `memory-pin` → `{pinned}`.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryPinned {
    pub pinned: String,
}
