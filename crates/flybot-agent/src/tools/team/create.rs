//! `create_bot`: a Bot makes a Bot for its owner. The new Bot starts on its
//! maker's model unless the call names one (#410), and it starts no turn
//! (#645): making a team costs no model turn. A brief becomes its
//! "Why you exist:" instructions. Announced as `bot.created`.

use super::{caller, journal_actor, refusal, team};
use crate::tools::{Tool, ToolContext, ToolError, ToolResult};
use flybot_core::names::{
    check_bot_name_free, check_model_configured, clean_instructions, clean_model, clean_name,
};
use flybot_protocol::state::Bot;
use flybot_protocol::tool_names;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateBotArgs {
    /// The new Bot's name, unique on the team.
    pub name: String,
    /// Why the Bot exists: its job, in a few sentences.
    #[serde(default)]
    pub brief: Option<String>,
    /// The model to run on; by default your own model.
    #[serde(default)]
    pub model: Option<String>,
}

pub struct CreateBot;

impl Tool for CreateBot {
    type Args = CreateBotArgs;
    fn name(&self) -> &'static str {
        tool_names::CREATE_BOT
    }
    fn description(&self) -> &'static str {
        "Create a new Bot for your owner's team. It starts on your model unless you name one, and it starts no turn until someone messages it."
    }
    async fn call(&self, ctx: &ToolContext, args: CreateBotArgs) -> ToolResult {
        let team = team(ctx)?;
        let name = clean_name("name", &args.name).map_err(refusal)?;
        let model = args
            .model
            .as_deref()
            .map(clean_model)
            .transpose()
            .map_err(refusal)?;
        // The channel's rule: a named model must be one the host runs.
        if let Some(model) = &model {
            let models = team.models();
            check_model_configured(model, models.iter().map(String::as_str)).map_err(refusal)?;
        }
        let instructions = match args.brief.as_deref().map(str::trim) {
            Some(brief) if !brief.is_empty() => {
                clean_instructions(&format!("Why you exist: {brief}")).map_err(refusal)?
            }
            _ => String::new(),
        };
        let bot_id = team.new_id("bot");
        let session_id = team.new_id("session");
        let made = team
            .store()
            .mutate(&journal_actor(ctx), |change| {
                let maker = match caller(change.state(), ctx, false) {
                    Ok(maker) => maker,
                    Err(refused) => return Ok(Err(refused)),
                };
                check_bot_name_free(change.state(), &name, None)?;
                let now = change.now_ms();
                let model = model.unwrap_or_else(|| maker.model.clone());
                let mut bot = Bot::new(bot_id, name, &maker.owner_id, model, session_id, now);
                bot.instructions = instructions;
                bot.created_by = Some(maker.id.clone());
                change.put_bot(&bot);
                Ok(Ok::<Bot, ToolError>(bot))
            })
            .await
            .map_err(refusal)??;
        team.bot_created(&made);
        Ok(format!(
            "Created {} on model {}. It starts no turn: message it with message_bot when it has work.",
            made.name, made.model
        ))
    }
}
