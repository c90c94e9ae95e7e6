//! `pin_memory`: replaces the Bot's pinned block, the few facts every
//! conversation needs. A part's system prompt carries the block as it was
//! when the part began, so the edit shows from the next part on.

use super::access;
use crate::tools::{Tool, ToolContext, ToolError, ToolResult};
use flybot_protocol::tool_names;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PinMemoryArgs {
    /// The whole block (at most 1,500 characters); it replaces the old one.
    /// Empty clears it.
    pub text: String,
}

/// The `pin_memory` tool.
pub struct PinMemory;

impl Tool for PinMemory {
    type Args = PinMemoryArgs;

    fn name(&self) -> &'static str {
        tool_names::PIN_MEMORY
    }

    fn description(&self) -> &'static str {
        "Replace your pinned memory: a short block your instructions always carry (who the user is, standing preferences). It takes effect from your next conversation part."
    }

    async fn call(&self, ctx: &ToolContext, args: PinMemoryArgs) -> ToolResult {
        access(ctx)?
            .pin(&ctx.bot_id, args.text)
            .await
            .map_err(ToolError::Refused)?;
        Ok("Pinned memory saved; your next conversation part carries it.".to_owned())
    }
}
