//! The team tools: what a Bot may do to its team from a turn. `list_bots`,
//! `message_bot` (Bot-to-Bot delivery with dedupe #641, `MAX_HOPS`,
//! `MAX_UNREAD_REQUESTS`), `create_bot` (#410, #645), `update_bot`,
//! `stop_bot`, `archive_bot` (#638, #1700), `ask_user` and `record_decision`
//! (#396). Each reaches the host through `ctx.team` (`TeamAccess`) and writes
//! through `Store::mutate`.
//!
//! Resolving a Bot by name is one rule (`find_team_bot`): run Bots (#1373)
//! and retired Bots (#1700) answer exactly like an unknown name, and so does
//! a Bot the caller may not reach (no probing of another owner's roster).

mod archive;
mod ask;
mod attach;
mod attachment;
mod create;
mod decision;
mod dedupe;
mod groups;
mod list;
mod message;
mod post;
mod read_group;
mod update;

#[cfg(test)]
mod tests;

pub use archive::ArchiveBot;
pub use ask::{ASKED_IN_GROUP, AskUser};
pub use attach::AttachFile;
pub use attachment::ReadAttachment;
pub use create::CreateBot;
pub use decision::RecordDecision;
pub use dedupe::{DEDUPE_WINDOW, RecentLines};
pub use flybot_core::secret_shape::looks_like_secret;
pub use groups::{CreateGroup, UpdateGroup};
pub use list::ListBots;
pub use message::{MAX_HOPS, MAX_UNREAD_REQUESTS, MessageBot};
pub use update::{StopBot, UpdateBot};

use super::{DynTool, TeamAccess, ToolContext, ToolError};
use flybot_core::rooms::hold::is_waiting;
use flybot_protocol::ApiError;
use flybot_protocol::approval::{Approval, ApprovalStatus};
use flybot_protocol::state::{Bot, TeamState};
use std::sync::Arc;

/// Every team tool, ready for a `ToolSet`.
pub fn team_tools() -> Vec<Arc<dyn DynTool>> {
    vec![
        Arc::new(ListBots),
        Arc::new(MessageBot),
        Arc::new(post::PostToGroup),
        Arc::new(read_group::ReadGroupChat),
        Arc::new(ReadAttachment),
        Arc::new(AttachFile),
        Arc::new(CreateBot),
        Arc::new(UpdateBot),
        Arc::new(StopBot),
        Arc::new(ArchiveBot),
        Arc::new(CreateGroup),
        Arc::new(UpdateGroup),
        Arc::new(AskUser),
        Arc::new(RecordDecision),
    ]
}

/// Whether `bot` is retired (#638).
pub fn is_retired(bot: &Bot) -> bool {
    bot.is_retired()
}

/// The team access of a call, or the refusal for a turn without a host.
pub(crate) fn team(ctx: &ToolContext) -> Result<&Arc<dyn TeamAccess>, ToolError> {
    ctx.env
        .service::<dyn TeamAccess>("Team tools are not available here.")
}

/// The agent runtime running the call's turn, or the refusal outside one.
pub(crate) fn turn_sessions(ctx: &ToolContext) -> Result<&crate::session::Sessions, ToolError> {
    ctx.sessions
        .as_ref()
        .ok_or_else(|| ToolError::Failed("The host is stopping; try again later.".to_owned()))
}

/// The one refusal for an unknown, retired, run or unreachable name (#1700).
pub(crate) fn no_bot(name: &str) -> ToolError {
    ToolError::Refused(format!(
        "No Bot named {} on your team; call list_bots for the names.",
        name.trim()
    ))
}

/// The calling Bot. A run Bot is not a team member (#1445) unless
/// `read_only` (list_bots).
pub(crate) fn caller(
    state: &TeamState,
    ctx: &ToolContext,
    read_only: bool,
) -> Result<Bot, ToolError> {
    let bot = state
        .bots
        .get(&ctx.bot_id)
        .ok_or_else(|| ToolError::Refused("This Bot is no longer on the team.".to_owned()))?;
    if bot.run && !read_only {
        return Err(ToolError::Refused(
            "A running Bot is not a team member.".to_owned(),
        ));
    }
    Ok(bot.clone())
}

/// Whether `from` may reach `to`: the same owner, or an unscoped grant of
/// `to` to `from`'s owner (flybot_core::access, #90).
pub fn may_reach(state: &TeamState, from: &Bot, to: &Bot) -> bool {
    from.owner_id == to.owner_id
        || state.grants.get(&to.id).is_some_and(|grants| {
            grants
                .iter()
                .any(|g| g.grantee == from.owner_id && g.room_id.is_none())
        })
}

/// The Bot named `name` (without case) that `from` may reach; run and
/// retired Bots are not found (#1373, #1700).
pub fn find_team_bot<'a>(state: &'a TeamState, from: &Bot, name: &str) -> Option<&'a Bot> {
    let lower = name.trim().to_lowercase();
    state.bots.values().find(|bot| {
        bot.name.to_lowercase() == lower
            && !bot.run
            && !is_retired(bot)
            && may_reach(state, from, bot)
    })
}

/// Pending approvals of `bot_id` (#587): waiting tool approvals and held
/// sends, counted, never read.
pub fn pending_approvals(state: &TeamState, bot_id: &str) -> usize {
    state
        .flybot
        .approvals
        .values()
        .filter(|approval| match approval {
            Approval::Tool(record) => {
                record.bot_id == bot_id && record.status == ApprovalStatus::Waiting
            }
            Approval::HeldSend(record) => {
                record.held.from_bot == bot_id && is_waiting(record.held.status)
            }
            // A record this build cannot read still counts when it names the
            // Bot and a waiting status, as every record did before they were
            // typed.
            Approval::Unknown(record) => {
                let of_bot = record.get("botId").or_else(|| record.get("fromBot"));
                let status = record.get("status").and_then(|s| s.as_str());
                of_bot.and_then(|b| b.as_str()) == Some(bot_id)
                    && matches!(status, Some("waiting" | "pending" | "pending_approval"))
            }
        })
        .count()
}

/// The journal's label for a change a Bot's tool makes.
pub(crate) fn journal_actor(ctx: &ToolContext) -> String {
    format!("bot:{}", ctx.bot_id)
}

/// A store refusal as the model reads it.
pub(crate) fn refusal(error: ApiError) -> ToolError {
    ToolError::Refused(error.message)
}
