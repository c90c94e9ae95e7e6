//! How a turn ended and what it answered, read from its log entries: the
//! one reading every follower of turn ends shares (a schedule's run, a
//! channel's reply, a friend's answer, a group's handed-out work).

use super::event::{EndReason, LogEntry, SessionEvent};

/// A turn's end and its answer, as its entries record them.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnOutcome {
    /// The reason of the turn's `turn/end`; none while it has not ended.
    pub ended: Option<EndReason>,
    /// The turn's last assistant message with any text that is not blank,
    /// as written.
    pub answer: Option<String>,
}

/// The entries of `turn_id` among `entries`, in order.
pub fn of_turn<'a>(
    entries: &'a [LogEntry],
    turn_id: &'a str,
) -> impl DoubleEndedIterator<Item = &'a LogEntry> {
    entries.iter().filter(move |e| e.event.turn_id() == turn_id)
}

impl TurnOutcome {
    /// Reads the outcome of `turn_id` from `entries`; entries of other
    /// turns are passed over.
    pub fn of(entries: &[LogEntry], turn_id: &str) -> TurnOutcome {
        let ended = of_turn(entries, turn_id).find_map(|e| match &e.event {
            SessionEvent::TurnEnd { reason, .. } => Some(reason.clone()),
            _ => None,
        });
        let answer = of_turn(entries, turn_id)
            .rev()
            .find_map(|e| match &e.event {
                SessionEvent::AssistantMessage { text, .. } if !text.trim().is_empty() => {
                    Some(text.clone())
                }
                _ => None,
            });
        TurnOutcome { ended, answer }
    }

    /// The turn ended as `Completed`.
    pub fn completed(&self) -> bool {
        matches!(self.ended, Some(EndReason::Completed))
    }
}

#[cfg(test)]
#[path = "turn_outcome_tests.rs"]
mod tests;
