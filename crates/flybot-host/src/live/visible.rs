//! Whether an actor may see what a live event names (#49): a card it may
//! read, a Session of a Bot or room it sees, a Bot it sees. A card event
//! goes out naming only the cards the actor may open (#1723).

use crate::events::HostEvent;
use flybot_core::access::{Actor, bot_visible, room_visible};
use flybot_core::tasks::read::Viewer;
use flybot_protocol::state::TeamState;
use std::borrow::Cow;

/// The event as `actor` may receive it: a card event narrowed to the cards
/// it may open, any other event whole or not at all.
pub fn narrowed<'e>(
    state: &TeamState,
    actor: &Actor,
    event: &'e HostEvent,
) -> Option<Cow<'e, HostEvent>> {
    if let HostEvent::TasksWritten { task_ids } = event {
        let viewer = Viewer::new(state, actor);
        let open: Vec<String> = task_ids
            .iter()
            .filter(|id| {
                state
                    .tasks
                    .get(id.as_str())
                    .is_some_and(|task| viewer.may_open(state, actor, task))
            })
            .cloned()
            .collect();
        return match open.len() {
            0 => None,
            n if n == task_ids.len() => Some(Cow::Borrowed(event)),
            _ => Some(Cow::Owned(HostEvent::TasksWritten { task_ids: open })),
        };
    }
    visible(state, actor, event).then_some(Cow::Borrowed(event))
}

fn visible(state: &TeamState, actor: &Actor, event: &HostEvent) -> bool {
    match event {
        // `narrowed` answers card events itself.
        HostEvent::TasksWritten { .. } => false,
        HostEvent::Work { session_id }
        | HostEvent::TurnEnded { session_id, .. }
        | HostEvent::TextDelta { session_id, .. }
        | HostEvent::BusyAck {
            session_id,
            room_id: None,
            ..
        }
        | HostEvent::BusyAckCleared { session_id } => session_visible(state, actor, session_id),
        HostEvent::BusyAck {
            room_id: Some(room_id),
            ..
        }
        | HostEvent::RoundEnded { room_id }
        | HostEvent::RoomLine { room_id, .. }
        | HostEvent::RoomSpeaking { room_id, .. } => state
            .rooms
            .get(room_id)
            .is_some_and(|room| room_visible(state, actor, room)),
        HostEvent::BotCreated { bot_id, .. }
        | HostEvent::ApprovalAsked { bot_id, .. }
        | HostEvent::ApprovalAnswered { bot_id, .. }
        | HostEvent::Decision { bot_id, .. } => state
            .bots
            .get(bot_id)
            .is_some_and(|bot| bot_visible(state, actor, bot)),
        // Who has a page open is no secret among the members.
        HostEvent::Presence { .. } => true,
    }
}

/// A Bot's own chat, or a room seat's Session in a room the actor sees.
fn session_visible(state: &TeamState, actor: &Actor, session_id: &str) -> bool {
    state
        .bots
        .values()
        .any(|bot| bot.session_id == session_id && bot_visible(state, actor, bot))
        || state.rooms.values().any(|room| {
            room.sessions.values().any(|s| s == session_id) && room_visible(state, actor, room)
        })
}
