//! Cancellation and recovery facets (the contract's "Stop and late
//! result"): a host-owned generation that only grows, tombstoned work
//! turns, `cancel: requested` apart from `cancel: observed`, and
//! `recovery: uncertain` that only a person disposes of. These are facets
//! beside the board status, never values written into it.

use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The work-turn key (taskId, generation, turnId).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnKey {
    pub task_id: String,
    pub generation: u64,
    pub turn_id: String,
}

/// `cancel: requested` or `cancel: observed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "cancel")]
pub enum CancelFacet {
    Requested { generation: u64 },
    Observed { generation: u64 },
}

/// What was seen of the runtime after an abort.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "evidence")]
pub enum StopEvidence {
    /// The abort endpoint answered with success: the request was taken, not
    /// proof that execution stopped.
    AbortAccepted,
    /// The runtime's own status (version-specific) shows the session no
    /// longer running after the abort, with its raw status.
    RuntimeStopped {
        #[serde(rename = "rawStatus")]
        raw_status: String,
    },
    /// The supervised process itself is gone.
    ProcessExited,
}

impl StopEvidence {
    /// Whether this evidence confirms that execution stopped.
    pub fn confirms_stop(&self) -> bool {
        match self {
            StopEvidence::AbortAccepted => false,
            StopEvidence::RuntimeStopped { .. } | StopEvidence::ProcessExited => true,
        }
    }
}

/// A person's decision on an uncertain effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HumanDisposition {
    /// Treat the effect as not having happened and allow one resubmission.
    Resubmit,
    /// Treat the effect as having happened; do not send again.
    AssumeDone,
    /// Give the work up (the board move stays the host's).
    Abandon,
}

/// `recovery: uncertain` until a person disposes of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecoveryFacet {
    /// The raw status last seen, kept as it was.
    pub raw_status: String,
    pub since_ms: u64,
}

/// One task's cancellation state.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelState {
    pub generation: u64,
    pub cancel: Option<CancelFacet>,
    pub tombstones: BTreeSet<TurnKey>,
    pub recovery: Option<RecoveryFacet>,
}

/// How an event's generation and turn stand against the task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Admission {
    Current,
    /// An older generation (or one the host never issued): zero work.
    StaleGeneration,
    /// A late event of a tombstoned turn: kept as diagnostic evidence only.
    Tombstoned,
}

impl CancelState {
    /// Cancel requested: the generation grows, the active turn is
    /// tombstoned, dispatch stops. Returns the new generation.
    pub fn request(&mut self, task_id: &str, active_turn: Option<&str>) -> u64 {
        if let Some(turn_id) = active_turn {
            self.tombstones.insert(TurnKey {
                task_id: task_id.to_owned(),
                generation: self.generation,
                turn_id: turn_id.to_owned(),
            });
        }
        self.generation += 1;
        self.cancel = Some(CancelFacet::Requested {
            generation: self.generation,
        });
        self.generation
    }

    /// `cancel: observed` only on evidence that confirms the stop; an HTTP
    /// success alone leaves it requested. Returns whether it moved.
    pub fn observe(&mut self, evidence: &StopEvidence) -> bool {
        match (self.cancel, evidence.confirms_stop()) {
            (Some(CancelFacet::Requested { generation }), true) => {
                self.cancel = Some(CancelFacet::Observed { generation });
                true
            }
            (Some(CancelFacet::Requested { .. }), false)
            | (Some(CancelFacet::Observed { .. }), _)
            | (None, _) => false,
        }
    }

    pub fn admit(&self, key: &TurnKey) -> Admission {
        if self.tombstones.contains(key) {
            Admission::Tombstoned
        } else if key.generation != self.generation {
            Admission::StaleGeneration
        } else {
            Admission::Current
        }
    }

    pub fn mark_uncertain(&mut self, raw_status: &str, now_ms: u64) {
        if self.recovery.is_none() {
            self.recovery = Some(RecoveryFacet {
                raw_status: raw_status.to_owned(),
                since_ms: now_ms,
            });
        }
    }

    /// Whether new work may be dispatched: no cancel and no uncertainty.
    pub fn dispatch_open(&self) -> bool {
        self.cancel.is_none() && self.recovery.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(generation: u64, turn: &str) -> TurnKey {
        TurnKey {
            task_id: "task-1".into(),
            generation,
            turn_id: turn.into(),
        }
    }

    #[test]
    fn observed_needs_a_request_and_confirming_evidence() {
        let mut state = CancelState::default();
        assert!(
            !state.observe(&StopEvidence::ProcessExited),
            "nothing requested"
        );
        assert_eq!(state.request("task-1", Some("t1")), 1);
        assert!(!state.observe(&StopEvidence::AbortAccepted));
        assert_eq!(state.cancel, Some(CancelFacet::Requested { generation: 1 }));
        assert!(state.observe(&StopEvidence::ProcessExited));
        assert_eq!(state.cancel, Some(CancelFacet::Observed { generation: 1 }));
        assert!(!state.dispatch_open());
    }

    #[test]
    fn tombstones_win_over_generations() {
        let mut state = CancelState::default();
        state.request("task-1", Some("t1"));
        assert_eq!(state.admit(&key(0, "t1")), Admission::Tombstoned);
        assert_eq!(state.admit(&key(0, "t2")), Admission::StaleGeneration);
        assert_eq!(state.admit(&key(2, "t2")), Admission::StaleGeneration);
        assert_eq!(state.admit(&key(1, "t2")), Admission::Current);
    }

    #[test]
    fn uncertainty_keeps_its_first_raw_status() {
        let mut state = CancelState::default();
        state.mark_uncertain("timeout", 5);
        state.mark_uncertain("lost", 6);
        assert_eq!(
            state.recovery.as_ref().map(|r| r.raw_status.as_str()),
            Some("timeout")
        );
        assert!(!state.dispatch_open());
    }
}
