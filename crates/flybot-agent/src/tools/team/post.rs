//! `post_to_group`: a Bot's own line into a group it sits in, which opens a
//! round there. The #557 guards (core `may_post`): a Bot never posts into
//! the room it is speaking in (its reply is its line there), and a relayed
//! chain ends at `MAX_HOPS`. There is no cap on the rounds such posts start
//! (the old `ROOM_BOT_ROUNDS` gate is off by owner decision). With
//! `report_back` the round's closing report goes to the poster's own chat
//! when the round ends (#913).

use super::message::current_hops;
use super::{caller, team};
use crate::tools::{Tool, ToolContext, ToolError, ToolResult};
use flybot_core::rooms::round::may_post;
use flybot_protocol::state::TeamState;
use flybot_protocol::tool_names;
use schemars::JsonSchema;
use serde::Deserialize;

/// The longest post, in characters.
const MAX_TEXT: usize = 20_000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PostToGroupArgs {
    /// The group's name (or id), one you are a member of.
    pub group: String,
    /// The line to post, complete on its own.
    pub text: String,
    /// When true, the round's closing report (who answered, who was called
    /// and did not, who stayed silent) comes back to your own chat (#913).
    #[serde(default)]
    pub report_back: bool,
}

pub struct PostToGroup;

/// The room named `group` that `bot_id` is a member of.
fn group_of(state: &TeamState, bot_id: &str, group: &str) -> Option<String> {
    let wanted = group.trim().to_lowercase();
    state
        .rooms
        .values()
        .filter(|r| r.members.iter().any(|m| m == bot_id))
        .find(|r| r.id == group.trim() || r.name.to_lowercase() == wanted)
        .map(|r| r.id.clone())
}

/// The room whose member Session `session_id` is (the room being spoken in).
fn speaking_in(state: &TeamState, session_id: &str) -> Option<String> {
    state
        .rooms
        .values()
        .find(|r| r.sessions.values().any(|s| s == session_id))
        .map(|r| r.id.clone())
}

impl Tool for PostToGroup {
    type Args = PostToGroupArgs;
    fn name(&self) -> &'static str {
        tool_names::POST_TO_GROUP
    }
    fn description(&self) -> &'static str {
        "Post a line into a group you are a member of; the group's Bots answer it in a round. Not for the group you are speaking in now: your reply is your line there."
    }
    async fn call(&self, ctx: &ToolContext, args: PostToGroupArgs) -> ToolResult {
        let team = team(ctx)?;
        let text = args.text.trim();
        if text.is_empty() || text.chars().count() > MAX_TEXT {
            return Err(ToolError::Invalid(format!(
                "A post is 1 to {MAX_TEXT} characters."
            )));
        }
        let (me, target, here) = team.store().read(|state| {
            let me = caller(state, ctx, false)?;
            let target = group_of(state, &me.id, &args.group).ok_or_else(|| {
                ToolError::Refused(format!(
                    "You are not a member of a group named {}.",
                    args.group.trim()
                ))
            })?;
            Ok::<_, ToolError>((me, target, speaking_in(state, &ctx.session_id)))
        })?;
        let sessions = super::turn_sessions(ctx)?;
        let hop = current_hops(sessions, &ctx.session_id);
        may_post(here.as_deref(), Some(&target), hop)
            .map_err(|why| ToolError::Refused(why.sentence().to_owned()))?;
        team.post_to_group(&target, &me.id, text, hop + 1, args.report_back)
            .map_err(ToolError::Failed)?;
        Ok("Posted to the group.".to_owned())
    }
}
