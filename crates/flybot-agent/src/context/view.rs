//! A request's messages from the current part: the system prompt with the
//! part's pinned snapshot, the part's handoff note and newest checkpoint
//! summary, then the part's turns after them, fitted to the window.

use super::parts::PartView;
use super::prompts::PINNED_HEADING;
use crate::model::{ChatMessage, Role, ToolSpec};
use crate::session::LogEntry;
use crate::turn::Window;
use crate::turn::request::{fit_messages, turns_of};

/// The system prompt of a part: the Bot's prompt and its pinned snapshot.
pub fn part_system(system_prompt: &str, view: &PartView) -> String {
    match view.pinned.as_deref().map(str::trim) {
        Some(pinned) if !pinned.is_empty() => {
            format!("{system_prompt}\n\n{PINNED_HEADING}\n{pinned}")
        }
        _ => system_prompt.to_owned(),
    }
}

/// The log entries the part's request still carries in full.
pub fn live_entries<'a>(entries: &'a [LogEntry], view: &PartView) -> &'a [LogEntry] {
    let first = entries.partition_point(|e| e.seq <= view.live_after());
    &entries[first..]
}

fn system(content: String) -> ChatMessage {
    ChatMessage::text(Role::System, content)
}

/// The request's messages for the current part.
pub fn part_messages(
    system_prompt: &str,
    view: &PartView,
    entries: &[LogEntry],
    tools: &[ToolSpec],
    window: Window,
) -> Vec<ChatMessage> {
    let mut turns = turns_of(live_entries(entries, view));
    let mut preamble = Vec::new();
    if let Some(note) = &view.note {
        preamble.push(system(format!(
            "Handoff note: this conversation continues in part {} ({}). What came before:\n{note}",
            view.part,
            view.reason
                .as_deref()
                .unwrap_or("the previous part grew long")
        )));
    }
    if let Some((_, summary)) = &view.checkpoint {
        preamble.push(system(format!(
            "Checkpoint: a summary of the earlier turns of this part:\n{summary}"
        )));
    }
    if !preamble.is_empty() {
        turns.insert(0, preamble);
    }
    fit_messages(&part_system(system_prompt, view), tools, turns, window)
}
