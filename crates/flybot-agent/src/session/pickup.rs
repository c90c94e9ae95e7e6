//! Pickup after a restart (the resume rules): the turns the in-flight notes
//! noted as running and the input noted as delivered but not taken. A noted
//! turn is picked up once only if a restart really cut it: its `turn/end` is
//! `interrupted`, or it has no end and no later `turn/start`. A turn that
//! ended any other way is not repeated. A noted turn whose `turn/start`
//! never reached the log is owed its input itself (a person's line, a
//! room's turn), not a generic note. A pickup is at-least-once: its note
//! stays (as queued input) until a new turn takes it. Every noted Session's
//! note is written again from what it owes after the pickup, so a turn that
//! was not cut is forgotten and never picked up at a later start.

use super::event::{EndReason, LogEntry, SessionEvent, Source};
use super::inbox::{InboxItem, ItemKind};
use super::runtime::Sessions;
use flybot_core::sync::lock;
use flybot_store::inflight::{TurnNote, read_inflight};
use flybot_store::turn_log::Urgency;
use std::collections::BTreeSet;
use std::io;

/// The text of a picked-up turn's input.
pub const PICKUP_TEXT: &str = "The host restarted while your last turn was running, so that turn was cut. Continue it from where it stopped.";

/// What a start picked up.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pickup {
    /// Sessions whose cut turn was picked up.
    pub turns: Vec<String>,
    /// Queued items handed back to their Sessions.
    pub queued: usize,
}

/// Whether the noted turn was cut by the restart.
pub fn was_cut(entries: &[LogEntry], turn_id: &str) -> bool {
    let Some(start) = entries
        .iter()
        .position(|e| matches!(&e.event, SessionEvent::TurnStart { turn_id: id } if id == turn_id))
    else {
        // The turn never reached the log: its input is still owed.
        return true;
    };
    for entry in &entries[start + 1..] {
        match &entry.event {
            SessionEvent::TurnEnd {
                turn_id: id,
                reason,
                ..
            } if id == turn_id => {
                return matches!(reason, EndReason::Interrupted);
            }
            SessionEvent::TurnStart { .. } => return false,
            _ => {}
        }
    }
    true
}

/// A noted turn's input items, those this build can read.
fn noted_input(items: &[serde_json::Value]) -> Vec<InboxItem> {
    items
        .iter()
        .filter_map(|item| serde_json::from_value(item.clone()).ok())
        .collect()
}

impl Sessions {
    /// Reads the in-flight notes and picks up what they owe. Call once at start,
    /// before any new input.
    pub fn pick_up(&self) -> io::Result<Pickup> {
        // The journal a crash left is replayed first.
        self.turn_log().open()?;
        let notes = read_inflight(self.home());
        let mut pickup = Pickup::default();
        for note in &notes.turns {
            if self.pick_up_turn(note)? {
                pickup.turns.push(note.session_id.clone());
            }
        }
        for note in &notes.queued {
            let Ok(item) = serde_json::from_value::<InboxItem>(note.item.clone()) else {
                tracing::warn!("a queued note of {} could not be read", note.session_id);
                continue;
            };
            let cell = self.cell(&note.session_id)?;
            let mut state = lock(&cell.state);
            if state.inbox.items().all(|queued| queued.id != item.id) {
                state.inbox.push(item);
                pickup.queued += 1;
            }
        }
        let sessions: BTreeSet<String> = notes
            .turns
            .iter()
            .map(|n| n.session_id.clone())
            .chain(notes.queued.iter().map(|n| n.session_id.clone()))
            .collect();
        // Every noted Session's note again, from what it owes now: a turn
        // that was not cut is forgotten. Durable before any new input: the
        // interrupted ends ride along.
        let cells = sessions
            .iter()
            .map(|id| self.cell(id))
            .collect::<io::Result<Vec<_>>>()?;
        for cell in &cells {
            cell.note_inflight(Urgency::Soon);
        }
        if let Err(e) = self.turn_log().write_durable(Vec::new(), None) {
            tracing::warn!("the in-flight notes after the pickup are not durable: {e}");
        }
        for cell in cells {
            self.start(cell);
        }
        Ok(pickup)
    }

    /// Picks up one noted turn if a restart cut it; answers whether it did.
    fn pick_up_turn(&self, note: &TurnNote) -> io::Result<bool> {
        let cell = self.cell(&note.session_id)?;
        let entries = cell.with_log(|log| log.suffix(0))?;
        if !was_cut(&entries, &note.turn_id) {
            return Ok(false);
        }
        let has_start = entries.iter().any(
            |e| matches!(&e.event, SessionEvent::TurnStart { turn_id } if turn_id == &note.turn_id),
        );
        let ended = entries.iter().any(|e| {
            matches!(&e.event, SessionEvent::TurnEnd { turn_id, .. } if turn_id == &note.turn_id)
        });
        drop(entries);
        if has_start && !ended {
            let end = SessionEvent::TurnEnd {
                turn_id: note.turn_id.clone(),
                reason: EndReason::Interrupted,
                calls: 0,
            };
            cell.append(self.now_ms(), vec![end], Urgency::Soon)?;
        }
        let input = noted_input(&note.items);
        let mut state = lock(&cell.state);
        if has_start || input.is_empty() {
            // The input is in the log: the pickup goes on from it; a room's
            // turn goes on as the room's, so its round reads the answer.
            let source = input
                .iter()
                .map(|i| i.source.clone())
                .find(|s| matches!(s, Source::Round { .. }))
                .unwrap_or(Source::Host);
            let id = self.new_id("msg");
            state.inbox.push(InboxItem {
                id,
                text: PICKUP_TEXT.to_owned(),
                source,
                kind: ItemKind::NextTurn,
                attachments: Vec::new(),
            });
        } else {
            // The turn never reached the log: its input itself is owed.
            for mut item in input {
                if state.inbox.items().all(|queued| queued.id != item.id) {
                    item.kind = ItemKind::NextTurn;
                    state.inbox.push(item);
                }
            }
        }
        drop(state);
        Ok(true)
    }
}
