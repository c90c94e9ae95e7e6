//! The contract's proposed mock limits, exactly: two concurrent tasks, one
//! in-flight work turn per task, four submitted turns per task (answers and
//! follow-ups included), eight agent-to-agent content messages, twelve
//! progress events and a ten-minute absolute deadline from enrollment.
//! Cancel and its observation use a separate bounded control channel that
//! stays usable after the work budget is spent. Counters live in the
//! journal, so no restart, reconnection or new conversation resets them.
//! Time is an argument.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The limits one deployment enforces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetLimits {
    pub concurrent_tasks: usize,
    pub in_flight_turns_per_task: u32,
    pub turns_per_task: u32,
    pub content_messages: u32,
    pub progress_events: u32,
    pub deadline_ms: u64,
    /// The control channel's own bound (cancel, cancel-observed).
    pub control_messages: u32,
    /// Retransmissions of one turn; they reuse its reservation.
    pub retries_per_turn: u32,
}

/// The contract's proposal.
pub const PROPOSED: BudgetLimits = BudgetLimits {
    concurrent_tasks: 2,
    in_flight_turns_per_task: 1,
    turns_per_task: 4,
    content_messages: 8,
    progress_events: 12,
    deadline_ms: 10 * 60 * 1000,
    control_messages: 16,
    retries_per_turn: 3,
};

/// What one event costs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "charge")]
pub enum Charge {
    /// A new work turn: a turn slot, the in-flight slot and one content
    /// message.
    Turn {
        #[serde(rename = "turnId")]
        turn_id: String,
    },
    /// A content message inside the current turn (question, result,
    /// failure).
    Content,
    Progress,
    Control,
    /// A retransmission of an already reserved turn: no new model call.
    Retry {
        #[serde(rename = "turnId")]
        turn_id: String,
    },
}

/// Which limit refused a charge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(rename_all = "kebab-case")]
pub enum BudgetRefusal {
    #[error("two tasks are already running; finish or cancel one first")]
    ConcurrentTasks,
    #[error("this task already has a work turn in flight")]
    TurnInFlight,
    #[error("this task has used all the work turns its budget allows")]
    Turns,
    #[error("this task has used all the content messages its budget allows")]
    ContentMessages,
    #[error("this task has used all the progress events its budget allows")]
    ProgressEvents,
    #[error("this task passed its budget's deadline")]
    Deadline,
    #[error("this task's control channel is exhausted")]
    ControlMessages,
    #[error("this turn has used its retransmissions")]
    Retries,
    #[error("a retransmission names a turn that holds no reservation")]
    NoReservation,
}

/// One task's durable counters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskBudget {
    pub enrolled_at_ms: u64,
    pub deadline_at_ms: u64,
    pub turns_submitted: u32,
    /// The turn holding the in-flight slot.
    pub in_flight: Option<String>,
    pub content_messages: u32,
    pub progress_events: u32,
    pub control_messages: u32,
    pub retries: BTreeMap<String, u32>,
    pub usage: Usage,
}

/// A new task's budget, if a concurrent slot is free.
pub fn enroll(
    limits: &BudgetLimits,
    active_tasks: usize,
    now_ms: u64,
) -> Result<TaskBudget, BudgetRefusal> {
    if active_tasks >= limits.concurrent_tasks {
        return Err(BudgetRefusal::ConcurrentTasks);
    }
    Ok(TaskBudget {
        enrolled_at_ms: now_ms,
        deadline_at_ms: now_ms.saturating_add(limits.deadline_ms),
        turns_submitted: 0,
        in_flight: None,
        content_messages: 0,
        progress_events: 0,
        control_messages: 0,
        retries: BTreeMap::new(),
        usage: Usage::unknown(),
    })
}

impl TaskBudget {
    /// Whether `charge` fits; nothing changes.
    pub fn check(
        &self,
        limits: &BudgetLimits,
        charge: &Charge,
        now_ms: u64,
    ) -> Result<(), BudgetRefusal> {
        let work_open = || {
            if now_ms >= self.deadline_at_ms {
                Err(BudgetRefusal::Deadline)
            } else {
                Ok(())
            }
        };
        match charge {
            Charge::Turn { .. } => {
                work_open()?;
                if self.in_flight.is_some() {
                    return Err(BudgetRefusal::TurnInFlight);
                }
                if self.turns_submitted >= limits.turns_per_task {
                    return Err(BudgetRefusal::Turns);
                }
                if self.content_messages >= limits.content_messages {
                    return Err(BudgetRefusal::ContentMessages);
                }
                Ok(())
            }
            Charge::Content => {
                work_open()?;
                if self.content_messages >= limits.content_messages {
                    return Err(BudgetRefusal::ContentMessages);
                }
                Ok(())
            }
            Charge::Progress => {
                work_open()?;
                if self.progress_events >= limits.progress_events {
                    return Err(BudgetRefusal::ProgressEvents);
                }
                Ok(())
            }
            // No deadline here: cancel must stay possible after it.
            Charge::Control => {
                if self.control_messages >= limits.control_messages {
                    return Err(BudgetRefusal::ControlMessages);
                }
                Ok(())
            }
            Charge::Retry { turn_id } => {
                work_open()?;
                if self.in_flight.as_deref() != Some(turn_id.as_str()) {
                    return Err(BudgetRefusal::NoReservation);
                }
                if self.retries.get(turn_id).copied().unwrap_or(0) >= limits.retries_per_turn {
                    return Err(BudgetRefusal::Retries);
                }
                Ok(())
            }
        }
    }

    /// Spends `charge` (after `check`, or when replaying the journal).
    pub fn apply(&mut self, charge: &Charge) {
        match charge {
            Charge::Turn { turn_id } => {
                self.turns_submitted += 1;
                self.content_messages += 1;
                self.in_flight = Some(turn_id.clone());
            }
            Charge::Content => self.content_messages += 1,
            Charge::Progress => self.progress_events += 1,
            Charge::Control => self.control_messages += 1,
            Charge::Retry { turn_id } => *self.retries.entry(turn_id.clone()).or_insert(0) += 1,
        }
    }

    /// Frees the in-flight slot when its turn ends (result, failure, a
    /// question suspending it, or a cancel tombstoning it).
    pub fn end_turn(&mut self, turn_id: &str) {
        if self.in_flight.as_deref() == Some(turn_id) {
            self.in_flight = None;
        }
    }

    /// Whether the turn in flight must be aborted now (#198: "exhaustion
    /// pauses new work and starts abort if work is in flight"): the
    /// deadline passed, the content budget has no message left for the
    /// turn's reply (a question, result or failure could never be taken,
    /// so the runtime would work for nothing), or more turns were
    /// submitted than the limit now allows (a lowered limit). `None` with
    /// no turn in flight.
    pub fn exhausted_in_flight(&self, limits: &BudgetLimits, now_ms: u64) -> Option<BudgetRefusal> {
        self.in_flight.as_ref()?;
        if now_ms >= self.deadline_at_ms {
            Some(BudgetRefusal::Deadline)
        } else if self.turns_submitted > limits.turns_per_task {
            Some(BudgetRefusal::Turns)
        } else if self.content_messages >= limits.content_messages {
            Some(BudgetRefusal::ContentMessages)
        } else {
            None
        }
    }

    /// Whether new work is paused: any work limit or the deadline reached.
    /// Exhaustion with a turn in flight means the caller starts an abort.
    pub fn exhausted(&self, limits: &BudgetLimits, now_ms: u64) -> Option<BudgetRefusal> {
        if now_ms >= self.deadline_at_ms {
            Some(BudgetRefusal::Deadline)
        } else if self.turns_submitted >= limits.turns_per_task {
            Some(BudgetRefusal::Turns)
        } else if self.content_messages >= limits.content_messages {
            Some(BudgetRefusal::ContentMessages)
        } else {
            None
        }
    }
}

/// Observed usage. `None` is unknown, and unknown never becomes zero: a
/// sum with an unknown part is unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    pub requests: Option<u64>,
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    /// Cost in millionths of the currency unit.
    pub cost_micros: Option<u64>,
}

impl Usage {
    pub fn unknown() -> Usage {
        Usage {
            requests: None,
            input_tokens: None,
            output_tokens: None,
            cost_micros: None,
        }
    }

    /// The mock model's usage: zero by construction, hence known.
    pub fn mock(requests: u64) -> Usage {
        Usage {
            requests: Some(requests),
            input_tokens: Some(0),
            output_tokens: Some(0),
            cost_micros: Some(0),
        }
    }

    /// The sum; each unknown part stays unknown.
    pub fn plus(self, other: Usage) -> Usage {
        let add = |a: Option<u64>, b: Option<u64>| Some(a?.saturating_add(b?));
        Usage {
            requests: add(self.requests, other.requests),
            input_tokens: add(self.input_tokens, other.input_tokens),
            output_tokens: add(self.output_tokens, other.output_tokens),
            cost_micros: add(self.cost_micros, other.cost_micros),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn in_flight(limits: &BudgetLimits) -> TaskBudget {
        let mut budget = enroll(limits, 0, 0).unwrap_or_else(|e| panic!("{e}"));
        budget.apply(&Charge::Turn {
            turn_id: "t1".into(),
        });
        budget
    }

    #[test]
    fn resource_bounds_a_turn_in_flight_is_funded_while_its_reply_can_be_taken() {
        let budget = in_flight(&PROPOSED);
        assert_eq!(budget.exhausted_in_flight(&PROPOSED, 1), None);
        let mut idle = budget.clone();
        idle.end_turn("t1");
        assert_eq!(
            idle.exhausted_in_flight(&PROPOSED, PROPOSED.deadline_ms),
            None,
            "nothing in flight, nothing to abort"
        );
    }

    #[test]
    fn resource_bounds_the_message_limit_the_turn_limit_and_the_deadline_abort_the_turn_in_flight()
    {
        let budget = in_flight(&PROPOSED);
        let no_reply_left = BudgetLimits {
            content_messages: 1,
            ..PROPOSED
        };
        assert_eq!(
            budget.exhausted_in_flight(&no_reply_left, 1),
            Some(BudgetRefusal::ContentMessages)
        );
        let lowered = BudgetLimits {
            turns_per_task: 0,
            ..PROPOSED
        };
        assert_eq!(
            budget.exhausted_in_flight(&lowered, 1),
            Some(BudgetRefusal::Turns)
        );
        assert_eq!(
            budget.exhausted_in_flight(&PROPOSED, PROPOSED.deadline_ms),
            Some(BudgetRefusal::Deadline)
        );
    }

    #[test]
    fn resource_bounds_a_retry_charges_the_retry_counter_never_a_turn() {
        let mut budget = in_flight(&PROPOSED);
        let retry = Charge::Retry {
            turn_id: "t1".into(),
        };
        budget.apply(&retry);
        assert_eq!(budget.turns_submitted, 1);
        assert_eq!(budget.content_messages, 1);
        assert_eq!(budget.retries.get("t1"), Some(&1));
    }
}
