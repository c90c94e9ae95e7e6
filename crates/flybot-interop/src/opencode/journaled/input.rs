//! The enrolled request's input binding (#198, `inputDigest`): the request
//! binds the requester's exact input, its criteria, the recipient, the task
//! and the budget. A follow-up goes on only while that input still digests
//! as it did at enrollment; an input edited since needs a new request (the
//! contract: a changed input needs a new version and a new approval).

use super::JournaledTask;
use crate::envelope::Payload;
use crate::envelope::input_scope::{InputScope, input_digest};

impl JournaledTask {
    /// The request payload of the requester's input `text` and its
    /// `inputDigest`, bound to Bot B, this task and the journal's budget.
    pub(super) fn request_input(&self, text: &str) -> (Payload, String) {
        let payload = Payload {
            requirement: Some(text.to_owned()),
            ..Payload::default()
        };
        let scope = InputScope {
            recipient_bot: &self.parties.worker_bot,
            task_id: &self.task_id,
            budget: &self.journal.state().limits,
        };
        let digest = input_digest(&payload, &scope).unwrap_or_else(|| "0".repeat(64));
        (payload, digest)
    }

    /// Whether the requester's input `text` (as a request would carry it)
    /// is the input the enrolled request was made from. Always true before
    /// the request; false once the input, its criteria or its scope changed.
    pub fn input_unchanged(&self, text: &str) -> bool {
        !self.requested() || self.request_input(text).1 == self.enrolled_digest()
    }
}
