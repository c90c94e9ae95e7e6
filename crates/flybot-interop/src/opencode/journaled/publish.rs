//! The host's publication of Bot B's replies onto the card, through the
//! task's journal (`crate::journal::publication`): the intent before the
//! card moves, the card's status after, and the settling of a publication
//! a crash cut.

use super::JournaledTask;
use crate::journal::Publication;

impl JournaledTask {
    /// Bot B's latest question or result still to publish onto the card.
    pub fn pending_publication(&self) -> Option<Publication> {
        self.journal.pending_publication(&self.task_id)
    }

    /// Journals the intent of publishing `event_id`; `None` when the task
    /// may not publish (cancelled, closed, uncertain).
    pub fn begin_publication(&mut self, event_id: &str) -> Option<u64> {
        self.journal
            .begin_publication(&self.task_id, event_id, (self.clock)())
            .ok()
    }

    /// Journals the card's status after the publication.
    pub fn finish_publication(&mut self, send_id: u64, card_status: &str) {
        let _ = self
            .journal
            .finish_publication(send_id, card_status, (self.clock)());
    }

    /// Journals that an intent the board shows unmade did not happen.
    pub fn publication_not_made(&mut self, send_id: u64, reason: &str) {
        let _ = self
            .journal
            .publication_not_made(send_id, reason, (self.clock)());
    }
}
