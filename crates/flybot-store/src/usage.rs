//! The usage ledger (#903): `usage.sqlite` in the home, table `calls` at
//! ledger version 3, one row per model call. A row carries its provider,
//! model, token counts (unknown stays NULL, never 0), the harness tier, the
//! issue or PR the turn was about, the tool calls the model asked for and the
//! call's wall time. Rows are folded from a turn's events by [`fold_calls`]
//! and written by [`UsageLedger::record`], which refuses an incomplete row.
//! A home whose store is on PostgreSQL keeps the rows in the store's
//! database instead (`postgres`, issue 35), the same columns and rules.

mod fold;
mod ledger;
pub(crate) mod postgres;
mod schema;

pub use fold::{HARNESS_IDS, ModelCallEnd, TurnEventSummary, extract_issue_pr, fold_calls};
pub use ledger::UsageLedger;
pub use schema::LEDGER_VERSION;

use std::path::PathBuf;

/// The ledger's file name inside the home folder.
pub const USAGE_FILE: &str = "usage.sqlite";

/// Token counts of one model call; `None` is unknown and is stored as NULL,
/// never as 0 (#903), so a sum over the ledger can tell "none" from "not said".
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TokenUsage {
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub cached_tokens: Option<u64>,
    pub reasoning_tokens: Option<u64>,
}

/// One row of `calls`: one model call.
///
/// The five usage fields every row must carry (#903) are `provider`, `model`,
/// `harness` (non-empty), `tool_calls` and `wall_ms` (present). `issue_pr` is
/// a column on every row too, but `""` is its value when the turn named no
/// issue or PR (the spec's "stay '' by design"), so it cannot be missing.
/// `tool_calls` and `wall_ms` are options only because rows carried over
/// from a version-2 ledger never measured them; a new row without them is
/// refused rather than written as 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallRow {
    /// Unique per call; [`fold_calls`] derives it from the Session, the turn
    /// and the call's index, so recording a re-folded turn twice (a restart
    /// pickup) does not count it twice.
    pub id: String,
    pub session_id: String,
    pub bot_id: String,
    /// When the model call started, Unix milliseconds.
    pub at_ms: i64,
    pub provider: String,
    pub model: String,
    pub usage: TokenUsage,
    /// The harness tier (`default`, `lite`, `medium`, `heavy`).
    pub harness: String,
    /// `#123` or `owner/repo#123`, or `""` when the turn named none.
    pub issue_pr: String,
    /// Tool calls this model call asked for.
    pub tool_calls: Option<u32>,
    /// Wall time of the call, from its attempt's start to its end.
    pub wall_ms: Option<u64>,
}

impl CallRow {
    /// The usage fields this row lacks, in the spec's order; empty when the
    /// row may be recorded.
    pub fn missing_fields(&self) -> Vec<&'static str> {
        let mut missing = Vec::new();
        if self.provider.trim().is_empty() {
            missing.push("provider");
        }
        if self.model.trim().is_empty() {
            missing.push("model");
        }
        if self.harness.trim().is_empty() {
            missing.push("harness");
        }
        if self.tool_calls.is_none() {
            missing.push("tool_calls");
        }
        if self.wall_ms.is_none() {
            missing.push("wall_ms");
        }
        missing
    }
}

/// Which rows [`UsageLedger::rows`] answers; every `None` matches all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallFilter {
    pub session_id: Option<String>,
    pub bot_id: Option<String>,
    /// Rows whose call started at or after this time (Unix milliseconds).
    pub since_ms: Option<i64>,
}

#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    #[error(
        "the usage row is missing {}; the ledger records only rows that carry all five usage fields (#903)",
        .missing.join(", ")
    )]
    IncompleteRow { missing: Vec<&'static str> },
    #[error("the usage row has no id; every ledger row needs one")]
    MissingId,
    #[error(
        "usage.sqlite is ledger version {found}, newer than this FlyBot understands ({}); it was opened read-only and nothing is recorded",
        LEDGER_VERSION
    )]
    NewerLedger { found: i64 },
    #[error(
        "usage.sqlite is ledger version {found}, which this FlyBot cannot upgrade; move the file aside to start a new ledger"
    )]
    UnknownVersion { found: i64 },
    #[error(
        "this FlyBot is a standby (another one holds the database's lease), so it records no usage; the leader does"
    )]
    Standby,
    #[error("the usage ledger {path} could not be used: {source}")]
    Database { path: PathBuf, source: sqlx::Error },
}

#[cfg(test)]
mod tests;
