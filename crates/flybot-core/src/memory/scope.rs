//! Who reads and writes which scope (#53, #1445): a Bot reads its own
//! entries and the team scope, and of the team scope only what came from its
//! own owner's side (`teamAllowedFrom`): an entry by another owner's Bot or
//! by another member never reaches it. A run Bot writes only its own scope.

use super::{MemoryEntry, Scope};
use crate::workflow::run_bot::NOT_A_TEAM_MEMBER;
use flybot_protocol::ApiError;
use flybot_protocol::state::{Bot, TeamState};

/// The owner behind an author id (a Bot's owner, or the member itself);
/// a deleted Bot's entries keep no owner and so reach no one.
fn owner_of<'a>(state: &'a TeamState, author: &'a str) -> Option<&'a str> {
    match state.bots.get(author) {
        Some(bot) => Some(bot.owner_id.as_str()),
        None => state.members.contains_key(author).then_some(author),
    }
}

/// Whether a team-scope entry by `author` may reach a reader owned by
/// `reader_owner` (#53 `teamAllowedFrom`). With no members at all the host
/// has one person, and every entry is theirs.
pub fn team_allowed_from(state: &TeamState, author: &str, reader_owner: &str) -> bool {
    if state.members.is_empty() {
        return true;
    }
    owner_of(state, author) == Some(reader_owner)
}

/// The team scope's entries `reader` may read, in order.
pub fn team_entries_for(
    state: &TeamState,
    reader: &Bot,
    team: Vec<MemoryEntry>,
) -> Vec<MemoryEntry> {
    team.into_iter()
        .filter(|e| team_allowed_from(state, &e.by, &reader.owner_id))
        .collect()
}

/// Where `writer` may save: its own scope always; the team scope unless it
/// is a run Bot (#1445: not a team member).
pub fn writable_scope(writer: &Bot, team: bool) -> Result<Scope, ApiError> {
    if !team {
        return Ok(Scope::bot(&writer.id));
    }
    if writer.run {
        return Err(ApiError::forbidden(NOT_A_TEAM_MEMBER));
    }
    Ok(Scope::Team)
}

#[cfg(test)]
mod tests {
    use super::*;
    use flybot_protocol::state::Member;

    fn bot(id: &str, owner: &str) -> Bot {
        Bot::new(id, id, owner, "mock", format!("s-{id}"), 0)
    }

    fn entry(by: &str) -> MemoryEntry {
        MemoryEntry {
            id: format!("mem-{by}"),
            topic: "t".into(),
            by: by.into(),
            at: 0,
            text: "x".into(),
        }
    }

    #[test]
    /// Rule #53.
    fn team_allowed_from_keeps_another_owner_s_entries_out_of_the_team_scope() {
        let mut state = TeamState::default();
        for member in ["m-ada", "m-bo"] {
            let member = Member {
                id: member.into(),
                name: member.into(),
                created_at: 0,
                extra: Default::default(),
            };
            state.members.insert(member.id.clone(), member);
        }
        let ada_bot = bot("bot-ada", "m-ada");
        state.bots.insert(ada_bot.id.clone(), ada_bot.clone());
        state.bots.insert("bot-bo".into(), bot("bot-bo", "m-bo"));
        let team = vec![
            entry("bot-ada"),
            entry("bot-bo"),
            entry("m-ada"),
            entry("m-bo"),
            entry("bot-gone"),
        ];
        let read: Vec<String> = team_entries_for(&state, &ada_bot, team)
            .into_iter()
            .map(|e| e.by)
            .collect();
        assert_eq!(read, vec!["bot-ada", "m-ada"]);
    }

    #[test]
    /// Rule #1445.
    fn a_run_bot_writes_only_its_own_scope() {
        let mut run = bot("bot-run", "m-ada");
        run.run = true;
        assert_eq!(writable_scope(&run, false).unwrap(), Scope::bot("bot-run"));
        assert_eq!(
            writable_scope(&run, true).unwrap_err().message,
            NOT_A_TEAM_MEMBER
        );
    }
}
