//! The in-flight notes: the turns that were running and the messages
//! delivered but not yet taken, so the next start picks them up (the resume
//! rules). Each change appends the whole notes as one record of the turn
//! log's journal (`turn_log`), the newest record wins; `inflight.json`, the
//! whole-file form an older home kept, is still read and carried over.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::io;
use std::path::{Path, PathBuf};

/// A running turn and its input (the inbox items as the agent wrote
/// them): a restart that finds no `turn/start` for it delivers that input
/// itself, so a person's line is never lost between the note and the log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnNote {
    pub session_id: String,
    pub turn_id: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<Value>,
}

/// A message delivered to a Session and not yet taken by a turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QueuedNote {
    pub session_id: String,
    /// The inbox item as the agent wrote it.
    pub item: Value,
}

/// Everything still owed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Inflight {
    #[serde(default)]
    pub turns: Vec<TurnNote>,
    #[serde(default)]
    pub queued: Vec<QueuedNote>,
}

pub fn inflight_path(home: &Path) -> PathBuf {
    home.join("inflight.json")
}

/// The notes: the journal's newest record, else `inflight.json`; none
/// readable is no notes (and says so).
pub fn read_inflight(home: &Path) -> Inflight {
    match crate::turn_log::read_journal_inflight(home) {
        Ok(Some(notes)) => return notes,
        Ok(None) => {}
        Err(e) => tracing::warn!("the turn journal's notes could not be read: {e}"),
    }
    match std::fs::read(inflight_path(home)) {
        Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
            tracing::warn!("inflight.json could not be read, starting without notes: {e}");
            Inflight::default()
        }),
        Err(_) => Inflight::default(),
    }
}

/// Replaces `inflight.json` atomically, as a home from before the turn log
/// kept its notes (a start carries them into the journal).
pub fn write_inflight(home: &Path, notes: &Inflight) -> io::Result<()> {
    let bytes = serde_json::to_vec_pretty(notes).map_err(io::Error::other)?;
    crate::atomic_write(&inflight_path(home), &bytes)
}
