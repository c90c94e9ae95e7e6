//! Stopping a journaled task's work (#198, stop and late result): the
//! journaled abort, the refusal of a request the policy never allows, a
//! person's stop of a running turn, and the cancel of a card (the host's
//! `task-cancel`) whether or not a turn runs. `cancel: observed` rests only
//! on a status the runtime reported for the session after the abort.

use super::{JournaledTask, control_observation};
use crate::cancel::{CancelFacet, StopEvidence, TurnKey};
use crate::journal::SendOperation;
use crate::opencode::driver::{DriverSession, TurnEnd};
use crate::opencode::pin::Capability;

/// Where a card's cancel stands in its journal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CancelStand {
    /// The runtime reported the session stopped after the abort (or the
    /// task never had a session, so nothing runs).
    Observed,
    /// Asked and journaled; the runtime has not shown the stop.
    Requested,
}

impl JournaledTask {
    /// The session's abort, its intent and outcome journaled around the
    /// call. `true` when the runtime took it (not yet proof it stopped).
    pub(super) async fn abort(&mut self, session: &DriverSession) -> bool {
        if session.check.blocked(Capability::Abort).is_some() {
            return false;
        }
        let Ok(send) = self.journal.begin_send(
            &self.task_id,
            SendOperation::Abort,
            None,
            None,
            (self.clock)(),
        ) else {
            return false;
        };
        let aborted = session.client.abort(&session.session_id).await;
        let _ = self
            .journal
            .finish_send(send, control_observation(&aborted), (self.clock)());
        aborted.is_ok()
    }

    /// A permission or question the policy does not allow (#198, capability
    /// failure): the deny journaled as its own send, then a journaled
    /// abort, then the runtime's stop awaited. It is not a person's stop:
    /// no cancel is requested and the generation stays.
    pub(super) async fn refuse(
        &mut self,
        session: &DriverSession,
        turn: &TurnKey,
        request_id: &str,
        question: bool,
    ) {
        if let Ok(send) = self.journal.begin_send(
            &self.task_id,
            SendOperation::DenyRequest,
            Some(turn.clone()),
            None,
            (self.clock)(),
        ) {
            let denied = session.deny(request_id, question).await;
            let _ = self
                .journal
                .finish_send(send, control_observation(&denied), (self.clock)());
        }
        // The turn ends refused whether or not the stop shows: the
        // projection reports the permission, not a stop.
        if self.abort(session).await {
            let _ = session.wait_stopped().await;
        }
    }

    /// A person's stop: cancel requested (generation up, turn tombstoned),
    /// the abort journaled, then what the runtime showed.
    pub(super) async fn stop(&mut self, session: &DriverSession) -> TurnEnd {
        let _ = self.journal.request_cancel(&self.task_id, (self.clock)());
        TurnEnd::Stopped {
            observed: self.abort_and_observe(session).await,
        }
    }

    /// The journaled abort, then the runtime's status: `true` only once it
    /// reported the session stopped, its raw status journaled as evidence.
    async fn abort_and_observe(&mut self, session: &DriverSession) -> bool {
        if !self.abort(session).await {
            return false;
        }
        let _ =
            self.journal
                .observe_stop(&self.task_id, StopEvidence::AbortAccepted, (self.clock)());
        let Some(raw_status) = session.wait_stopped().await else {
            return false;
        };
        self.journal
            .observe_stop(
                &self.task_id,
                StopEvidence::RuntimeStopped { raw_status },
                (self.clock)(),
            )
            .unwrap_or(false)
    }

    /// Where this task's cancel stands in the journal.
    pub fn cancel_stand(&self) -> Option<CancelStand> {
        match self.journal.task(&self.task_id)?.cancel.cancel {
            Some(CancelFacet::Observed { .. }) => Some(CancelStand::Observed),
            Some(CancelFacet::Requested { .. }) => Some(CancelStand::Requested),
            None => None,
        }
    }

    /// The card was cancelled (`task-cancel`) while no turn runs on it:
    /// the generation grows and the turn is tombstoned once, then the
    /// session is aborted and its stop awaited. Asked again while only
    /// requested, the abort and the observation are tried again.
    pub async fn cancel(&mut self) -> CancelStand {
        if self.cancel_stand().is_none() {
            let _ = self.journal.request_cancel(&self.task_id, (self.clock)());
        }
        if self.cancel_stand() == Some(CancelStand::Observed) {
            return CancelStand::Observed;
        }
        let Some(session) = self.session.take() else {
            // No session was ever created: nothing runs to stop. A session
            // whose creation has no known outcome stays requested.
            if self.journal.session_creation_unresolved(&self.task_id) {
                return CancelStand::Requested;
            }
            let _ = self.journal.observe_stop(
                &self.task_id,
                StopEvidence::RuntimeStopped {
                    raw_status: "no session was created for this task".to_owned(),
                },
                (self.clock)(),
            );
            return self.cancel_stand().unwrap_or(CancelStand::Requested);
        };
        let observed = self.abort_and_observe(&session).await;
        self.session = Some(session);
        if observed {
            CancelStand::Observed
        } else {
            CancelStand::Requested
        }
    }
}
