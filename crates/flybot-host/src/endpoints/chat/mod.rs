//! The conversations: a Bot's own chat (the agent runtime, #642, #1509) and
//! a room's channel (issue 5): `send`, `messages` and `cancel`, and
//! `room-stop` for a whole round, `answer-question` for a room's dock
//! (#550); `search` across them (issue 31).

pub mod own_chat;
pub mod past;
pub mod room_chat;
pub mod room_question;
pub mod room_stop;
pub mod search;

use crate::team::Team;
use flybot_protocol::ApiError;
use flybot_store::{ReadOnlyReason, StoreStatus};

/// A standby on PostgreSQL (issue 35) takes no line into a chat or a room:
/// the turn it would start runs on the leader, and the line would be lost
/// at the next takeover. Refused with the store's read-only sentence.
pub(crate) fn not_on_standby(team: &Team) -> Result<(), ApiError> {
    match team.store().status() {
        StoreStatus::ReadOnly(reason @ ReadOnlyReason::Standby { .. }) => {
            Err(flybot_store::read_only_error(&reason))
        }
        StoreStatus::Writer | StoreStatus::ReadOnly(_) => Ok(()),
    }
}
