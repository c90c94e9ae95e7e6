//! What an OpenCode turn's end says in the room (#198).

use crate::rooms::participant::TurnOutcome;
use flybot_core::fences::{LineOrigin, authored_line};
use flybot_interop::journal::refused_as_cancelled;
use flybot_interop::opencode::TurnEnd;
use flybot_protocol::FailureCode;

pub(super) fn failed(code: FailureCode, line: String) -> TurnOutcome {
    TurnOutcome::FailedWithLine { code, line }
}

/// The room line for a turn's end. OpenCode's words are a peer's: fenced
/// by origin (every marker inside stripped) before any internal Bot reads
/// them, so nothing in them speaks as this home.
pub fn outcome_of(name: &str, end: &TurnEnd) -> TurnOutcome {
    match end {
        // The first line is the room's; the rest (tool output) is evidence.
        TurnEnd::Text { text, .. } => TurnOutcome::Text(authored_line(
            LineOrigin::Peer,
            name,
            text.lines().next().unwrap_or_default(),
        )),
        TurnEnd::Refused { permission } => failed(
            FailureCode::Refused,
            format!(
                "I asked for {permission}, which this room's policy does not allow; the request was denied and my turn stopped."
            ),
        ),
        TurnEnd::Stopped { .. } => TurnOutcome::Stopped,
        TurnEnd::Failed { detail } => failed(FailureCode::Failed, format!("My turn failed: {detail}.")),
        // A person's stop cancels the card's execution (a new generation,
        // the turn tombstoned): its session takes no more work.
        TurnEnd::Blocked { reason } if refused_as_cancelled(reason) => failed(
            FailureCode::Blocked,
            "My work on this card was stopped, so its session takes no more turns; cancel the card and start a new one to go on.".to_owned(),
        ),
        TurnEnd::Blocked { reason } => failed(FailureCode::Blocked, reason.clone()),
        TurnEnd::Uncertain { detail } => failed(
            FailureCode::Uncertain,
            format!(
                "recovery: uncertain ({detail}); nothing is resubmitted until a person decides."
            ),
        ),
    }
}
