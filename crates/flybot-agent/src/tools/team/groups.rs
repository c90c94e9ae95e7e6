//! `create_group` and `update_group` (#1700, #1182): a Main Bot, or a
//! room's admin Bot, makes a room and hands over its task lead. The Bot acts
//! for its owner, so the channel's own core rules decide (`clean_members`,
//! `check_admin`, `set_task_lead`, `update_room`): a Bot of another owner
//! needs a grant, a room of another owner is refused, and a refusal writes
//! nothing. Members are named as `list_bots` shows them; a retired, run or
//! unreachable name is refused like an unknown one (#1700).

use super::{caller, find_team_bot, journal_actor, no_bot, refusal, team};
use crate::tools::{Tool, ToolContext, ToolError, ToolResult};
use flybot_core::access::Actor;
use flybot_core::names::clean_name;
use flybot_core::roster::update_room::{
    RoomUpdate, check_admin, clean_members, needs_someone, set_task_lead, update_room,
};
use flybot_protocol::state::{Bot, Room, TeamState};
use flybot_protocol::tool_names;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateGroupArgs {
    /// The group's name.
    pub name: String,
    /// The Bots to seat besides you, by name as list_bots shows them.
    #[serde(default)]
    pub members: Vec<String>,
    /// The Bot that speaks first; by default you.
    #[serde(default)]
    pub admin: Option<String>,
    /// The Bot that divides the group's board; by default the admin.
    #[serde(default)]
    pub task_lead: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateGroupArgs {
    /// The group, by name or id.
    pub group: String,
    /// Bots to add, by name as list_bots shows them.
    #[serde(default)]
    pub add_members: Vec<String>,
    /// The new admin, a member of the group.
    #[serde(default)]
    pub admin: Option<String>,
    /// The member that divides the board, or "none" to give it back to the admin.
    #[serde(default)]
    pub task_lead: Option<String>,
}

pub struct CreateGroup;
pub struct UpdateGroup;

/// The caller's owner, as the channel's rules read a signed-in member.
fn owner_actor(me: &Bot) -> Actor {
    Actor::Member {
        member_id: me.owner_id.clone(),
        session_id: format!("bot:{}", me.id),
    }
}

fn is_main(state: &TeamState, me: &Bot) -> bool {
    state.main_bot_ids.contains(&me.id)
}

fn is_admin_of(room: &Room, me: &Bot) -> bool {
    room.admin.as_deref() == Some(me.id.as_str())
}

/// Names to Bot ids; `me` is found by its own name too.
fn ids_of(state: &TeamState, me: &Bot, names: &[String]) -> Result<Vec<String>, ToolError> {
    names
        .iter()
        .map(|name| {
            if name.trim().eq_ignore_ascii_case(&me.name) {
                return Ok(me.id.clone());
            }
            find_team_bot(state, me, name)
                .map(|bot| bot.id.clone())
                .ok_or_else(|| no_bot(name))
        })
        .collect()
}

fn one_id(state: &TeamState, me: &Bot, name: &str) -> Result<String, ToolError> {
    Ok(ids_of(state, me, &[name.to_owned()])?.remove(0))
}

/// The group `name_or_id` the caller sits in or owns, by id or name.
fn group_of<'a>(state: &'a TeamState, me: &Bot, name_or_id: &str) -> Result<&'a Room, ToolError> {
    let wanted = name_or_id.trim();
    state
        .rooms
        .values()
        .filter(|r| r.owner_id == me.owner_id || r.members.contains(&me.id))
        .find(|r| r.id == wanted || r.name.eq_ignore_ascii_case(wanted))
        .ok_or_else(|| {
            ToolError::Refused(format!(
                "No group named {wanted} that you can change; check its name."
            ))
        })
}

impl Tool for CreateGroup {
    type Args = CreateGroupArgs;
    fn name(&self) -> &'static str {
        tool_names::CREATE_GROUP
    }
    fn description(&self) -> &'static str {
        "Main Bot or a group's admin: make a group (a room) of your team's Bots, with you in it. It posts nothing and starts no turn."
    }
    async fn call(&self, ctx: &ToolContext, args: CreateGroupArgs) -> ToolResult {
        let team = team(ctx)?;
        let name = clean_name("name", &args.name).map_err(refusal)?;
        let room_id = team.new_id("room");
        // One Session per member: the caller and each Bot it names.
        let sessions: Vec<String> = (0..=args.members.len())
            .map(|_| team.new_id("session"))
            .collect();
        let made = team
            .store()
            .mutate(&journal_actor(ctx), |change| {
                let state = change.state();
                let planned = plan_room(state, ctx, &args, &room_id, &name, &sessions);
                let mut room = match planned {
                    Ok(room) => room,
                    Err(refused) => return Ok(Err(refused)),
                };
                room.created_at = change.now_ms();
                room.updated_at = room.created_at;
                change.put_room(&room);
                Ok(Ok::<Room, ToolError>(room))
            })
            .await
            .map_err(refusal)??;
        Ok(format!(
            "Made the group {} with {} Bots. It posts nothing and starts no turn; use post_to_group to start it.",
            made.name,
            made.members.len()
        ))
    }
}

/// The room `create_group` makes, checked by the channel's rules.
fn plan_room(
    state: &TeamState,
    ctx: &ToolContext,
    args: &CreateGroupArgs,
    room_id: &str,
    name: &str,
    sessions: &[String],
) -> Result<Room, ToolError> {
    let me = caller(state, ctx, false)?;
    let admin_somewhere = state.rooms.values().any(|r| is_admin_of(r, &me));
    if !is_main(state, &me) && !admin_somewhere {
        return Err(ToolError::Refused(
            "Only a Main Bot or a group's admin can make a group.".to_owned(),
        ));
    }
    let actor = owner_actor(&me);
    let mut named = vec![me.id.clone()];
    named.extend(ids_of(state, &me, &args.members)?);
    let members = clean_members(state, &actor, None, &named).map_err(refusal)?;
    needs_someone(&members, &[]).map_err(refusal)?;
    let admin = match &args.admin {
        Some(name) => one_id(state, &me, name)?,
        None => me.id.clone(),
    };
    check_admin(Some(&admin), &members).map_err(refusal)?;
    let mut room = Room {
        id: room_id.to_owned(),
        name: name.to_owned(),
        owner_id: me.owner_id.clone(),
        sessions: members
            .iter()
            .cloned()
            .zip(sessions.iter().cloned())
            .collect(),
        members,
        admin: Some(admin),
        participants: Vec::new(),
        created_at: 0,
        updated_at: 0,
        extra: Default::default(),
    };
    if let Some(lead) = &args.task_lead {
        set_task_lead(&mut room, Some(one_id(state, &me, lead)?)).map_err(refusal)?;
    }
    Ok(room)
}

impl Tool for UpdateGroup {
    type Args = UpdateGroupArgs;
    fn name(&self) -> &'static str {
        tool_names::UPDATE_GROUP
    }
    fn description(&self) -> &'static str {
        "Main Bot or the group's admin: add Bots to a group, change its admin, or hand its task lead to a member (\"none\" gives it back to the admin)."
    }
    async fn call(&self, ctx: &ToolContext, args: UpdateGroupArgs) -> ToolResult {
        let team = team(ctx)?;
        let room_id = team.store().read(|state| {
            let me = caller(state, ctx, false)?;
            group_of(state, &me, &args.group).map(|r| r.id.clone())
        })?;
        let next_seq = team
            .group_lines(&room_id)
            .map(|lines| lines.last().map_or(0, |l| l.seq))
            .unwrap_or(0)
            + 1;
        let fresh: Vec<String> = args
            .add_members
            .iter()
            .map(|_| team.new_id("session"))
            .collect();
        let room = team
            .store()
            .mutate(&journal_actor(ctx), |change| {
                let state = change.state();
                let update = match group_update(state, ctx, &args, &room_id) {
                    Ok(update) => update,
                    Err(refused) => return Ok(Err(refused)),
                };
                let mut fresh = fresh.iter().cloned();
                let me = caller(state, ctx, false).map_err(|_| gone())?;
                let updated = update_room(
                    state,
                    &owner_actor(&me),
                    update,
                    |_| next_seq,
                    || fresh.next().unwrap_or_default(),
                    change.now_ms(),
                );
                let updated = match updated {
                    Ok(updated) => updated,
                    Err(refused) => return Ok(Err(refusal(refused))),
                };
                change.apply_roster(&updated.writes);
                Ok(Ok::<Room, ToolError>(updated.room))
            })
            .await
            .map_err(refusal)??;
        Ok(format!("Updated the group {}.", room.name))
    }
}

fn gone() -> flybot_protocol::ApiError {
    flybot_protocol::ApiError::invalid("bot", "This Bot is no longer on the team.")
}

/// The `update-room` change `update_group` asks for, once the caller may.
fn group_update(
    state: &TeamState,
    ctx: &ToolContext,
    args: &UpdateGroupArgs,
    room_id: &str,
) -> Result<RoomUpdate, ToolError> {
    let me = caller(state, ctx, false)?;
    let room = state
        .rooms
        .get(room_id)
        .ok_or_else(|| ToolError::Refused("That group is gone.".to_owned()))?;
    if !is_main(state, &me) && !is_admin_of(room, &me) {
        return Err(ToolError::Refused(format!(
            "Only a Main Bot or the admin of {} can change it.",
            room.name
        )));
    }
    let members = if args.add_members.is_empty() {
        None
    } else {
        let mut all = room.members.clone();
        for id in ids_of(state, &me, &args.add_members)? {
            if !all.contains(&id) {
                all.push(id);
            }
        }
        Some(all)
    };
    let admin = args
        .admin
        .as_deref()
        .map(|name| one_id(state, &me, name))
        .transpose()?;
    let task_lead = match args.task_lead.as_deref().map(str::trim) {
        Some(lead) if lead.eq_ignore_ascii_case("none") => Some(String::new()),
        Some(lead) => Some(one_id(state, &me, lead)?),
        None => None,
    };
    Ok(RoomUpdate {
        id: room_id.to_owned(),
        name: None,
        members,
        admin,
        notice: None,
        task_lead,
    })
}
