//! `attach_file` (issue 32): a Bot attaches a file of its own workspace to
//! its answer. The host resolves the path inside the workspace only (no
//! `..`, no absolute path, no symlink out, only a regular file), sniffs and
//! stores it like a person's upload under the same limits, and the turn
//! carries the id on its next `assistant/message`, so the answer's line
//! shows the file and the line's rule decides who may read it (#50).

use super::team;
use crate::tools::{Tool, ToolContext, ToolError, ToolResult};
use flybot_protocol::tool_names;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AttachFileArgs {
    /// The file's path, relative to your workspace folder (for example
    /// `out/report.csv`).
    pub path: String,
}

pub struct AttachFile;

impl Tool for AttachFile {
    type Args = AttachFileArgs;
    fn name(&self) -> &'static str {
        tool_names::ATTACH_FILE
    }
    fn description(&self) -> &'static str {
        "Attach a file from your workspace folder to your answer, by its path relative to the folder; the person sees it with your answer (a picture as a thumbnail, any other file as a download)."
    }
    async fn call(&self, ctx: &ToolContext, args: AttachFileArgs) -> ToolResult {
        let team = team(ctx)?;
        if args.path.trim().is_empty() {
            return Err(ToolError::Invalid(
                "Name the file by its path inside your workspace folder.".to_owned(),
            ));
        }
        let shown = team
            .attach_file(&ctx.session_id, &ctx.bot_id, &ctx.workdir, &args.path)
            .await
            .map_err(ToolError::Refused)?;
        ctx.attached.push(shown.id.clone());
        Ok(format!(
            "Attached {} ({}, {} bytes) as {}; it goes with your answer.",
            shown.name, shown.mime, shown.size, shown.id
        ))
    }
}
