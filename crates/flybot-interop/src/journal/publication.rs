//! Publication of Bot B's replies onto the card, journaled (#198: "persist
//! send intent before the remote call and its observed outcome
//! afterward"): the host writes the intent of publishing a question or a
//! result (naming its event) before the card moves and the card's status
//! after. A crash between the reply reaching the room and the card move
//! leaves the reply unpublished or the intent without an outcome; the host
//! settles either against its own board at start, so the move is made
//! once: never twice, never lost.

use super::records::{Reconciliation, SendObservation, SendOperation};
use super::{Journal, Result};
use crate::envelope::EnvelopeKind;

/// A reply of Bot B's the host has still to publish onto the card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Publication {
    pub event_id: String,
    pub kind: EnvelopeKind,
    /// The reply's selected text.
    pub text: String,
    /// An intent with no outcome (a crash between it and the move).
    pub open_send: Option<u64>,
}

impl Journal {
    /// Bot B's latest question or result not yet published onto the card
    /// (none once a publication of it has an outcome, or after a cancel).
    pub fn pending_publication(&self, task_id: &str) -> Option<Publication> {
        let task = self.state.task(task_id)?;
        if task.closed || task.cancel.cancel.is_some() {
            return None;
        }
        let (event_id, kind, text) = task.reply.clone()?;
        let mut open_send = None;
        for (id, send) in &self.state.sends {
            if send.task_id != task_id
                || send.operation != SendOperation::PublishResult
                || send.digest.as_deref() != Some(event_id.as_str())
            {
                continue;
            }
            let settled = matches!(send.observed, Some(SendObservation::Accepted { .. }))
                || matches!(send.reconciled, Some(Reconciliation::Matched { .. }));
            if settled {
                return None;
            }
            if send.observed.is_none() && send.reconciled.is_none() {
                open_send = Some(*id);
            }
        }
        Some(Publication {
            event_id,
            kind,
            text,
            open_send,
        })
    }

    /// The intent of publishing `event_id`, written before the card moves.
    pub fn begin_publication(&mut self, task_id: &str, event_id: &str, now_ms: u64) -> Result<u64> {
        self.begin_send(
            task_id,
            SendOperation::PublishResult,
            None,
            Some(event_id.to_owned()),
            now_ms,
        )
    }

    /// The card's status after the publication (`card:<status>`).
    pub fn finish_publication(
        &mut self,
        send_id: u64,
        card_status: &str,
        now_ms: u64,
    ) -> Result<()> {
        self.finish_send(
            send_id,
            SendObservation::Accepted {
                remote_ref: Some(format!("card:{card_status}")),
            },
            now_ms,
        )
    }

    /// A publication intent the board shows was never carried out.
    pub fn publication_not_made(&mut self, send_id: u64, reason: &str, now_ms: u64) -> Result<()> {
        self.finish_send(
            send_id,
            SendObservation::Refused {
                reason: reason.to_owned(),
            },
            now_ms,
        )
    }
}
