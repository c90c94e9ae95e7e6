//! `usage {botId?, since?}` (#903): the usage ledger's rows of the actor's
//! own Bots, one per model call; unknown token counts read as null.

use crate::team::Team;
use flybot_core::access::{Actor, may_manage_bot};
use flybot_protocol::answers::{Rows, UsageRow};
use flybot_protocol::{ApiError, ErrorCode};
use flybot_store::usage::{CallFilter, CallRow};
use serde::Deserialize;
use std::collections::BTreeSet;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Usage {
    #[serde(default)]
    pub bot_id: Option<String>,
    /// Rows of calls started at or after this time (Unix milliseconds).
    #[serde(default)]
    pub since: Option<i64>,
}

/// A ledger row as the channel shows it.
fn usage_row(row: &CallRow) -> UsageRow {
    UsageRow {
        id: row.id.clone(),
        session_id: row.session_id.clone(),
        bot_id: row.bot_id.clone(),
        at: row.at_ms,
        provider: row.provider.clone(),
        model: row.model.clone(),
        input_tokens: row.usage.input_tokens,
        output_tokens: row.usage.output_tokens,
        cached_tokens: row.usage.cached_tokens,
        reasoning_tokens: row.usage.reasoning_tokens,
        harness: row.harness.clone(),
        issue_pr: row.issue_pr.clone(),
        tool_calls: row.tool_calls,
        wall_ms: row.wall_ms,
    }
}

/// `usage {botId?, since?}` → `{rows}`.
pub async fn usage(
    team: &Team,
    usage: &crate::turns::usage::UsageCell,
    actor: &Actor,
    req: Usage,
) -> Result<Rows<UsageRow>, ApiError> {
    let own: BTreeSet<String> = team.store().read(|state| {
        state
            .bots
            .values()
            .filter(|bot| may_manage_bot(actor, bot))
            .map(|bot| bot.id.clone())
            .collect()
    });
    if let Some(bot_id) = &req.bot_id {
        // Another member's Bot answers like an unknown one.
        if !own.contains(bot_id) {
            return Err(ApiError::not_found("Bot", bot_id));
        }
    }
    let ledger = usage.ledger().await.ok_or_else(|| {
        ApiError::new(
            ErrorCode::Unavailable,
            "The usage ledger is not available on this host.",
        )
    })?;
    let filter = CallFilter {
        session_id: None,
        bot_id: req.bot_id.clone(),
        since_ms: req.since,
    };
    let rows = ledger.rows(&filter).await.map_err(|e| {
        tracing::warn!("the usage ledger could not be read: {e}");
        ApiError::new(
            ErrorCode::Unavailable,
            "The usage ledger could not be read; try again.",
        )
    })?;
    let rows = rows
        .iter()
        .filter(|row| own.contains(&row.bot_id))
        .map(usage_row)
        .collect();
    Ok(Rows { rows })
}
