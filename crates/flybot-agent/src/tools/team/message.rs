//! `message_bot`: Bot-to-Bot delivery into the target Bot's own chat
//! Session. The limits: the owner reach (#90, judged by the host's core
//! `reach()` through `TeamAccess`), `MAX_HOPS` on a chain,
//! `MAX_UNREAD_REQUESTS` per recipient chat, and the 60 s dedupe of a
//! repeated line (#641), which drops the repeat before it is delivered. A
//! message to another owner's Bot is held for the sender's owner (#52). A
//! message sent from the sender's group Session carries that group
//! (`senderRoomId`, #553), so a question about the work can reach it (#550).
//! A name no Bot of the team has may be a friend's Bot's (issue 33): the
//! host sends that over Bot Social.

use super::{caller, is_retired, no_bot, team};
use crate::session::{ItemKind, SessionEvent, Sessions, Source};
use crate::tools::{Tool, ToolContext, ToolError, ToolResult};
use flybot_core::rooms::reach::{Party, Send, SendKind, Verdict};
use flybot_protocol::state::{Bot, TeamState};
use flybot_protocol::tool_names;
use schemars::JsonSchema;
use serde::Deserialize;

/// The longest Bot-to-Bot chain: a message at this hop is not passed on.
pub const MAX_HOPS: u32 = 6;
/// The most unread Bot messages one chat holds.
pub const MAX_UNREAD_REQUESTS: usize = 10;
/// The longest message, in characters.
const MAX_TEXT: usize = 20_000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MessageBotArgs {
    /// The name of the Bot to message, as list_bots shows it.
    pub to: String,
    /// The message, complete on its own: the Bot reads only this.
    pub text: String,
    /// The id of your task card this message is for (task-...), if any. A
    /// send held for your owner's approval then blocks that card until
    /// they decide; without it no card waits (#54).
    #[serde(default, rename = "taskId")]
    pub task_id: Option<String>,
}

pub struct MessageBot;

/// The team's Bots answering to `name`, other than the caller; reach is
/// judged on each by the host, not here.
fn named_bots(state: &TeamState, me: &Bot, name: &str) -> Vec<Bot> {
    let lower = name.trim().to_lowercase();
    state
        .bots
        .values()
        .filter(|bot| {
            bot.name.to_lowercase() == lower && !bot.run && !is_retired(bot) && bot.id != me.id
        })
        .cloned()
        .collect()
}

/// The group `me` writes from when `session_id` is its member Session
/// there: the request then carries it (`senderRoomId`, #553).
fn sender_room(state: &TeamState, me: &Bot, session_id: &str) -> Option<String> {
    state
        .rooms
        .values()
        .find(|room| room.sessions.get(&me.id).is_some_and(|s| s == session_id))
        .map(|room| room.id.clone())
}

/// The hop count of the turn running in `session_id`: the highest hop of the
/// Bot messages that started it (0 for a person's line).
pub(super) fn current_hops(sessions: &Sessions, session_id: &str) -> u32 {
    let Ok(log) = sessions.running_turn_transcript(session_id) else {
        return 0;
    };
    log.iter()
        .filter_map(|e| match &e.event {
            SessionEvent::UserMessage {
                source: Source::Bot { hops, .. } | Source::Round { hops, .. },
                ..
            } => Some(*hops),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// The inputs of the turn running in `session_id`.
fn turn_sources(sessions: &Sessions, session_id: &str) -> Vec<Source> {
    let Ok(log) = sessions.running_turn_transcript(session_id) else {
        return Vec::new();
    };
    log.iter()
        .filter_map(|e| match &e.event {
            SessionEvent::UserMessage { source, .. } => Some(source.clone()),
            _ => None,
        })
        .collect()
}

/// The member the turn `me` runs in `session_id` speaks for, when every
/// input of it is its owner's (the standing-grant rule, #540): a relay on
/// carries that origin, and a group question keeps it (#550).
pub(crate) fn turn_origin(
    sessions: &Sessions,
    state: &TeamState,
    me: &Bot,
    session_id: &str,
) -> Option<String> {
    let from: Vec<_> = turn_sources(sessions, session_id)
        .iter()
        .map(Source::ask_from)
        .collect();
    let own_chat = me.session_id == session_id;
    flybot_core::approvals::origin::grant_applies(state, me, own_chat, &from)
        .is_ok()
        .then(|| me.owner_id.clone())
}

impl Tool for MessageBot {
    type Args = MessageBotArgs;
    fn name(&self) -> &'static str {
        tool_names::MESSAGE_BOT
    }
    fn description(&self) -> &'static str {
        "Send a message to another Bot of your team; it lands in that Bot's own chat and starts its turn. Use it to hand over work or ask a question. A friend's Bot shared with this home is named as its owner's home lists it, such as Helper (Alice); its answer comes back to your chat."
    }
    async fn call(&self, ctx: &ToolContext, args: MessageBotArgs) -> ToolResult {
        let team = team(ctx)?;
        let text = args.text.trim();
        if text.is_empty() || text.chars().count() > MAX_TEXT {
            return Err(ToolError::Invalid(format!(
                "A message is 1 to {MAX_TEXT} characters."
            )));
        }
        let (me, named, sender_room, origin) = team.store().read(|state| {
            let me = caller(state, ctx, false)?;
            let room = sender_room(state, &me, &ctx.session_id);
            let origin = ctx
                .sessions
                .as_ref()
                .and_then(|sessions| turn_origin(sessions, state, &me, &ctx.session_id));
            Ok::<_, ToolError>((me.clone(), named_bots(state, &me, &args.to), room, origin))
        })?;
        // No Bot of the team by that name: a friend's Bot may answer to it
        // (issue 33); the host judges that send and says what became of it.
        if named.is_empty()
            && let Some(sent) = team.message_friend_bot(&me.id, &args.to, text).await
        {
            return sent.map_err(ToolError::Refused);
        }
        // The host judges the send with the core reach() (#90); a Bot it
        // may not reach is refused like one that is not there.
        let target = named
            .into_iter()
            .find(|bot| {
                matches!(
                    team.reach(&Send {
                        from: Party::Bot(me.id.clone()),
                        to: Party::Bot(bot.id.clone()),
                        room_id: None,
                        kind: SendKind::MessageBot,
                    }),
                    Verdict::Allow { .. }
                )
            })
            .ok_or_else(|| no_bot(&args.to))?;
        let sessions = super::turn_sessions(ctx)?;
        let hops = current_hops(sessions, &ctx.session_id) + 1;
        if hops > MAX_HOPS {
            return Err(ToolError::Refused(format!(
                "This chain of Bot messages reached its limit of {MAX_HOPS} hops; answer in your own chat instead of messaging again."
            )));
        }
        if sessions.unread_from_bots(&target.session_id) >= MAX_UNREAD_REQUESTS {
            return Err(ToolError::Refused(format!(
                "{} already has {MAX_UNREAD_REQUESTS} unread Bot messages; wait for it to catch up.",
                target.name
            )));
        }
        // Another owner's Bot: the send waits for the sender's owner (#52).
        if target.owner_id != me.owner_id {
            let id = team
                .hold_send(&me.id, &target.id, text, hops, args.task_id.as_deref())
                .await
                .map_err(ToolError::Failed)?;
            return Ok(format!(
                "Held for your owner's approval (request {id}); it reaches {} once they allow it.",
                target.name
            ));
        }
        if !team
            .recent_lines()
            .first_in_window(&me.id, &target.session_id, text)
        {
            tracing::warn!("delivery: dedupe {} -> {}", me.id, target.session_id);
            return Ok(format!(
                "{} got this same message less than a minute ago; it was not sent again.",
                target.name
            ));
        }
        sessions
            .deliver(
                &target.session_id,
                text,
                Source::Bot {
                    bot_id: me.id.clone(),
                    hops,
                    room_id: sender_room,
                    // Another owner's Bot was held above; this one shares
                    // the owner the origin names.
                    origin,
                },
                ItemKind::NextTurn,
            )
            .map_err(|e| {
                tracing::warn!("message_bot could not deliver: {e}");
                ToolError::Failed(format!(
                    "The message could not reach {}; try again.",
                    target.name
                ))
            })?;
        Ok(format!("Delivered to {}.", target.name))
    }
}
