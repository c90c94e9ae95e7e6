//! The roster's Bot endpoints: create, update, duplicate, delete, set-main.
//! Creation is silent (#645): no turn, no message; only `bot.created`.

use super::owner::{acting_member, journal_actor};
use crate::host::{Host, HostEvent};
use crate::ids::new_id;
use crate::view::bot_view;
use flybot_core::access::{Actor, may_manage_bot};
use flybot_core::names::{check_bot_name_free, clean_instructions, clean_model, clean_name};
use flybot_protocol::ApiError;
use flybot_protocol::channel::{ById, CreateBot, DuplicateBot, SetMain, UpdateBot};
use flybot_protocol::state::{Bot, TeamState};
use flybot_store::Change;
use serde_json::{Value, json};

/// The Bot `id`, if the actor may change it.
fn managed_bot(state: &TeamState, actor: &Actor, id: &str) -> Result<Bot, ApiError> {
    let bot = state
        .bots
        .get(id)
        .ok_or_else(|| ApiError::not_found("Bot", id))?;
    if !may_manage_bot(actor, bot) {
        return Err(ApiError::forbidden(format!(
            "{} belongs to another member; only its owner can change it.",
            bot.name
        ))
        .with("botId", id));
    }
    Ok(bot.clone())
}

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
    let bot = Bot {
        id: new_id("bot"),
        name: name.to_owned(),
        owner_id: owner_id.to_owned(),
        model: model.to_owned(),
        instructions: instructions.to_owned(),
        session_id: new_id("session"),
        created_at: now,
        updated_at: now,
        created_by: Some(owner_id.to_owned()),
        run: false,
        hidden: false,
        role: None,
        external: None,
        record_decisions: None,
        retired: None,
        extra: Default::default(),
    };
    change.put_bot(&bot);
    bot
}

fn announce(host: &Host, bot: &Bot) {
    if !bot.run {
        host.emit(HostEvent::BotCreated {
            bot_id: bot.id.clone(),
            owner_id: bot.owner_id.clone(),
        });
    }
}

/// `create-bot {name, model?, instructions?}` → `{bot}`; the owner is the actor.
pub async fn create(host: &Host, actor: &Actor, req: CreateBot) -> Result<Value, ApiError> {
    let name = clean_name("name", &req.name)?;
    let model = match &req.model {
        Some(model) => clean_model(model)?,
        None => host.config().default_model.clone(),
    };
    let instructions = clean_instructions(req.instructions.as_deref().unwrap_or(""))?;
    let external = req.external.as_ref().map(checked_external).transpose()?;
    let role = req.role.as_deref().map(clean_role).transpose()?.flatten();
    let bot = host
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
            if bot.external.is_some() || bot.role.is_some() {
                change.put_bot(&bot);
            }
            Ok(bot)
        })
        .await?;
    announce(host, &bot);
    Ok(json!({"bot": bot_view(&bot)}))
}

/// A queue role (#1247): a short name such as `Dev`; empty clears it.
fn clean_role(raw: &str) -> Result<Option<String>, ApiError> {
    if raw.trim().is_empty() {
        return Ok(None);
    }
    clean_name("role", raw).map(Some)
}

/// `update-bot {id, name?, model?, instructions?, role?}` → `{bot}`.
pub async fn update(host: &Host, actor: &Actor, req: UpdateBot) -> Result<Value, ApiError> {
    let name = req
        .name
        .as_deref()
        .map(|n| clean_name("name", n))
        .transpose()?;
    let model = req.model.as_deref().map(clean_model).transpose()?;
    let instructions = req
        .instructions
        .as_deref()
        .map(clean_instructions)
        .transpose()?;
    let external = req.external.as_ref().map(checked_external).transpose()?;
    let role = req.role.as_deref().map(clean_role).transpose()?;
    let bot = host
        .mutate(journal_actor(actor), |change| {
            let mut bot = managed_bot(change.state(), actor, &req.id)?;
            let before = bot.clone();
            if let Some(name) = name {
                check_bot_name_free(change.state(), &name, Some(&bot.id))?;
                bot.name = name;
            }
            if let Some(model) = model {
                bot.model = model;
            }
            if let Some(instructions) = instructions {
                bot.instructions = instructions;
            }
            if let Some(external) = external {
                bot.external = Some(external);
            }
            match role {
                Some(Some(role)) => {
                    bot.role = Some(role);
                }
                Some(None) => {
                    bot.role = None;
                }
                None => {}
            }
            if bot != before {
                bot.updated_at = change.now_ms();
                change.put_bot(&bot);
            }
            Ok(bot)
        })
        .await?;
    Ok(json!({"bot": bot_view(&bot)}))
}

/// `duplicate-bot {id, name?}` → `{bot}`: a copy owned by the actor, with
/// its own id and own chat.
pub async fn duplicate(host: &Host, actor: &Actor, req: DuplicateBot) -> Result<Value, ApiError> {
    let name = req
        .name
        .as_deref()
        .map(|n| clean_name("name", n))
        .transpose()?;
    let bot = host
        .mutate(journal_actor(actor), |change| {
            let source = managed_bot(change.state(), actor, &req.id)?;
            let name = match name {
                Some(name) => {
                    check_bot_name_free(change.state(), &name, None)?;
                    name
                }
                None => free_copy_name(change.state(), &source.name),
            };
            let owner = acting_member(change, actor);
            let now = change.now_ms();
            let copy = Bot {
                id: new_id("bot"),
                name,
                owner_id: owner.clone(),
                session_id: new_id("session"),
                created_at: now,
                updated_at: now,
                created_by: Some(owner),
                run: false,
                hidden: false,
                ..source
            };
            change.put_bot(&copy);
            Ok(copy)
        })
        .await?;
    announce(host, &bot);
    Ok(json!({"bot": bot_view(&bot)}))
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
/// `retiredSessions` (#1453), and it leaves rooms, grants and the Main list.
pub async fn delete(host: &Host, actor: &Actor, req: ById) -> Result<Value, ApiError> {
    let (bot, effects) = host
        .mutate(journal_actor(actor), |change| {
            let bot = managed_bot(change.state(), actor, &req.id)?;
            let effects = remove_bot(change, &bot);
            Ok((bot, effects))
        })
        .await?;
    // Its claims' workers go with its failed cards (#1729).
    host.apply_task_effects(&effects.effects);
    super::tasks::announce(host, &effects);
    Ok(json!({"bot": bot_view(&bot), "deleted": true}))
}

fn remove_bot(change: &mut Change<'_>, bot: &Bot) -> flybot_core::tasks::Outcome {
    let now = change.now_ms();
    let state = change.state();
    // Its open cards fail (a result waiting for a decision stays) and their
    // overall cards settle (#54, #1099).
    let failing = flybot_core::tasks::deleted_bot::fail_tasks_of(state, bot, now);
    let mut retired = vec![bot.session_id.clone()];
    let mut rooms = Vec::new();
    for room in state.rooms.values() {
        let seated = room.members.contains(&bot.id);
        if let Some(session) = room.sessions.get(&bot.id) {
            retired.push(session.clone());
        }
        if seated || room.sessions.contains_key(&bot.id) {
            let mut room = room.clone();
            room.members.retain(|m| m != &bot.id);
            room.sessions.remove(&bot.id);
            if room.admin.as_ref() == Some(&bot.id) {
                room.admin = None;
            }
            room.updated_at = now;
            rooms.push(room);
        }
    }
    let grants: Vec<(String, Vec<flybot_protocol::state::Grant>)> = state
        .grants
        .iter()
        .filter(|(_, list)| list.iter().any(|g| g.grantee == bot.id))
        .map(|(id, list)| {
            (
                id.clone(),
                list.iter()
                    .filter(|g| g.grantee != bot.id)
                    .cloned()
                    .collect(),
            )
        })
        .collect();
    let main: Vec<String> = state
        .main_bot_ids
        .iter()
        .filter(|m| *m != &bot.id)
        .cloned()
        .collect();
    let main_changed = main.len() != state.main_bot_ids.len();
    let chief_gone = state.designated_chief_id.as_ref() == Some(&bot.id);

    for task in &failing.writes {
        change.put_task(task);
    }
    // Its waiting held sends, either way, can never be released (#52).
    crate::rooms::hold::invalidate_for_bot(change, &bot.id);
    for session in retired {
        change.put_retired_session(&session, &bot.id);
    }
    for room in rooms {
        change.put_room(&room);
    }
    for (id, list) in grants {
        change.set_grants(&id, &list);
    }
    change.set_grants(&bot.id, &[]);
    if main_changed {
        change.set_main_bot_ids(&main);
    }
    if chief_gone {
        change.set_designated_chief_id(None);
    }
    change.remove_bot(&bot.id);
    failing
}

/// `set-main {id, replace?}` → `{mainBotIds, bot}` (#613).
pub async fn set_main(host: &Host, actor: &Actor, req: SetMain) -> Result<Value, ApiError> {
    let (ids, bot) = host
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
            if ids != change.state().main_bot_ids {
                change.set_main_bot_ids(&ids);
            }
            let chief = change.state().designated_chief_id.clone();
            let chief_is_main = chief.as_ref().is_some_and(|c| ids.contains(c));
            let owners_bot =
                flybot_core::access::host_owner_id(change.state()).as_ref() == Some(&bot.owner_id);
            if !chief_is_main && owners_bot {
                change.set_designated_chief_id(Some(&req.id));
            }
            Ok((ids, bot))
        })
        .await?;
    Ok(json!({"mainBotIds": ids, "bot": bot_view(&bot)}))
}
