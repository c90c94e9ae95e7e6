//! `record_decision` (#396): a Bot writes down a choice it used or rejected,
//! one line in the bounded `decisions.jsonl`. Opt-in per Bot (the Bot's
//! `recordDecisions` flag); secret-shaped text is refused, never written;
//! a write failure is the call's failure, never the turn's. A written
//! decision is announced as `decision` on the live stream.

use super::{caller, looks_like_secret, team};
use crate::tools::{Tool, ToolContext, ToolError, ToolResult};
use flybot_protocol::tool_names;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The longest field, in characters.
const MAX_FIELD: usize = 1_000;

/// What became of the option.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Choice {
    Used,
    Rejected,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordDecisionArgs {
    /// The option considered, in a few words.
    pub option: String,
    /// Whether it was used or rejected.
    pub choice: Choice,
    /// Why, in a sentence.
    pub why: String,
}

pub struct RecordDecision;

impl Tool for RecordDecision {
    type Args = RecordDecisionArgs;
    fn name(&self) -> &'static str {
        tool_names::RECORD_DECISION
    }
    fn description(&self) -> &'static str {
        "Write down a choice you made: an option you used or rejected, and why, so a reviewer can see it later. Never put keys or passwords in it."
    }
    async fn call(&self, ctx: &ToolContext, args: RecordDecisionArgs) -> ToolResult {
        let team = team(ctx)?;
        let opted_in = team
            .store()
            .read(|state| caller(state, ctx, false).map(|me| me.records_decisions()))?;
        if !opted_in {
            return Err(ToolError::Refused(
                "Recording decisions is off for this Bot; its owner can turn it on.".to_owned(),
            ));
        }
        for (field, text) in [("option", &args.option), ("why", &args.why)] {
            let text = text.trim();
            if text.is_empty() || text.chars().count() > MAX_FIELD {
                return Err(ToolError::Invalid(format!(
                    "{field} is 1 to {MAX_FIELD} characters."
                )));
            }
            if looks_like_secret(text) {
                return Err(ToolError::Refused(format!(
                    "The {field} looks like it holds a secret (a key, token or password); leave it out and record the decision without it."
                )));
            }
        }
        let line = serde_json::json!({
            "at": flybot_store::system_now_ms(),
            "botId": ctx.bot_id,
            "sessionId": ctx.session_id,
            "option": args.option.trim(),
            "choice": args.choice,
            "why": args.why.trim(),
        });
        let home = team.home().to_owned();
        let entry = line.clone();
        let written = tokio::task::spawn_blocking(move || {
            flybot_store::decisions::append_decision(&home, &line)
        })
        .await;
        match written {
            Ok(Ok(())) => {
                team.decision_recorded(&entry);
                Ok("Recorded.".to_owned())
            }
            Ok(Err(e)) => {
                tracing::warn!("decisions.jsonl could not be written: {e}");
                Err(ToolError::Failed(
                    "The decision could not be written this time; go on with your work.".to_owned(),
                ))
            }
            Err(e) => {
                tracing::warn!("the decision write stopped: {e}");
                Err(ToolError::Failed(
                    "The decision could not be written this time; go on with your work.".to_owned(),
                ))
            }
        }
    }
}
