//! Turn-taking in a running round: the next member turn, the routed-round
//! skip, the `fallbackDue` forced turn, and each reply as the round records
//! it.

use super::super::mentions::{calls, is_pass};
use super::{Round, Slot, SlotOutcome};

/// A member's reply as the round reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply<'a> {
    Line(&'a str),
    Stopped,
    Failed,
}

/// The turn the host runs next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnCall {
    pub bot_id: String,
    pub forced: bool,
    pub addressed: bool,
    pub by: Option<String>,
}

impl Round {
    /// The next member turn, or `None` when the round is over. Slots the
    /// routed-round rule ends are recorded as skipped without a turn.
    pub fn next_turn(&mut self) -> Option<TurnCall> {
        if let Some(slot) = self.current.take() {
            self.finish(slot, SlotOutcome::Failed);
        }
        self.drain_calls();
        while let Some(slot) = self.queue.pop_front() {
            let routed_over = self.routed && self.answered && !slot.addressed && slot.by.is_none();
            if routed_over {
                self.finish(slot, SlotOutcome::Skipped);
                continue;
            }
            let call = TurnCall {
                bot_id: slot.bot_id.clone(),
                forced: slot.forced,
                addressed: slot.addressed,
                by: slot.by.clone(),
            };
            *self.turns.entry(slot.bot_id.clone()).or_insert(0) += 1;
            self.current = Some(slot);
            return Some(call);
        }
        if self.fallback_due() {
            self.fallback_used = true;
            let first = self
                .slots
                .iter()
                .find(|s| s.outcome == Some(SlotOutcome::Passed))
                .map(|s| s.bot_id.clone())?;
            *self.turns.entry(first.clone()).or_insert(0) += 1;
            self.current = Some(Slot {
                bot_id: first.clone(),
                addressed: false,
                by: None,
                forced: true,
                outcome: None,
            });
            return Some(TurnCall {
                bot_id: first,
                forced: true,
                addressed: false,
                by: None,
            });
        }
        None
    }

    /// `fallbackDue`: every Bot passed on the owner's own line.
    pub fn fallback_due(&self) -> bool {
        self.owner_line
            && !self.fallback_used
            && !self.answered
            && self.queue.is_empty()
            && self
                .slots
                .iter()
                .any(|s| s.outcome == Some(SlotOutcome::Passed))
            && self.slots.iter().all(|s| {
                matches!(
                    s.outcome,
                    Some(SlotOutcome::Passed) | Some(SlotOutcome::Skipped)
                )
            })
    }

    fn finish(&mut self, mut slot: Slot, outcome: SlotOutcome) {
        slot.outcome = Some(outcome);
        self.slots.push(slot);
    }

    /// Records the running member's reply. Answers whether it posts a line
    /// (a pass, a stop and a failure post nothing of the member's own).
    pub fn record(&mut self, bot_id: &str, reply: Reply<'_>) -> bool {
        let Some(slot) = self.current.take().filter(|s| s.bot_id == bot_id) else {
            return false;
        };
        match reply {
            Reply::Line(text) if is_pass(text) => {
                self.finish(slot, SlotOutcome::Passed);
                false
            }
            Reply::Line(text) => {
                self.answered = true;
                self.finish(slot, SlotOutcome::Answered);
                for id in calls(text, &self.setup.order).ids {
                    self.calls.push((bot_id.to_string(), id));
                }
                true
            }
            Reply::Stopped => {
                self.finish(slot, SlotOutcome::Stopped);
                false
            }
            Reply::Failed => {
                self.finish(slot, SlotOutcome::Failed);
                false
            }
        }
    }

    /// Ends the running member's slot as a pass without its turn: the
    /// member's open card already says what the Bot's @ asked
    /// (`boardCoversCue`, #1109). Answers whether `bot_id` was running.
    pub fn pass_covered(&mut self, bot_id: &str) -> bool {
        let Some(slot) = self.current.take().filter(|s| s.bot_id == bot_id) else {
            return false;
        };
        self.finish(slot, SlotOutcome::Passed);
        true
    }

    /// The turn running when the round was noted: after a restart the host
    /// finishes that member's cut turn before it asks `next_turn` again.
    pub fn running_call(&self) -> Option<TurnCall> {
        self.current.as_ref().map(|slot| TurnCall {
            bot_id: slot.bot_id.clone(),
            forced: slot.forced,
            addressed: slot.addressed,
            by: slot.by.clone(),
        })
    }

    /// The member speaking now.
    pub fn speaking(&self) -> Option<&str> {
        self.current.as_ref().map(|s| s.bot_id.as_str())
    }

    /// Members queued after the one speaking, in order.
    pub fn queued(&self) -> Vec<String> {
        self.queue.iter().map(|s| s.bot_id.clone()).collect()
    }

    /// Members who answered so far (for the route note).
    pub fn answered_by(&self) -> Vec<String> {
        self.slots
            .iter()
            .filter(|s| s.outcome == Some(SlotOutcome::Answered))
            .map(|s| s.bot_id.clone())
            .collect()
    }
}
