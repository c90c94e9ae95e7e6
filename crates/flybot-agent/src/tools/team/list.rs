//! `list_bots`: the Bots the caller may reach, one line each, with the
//! "N to approve" tag while the Bot has waiting approvals (#587). Run and
//! retired Bots are left out (#1373, #638). Context sharing (#53): the
//! caller's owner's Bots, Bots granted to that owner, and the Bots of the
//! room the call is made in (from that room's member Session), marked as
//! such; another owner's folder and instructions are never listed.

use super::{caller, is_retired, may_reach, pending_approvals, team};
use crate::tools::{Tool, ToolContext, ToolResult};
use flybot_protocol::state::{Bot, TeamState};
use flybot_protocol::tool_names;
use schemars::JsonSchema;
use serde::Deserialize;

/// No arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListBotsArgs {}

pub struct ListBots;

/// The Bots of the room whose member Session `session_id` is `me`'s: none
/// in the Bot's own chat (#53).
pub fn current_room_bots<'a>(state: &'a TeamState, me: &Bot, session_id: &str) -> Vec<&'a str> {
    state
        .rooms
        .values()
        .find(|room| room.sessions.get(&me.id).is_some_and(|s| s == session_id))
        .map(|room| room.members.iter().map(String::as_str).collect())
        .unwrap_or_default()
}

impl Tool for ListBots {
    type Args = ListBotsArgs;
    fn name(&self) -> &'static str {
        tool_names::LIST_BOTS
    }
    fn description(&self) -> &'static str {
        "List the Bots of your team you can message: name, model, whether it is a Main Bot, and how many of its requests wait for the owner's approval."
    }
    async fn call(&self, ctx: &ToolContext, _args: ListBotsArgs) -> ToolResult {
        let team = team(ctx)?;
        team.store().read(|state| {
            let me = caller(state, ctx, true)?;
            let in_room = current_room_bots(state, &me, &ctx.session_id);
            let mut bots: Vec<_> = state
                .bots
                .values()
                .filter(|bot| !bot.run && !is_retired(bot))
                .filter(|bot| may_reach(state, &me, bot) || in_room.contains(&bot.id.as_str()))
                .collect();
            bots.sort_by_key(|bot| bot.name.to_lowercase());
            let lines: Vec<String> = bots
                .into_iter()
                .map(|bot| {
                    let mut line = format!("- {} (model {})", bot.name, bot.model);
                    if bot.id == me.id {
                        line.push_str(" (you)");
                    }
                    if state.main_bot_ids.contains(&bot.id) {
                        line.push_str(" [Main Bot]");
                    }
                    if bot.id != me.id && in_room.contains(&bot.id.as_str()) {
                        line.push_str(" [in this group]");
                    }
                    let pending = pending_approvals(state, &bot.id);
                    if pending > 0 {
                        line.push_str(&format!(" [{pending} to approve]"));
                    }
                    line
                })
                .collect();
            Ok(lines.join("\n"))
        })
    }
}
