//! The writes a roster or approval rule answers: a plain list the host puts
//! into one change, in the order the rule gives, so a journal line records
//! them in the same order a handler used to write them.

use crate::approvals::ApprovalRecord;
use crate::rooms::hold::HeldRecord;
use flybot_protocol::state::{Bot, Grant, Invitation, Room, Task};

/// One record a rule writes; each is one `flybot_store::Change` operation.
#[derive(Debug, Clone, PartialEq)]
pub enum RosterWrite {
    PutBot(Bot),
    RemoveBot(String),
    PutRoom(Room),
    PutTask(Task),
    /// Replaces a Bot's grants; an empty list removes the entry (#90).
    SetGrants {
        bot_id: String,
        grants: Vec<Grant>,
    },
    /// Records a Session of a deleted Bot with its Bot (#1453).
    RetireSession {
        session_id: String,
        bot_id: String,
    },
    SetMainBotIds(Vec<String>),
    SetDesignatedChief(Option<String>),
    /// A tool approval in `state.flybot.approvals` (#540).
    PutToolApproval(ApprovalRecord),
    /// A held send in `state.flybot.approvals` (#52).
    PutHeldSend(HeldRecord),
    PutInvitation(Invitation),
    RemoveAuthSession(String),
    RemoveMember(String),
}

/// The writes of one rule, in order; empty when nothing changes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RosterWrites {
    pub writes: Vec<RosterWrite>,
}

impl RosterWrites {
    pub fn push(&mut self, write: RosterWrite) {
        self.writes.push(write);
    }

    pub fn is_empty(&self) -> bool {
        self.writes.is_empty()
    }

    /// The ids of the cards these writes put, for the board's announcement.
    pub fn task_ids(&self) -> Vec<String> {
        self.writes
            .iter()
            .filter_map(|w| match w {
                RosterWrite::PutTask(task) => Some(task.id.clone()),
                _ => None,
            })
            .collect()
    }

    pub fn iter(&self) -> impl Iterator<Item = &RosterWrite> {
        self.writes.iter()
    }
}

impl Extend<RosterWrite> for RosterWrites {
    fn extend<I: IntoIterator<Item = RosterWrite>>(&mut self, writes: I) {
        self.writes.extend(writes);
    }
}
