//! Which lines of a log the index holds, as index lines: what a person or
//! a Bot said. A chat's tool calls, steps and turn ends, a room's claims
//! and events, and the host's own lines (a pickup, a round handing a seat
//! its turn) are not searched.

use flybot_agent::session::{LogEntry, SessionEvent, Source};
use flybot_core::rooms::log::{LineKind, RoomLine};
use flybot_store::search::IndexedLine;

/// A chat's lines after `cursor`, and the seq the index is then caught up
/// to (the last entry read, indexed or not).
pub(super) fn of_chat(entries: &[LogEntry], bot_id: &str, cursor: u64) -> (Vec<IndexedLine>, u64) {
    let mut through = cursor;
    let mut lines = Vec::new();
    for entry in entries.iter().filter(|e| e.seq > cursor) {
        through = through.max(entry.seq);
        let said = match &entry.event {
            SessionEvent::UserMessage { text, source, .. } => {
                author_of(source).map(|author| (author, text))
            }
            SessionEvent::AssistantMessage { text, .. } => Some((bot_id.to_owned(), text)),
            SessionEvent::TurnStart { .. }
            | SessionEvent::StepStart { .. }
            | SessionEvent::StepEnd { .. }
            | SessionEvent::ToolCall { .. }
            | SessionEvent::ToolResult { .. }
            | SessionEvent::TurnEnd { .. } => None,
        };
        if let Some((author, text)) = said.filter(|(_, text)| !text.trim().is_empty()) {
            lines.push(IndexedLine {
                seq: entry.seq,
                at: entry.at,
                author,
                text: text.clone(),
            });
        }
    }
    (lines, through)
}

/// Who wrote a line that came in: a person, another Bot, a schedule, a
/// channel; `None` for the host's own lines.
fn author_of(source: &Source) -> Option<String> {
    match source {
        Source::User { member_id } => Some(member_id.clone().unwrap_or_default()),
        Source::Bot { bot_id, .. } => Some(bot_id.clone()),
        Source::Schedule { .. } | Source::Connector { .. } => Some(String::new()),
        Source::Friend { home, .. } => Some(home.clone()),
        Source::Host | Source::Round { .. } => None,
    }
}

/// A room's said lines after `cursor`, and the seq it is then caught up to.
pub(super) fn of_room(shown: &[RoomLine], cursor: u64) -> (Vec<IndexedLine>, u64) {
    let mut through = cursor;
    let mut lines = Vec::new();
    for line in shown.iter().filter(|l| l.seq > cursor) {
        through = through.max(line.seq);
        let said = match line.kind {
            LineKind::Chat => true,
            LineKind::Claim | LineKind::Event => false,
        };
        if said && !line.text.trim().is_empty() {
            lines.push(IndexedLine {
                seq: line.seq,
                at: line.at,
                author: line.author_id.clone(),
                text: line.text.clone(),
            });
        }
    }
    (lines, through)
}
