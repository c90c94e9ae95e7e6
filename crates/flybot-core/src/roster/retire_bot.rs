//! Retiring a Bot (#638, #1700): the record, its chat and history stay, and
//! it is marked `retired` and hidden from the default list. Retirement is
//! terminal: a retired Bot is refused like an unknown one. A Main Bot is
//! refused (it must leave the Main list first, by `set-main` replacing it).

use super::managed_bot_for;
use crate::access::Actor;
use flybot_protocol::ApiError;
use flybot_protocol::state::{Bot, TeamState};

/// The Bot `id` as retiring leaves it, to be written; or the refusal.
pub fn retire_bot(state: &TeamState, actor: &Actor, id: &str, now: u64) -> Result<Bot, ApiError> {
    let bot = managed_bot_for(state, actor, id, "retire it")?;
    if bot.is_retired() {
        return Err(ApiError::not_found("Bot", id));
    }
    if state.main_bot_ids.iter().any(|main| main == id) {
        return Err(ApiError::invalid(
            "id",
            format!(
                "{} is a Main Bot; make another Bot Main in its place before retiring it.",
                bot.name
            ),
        ));
    }
    let mut retired = bot.clone();
    retired.retired = Some(true);
    retired.hidden = true;
    retired.updated_at = now;
    Ok(retired)
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{member, team};
    use super::*;
    use flybot_protocol::ErrorCode;

    #[test]
    /// Rules #638, #1700.
    fn a_bot_retires_hidden_and_a_second_retire_finds_no_bot() {
        let mut state = team();
        let retired = retire_bot(&state, &member("member-a"), "bot-b", 9).unwrap();
        assert_eq!(
            (retired.retired, retired.hidden, retired.updated_at),
            (Some(true), true, 9)
        );
        state.bots.insert("bot-b".into(), retired);
        let again = retire_bot(&state, &member("member-a"), "bot-b", 10);
        assert_eq!(again.err().map(|e| e.code), Some(ErrorCode::NotFound));
    }

    #[test]
    fn a_main_bot_and_another_members_bot_are_refused() {
        let state = team();
        let main = retire_bot(&state, &member("member-a"), "bot-a", 9);
        assert_eq!(main.err().map(|e| e.code), Some(ErrorCode::Invalid));
        let other = retire_bot(&state, &member("member-b"), "bot-b", 9);
        assert_eq!(other.err().map(|e| e.code), Some(ErrorCode::Forbidden));
    }
}
