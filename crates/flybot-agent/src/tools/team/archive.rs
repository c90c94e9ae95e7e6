//! `archive_bot` (#638, #1700): a Main Bot retires a Bot of its owner. The
//! record gets `retired` and `hidden`; its chat stays readable; there is no
//! way back. A Main Bot, the caller itself, an unknown name and an already
//! retired one all answer the same "No Bot named …" line.

use super::{caller, find_team_bot, journal_actor, no_bot, refusal, team};
use crate::tools::{Tool, ToolContext, ToolError, ToolResult};
use flybot_protocol::tool_names;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ArchiveBotArgs {
    /// The Bot to retire, by name.
    pub name: String,
}

pub struct ArchiveBot;

impl Tool for ArchiveBot {
    type Args = ArchiveBotArgs;
    fn name(&self) -> &'static str {
        tool_names::ARCHIVE_BOT
    }
    fn description(&self) -> &'static str {
        "Main Bot only: retire a Bot of your team for good. Its chat stays readable; it can no longer be messaged."
    }
    async fn call(&self, ctx: &ToolContext, args: ArchiveBotArgs) -> ToolResult {
        let team = team(ctx)?;
        let name = team
            .store()
            .mutate(&journal_actor(ctx), |change| {
                let state = change.state();
                let found = caller(state, ctx, false).and_then(|me| {
                    if !state.main_bot_ids.contains(&me.id) {
                        return Err(ToolError::Refused(
                            "Only a Main Bot can archive a Bot.".to_owned(),
                        ));
                    }
                    find_team_bot(state, &me, &args.name)
                        .filter(|bot| {
                            bot.id != me.id
                                && bot.owner_id == me.owner_id
                                && !state.main_bot_ids.contains(&bot.id)
                        })
                        .cloned()
                        .ok_or_else(|| no_bot(&args.name))
                });
                let mut bot = match found {
                    Ok(bot) => bot,
                    Err(refused) => return Ok(Err(refused)),
                };
                bot.retired = Some(true);
                bot.hidden = true;
                bot.updated_at = change.now_ms();
                change.put_bot(&bot);
                Ok(Ok::<String, ToolError>(bot.name))
            })
            .await
            .map_err(refusal)??;
        Ok(format!(
            "Archived {name}: it is retired for good and can no longer be messaged; its chat stays readable."
        ))
    }
}
