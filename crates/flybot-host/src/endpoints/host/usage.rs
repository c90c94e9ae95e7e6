//! `usage {botId?, since?}` (#903): the usage ledger's rows of the actor's
//! own Bots, one per model call; unknown token counts read as null.

use crate::team::Team;
use flybot_core::access::{Actor, may_manage_bot};
use flybot_protocol::answers::Rows;
use flybot_protocol::{ApiError, ErrorCode};
use flybot_store::usage::{CallFilter, CallRow};
use serde::Deserialize;
use serde_json::{Value, json};
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

fn row_json(row: &CallRow) -> Value {
    json!({
        "id": row.id,
        "sessionId": row.session_id,
        "botId": row.bot_id,
        "at": row.at_ms,
        "provider": row.provider,
        "model": row.model,
        "inputTokens": row.usage.input_tokens,
        "outputTokens": row.usage.output_tokens,
        "cachedTokens": row.usage.cached_tokens,
        "reasoningTokens": row.usage.reasoning_tokens,
        "harness": row.harness,
        "issuePr": row.issue_pr,
        "toolCalls": row.tool_calls,
        "wallMs": row.wall_ms,
    })
}

/// `usage {botId?, since?}` → `{rows}`.
pub async fn usage(
    team: &Team,
    usage: &crate::turns::usage::UsageCell,
    actor: &Actor,
    req: Usage,
) -> Result<Rows, ApiError> {
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
            ErrorCode::Invalid,
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
            ErrorCode::Invalid,
            "The usage ledger could not be read; try again.",
        )
    })?;
    let rows: Vec<Value> = rows
        .iter()
        .filter(|row| own.contains(&row.bot_id))
        .map(row_json)
        .collect();
    Ok(Rows { rows })
}
