//! The rooms' run notes in the turn log: each room's queued lines, running
//! round and cursors (what the host needs to finish a round a crash cut) as
//! one record per change, `{"room": id, "run": {...}}`, the newest per room
//! winning and `"run": null` forgetting the room. A checkpoint and a start
//! carry the newest note of every room into the fresh journal (`carried`).

use serde_json::Value;
use std::io;

/// A room's newest run note, as the writer keeps it (`None`: forgotten).
#[derive(Debug, Clone)]
pub(crate) struct RoomNote {
    pub(crate) room_id: String,
    pub(crate) run: Option<Vec<u8>>,
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
