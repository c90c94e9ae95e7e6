//! The team a Bot's system prompt names (issue 29): the other Bots its
//! owner may see (#49, #90: her own, a Bot granted to her, a Bot seated in
//! a room she can see), never another owner's Bot she has no grant or
//! shared room with. Hidden and run Bots are never listed. Before anyone
//! is a member, every Bot is the one person's.

use crate::access::{Actor, bot_visible, host_owner_id};
use flybot_protocol::state::{Bot, TeamState};

/// The names of the Bots `bot`'s prompt lists as its team, in id order.
pub fn team_names(state: &TeamState, bot: &Bot) -> Vec<String> {
    let owner = Actor::Member {
        member_id: bot.owner_id.clone(),
        session_id: String::new(),
    };
    let one_person = host_owner_id(state).is_none();
    state
        .bots
        .values()
        .filter(|b| b.id != bot.id && !b.hidden && !b.run)
        .filter(|b| one_person || bot_visible(state, &owner, b))
        .map(|b| b.name.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::roster::fixture::{bot, team};
    use flybot_protocol::state::Grant;

    #[test]
    fn team_list_29_names_only_bots_the_owner_may_see() {
        let mut state = team();
        state
            .bots
            .insert("bot-z".into(), bot("bot-z", "Zed", "member-b"));
        let ada = state.bots["bot-a"].clone();
        // Rex and Zed are Bob's, in no room of Alice's and not granted.
        assert_eq!(team_names(&state, &ada), vec!["Bo"]);
        let rex = state.bots["bot-rev"].clone();
        assert_eq!(team_names(&state, &rex), vec!["Zed"]);
        // A grant to Alice puts Zed in her Bots' team.
        let grant = Grant {
            grantee: "member-a".into(),
            room_id: None,
        };
        state.grants.insert("bot-z".into(), vec![grant]);
        assert_eq!(team_names(&state, &ada), vec!["Bo", "Zed"]);
        // Before anyone is a member, every Bot is the one person's.
        state.members.clear();
        assert_eq!(team_names(&state, &ada), vec!["Bo", "Rex", "Zed"]);
    }
}
