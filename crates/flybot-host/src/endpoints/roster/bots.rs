//! The roster's Bot endpoints: create, update, duplicate, delete, set-main.
//! Creation is silent (#645): no turn, no message; only `bot.created`.

use crate::actor::{acting_member, journal_actor};
use crate::board::Board;
use crate::events::HostEvent;
use crate::host::HostConfig;
use crate::ids::new_id;
use crate::view::bot_view;
use flybot_agent::model::config::ProviderRegistry;
use flybot_core::access::Actor;
use flybot_core::names::{
    check_bot_name_free, check_model_configured, clean_instructions, clean_model, clean_name,
    clean_optional_name,
};
use flybot_core::rooms::group_questions;
use flybot_core::rooms::hold::stale_for_demoted;
use flybot_core::roster::delete_bot::delete_bot;
use flybot_core::roster::update_bot::{BotUpdate, clean_role, update_bot};
use flybot_core::roster::{RosterWrite, RosterWrites, managed_bot};
use flybot_core::tasks::approval::after_holds;
use flybot_protocol::answers::{BotAnswer, BotDeleted, MainSet};
use flybot_protocol::channel::{ById, CreateBot, DuplicateBot, SetMain, UpdateBot};
use flybot_protocol::state::{Bot, TeamState};
use flybot_protocol::{ApiError, HarnessId};
use flybot_store::Change;
use serde_json::Value;

/// A Bot's `external` record as written (#198): refused with `bot/invalid`
/// naming the field; kept as sent once valid.
fn checked_external(value: &Value) -> Result<Value, ApiError> {
    flybot_interop::external::parse_external(value)
        .map(|_| value.clone())
        .map_err(|refusal| ApiError::invalid(&refusal.field, refusal.message))
}

/// Makes and stores a new Bot owned by `owner_id`.
pub fn insert_new_bot(
    change: &mut Change<'_>,
    owner_id: &str,
    name: &str,
    model: &str,
    instructions: &str,
) -> Bot {
    let now = change.now_ms();
    let mut bot = Bot::new(new_id("bot"), name, owner_id, model, new_id("session"), now);
    bot.instructions = instructions.to_owned();
    // A person made it: `createdBy` names parent Bots only.
    bot.made_by_member = Some(owner_id.to_owned());
    change.put_bot(&bot);
    bot
}

fn announce(board: &Board, bot: &Bot) {
    if !bot.run {
        board.team().emit(HostEvent::BotCreated {
            bot_id: bot.id.clone(),
            owner_id: bot.owner_id.clone(),
        });
    }
}

/// `create-bot {name, model?, instructions?}` → `{bot}`; the owner is the
/// actor. A named model must be one the host runs (core
/// `check_model_configured`, as `update-bot`).
pub async fn create(
    board: &Board,
    config: &HostConfig,
    actor: &Actor,
    req: CreateBot,
) -> Result<BotAnswer, ApiError> {
    let name = clean_name("name", &req.name)?;
    let model = match &req.model {
        Some(model) => {
            let model = clean_model(model)?;
            check_model_configured(&model, config.models.names().iter().map(String::as_str))?;
            model
        }
        None => config.models.default_model(),
    };
    let instructions = clean_instructions(req.instructions.as_deref().unwrap_or(""))?;
    let external = req.external.as_ref().map(checked_external).transpose()?;
    let role = req.role.as_deref().map(clean_role).transpose()?.flatten();
    let bot = board
        .team()
        .mutate(journal_actor(actor), |change| {
            check_bot_name_free(change.state(), &name, None)?;
            let owner = acting_member(change, actor);
            let mut bot = insert_new_bot(change, &owner, &name, &model, &instructions);
            if let Some(external) = external {
                bot.external = Some(external);
            }
            if let Some(role) = role {
                bot.role = Some(role);
            }
            bot.thinking = req.thinking;
            // The default harness is no tier (#874): the record carries none.
            bot.harness = req.harness.filter(|tier| *tier != HarnessId::Default);
            if bot.external.is_some()
                || bot.role.is_some()
                || bot.thinking.is_some()
                || bot.harness.is_some()
            {
                change.put_bot(&bot);
            }
            Ok(bot)
        })
        .await?;
    announce(board, &bot);
    Ok(BotAnswer {
        bot: bot_view(&bot),
    })
}

/// `update-bot {id, name?, model?, instructions?, role?}` → `{bot}`; the
/// rule is core `roster::update_bot`, shared with the `update_bot` tool. A
/// model that moves must be one the host runs, as for `create-bot`; the
/// Bot's own model stays accepted, so a form that sends it back still saves.
pub async fn update(
    board: &Board,
    models: &ProviderRegistry,
    actor: &Actor,
    req: UpdateBot,
) -> Result<BotAnswer, ApiError> {
    let mut update = BotUpdate::clean(
        "name",
        req.name.as_deref(),
        req.model.as_deref(),
        req.instructions.as_deref(),
    )?;
    update.external = req.external.as_ref().map(checked_external).transpose()?;
    update.role = req.role.as_deref().map(clean_role).transpose()?;
    update.thinking = req.thinking;
    update.harness = req.harness;
    let bot = board
        .team()
        .mutate(journal_actor(actor), |change| {
            let before = change.state().bots.get(&req.id).map(|b| b.model.clone());
            let updated = update_bot(change.state(), actor, &req.id, update, change.now_ms())?;
            if before.as_deref() != Some(updated.bot.model.as_str()) {
                check_model_configured(
                    &updated.bot.model,
                    models.names().iter().map(String::as_str),
                )?;
            }
            change.apply_roster(&updated.writes);
            Ok(updated.bot)
        })
        .await?;
    Ok(BotAnswer {
        bot: bot_view(&bot),
    })
}

/// `duplicate-bot {id, name?}` → `{bot}`: a copy owned by the actor, with
/// its own id and own chat.
pub async fn duplicate(
    board: &Board,
    actor: &Actor,
    req: DuplicateBot,
) -> Result<BotAnswer, ApiError> {
    let name = clean_optional_name("name", req.name.as_deref())?;
    let bot = board
        .team()
        .mutate(journal_actor(actor), |change| {
            let source = managed_bot(change.state(), actor, &req.id)?.clone();
            let name = match name {
                Some(name) => {
                    check_bot_name_free(change.state(), &name, None)?;
                    name
                }
                None => free_copy_name(change.state(), &source.name),
            };
            let owner = acting_member(change, actor);
            let now = change.now_ms();
            // The copy keeps the source's settings and records; it is a new
            // Bot of the caller's, with its own Session, never a run Bot.
            let mut copy = source;
            copy.id = new_id("bot");
            copy.name = name;
            copy.owner_id = owner.clone();
            copy.session_id = new_id("session");
            copy.created_at = now;
            copy.updated_at = now;
            copy.created_by = None;
            copy.made_by_member = Some(owner);
            copy.run = false;
            copy.hidden = false;
            change.put_bot(&copy);
            Ok(copy)
        })
        .await?;
    announce(board, &bot);
    Ok(BotAnswer {
        bot: bot_view(&bot),
    })
}

/// `<name> copy`, then `<name> copy 2`, ... whichever is free.
fn free_copy_name(state: &TeamState, name: &str) -> String {
    let base: String = format!("{name} copy")
        .chars()
        .take(flybot_core::names::NAME_MAX)
        .collect();
    (1..)
        .map(|n| {
            if n == 1 {
                base.clone()
            } else {
                format!("{base} {n}")
            }
        })
        .find(|candidate| check_bot_name_free(state, candidate, None).is_ok())
        .unwrap_or(base)
}

/// `delete-bot {id}` → `{bot, deleted}`. Its unfinished tasks fail (a result
/// waiting for a person's decision stays), its Sessions are recorded in
/// `retiredSessions` (#1453), and it leaves rooms, grants and the Main list:
/// core `roster::delete_bot`.
pub async fn delete(
    board: &Board,
    memory: &crate::memory::Memory,
    actor: &Actor,
    req: ById,
) -> Result<BotDeleted, ApiError> {
    let deleted = board
        .team()
        .mutate(journal_actor(actor), |change| {
            let deleted = delete_bot(change.state(), actor, &req.id, change.now_ms())?;
            // #638: its memory is archived first; a Bot whose memory cannot
            // be moved aside is not deleted.
            memory
                .files()
                .archive(&req.id, change.now_ms())
                .map_err(|e| crate::memory::memory_io(&e))?;
            change.apply_roster(&deleted.writes);
            // A question it asked, or about work it handed over, goes too (#550).
            for room in group_questions::cards_of_bot(change.state(), &req.id) {
                change.remove_question(&room);
            }
            Ok(deleted)
        })
        .await?;
    // Its claims' workers go with its failed cards (#1729).
    board.apply_effects(&deleted.failed_tasks.effects);
    board.announce(&deleted.failed_tasks);
    Ok(BotDeleted {
        bot: bot_view(&deleted.bot),
        deleted: true,
    })
}

/// `set-main {id, replace?}` → `{mainBotIds, bot}` (#613).
pub async fn set_main(board: &Board, actor: &Actor, req: SetMain) -> Result<MainSet, ApiError> {
    let (ids, bot, moved) = board
        .team()
        .mutate(journal_actor(actor), |change| {
            let ids = flybot_core::main_bots::set_main(
                change.state(),
                actor,
                &req.id,
                req.replace.as_deref(),
            )?;
            let bot = change
                .state()
                .bots
                .get(&req.id)
                .cloned()
                .ok_or_else(|| ApiError::not_found("Bot", &req.id))?;
            let chief = change.state().designated_chief_id.clone();
            let chief_is_main = chief.as_ref().is_some_and(|c| ids.contains(c));
            let owners_bot =
                flybot_core::access::host_owner_id(change.state()).as_ref() == Some(&bot.owner_id);
            let chief_after = if !chief_is_main && owners_bot {
                Some(req.id.clone())
            } else {
                chief.clone()
            };
            // A demoted Chief's waiting sends go stale now (#52).
            let demoted =
                flybot_core::main_bots::demoted(change.state(), &ids, chief_after.as_deref());
            let now = change.now_ms();
            let stale = stale_for_demoted(change.state(), &demoted, now);
            let resumed = after_holds(change.state(), &stale, now);
            let mut writes = RosterWrites::default();
            writes.extend(resumed.writes.into_iter().map(RosterWrite::PutTask));
            writes.extend(stale.into_iter().map(RosterWrite::PutHeldSend));
            change.apply_roster(&writes);
            let moved = writes.task_ids();
            if ids != change.state().main_bot_ids {
                change.set_main_bot_ids(&ids);
            }
            if chief_after != chief {
                change.set_designated_chief_id(chief_after.as_deref());
            }
            Ok((ids, bot, moved))
        })
        .await?;
    board.announce_ids(moved);
    Ok(MainSet {
        main_bot_ids: ids,
        bot: bot_view(&bot),
    })
}

/// `retire-bot {id}` → `{bot}`: the Bot is retired and hidden, its record
/// and history kept (#638, #1700): core `roster::retire_bot`.
pub async fn retire(board: &Board, actor: &Actor, req: ById) -> Result<BotAnswer, ApiError> {
    let bot = board
        .team()
        .mutate(journal_actor(actor), |change| {
            let bot = flybot_core::roster::retire_bot::retire_bot(
                change.state(),
                actor,
                &req.id,
                change.now_ms(),
            )?;
            change.put_bot(&bot);
            Ok(bot)
        })
        .await?;
    Ok(BotAnswer {
        bot: bot_view(&bot),
    })
}
