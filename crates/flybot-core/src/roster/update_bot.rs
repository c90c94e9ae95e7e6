//! Changing a Bot (`update-bot` on the channel, the `update_bot` tool): a new
//! name (free across the team, without case), model, instructions, queue
//! role (#1247) or `external` record (#198). One rule for both surfaces; each
//! surface finds the Bot its own way (the channel by id for an owner, #49;
//! the tool by name among the caller's owner's Bots, #1700).

use super::{RosterWrite, RosterWrites, managed_bot};
use crate::access::Actor;
use crate::names::{check_bot_name_free, clean_instructions, clean_model, clean_name};
use flybot_protocol::state::{Bot, TeamState};
use flybot_protocol::{ApiError, HarnessId, ThinkingLevel};
use serde_json::Value;

/// What an update changes, each field cleaned; `None` keeps a field.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BotUpdate {
    pub name: Option<String>,
    pub model: Option<String>,
    pub instructions: Option<String>,
    /// A checked `external` record (#198), written as sent.
    pub external: Option<Value>,
    /// A queue role (#1247): `Some(None)` clears it.
    pub role: Option<Option<String>>,
    /// The thinking level its requests ask for.
    pub thinking: Option<ThinkingLevel>,
    /// The harness tier its turns run under (#874); `default` clears it.
    pub harness: Option<HarnessId>,
}

impl BotUpdate {
    /// Cleans the name, model and instructions a surface sent, in that
    /// order; a refused name names `name_field`, the surface's own spelling.
    pub fn clean(
        name_field: &str,
        name: Option<&str>,
        model: Option<&str>,
        instructions: Option<&str>,
    ) -> Result<BotUpdate, ApiError> {
        Ok(BotUpdate {
            name: name.map(|n| clean_name(name_field, n)).transpose()?,
            model: model.map(clean_model).transpose()?,
            instructions: instructions.map(clean_instructions).transpose()?,
            external: None,
            role: None,
            thinking: None,
            harness: None,
        })
    }
}

/// A queue role (#1247): a short name such as `Dev`; empty clears it.
pub fn clean_role(raw: &str) -> Result<Option<String>, ApiError> {
    if raw.trim().is_empty() {
        return Ok(None);
    }
    clean_name("role", raw).map(Some)
}

/// A Bot as an update leaves it, and the writes (none when nothing changed).
#[derive(Debug, Clone, PartialEq)]
pub struct UpdatedBot {
    pub bot: Bot,
    pub writes: RosterWrites,
}

/// `update-bot {id, ...}`: the Bot `bot_id` changed by `update` at `now`, if
/// the actor may change it (`bot/not-found`, `bot/forbidden`).
pub fn update_bot(
    state: &TeamState,
    actor: &Actor,
    bot_id: &str,
    update: BotUpdate,
    now: u64,
) -> Result<UpdatedBot, ApiError> {
    let bot = managed_bot(state, actor, bot_id)?;
    edit_bot(state, bot, update, now)
}

/// `bot` changed by `update` at `now`: a name another Bot holds is
/// `bot/invalid`; an update that changes nothing writes nothing.
pub fn edit_bot(
    state: &TeamState,
    bot: &Bot,
    update: BotUpdate,
    now: u64,
) -> Result<UpdatedBot, ApiError> {
    let mut edited = bot.clone();
    if let Some(name) = update.name {
        check_bot_name_free(state, &name, Some(&bot.id))?;
        edited.name = name;
    }
    if let Some(model) = update.model {
        edited.model = model;
    }
    if let Some(instructions) = update.instructions {
        edited.instructions = instructions;
    }
    if let Some(external) = update.external {
        edited.external = Some(external);
    }
    if let Some(role) = update.role {
        edited.role = role;
    }
    if let Some(level) = update.thinking {
        edited.thinking = Some(level);
    }
    if let Some(tier) = update.harness {
        // The default harness is no tier: the record carries none.
        edited.harness = (tier != HarnessId::Default).then_some(tier);
    }
    let mut writes = RosterWrites::default();
    if edited != *bot {
        edited.updated_at = now;
        writes.push(RosterWrite::PutBot(edited.clone()));
    }
    Ok(UpdatedBot {
        bot: edited,
        writes,
    })
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{member, shape, team};
    use super::*;
    use flybot_protocol::ErrorCode;

    fn rename(name: &str) -> BotUpdate {
        BotUpdate {
            name: Some(name.into()),
            ..BotUpdate::default()
        }
    }

    #[test]
    /// Rule #49.
    fn update_bot_writes_the_changed_bot_stamped_now() {
        let state = team();
        let update = BotUpdate {
            model: Some("deepseek-chat".into()),
            ..rename("Ada Two")
        };
        let updated = update_bot(&state, &member("member-a"), "bot-a", update, 70).unwrap();
        assert_eq!(shape(&updated.writes), ["bot bot-a Ada Two at 70"]);
        assert_eq!(updated.bot.model, "deepseek-chat");
    }

    #[test]
    fn update_bot_that_changes_nothing_writes_nothing() {
        let state = team();
        let updated = update_bot(&state, &member("member-a"), "bot-a", rename("Ada"), 70).unwrap();
        assert!(updated.writes.is_empty());
        assert_eq!(updated.bot, state.bots["bot-a"]);
    }

    #[test]
    /// Rule #1700.
    fn update_bot_refuses_a_name_another_bot_holds_without_case() {
        let state = team();
        let refused =
            update_bot(&state, &member("member-a"), "bot-a", rename("bo"), 70).unwrap_err();
        assert_eq!(refused.code, ErrorCode::Invalid);
        assert_eq!(refused.details["field"], "name");
        // The tool reaches the same rule through `edit_bot`.
        let same = edit_bot(&state, &state.bots["bot-a"], rename("bo"), 70).unwrap_err();
        assert_eq!(same, refused);
    }

    #[test]
    /// Rule #49.
    fn update_bot_refuses_another_members_bot_and_an_unknown_id() {
        let state = team();
        let forbidden =
            update_bot(&state, &member("member-b"), "bot-a", rename("Mine"), 70).unwrap_err();
        assert_eq!(forbidden.code, ErrorCode::Forbidden);
        assert_eq!(forbidden.details["botId"], "bot-a");
        let unknown =
            update_bot(&state, &member("member-a"), "bot-x", rename("Mine"), 70).unwrap_err();
        assert_eq!(unknown.code, ErrorCode::NotFound);
    }

    #[test]
    /// Rule #1247.
    fn update_bot_sets_and_clears_the_queue_role() {
        let state = team();
        let set = BotUpdate {
            role: clean_role("Dev").map(Some).unwrap(),
            ..BotUpdate::default()
        };
        let with_role = edit_bot(&state, &state.bots["bot-b"], set, 70).unwrap().bot;
        assert_eq!(with_role.role.as_deref(), Some("Dev"));
        let clear = BotUpdate {
            role: clean_role("  ").map(Some).unwrap(),
            ..BotUpdate::default()
        };
        let cleared = edit_bot(&state, &with_role, clear, 80).unwrap();
        assert_eq!(cleared.bot.role, None);
        assert_eq!(shape(&cleared.writes), ["bot bot-b Bo at 80"]);
    }

    #[test]
    fn update_bot_sets_the_thinking_level_its_requests_ask_for() {
        let state = team();
        let set = BotUpdate {
            thinking: Some(ThinkingLevel::High),
            ..BotUpdate::default()
        };
        let updated = edit_bot(&state, &state.bots["bot-b"], set, 70).unwrap();
        assert_eq!(updated.bot.thinking, Some(ThinkingLevel::High));
        assert_eq!(shape(&updated.writes), ["bot bot-b Bo at 70"]);
    }

    #[test]
    /// Rule #1700.
    fn bot_update_clean_names_the_surfaces_own_field() {
        let refused = BotUpdate::clean("new_name", Some("  "), None, None).unwrap_err();
        assert_eq!(refused.details["field"], "new_name");
        let model = BotUpdate::clean("name", None, Some("no spaces please"), None).unwrap_err();
        assert_eq!(model.details["field"], "model");
    }
}
