//! The rooms' run notes in the turn log: each room's queued lines, running
//! round and cursors (what the host needs to finish a round a crash cut) as
//! one record per change, `{"room": id, "run": {...}}`, the newest per room
//! winning and `"run": null` forgetting the room. A checkpoint and a start
//! carry the newest note of every room into the fresh journal, beside the
//! in-flight notes, so nothing is ever rewritten whole on the turn path.

use serde_json::Value;
use std::collections::BTreeMap;
use std::io;

/// A room's newest run note, as the writer keeps it (`None`: forgotten).
#[derive(Debug, Clone)]
pub(crate) struct RoomNote {
    pub(crate) room_id: String,
    pub(crate) run: Option<Vec<u8>>,
}

/// The newest notes a fresh journal starts from.
#[derive(Debug, Default)]
pub(crate) struct Carried {
    pub(crate) inflight: Option<Vec<u8>>,
    pub(crate) rooms: BTreeMap<String, Vec<u8>>,
}

impl Carried {
    /// Keeps `note` as its room's newest.
    pub(crate) fn keep_room(&mut self, note: RoomNote) {
        match note.run {
            Some(run) => {
                self.rooms.insert(note.room_id, run);
            }
            None => {
                self.rooms.remove(&note.room_id);
            }
        }
    }

    /// The journal lines that carry these notes.
    pub(crate) fn lines(&self) -> Vec<u8> {
        let mut fresh = Vec::new();
        if let Some(notes) = &self.inflight {
            fresh.extend_from_slice(b"{\"inflight\":");
            fresh.extend_from_slice(notes);
            fresh.extend_from_slice(b"}\n");
        }
        for (room_id, run) in &self.rooms {
            room_line(&mut fresh, room_id, Some(run));
        }
        fresh
    }
}

/// Appends the journal line of one room's note to `journal`.
pub(crate) fn room_line(journal: &mut Vec<u8>, room_id: &str, run: Option<&[u8]>) {
    journal.extend_from_slice(b"{\"room\":");
    // A room id is a plain string: its JSON form cannot fail.
    journal.extend_from_slice(&serde_json::to_vec(room_id).unwrap_or_default());
    journal.extend_from_slice(b",\"run\":");
    journal.extend_from_slice(run.unwrap_or(b"null"));
    journal.extend_from_slice(b"}\n");
}

/// A note's bytes from its value.
pub(crate) fn note_bytes(run: Option<&Value>) -> io::Result<Option<Vec<u8>>> {
    run.map(|v| serde_json::to_vec(v).map_err(io::Error::other))
        .transpose()
}
