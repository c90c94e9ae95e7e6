//! The in-flight notes: the turns that were running and the messages
//! delivered but not yet taken, so the next start picks them up (the resume
//! rules). Each change of a Session appends that Session's note alone as one
//! record of the turn log's journal (`turn_log`), the newest per Session
//! winning and an empty one forgetting the Session, so a record's size
//! follows one Session, never every live one (issue 13). The whole-set forms
//! an older home kept (`inflight.json`, a journal's `inflight` record) are
//! still read and carried over.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
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

/// What one Session still owes: its running turn (with the turn's input)
/// and its queued input. Empty once the Session has settled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionNote {
    pub session_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    /// The running turn's input, as in [`TurnNote::items`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<Value>,
    /// The inbox items as the agent wrote them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub queued: Vec<Value>,
}

impl SessionNote {
    /// A note that owes nothing: it forgets the Session.
    pub fn settled(session_id: &str) -> SessionNote {
        SessionNote {
            session_id: session_id.to_owned(),
            turn_id: None,
            items: Vec::new(),
            queued: Vec::new(),
        }
    }

    /// Whether the note owes anything after a restart.
    pub fn owes(&self) -> bool {
        self.turn_id.is_some() || !self.queued.is_empty()
    }
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

impl Inflight {
    /// The notes of every Session, gathered (in the order given).
    pub fn from_notes<'a>(notes: impl IntoIterator<Item = &'a SessionNote>) -> Inflight {
        let mut all = Inflight::default();
        for note in notes {
            if let Some(turn_id) = &note.turn_id {
                all.turns.push(TurnNote {
                    session_id: note.session_id.clone(),
                    turn_id: turn_id.clone(),
                    items: note.items.clone(),
                });
            }
            all.queued.extend(note.queued.iter().map(|item| QueuedNote {
                session_id: note.session_id.clone(),
                item: item.clone(),
            }));
        }
        all
    }

    /// The whole set split into one note per Session that owes something
    /// (an older home's form, carried over).
    pub fn into_notes(self) -> Vec<SessionNote> {
        let mut notes: BTreeMap<String, SessionNote> = BTreeMap::new();
        for turn in self.turns {
            let note = notes
                .entry(turn.session_id.clone())
                .or_insert_with(|| SessionNote::settled(&turn.session_id));
            note.turn_id = Some(turn.turn_id);
            note.items = turn.items;
        }
        for queued in self.queued {
            notes
                .entry(queued.session_id.clone())
                .or_insert_with(|| SessionNote::settled(&queued.session_id))
                .queued
                .push(queued.item);
        }
        notes.into_values().collect()
    }
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
