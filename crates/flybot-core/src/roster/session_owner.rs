//! Whose a Session is (#1453): a live Bot's own chat, a Bot's seat in a
//! room, or a Session of a Bot that was deleted, read from
//! `state.retiredSessions`. A live Bot or room holding the id wins over
//! the retired record, which only fills what the live indexes do not claim.

use flybot_protocol::state::TeamState;

/// The owner a Session id resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionOwner {
    /// A live Bot's own chat or its seat in a room.
    Live { bot_id: String },
    /// A Session of a Bot that was deleted: the Bot it worked for.
    Retired { bot_id: String },
    /// An id no Bot ever had.
    Unknown,
}

impl SessionOwner {
    /// The Bot the Session works (or worked) for.
    pub fn bot_id(&self) -> Option<&str> {
        match self {
            SessionOwner::Live { bot_id } | SessionOwner::Retired { bot_id } => Some(bot_id),
            SessionOwner::Unknown => None,
        }
    }
}

/// Resolves `session_id`: the live indexes first, then the retired record.
pub fn session_owner(state: &TeamState, session_id: &str) -> SessionOwner {
    let own = state
        .bots
        .values()
        .find(|bot| bot.session_id == session_id)
        .map(|bot| bot.id.clone());
    let seat = || {
        state.rooms.values().find_map(|room| {
            room.sessions
                .iter()
                .find(|(_, s)| *s == session_id)
                .map(|(bot, _)| bot.clone())
        })
    };
    if let Some(bot_id) = own.or_else(seat) {
        return SessionOwner::Live { bot_id };
    }
    match state.retired_sessions.get(session_id) {
        Some(bot_id) => SessionOwner::Retired {
            bot_id: bot_id.clone(),
        },
        None => SessionOwner::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flybot_protocol::state::Bot;

    #[test]
    /// Rule #1453.
    fn a_deleted_bots_session_still_names_its_bot_and_a_live_one_wins() {
        let mut state = TeamState::default();
        state
            .retired_sessions
            .insert("s-old".into(), "bot-gone".into());
        assert_eq!(
            session_owner(&state, "s-old"),
            SessionOwner::Retired {
                bot_id: "bot-gone".into()
            }
        );
        assert_eq!(session_owner(&state, "s-never"), SessionOwner::Unknown);
        // A live Bot holding the same id wins over the record.
        let bot = Bot::new("bot-live", "Live", "m", "mock", "s-old", 1);
        state.bots.insert(bot.id.clone(), bot);
        assert_eq!(
            session_owner(&state, "s-old"),
            SessionOwner::Live {
                bot_id: "bot-live".into()
            }
        );
    }
}
