//! A submitted turn followed to its end (#198, resource bounds): each
//! finished tool call charged as a progress event through the card's
//! inbox, the task's absolute deadline bounding the turn, and a spent
//! budget, a stop or a request the policy never allows aborting the turn
//! in flight, each journaled.

use super::{JournaledTask, blocked, text_envelope};
use crate::cancel::TurnKey;
use crate::envelope::EnvelopeKind;
use crate::journal::{Decision, RefusedBecause};
use crate::opencode::driver::{
    BudgetPoint, DriverSession, Followed, Submitted, TurnEnd, asked_or_refused, no_answer_within,
};
use std::time::Duration;
use tokio::sync::watch;

impl JournaledTask {
    /// Follows a submitted turn to its end: progress charged, the deadline
    /// and the limit bounding it, a stop, a request or a spent budget
    /// aborting it (each journaled).
    pub(super) async fn follow_to_end(
        &mut self,
        session: &DriverSession,
        submitted: Submitted,
        stop: &mut watch::Receiver<bool>,
        limit: Duration,
        request_event: &str,
        turn: &TurnKey,
    ) -> TurnEnd {
        // The task's absolute deadline bounds the turn as much as its limit.
        let deadline_ms = self
            .journal
            .task(&self.task_id)
            .map_or(u64::MAX, |t| t.budget.deadline_at_ms);
        let left = Duration::from_millis(deadline_ms.saturating_sub((self.clock)()));
        let bounded = limit.min(left);
        let followed = session
            .follow(submitted, stop, bounded, &mut |point| match point {
                BudgetPoint::StepDone => self.charge_progress(request_event, turn),
                BudgetPoint::Poll => self.still_funded(),
            })
            .await;
        match followed {
            Followed::End(end) => end,
            Followed::BudgetSpent { reason } => self.spent(session, reason).await,
            Followed::TimedOut { .. } if bounded < limit => {
                let reason = crate::budgets::BudgetRefusal::Deadline.to_string();
                self.spent(session, reason).await
            }
            Followed::StopAsked => self.stop(session).await,
            Followed::RequestAsked {
                permission,
                request_id,
                question,
            } => {
                self.refuse(session, turn, &request_id, question.is_some())
                    .await;
                asked_or_refused(permission, request_id, question)
            }
            Followed::TimedOut { limit_secs } => {
                // The turn's end is the limit whatever the abort did.
                self.abort(session).await;
                no_answer_within(limit_secs)
            }
        }
    }

    /// One finished step of Bot B's turn, charged through the ingress as a
    /// progress event; `Err` with the budget's sentence once refused.
    fn charge_progress(&mut self, request_event: &str, turn: &TurnKey) -> Result<(), String> {
        let charged = self
            .journal
            .task(&self.task_id)
            .map_or(0, |t| t.budget.progress_events);
        let mut envelope = text_envelope(
            EnvelopeKind::Progress,
            &self.task_id,
            format!(
                "{}-p-{}-{}-{}",
                self.task_id,
                turn.generation,
                turn.turn_id,
                charged + 1
            ),
            "a tool call finished".to_owned(),
        );
        envelope.turn_id = Some(turn.turn_id.clone());
        envelope.generation = turn.generation;
        envelope.in_reply_to = Some(request_event.to_owned());
        envelope.input_digest = self.enrolled_digest();
        let record = self.receive(&self.b_to_a(), envelope)?;
        match record.decision {
            Decision::Accepted => Ok(()),
            Decision::Refused(RefusedBecause::Budget { limit }) => Err(limit.to_string()),
            other => Err(format!("the journal refused a progress event: {other:?}")),
        }
    }

    /// Whether the task's budget still funds the turn in flight: `Err`
    /// with the limit's sentence once the deadline passed, the turns
    /// overran a lowered limit, or no content message is left for the
    /// turn's reply.
    fn still_funded(&self) -> Result<(), String> {
        let Some(task) = self.journal.task(&self.task_id) else {
            return Ok(());
        };
        match task
            .budget
            .exhausted_in_flight(&self.journal.state().limits, (self.clock)())
        {
            Some(limit) => Err(limit.to_string()),
            None => Ok(()),
        }
    }

    /// A limit ran out mid-turn: new work pauses (the journal refuses it)
    /// and the turn in flight is aborted, its stop awaited.
    async fn spent(&mut self, session: &DriverSession, reason: String) -> TurnEnd {
        let stopped = self.abort(session).await && session.wait_stopped().await.is_some();
        blocked(format!(
            "budget: {reason}; new work is paused and the turn in flight was aborted{}",
            if stopped {
                ""
            } else {
                " (its stop is not confirmed yet)"
            }
        ))
    }
}
