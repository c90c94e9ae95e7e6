//! Who a task belongs to and who may touch it (#1321): a task's Session is a
//! Bot's own chat (its Session id, stable across parts, #1245) or a room (the
//! room's id). Its owner is the Bot's owner or the room's owner, never a
//! room's seated member; another member's task answers as an unknown one.

use super::refusal::{Refusal, sentences};
use crate::access::{Actor, bot_visible, may_manage_bot, may_manage_room};
use crate::tasks::project_assistant::project_of_session;
use flybot_protocol::schedule::ScheduleTask;
use flybot_protocol::state::TeamState;

/// The chat a task lives on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// A Bot's own chat.
    Bot { bot_id: String, session_id: String },
    /// A room's own Session (the room's id).
    Room { room_id: String },
}

impl Place {
    pub fn session_id(&self) -> &str {
        match self {
            Place::Bot { session_id, .. } => session_id,
            Place::Room { room_id } => room_id,
        }
    }
}

/// Whether `session_id` is a Project assistant's, whose one daily task
/// goes with its Project (#1712): no ordinary task of the owner's list, and
/// no place to put one.
pub fn is_project_digest(state: &TeamState, session_id: &str) -> bool {
    project_of_session(state, session_id).is_some()
}

/// The place a Session id names, if any.
pub fn place_of(state: &TeamState, session_id: &str) -> Option<Place> {
    if let Some(bot) = state
        .bots
        .values()
        .find(|bot| bot.session_id == session_id && !bot.run)
    {
        return Some(Place::Bot {
            bot_id: bot.id.clone(),
            session_id: bot.session_id.clone(),
        });
    }
    state.rooms.get(session_id).map(|room| Place::Room {
        room_id: room.id.clone(),
    })
}

/// Whether the actor's own user owns `place` (#1321).
pub fn owns(state: &TeamState, actor: &Actor, place: &Place) -> bool {
    match place {
        Place::Bot { bot_id, .. } => state
            .bots
            .get(bot_id)
            .is_some_and(|bot| may_manage_bot(actor, bot) && bot_visible(state, actor, bot)),
        Place::Room { room_id } => state
            .rooms
            .get(room_id)
            .is_some_and(|room| may_manage_room(actor, room)),
    }
}

/// The target a create or a move names: `botId` or `roomId`, owned by the
/// actor; anything else is the one unknown-target sentence.
pub fn target_of(
    state: &TeamState,
    actor: &Actor,
    bot_id: Option<&str>,
    room_id: Option<&str>,
) -> Result<Place, Refusal> {
    let place = match (bot_id, room_id) {
        (Some(id), None) => state
            .bots
            .get(id)
            .filter(|b| !b.run && !is_project_digest(state, &b.session_id))
            .map(|bot| Place::Bot {
                bot_id: bot.id.clone(),
                session_id: bot.session_id.clone(),
            }),
        (None, Some(id)) => state.rooms.get(id).map(|room| Place::Room {
            room_id: room.id.clone(),
        }),
        (Some(_), Some(_)) | (None, None) => {
            return Err(Refusal::invalid("botId", sentences::NAME_TARGET));
        }
    };
    place
        .filter(|place| owns(state, actor, place))
        .ok_or_else(|| Refusal::not_found(sentences::NO_SUCH_TARGET))
}

/// The task `id` on `session_id`, the actor's own (#1321): an unknown
/// Session has its sentence; another member's task, or an unknown id, is
/// "No such task." with nothing of the task in it.
pub fn source_of<'s>(
    state: &'s TeamState,
    actor: &Actor,
    session_id: &str,
    id: &str,
) -> Result<&'s ScheduleTask, Refusal> {
    let place = place_of(state, session_id)
        .ok_or_else(|| Refusal::not_found(sentences::NO_SUCH_SESSION))?;
    if !owns(state, actor, &place) {
        return Err(Refusal::not_found(sentences::NO_SUCH_TASK));
    }
    if is_project_digest(state, session_id) {
        return Err(Refusal::not_found(sentences::PROJECT_DIGEST_TASK));
    }
    state
        .schedules
        .get(id)
        .filter(|task| task.session_id == session_id)
        .ok_or_else(|| Refusal::not_found(sentences::NO_SUCH_TASK))
}

/// The Sessions that speak for `bot_id` (#628): its own chat and every
/// room it sits in (a room's tasks are seen by each member).
pub fn bot_sessions(state: &TeamState, bot_id: &str) -> Vec<String> {
    let mut sessions: Vec<String> = state
        .bots
        .get(bot_id)
        .map(|bot| vec![bot.session_id.clone()])
        .unwrap_or_default();
    sessions.extend(
        state
            .rooms
            .values()
            .filter(|room| room.members.iter().any(|m| m == bot_id))
            .map(|room| room.id.clone()),
    );
    sessions
}
