//! Whether an actor may see what a live event names: the same rule the
//! view and the endpoints apply to what it names (#49, #53, issue 29).
//! A card event goes out naming only the cards the actor may open (#1723);
//! a Session's events only where the actor sees the Session (a Bot's own
//! chat is its owner's, a seat is its room's); an approval or a decision
//! only to its owner; a room's events to whoever sees the room (a person
//! seated in it too, #50); a new Bot to whoever sees it. Each rule lives in `flybot_core::visibility`,
//! `access` or `tasks::read`, never here.

use crate::events::HostEvent;
use flybot_core::access::Actor;
use flybot_core::tasks::read::Viewer;
use flybot_core::visibility::{
    approval_visible, bot_seen, decision_visible, room_seen, session_visible,
};
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
    let bot = |bot_id: &str| state.bots.get(bot_id);
    match event {
        // `narrowed` answers card events itself.
        HostEvent::TasksWritten { .. } => false,
        // A Bot's own chat is its owner's; a seat's Session is the room's.
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
            .is_some_and(|room| room_seen(state, actor, room)),
        HostEvent::BotCreated { bot_id, .. } => {
            bot(bot_id).is_some_and(|bot| bot_seen(state, actor, bot))
        }
        // The owner answers an approval; nobody else is asked (#540, #754).
        HostEvent::ApprovalAsked {
            approval_id,
            bot_id,
            ..
        }
        | HostEvent::ApprovalAnswered {
            approval_id,
            bot_id,
        } => approval_visible(state, actor, approval_id, bot_id),
        HostEvent::Decision { bot_id, .. } => {
            bot(bot_id).is_some_and(|bot| decision_visible(actor, bot))
        }
        // Who has a page open is no secret among the members.
        HostEvent::Presence { .. } => true,
    }
}
