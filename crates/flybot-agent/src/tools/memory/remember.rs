//! `remember`: saves one entry (secret-shaped text refused, size-capped,
//! through the host's one writer, journaled).

use super::{access, entry_line};
use crate::tools::{Tool, ToolContext, ToolError, ToolResult};
use flybot_protocol::tool_names;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RememberArgs {
    /// What to remember, in a sentence or a short paragraph (at most 2,000
    /// characters). Link related topics with [[topic]]. Never a key,
    /// token or password.
    pub text: String,
    /// The topic the entry is filed under, e.g. "deploys" (default "notes").
    #[serde(default)]
    pub topic: Option<String>,
    /// Save to the team's shared memory instead of your own.
    #[serde(default)]
    pub team: bool,
}

/// The `remember` tool.
pub struct Remember;

impl Tool for Remember {
    type Args = RememberArgs;

    fn name(&self) -> &'static str {
        tool_names::REMEMBER
    }

    fn description(&self) -> &'static str {
        "Save one fact, decision or preference to your memory (or the team's), so a later conversation can recall it."
    }

    async fn call(&self, ctx: &ToolContext, args: RememberArgs) -> ToolResult {
        let entry = access(ctx)?
            .save(&ctx.bot_id, args.team, args.topic, args.text)
            .await
            .map_err(ToolError::Refused)?;
        Ok(format!("Remembered: {}", entry_line(&entry)))
    }
}
