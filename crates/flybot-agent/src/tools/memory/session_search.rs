//! `session_search`: lines of the Bot's own conversations (its chat and its
//! room seats, every part, the archived ones too) that hold every word of
//! the query, newest first, each with its Session, part and sequence number.

use super::access;
use crate::session::SessionEvent;
use crate::tools::{Tool, ToolContext, ToolError, ToolResult};
use flybot_core::memory::terms::words_of;
use flybot_protocol::tool_names;
use schemars::JsonSchema;
use serde::Deserialize;

/// The longest line quoted, in characters.
const QUOTED: usize = 200;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionSearchArgs {
    /// The words a line must hold (any order, any case).
    pub query: String,
    /// How many lines at most (default 10, at most 50).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// The `session_search` tool.
pub struct SessionSearch;

impl Tool for SessionSearch {
    type Args = SessionSearchArgs;

    fn name(&self) -> &'static str {
        tool_names::SESSION_SEARCH
    }

    fn description(&self) -> &'static str {
        "Find lines in your own earlier conversations, including earlier parts of this one, that contain all the given words."
    }

    async fn call(&self, ctx: &ToolContext, args: SessionSearchArgs) -> ToolResult {
        let sessions = ctx.sessions.as_ref().ok_or_else(|| {
            ToolError::Refused("Your conversations cannot be searched here.".to_owned())
        })?;
        let wanted = words_of(&args.query);
        if wanted.is_empty() {
            return Err(ToolError::Invalid(
                "Give at least one word to search for.".to_owned(),
            ));
        }
        let limit = args.limit.unwrap_or(10).clamp(1, 50) as usize;
        let mut found: Vec<(u64, String)> = Vec::new();
        for session_id in access(ctx)?.own_sessions(&ctx.bot_id) {
            let log = sessions.transcript(&session_id, 0).map_err(|_| {
                ToolError::Failed("A conversation log could not be read.".to_owned())
            })?;
            for entry in log {
                let (who, text) = match &entry.event {
                    SessionEvent::UserMessage { text, .. } => ("user", text),
                    SessionEvent::AssistantMessage { text, .. } => ("you", text),
                    _ => continue,
                };
                let words = words_of(text);
                if wanted.iter().all(|w| words.contains(w)) {
                    let part = sessions.part_of(&session_id, entry.seq).unwrap_or(1);
                    let quoted: String = text.chars().take(QUOTED).collect();
                    found.push((
                        entry.at,
                        format!("- {session_id} part {part} #{}: {who}: {quoted}", entry.seq),
                    ));
                }
            }
        }
        if found.is_empty() {
            return Ok("No line of your conversations holds those words.".to_owned());
        }
        found.sort_by_key(|f| std::cmp::Reverse(f.0));
        let lines: Vec<String> = found.into_iter().take(limit).map(|(_, l)| l).collect();
        Ok(format!("Found:\n{}", lines.join("\n")))
    }
}
