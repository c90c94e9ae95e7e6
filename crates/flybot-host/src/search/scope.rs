//! What a caller may search: the same conversations it may read. A Bot's
//! own chat when `visibility::own_chat_open` lets it in (never a run
//! Bot's), as the chat's `messages` does; a room from the start of its
//! membership window (`rooms::participants::window_start`, #50), as the
//! room's `messages` does. Everything else is out of scope and never
//! answers, whatever the index holds.

use flybot_core::access::Actor;
use flybot_core::rooms::participants::{participants_of, window_start};
use flybot_core::visibility::own_chat_open;
use flybot_protocol::answers::SearchPlace;
use flybot_protocol::state::TeamState;
use std::collections::{BTreeMap, HashMap};

/// The index's key of a Bot's own chat.
pub(crate) fn chat_key(session_id: &str) -> String {
    format!("chat:{session_id}")
}

/// The index's key of a room.
pub(crate) fn room_key(room_id: &str) -> String {
    format!("room:{room_id}")
}

/// A conversation in scope, as a hit names it.
#[derive(Debug, Clone)]
pub(crate) struct Place {
    pub kind: SearchPlace,
    /// The Bot's id (a chat) or the room's.
    pub id: String,
    pub name: String,
}

/// The caller's scope: index key → the first seq it may read there, and
/// each key's place.
pub(crate) fn scope_of(
    state: &TeamState,
    actor: &Actor,
) -> (BTreeMap<String, u64>, HashMap<String, Place>) {
    let mut windows = BTreeMap::new();
    let mut places = HashMap::new();
    for bot in state.bots.values() {
        if bot.run || !own_chat_open(state, actor, bot) {
            continue;
        }
        let key = chat_key(&bot.session_id);
        windows.insert(key.clone(), 0);
        let place = Place {
            kind: SearchPlace::Chat,
            id: bot.id.clone(),
            name: bot.name.clone(),
        };
        places.insert(key, place);
    }
    let member = actor.member_id(state).unwrap_or_default();
    for room in state.rooms.values() {
        let Some(start) = window_start(state, &participants_of(room), &member) else {
            continue;
        };
        let key = room_key(&room.id);
        windows.insert(key.clone(), start);
        let place = Place {
            kind: SearchPlace::Room,
            id: room.id.clone(),
            name: room.name.clone(),
        };
        places.insert(key, place);
    }
    (windows, places)
}
