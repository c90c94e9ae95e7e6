//! `update_bot` (rename, new instructions or model: core
//! `roster::update_bot`, the channel's rule) and `stop_bot` (ends the
//! target's running turn). Both act only on a Bot of the caller's own owner;
//! any other name, a retired one included, is "No Bot named …" (#1700).

use super::{caller, find_team_bot, journal_actor, no_bot, refusal, team};
use crate::session::AbortedBy;
use crate::tools::{Tool, ToolContext, ToolError, ToolResult};
use flybot_core::names::check_model_configured;
use flybot_core::roster::update_bot::{BotUpdate, edit_bot};
use flybot_protocol::state::{Bot, TeamState};
use flybot_protocol::tool_names;
use schemars::JsonSchema;
use serde::Deserialize;

/// The Bot `name` of the caller's own owner (a grant is not enough to change
/// or stop a Bot).
fn own_bot(state: &TeamState, ctx: &ToolContext, name: &str) -> Result<Bot, ToolError> {
    let me = caller(state, ctx, false)?;
    find_team_bot(state, &me, name)
        .filter(|bot| bot.owner_id == me.owner_id)
        .cloned()
        .ok_or_else(|| no_bot(name))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateBotArgs {
    /// The Bot to change, by its current name.
    pub name: String,
    /// A new name.
    #[serde(default)]
    pub new_name: Option<String>,
    /// New instructions, replacing the old ones.
    #[serde(default)]
    pub instructions: Option<String>,
    /// A new model.
    #[serde(default)]
    pub model: Option<String>,
}

pub struct UpdateBot;

impl Tool for UpdateBot {
    type Args = UpdateBotArgs;
    fn name(&self) -> &'static str {
        tool_names::UPDATE_BOT
    }
    fn description(&self) -> &'static str {
        "Change a Bot of your team: its name, its instructions or its model."
    }
    async fn call(&self, ctx: &ToolContext, args: UpdateBotArgs) -> ToolResult {
        let team = team(ctx)?;
        let update = BotUpdate::clean(
            "new_name",
            args.new_name.as_deref(),
            args.model.as_deref(),
            args.instructions.as_deref(),
        )
        .map_err(refusal)?;
        let bot = team
            .store()
            .mutate(&journal_actor(ctx), |change| {
                let bot = match own_bot(change.state(), ctx, &args.name) {
                    Ok(bot) => bot,
                    Err(refused) => return Ok(Err(refused)),
                };
                // The channel's `update-bot` rule, after this tool's own
                // lookup by name (#1700).
                let updated = edit_bot(change.state(), &bot, update, change.now_ms())?;
                // The channel's rule: a model that moves must be one the
                // host runs (issue 29).
                if updated.bot.model != bot.model {
                    let models = team.models();
                    let names = models.iter().map(String::as_str);
                    check_model_configured(&updated.bot.model, names)?;
                }
                change.apply_roster(&updated.writes);
                Ok(Ok::<Bot, ToolError>(updated.bot))
            })
            .await
            .map_err(refusal)??;
        Ok(format!("Updated {} (model {}).", bot.name, bot.model))
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StopBotArgs {
    /// The Bot whose running turn to stop.
    pub name: String,
}

pub struct StopBot;

impl Tool for StopBot {
    type Args = StopBotArgs;
    fn name(&self) -> &'static str {
        tool_names::STOP_BOT
    }
    fn description(&self) -> &'static str {
        "Stop another Bot's running turn; its queued messages are dropped."
    }
    async fn call(&self, ctx: &ToolContext, args: StopBotArgs) -> ToolResult {
        let team = team(ctx)?;
        let target = team.store().read(|state| own_bot(state, ctx, &args.name))?;
        if target.id == ctx.bot_id {
            return Err(ToolError::Refused(
                "You cannot stop yourself; end your turn instead.".to_owned(),
            ));
        }
        let sessions = super::turn_sessions(ctx)?;
        let outcome = sessions
            .cancel(&target.session_id, AbortedBy::Parent, false)
            .map_err(|e| {
                tracing::warn!("stop_bot could not stop {}: {e}", target.id);
                ToolError::Failed(format!("{} could not be stopped; try again.", target.name))
            })?;
        Ok(if outcome.was_running {
            format!("Stopped {}'s running turn.", target.name)
        } else {
            format!("{} had no turn running.", target.name)
        })
    }
}
