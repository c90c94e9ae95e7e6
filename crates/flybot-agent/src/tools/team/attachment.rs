//! `read_attachment` (issue 32): an attachment of the Bot's own
//! conversation, by id. The host decides with the line's rule seen from the
//! seat (`flybot_core::attachments::session_may_read`): a file on a line of
//! this Session's chat, or of the room it sits in within its seat's window.
//! Any other id answers exactly like one never made, so a Bot cannot probe
//! another member's files.

use super::team;
use crate::tools::{Tool, ToolContext, ToolError, ToolResult};
use flybot_protocol::tool_names;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadAttachmentArgs {
    /// The attachment's id (`att-…`), as a line of this conversation names it.
    pub id: String,
}

pub struct ReadAttachment;

impl Tool for ReadAttachment {
    type Args = ReadAttachmentArgs;
    fn name(&self) -> &'static str {
        tool_names::READ_ATTACHMENT
    }
    fn description(&self) -> &'static str {
        "Read a file attached to a line of this conversation, by its id: a text file or a PDF as its text, a picture as its text or a short description."
    }
    async fn call(&self, ctx: &ToolContext, args: ReadAttachmentArgs) -> ToolResult {
        let team = team(ctx)?;
        let id = args.id.trim();
        if id.is_empty() {
            return Err(ToolError::Invalid(
                "Name the attachment by its id (att-…).".to_owned(),
            ));
        }
        team.read_attachment(&ctx.session_id, &ctx.bot_id, id)
            .await
            .map_err(ToolError::Refused)
    }
}
