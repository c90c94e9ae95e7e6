//! Which approvals wait on a person right now: tool approvals `waiting`
//! (#540) and held sends pending (#754), by id, with the Bot they belong to
//! and the Session a tool approval's turn runs in.

use flybot_protocol::approval::{Approval, ApprovalStatus, HoldStatus};
use flybot_protocol::state::TeamState;
use std::collections::BTreeMap;

/// Waiting approvals: id → (Bot id, Session id).
pub type Waiting = BTreeMap<String, (String, Option<String>)>;

pub fn waiting(state: &TeamState) -> Waiting {
    state
        .flybot
        .approvals
        .iter()
        .filter_map(|(id, approval)| match approval {
            Approval::Tool(record) if record.status == ApprovalStatus::Waiting => Some((
                id.clone(),
                (record.bot_id.clone(), Some(record.session_id.clone())),
            )),
            Approval::HeldSend(record)
                if matches!(
                    record.held.status,
                    HoldStatus::Pending | HoldStatus::PendingApproval
                ) =>
            {
                Some((id.clone(), (record.held.from_bot.clone(), None)))
            }
            _ => None,
        })
        .collect()
}
