//! The Sessions' in-flight notes in the turn log (issue 13): one record per
//! change of a Session, `{"note": {"sessionId": id, ...}}`, holding that
//! Session's running turn and queued input alone. The newest note per
//! Session wins, and a note that owes nothing forgets the Session, so a
//! settled Session is never picked up again. An older journal's whole-set
//! record, `{"inflight": {...}}`, stands for every Session's note at once.

use crate::inflight::{Inflight, SessionNote};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io;

/// A Session's note as the writer keeps it: its JSON, and whether it owes
/// anything (a note that does not is written once, then forgotten).
#[derive(Debug, Clone)]
pub(crate) struct NoteBytes {
    pub(crate) session_id: String,
    pub(crate) owes: bool,
    pub(crate) json: Vec<u8>,
}

impl NoteBytes {
    pub(crate) fn new(note: &SessionNote) -> io::Result<NoteBytes> {
        Ok(NoteBytes {
            session_id: note.session_id.clone(),
            owes: note.owes(),
            json: serde_json::to_vec(note).map_err(io::Error::other)?,
        })
    }
}

/// Appends the journal line of one Session's note to `journal`.
pub(crate) fn note_line(journal: &mut Vec<u8>, json: &[u8]) {
    journal.extend_from_slice(b"{\"note\":");
    journal.extend_from_slice(json);
    journal.extend_from_slice(b"}\n");
}

/// The newest note of each Session, folded from the journal in order.
#[derive(Debug, Default)]
pub(crate) struct Folded {
    /// Whether the journal held any note at all (else an older home's
    /// `inflight.json` is read).
    pub(crate) seen: bool,
    notes: BTreeMap<String, SessionNote>,
}

impl Folded {
    /// Folds one journal line's notes: a whole set replaces every
    /// Session's note, a Session's note replaces that Session's.
    pub(crate) fn fold(&mut self, whole: Option<Value>, one: Option<Value>) {
        if let Some(set) = whole {
            self.whole(set);
        }
        if let Some(note) = one {
            self.seen = true;
            match serde_json::from_value::<SessionNote>(note) {
                Ok(note) => self.keep(note),
                Err(e) => tracing::warn!("a Session's in-flight note could not be read: {e}"),
            }
        }
    }

    /// An older home's whole set: every Session's note at once.
    pub(crate) fn whole(&mut self, set: Value) {
        self.seen = true;
        match serde_json::from_value::<Inflight>(set) {
            Ok(set) => {
                self.notes.clear();
                set.into_notes()
                    .into_iter()
                    .for_each(|note| self.keep(note));
            }
            Err(e) => tracing::warn!("the whole in-flight notes could not be read: {e}"),
        }
    }

    fn keep(&mut self, note: SessionNote) {
        if note.owes() {
            self.notes.insert(note.session_id.clone(), note);
        } else {
            self.notes.remove(&note.session_id);
        }
    }

    /// Every Session's newest note, as the writer carries them.
    pub(crate) fn into_bytes(self) -> io::Result<BTreeMap<String, Vec<u8>>> {
        self.notes
            .into_iter()
            .map(|(id, note)| Ok((id, NoteBytes::new(&note)?.json)))
            .collect()
    }

    /// The notes gathered, or `None` when the journal held none.
    pub(crate) fn into_inflight(self) -> Option<Inflight> {
        self.seen.then(|| Inflight::from_notes(self.notes.values()))
    }
}
