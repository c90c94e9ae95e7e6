//! The deployment-wide Main Bot list (#613).

use crate::access::{Actor, may_manage_bot};
use flybot_protocol::ApiError;
use flybot_protocol::state::TeamState;

/// The Main Bot list after `set-main {id, replace?}`.
///
/// The actor must own `id` and, when `replace` names the Main Bot whose place
/// `id` takes, that Bot too: a member can neither swap another owner's Main
/// Bot for its own nor demote it. Promoting a Bot already in the list changes
/// nothing.
pub fn set_main(
    state: &TeamState,
    actor: &Actor,
    id: &str,
    replace: Option<&str>,
) -> Result<Vec<String>, ApiError> {
    let bot = crate::roster::managed_bot_for(state, actor, id, "make it a Main Bot")?;
    let mut ids = state.main_bot_ids.clone();
    let Some(replace) = replace else {
        if !ids.iter().any(|m| m == id) {
            ids.push(id.to_owned());
        }
        return Ok(ids);
    };
    if !ids.iter().any(|m| m == replace) {
        return Err(ApiError::invalid(
            "replace",
            format!("{replace} is not a Main Bot, so nothing can take its place."),
        ));
    }
    let replaced = state
        .bots
        .get(replace)
        .ok_or_else(|| ApiError::not_found("Bot", replace))?;
    if !may_manage_bot(actor, replaced) || replaced.owner_id != bot.owner_id {
        return Err(ApiError::forbidden(crate::unseen::about_bot(
            state,
            actor,
            replaced,
            |name| {
                format!(
                    "{name} is another member's Main Bot; a Main Bot is replaced only within one owner's team."
                )
            },
        )));
    }
    if replace == id {
        return Ok(ids);
    }
    ids.retain(|m| m != id);
    if let Some(entry) = ids.iter_mut().find(|m| m.as_str() == replace) {
        *entry = id.to_owned();
    }
    Ok(ids)
}

/// The Bots a Main list change demotes: each Main Bot or designated Chief
/// before that is neither after (#52: their waiting sends go stale).
pub fn demoted(state: &TeamState, main_after: &[String], chief_after: Option<&str>) -> Vec<String> {
    let before = state
        .main_bot_ids
        .iter()
        .chain(state.designated_chief_id.as_ref());
    let mut out: Vec<String> = before
        .filter(|id| !main_after.contains(id) && chief_after != Some(id.as_str()))
        .cloned()
        .collect();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use flybot_protocol::state::Bot;

    fn team(main: &[&str]) -> TeamState {
        let mut state = TeamState::default();
        for (id, owner) in [("a1", "ma"), ("a2", "ma"), ("b1", "mb")] {
            state.bots.insert(
                id.into(),
                Bot::new(id, id, owner, "mock", format!("s-{id}"), 1),
            );
        }
        state.main_bot_ids = main.iter().map(|s| s.to_string()).collect();
        state
    }

    fn member(id: &str) -> Actor {
        Actor::Member {
            member_id: id.into(),
            session_id: "s".into(),
        }
    }

    #[test]
    /// Rule #613.
    fn promote_and_swap_within_one_owner() {
        let state = team(&["a1", "b1"]);
        assert_eq!(
            set_main(&state, &member("ma"), "a2", None).unwrap(),
            ["a1", "b1", "a2"]
        );
        assert_eq!(
            set_main(&state, &member("ma"), "a2", Some("a1")).unwrap(),
            ["a2", "b1"]
        );
        assert_eq!(
            set_main(&state, &member("ma"), "a1", Some("a1")).unwrap(),
            ["a1", "b1"]
        );
    }

    #[test]
    /// Rule #613.
    fn swapping_another_owners_main_bot_is_forbidden() {
        let state = team(&["a1", "b1"]);
        let err = set_main(&state, &member("ma"), "a2", Some("b1")).unwrap_err();
        assert_eq!(err.code, flybot_protocol::ErrorCode::Forbidden);
        let err = set_main(&state, &member("ma"), "b1", None).unwrap_err();
        assert_eq!(err.code, flybot_protocol::ErrorCode::Forbidden);
        // The single owner still may not cross owners inside one swap.
        let err = set_main(&state, &Actor::SingleOwner, "a2", Some("b1")).unwrap_err();
        assert_eq!(err.code, flybot_protocol::ErrorCode::Forbidden);
    }
}
