//! Retransmission of a task's reserved turn (#198, resource bounds: "a
//! retransmission uses the same turn reservation and a bounded retry
//! counter; it never buys another model call"): a turn the runtime refused,
//! or one a person decided to retry after `recovery: uncertain`, is sent
//! again with its own journaled words, charged to the turn's retry counter,
//! never as a new turn.

use super::{JournaledTask, blocked};
use crate::cancel::TurnKey;
use crate::journal::{SendObservation, SendOperation};
use crate::opencode::driver::TurnEnd;

/// A reserved turn due to be sent again.
pub(super) struct Due {
    pub turn: TurnKey,
    pub text: String,
    pub request_event: String,
}

impl JournaledTask {
    /// The active turn, when it is due for a retransmission: its last
    /// submission was refused by the runtime (the retry is charged here),
    /// or a retry was charged already (a person's decision). `Err` is the
    /// turn's end when the retry cannot be had.
    pub(super) fn retransmission_due(&mut self) -> Option<Result<Due, TurnEnd>> {
        let exec = self.journal.task(&self.task_id)?;
        let turn = exec.active_turn_key()?;
        let last_submit =
            self.journal.state().sends.values().rfind(|s| {
                s.operation == SendOperation::SubmitTurn && s.turn.as_ref() == Some(&turn)
            });
        let refused = matches!(
            last_submit.and_then(|s| s.observed.as_ref()),
            Some(SendObservation::Refused { .. })
        );
        if !exec.retry_granted && !refused {
            return None;
        }
        let granted = exec.retry_granted;
        let Some(text) = exec.active_turn_text.clone() else {
            return Some(Err(blocked(
                "the reserved turn's words were not kept in the journal, so it cannot be sent again; cancel the card and start a new one",
            )));
        };
        if !granted && let Err(e) = self.journal.retry_turn(&self.task_id, (self.clock)()) {
            return Some(Err(blocked(format!(
                "budget: {e}; the turn the runtime refused is not sent again"
            ))));
        }
        let request_event = self.opener_of(&turn);
        Some(Ok(Due {
            turn,
            text,
            request_event,
        }))
    }

    /// The event that opened `turn` (Bot A's request or answer, `{task}-a-{n}`
    /// for turn `t{n}`): what Bot B's reply to it answers.
    pub(super) fn opener_of(&self, turn: &TurnKey) -> String {
        let number = turn.turn_id.trim_start_matches('t');
        format!("{}-a-{number}", self.task_id)
    }
}
