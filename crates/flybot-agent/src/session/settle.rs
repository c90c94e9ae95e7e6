//! The settle window of a person's lines (#642): the first line that arrives
//! with no turn running starts a 1,500 ms window; lines inside it join its
//! text, each on its own line, in arrival order; the window's close opens
//! one turn. A line during a turn flushes the window first.

use super::event::Source;
use super::inbox::{InboxItem, ItemKind};
use super::runtime::{Cell, CellState, Sessions};
use flybot_core::sync::lock;
use std::sync::Arc;
use std::time::Duration;

pub const SETTLE: Duration = Duration::from_millis(1500);

/// Lines held in the window.
pub(crate) struct Held {
    id: String,
    lines: Vec<String>,
    member_id: Option<String>,
}

impl Held {
    pub(crate) fn as_item(&self) -> InboxItem {
        InboxItem {
            id: self.id.clone(),
            text: self.lines.join("\n"),
            source: Source::User {
                member_id: self.member_id.clone(),
            },
            kind: ItemKind::NextTurn,
        }
    }
}

/// Holds `text`; the first line starts the window's timer.
pub(crate) fn hold(
    sessions: &Sessions,
    cell: &Arc<Cell>,
    state: &mut CellState,
    text: &str,
    member_id: Option<String>,
) {
    if let Some(held) = &mut state.held {
        held.lines.push(text.to_owned());
        return;
    }
    let id = sessions.new_id("msg");
    state.held = Some(Held {
        id: id.clone(),
        lines: vec![text.to_owned()],
        member_id,
    });
    let sessions = sessions.clone();
    let cell = cell.clone();
    tokio::spawn(async move {
        tokio::time::sleep(SETTLE).await;
        let flushed = {
            let mut state = lock(&cell.state);
            // A cancel or an earlier flush may have taken the window already.
            if state.held.as_ref().is_some_and(|held| held.id == id) {
                flush(&sessions, &mut state);
                true
            } else {
                false
            }
        };
        if flushed {
            cell.note_inflight(flybot_store::turn_log::Urgency::Soon);
            sessions.start(cell);
        }
    });
}

/// Moves the held lines into the inbox as one next-turn item.
pub(crate) fn flush(_sessions: &Sessions, state: &mut CellState) {
    if let Some(held) = state.held.take() {
        state.inbox.push(held.as_item());
    }
}
