//! Puts the writes a core roster or approval rule answered
//! (`flybot_core::roster::RosterWrites`) into one change, in their order:
//! the one place both the host's endpoints and the agent's tools apply them.

use crate::change::Change;
use flybot_core::roster::{RosterWrite, RosterWrites};
use serde::Serialize;

impl Change<'_> {
    /// Writes every record of `writes`, in order.
    pub fn apply_roster(&mut self, writes: &RosterWrites) {
        for write in writes.iter() {
            match write {
                RosterWrite::PutBot(bot) => self.put_bot(bot),
                RosterWrite::RemoveBot(id) => self.remove_bot(id),
                RosterWrite::PutRoom(room) => self.put_room(room),
                RosterWrite::PutTask(task) => self.put_task(task),
                RosterWrite::SetGrants { bot_id, grants } => self.set_grants(bot_id, grants),
                RosterWrite::RetireSession { session_id, bot_id } => {
                    self.put_retired_session(session_id, bot_id);
                }
                RosterWrite::SetMainBotIds(ids) => self.set_main_bot_ids(ids),
                RosterWrite::SetDesignatedChief(id) => self.set_designated_chief_id(id.as_deref()),
                RosterWrite::PutToolApproval(record) => {
                    self.put_approval_record(&record.id, record)
                }
                RosterWrite::PutHeldSend(record) => self.put_approval_record(&record.id, record),
                RosterWrite::PutInvitation(invitation) => self.put_invitation(invitation),
                RosterWrite::RemoveAuthSession(id) => self.remove_auth_session(id),
                RosterWrite::RemoveMember(id) => self.remove_member(id),
            }
        }
    }

    /// Writes a typed approval record into `state.flybot.approvals`.
    fn put_approval_record(&mut self, id: &str, record: &impl Serialize) {
        // Records are plain data; serialising them cannot fail.
        if let Ok(value) = serde_json::to_value(record) {
            self.put_approval(id, &value);
        }
    }
}
