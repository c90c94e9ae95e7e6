//! `recall`: the Bot's own entries and the team's it may see, by exact
//! words (the default), `semantic` (TF-IDF cosine) or `related` (the
//! `[[topic]]` / `by:` graph, two hops). The index comes from the host,
//! which keeps it while the files it was built from stand.

use super::{access, entry_line};
use crate::tools::{Tool, ToolContext, ToolError, ToolResult};
use flybot_core::memory::MemoryEntry;
use flybot_core::memory::index::RecallIndex;
use flybot_protocol::tool_names;
use schemars::JsonSchema;
use serde::Deserialize;

/// How `recall` matches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RecallMode {
    /// Entries containing the query's words (the default).
    #[default]
    Exact,
    /// Entries nearest in meaning: shared words, word stems and CJK pieces.
    Semantic,
    /// Entries whose topic is within two links of the query (a topic or a
    /// Bot id).
    Related,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecallArgs {
    /// Words to look for, or for `related` a topic or Bot id.
    pub query: String,
    /// `exact` (default), `semantic` or `related`.
    #[serde(default)]
    pub mode: RecallMode,
    /// How many entries at most (default 8, at most 50).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// The `recall` tool.
pub struct Recall;

/// The entries `mode` finds for `query`, best first.
pub fn recall_entries<'a>(
    index: &'a RecallIndex,
    query: &str,
    mode: RecallMode,
    limit: usize,
) -> Vec<&'a MemoryEntry> {
    match mode {
        RecallMode::Exact => index.exact(query, limit),
        RecallMode::Semantic => index.semantic(query, limit),
        RecallMode::Related => index.related(query, limit),
    }
}

impl Tool for Recall {
    type Args = RecallArgs;

    fn name(&self) -> &'static str {
        tool_names::RECALL
    }

    fn description(&self) -> &'static str {
        "Search your memory and the team's: exact words by default, mode semantic for related wording, mode related for what is linked to a topic or a Bot."
    }

    async fn call(&self, ctx: &ToolContext, args: RecallArgs) -> ToolResult {
        let index = access(ctx)?
            .recall_index(&ctx.bot_id)
            .await
            .map_err(ToolError::Failed)?;
        let limit = args.limit.unwrap_or(8).clamp(1, 50) as usize;
        let found = recall_entries(&index, &args.query, args.mode, limit);
        if found.is_empty() {
            return Ok("Nothing in memory matches.".to_owned());
        }
        let lines: Vec<String> = found.into_iter().map(entry_line).collect();
        Ok(format!("From memory:\n{}", lines.join("\n")))
    }
}
