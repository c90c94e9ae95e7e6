//! Whether an actor may see what a live event names (#49): a card it may
//! read, a Session of a Bot or room it sees, a Bot it sees.

use crate::events::HostEvent;
use flybot_core::access::{Actor, bot_visible, room_visible};
use flybot_core::tasks::read::task_visible;
use flybot_protocol::state::TeamState;

pub fn visible(state: &TeamState, actor: &Actor, event: &HostEvent) -> bool {
    match event {
        HostEvent::TasksWritten { task_ids } => task_ids.iter().any(|id| {
            state
                .tasks
                .get(id)
                .is_some_and(|task| task_visible(state, actor, task))
        }),
        HostEvent::Work { session_id }
        | HostEvent::TurnEnded { session_id, .. }
        | HostEvent::TextDelta { session_id, .. } => session_visible(state, actor, session_id),
        HostEvent::RoundEnded { room_id }
        | HostEvent::RoomLine { room_id, .. }
        | HostEvent::RoomSpeaking { room_id, .. } => state
            .rooms
            .get(room_id)
            .is_some_and(|room| room_visible(state, actor, room)),
        HostEvent::BotCreated { bot_id, .. }
        | HostEvent::ApprovalAsked { bot_id, .. }
        | HostEvent::ApprovalAnswered { bot_id, .. } => state
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
