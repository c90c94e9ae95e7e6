//! The approvals endpoints' answers (#540, #754, #52): waiting tool
//! approvals and held sends, and what answering one did.

use crate::approval::{Approval, ApprovalRecord, HeldRecord};
use serde::Serialize;

/// `approvals` → `{approvals}`: the actor's own waiting records, oldest
/// first.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalsAnswer {
    pub approvals: Vec<Approval>,
    /// Sends to friends' homes held for the actor's Send or Don't send
    /// (#52, issue 33), oldest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub friend_holds: Vec<crate::social::FriendHold>,
}

/// `approval-answer` → `{approval, released}` for a tool approval (the
/// other asks its standing grant released), `{approval, delivered}` for a
/// held send (whether the released line reached its room).
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum ApprovalAnswered {
    Tool {
        approval: ApprovalRecord,
        released: Vec<String>,
    },
    HeldSend {
        approval: HeldRecord,
        delivered: bool,
    },
}

/// `standing-approval-remove` → `{scope, id, kind, removed}` (#540): the
/// grants of that kind taken off the Bot or the room.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StandingApprovalRemoved {
    pub scope: String,
    pub id: String,
    pub kind: String,
    pub removed: bool,
}
