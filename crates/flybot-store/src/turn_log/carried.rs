//! The newest notes a fresh journal starts from: each Session's in-flight
//! note that still owes something and each room's run note. A checkpoint
//! and a start write them, and nothing else, into the new `turns.jsonl`, so
//! nothing is ever rewritten whole on the turn path.

use super::room_notes::{RoomNote, room_line};
use super::session_notes::{NoteBytes, note_line};
use std::collections::BTreeMap;

#[derive(Debug, Default)]
pub(crate) struct Carried {
    /// Each owing Session's newest note (its JSON).
    pub(crate) sessions: BTreeMap<String, Vec<u8>>,
    pub(crate) rooms: BTreeMap<String, Vec<u8>>,
}

impl Carried {
    /// Keeps `note` as its Session's newest; one that owes nothing forgets
    /// the Session.
    pub(crate) fn keep_note(&mut self, note: NoteBytes) {
        if note.owes {
            self.sessions.insert(note.session_id, note.json);
        } else {
            self.sessions.remove(&note.session_id);
        }
    }

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
        for json in self.sessions.values() {
            note_line(&mut fresh, json);
        }
        for (room_id, run) in &self.rooms {
            room_line(&mut fresh, room_id, Some(run));
        }
        fresh
    }
}
