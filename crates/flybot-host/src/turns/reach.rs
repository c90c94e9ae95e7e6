//! `reach()` on delivery (#90): an item with a sender is judged again when a
//! turn takes it — queued, resumed after a restart, or steered in — so a
//! grant revoked while the message waited stops it there.

use super::bot_id_of_session;
use flybot_agent::session::{InboxItem, Source};
use flybot_core::rooms::reach::{Party, Send, SendKind, Verdict, reach};
use flybot_protocol::state::TeamState;

/// The room whose member Session `session_id` is, if any.
fn room_of_session(state: &TeamState, session_id: &str) -> Option<String> {
    state
        .rooms
        .values()
        .find(|room| room.sessions.values().any(|s| s == session_id))
        .map(|room| room.id.clone())
}

/// Whether `item` may still reach the Bot of `session_id`. Only a Bot's
/// message has a sender to judge; a person's line and the host's own items
/// pass. A Session that belongs to no Bot refuses a Bot's message.
pub(crate) fn admits(state: &TeamState, session_id: &str, item: &InboxItem) -> bool {
    let Source::Bot { bot_id, .. } = &item.source else {
        return true;
    };
    let Some(target) = bot_id_of_session(state, session_id) else {
        return false;
    };
    let room_id = room_of_session(state, session_id);
    let kind = if room_id.is_some() {
        SendKind::RoomLine
    } else {
        SendKind::MessageBot
    };
    let verdict = reach(
        state,
        &Send {
            from: Party::Bot(bot_id.clone()),
            to: Party::Bot(target.clone()),
            room_id,
            kind,
        },
    );
    match verdict {
        Verdict::Allow { .. } => true,
        Verdict::Deny(denied) => {
            tracing::warn!(
                "delivery: {bot_id} -> {target} dropped at delivery, reach refused: {denied:?}"
            );
            false
        }
    }
}
