//! The secrets tools (#545, #651): `list_secrets` names the keys the Bot's
//! shell gets (as `$FLYBOT_SECRET_<NAME>`) and the ones withheld with why;
//! `request_secret` answers for one key: use it, why not, or ask the owner
//! to save it. Neither ever answers a value. The keys are the host's,
//! through `SecretAccess`; the rule is `flybot_core::secrets`.

#[cfg(test)]
mod tests;

use super::{DynTool, Tool, ToolContext, ToolError, ToolResult};
use crate::session::{SessionEvent, Source};
use flybot_core::secrets::{ENV_PREFIX, ShellSecrets, WITHHELD_ENV};
use flybot_protocol::tool_names;
use schemars::JsonSchema;
use serde::Deserialize;
use std::sync::Arc;

/// The host's saved keys as a Bot's turn sees them.
pub trait SecretAccess: Send + Sync {
    /// The keys `bot_id`'s shell gets and the ones withheld.
    fn shell(&self, bot_id: &str) -> ShellSecrets;
}

/// The two secrets tools.
pub fn secret_tools() -> Vec<Arc<dyn DynTool>> {
    vec![Arc::new(ListSecrets), Arc::new(RequestSecret)]
}

const FRIENDS: &str = "A friend's Bot never gets the owner's keys.";

fn shell_of(ctx: &ToolContext) -> Result<ShellSecrets, ToolError> {
    turn_shell(ctx).ok_or_else(|| ToolError::Refused("Secrets are not available here.".to_owned()))
}

/// Whether the turn running in the call's Session took a friend's line
/// (issue 33): its asker is another home.
fn answers_a_friend(ctx: &ToolContext) -> bool {
    let log = (ctx.sessions.as_ref()).and_then(|s| s.running_turn_transcript(&ctx.session_id).ok());
    let Some(log) = log else {
        return false;
    };
    log.iter().any(|e| {
        matches!(
            &e.event,
            SessionEvent::UserMessage {
                source: Source::Friend { .. },
                ..
            }
        )
    })
}

/// The keys this call's shell gets (#545), none in a turn for a remote
/// asker (#651: each withheld as `remote-bot`); `None` without a host.
pub(crate) fn turn_shell(ctx: &ToolContext) -> Option<ShellSecrets> {
    let shell = ctx.env.get::<dyn SecretAccess>()?.shell(&ctx.bot_id);
    Some(match answers_a_friend(ctx) {
        true => flybot_core::secrets::for_remote_asker(shell),
        false => shell,
    })
}

/// No arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListSecretsArgs {}

/// `list_secrets`.
pub struct ListSecrets;

impl Tool for ListSecrets {
    type Args = ListSecretsArgs;
    fn name(&self) -> &'static str {
        tool_names::LIST_SECRETS
    }
    fn description(&self) -> &'static str {
        "List the keys your owner saved that your run_command shell gets as environment variables, and the ones withheld with why. Never shows a value."
    }
    async fn call(&self, ctx: &ToolContext, _args: ListSecretsArgs) -> ToolResult {
        let shell = shell_of(ctx)?;
        if shell.given.is_empty() && shell.withheld.is_empty() {
            return Ok(format!(
                "Your owner has saved no keys. Ask them to save one if a task needs it. {FRIENDS}"
            ));
        }
        let mut lines: Vec<String> = shell
            .given
            .iter()
            .map(|(name, _)| {
                format!("{name}: you may use it as ${ENV_PREFIX}{name} in run_command.")
            })
            .collect();
        lines.extend(shell.withheld.iter().map(|(name, why)| {
            format!("{name}: withheld ({}): {}.", why.as_str(), why.sentence())
        }));
        lines.push(format!(
            "${WITHHELD_ENV} in the shell lists the withheld ones. {FRIENDS}"
        ));
        Ok(lines.join("\n"))
    }
}

/// Which key you need.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequestSecretArgs {
    /// The key's name, e.g. GITHUB_TOKEN.
    pub name: String,
    /// Why the task needs it, in one sentence, for your owner.
    #[serde(default)]
    pub why: Option<String>,
}

/// `request_secret`.
pub struct RequestSecret;

impl Tool for RequestSecret {
    type Args = RequestSecretArgs;
    fn name(&self) -> &'static str {
        tool_names::REQUEST_SECRET
    }
    fn description(&self) -> &'static str {
        "Ask for one key by name: answers whether your shell has it and how to use it, or why not and what to ask your owner."
    }
    async fn call(&self, ctx: &ToolContext, args: RequestSecretArgs) -> ToolResult {
        let shell = shell_of(ctx)?;
        let name = args.name.trim();
        if shell.given.iter().any(|(given, _)| given == name) {
            return Ok(format!(
                "You may use it: ${ENV_PREFIX}{name} is set in your run_command shell. Never print its value. {FRIENDS}"
            ));
        }
        if let Some((_, why)) = shell.withheld.iter().find(|(w, _)| w == name) {
            return Err(ToolError::Refused(format!(
                "{name} is withheld from you ({}): {}. {FRIENDS}",
                why.as_str(),
                why.sentence()
            )));
        }
        Err(ToolError::Refused(format!(
            "No key named {name} is saved. Ask your owner to save it under Secrets (secret-set {name}); it then reaches your shell as ${ENV_PREFIX}{name}. {FRIENDS}"
        )))
    }
}
