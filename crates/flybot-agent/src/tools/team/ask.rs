//! `ask_user`: a question for the Bot's owner. The call itself is the
//! record: it is in the Session's log as a `tool/call`, and `messages` draws
//! it as a `question` line the owner answers in the chat.
//!
//! In a turn that runs work a group member handed over with `message_bot`
//! (`handedFromGroup`, #550) the question goes to that group instead: it
//! waits in `state.questions[<room id>]`, the group's dock, and the Bot's
//! own chat gets no card. One card per group: while another Bot's waits
//! there, the Bot is told to ask in its reply.

use super::{caller, journal_actor, refusal};
use crate::session::{SessionEvent, Source};
use crate::tools::{Tool, ToolContext, ToolError, ToolResult};
use flybot_core::rooms::group_questions::{HandedFrom, ask_in_group, handed_from_group};
use flybot_protocol::tool_names;
use schemars::JsonSchema;
use serde::Deserialize;

/// How the tool's answer begins when the question went to the group that
/// handed the work over: the own chat draws no question card for it.
pub const ASKED_IN_GROUP: &str = "Your question waits in the group";

/// The longest question, in characters.
const MAX_QUESTION: usize = 2_000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskUserArgs {
    /// The question, complete on its own; the owner answers in your chat.
    pub question: String,
}

pub struct AskUser;

/// The newest request of the running turn that a Bot sent from a group:
/// `(room id, sender, hop)`.
fn group_request(ctx: &ToolContext) -> Option<(String, String, u32)> {
    let log = (ctx.sessions.as_ref()?)
        .running_turn_transcript(&ctx.session_id)
        .ok()?;
    log.iter().rev().find_map(|e| match &e.event {
        SessionEvent::UserMessage {
            source:
                Source::Bot {
                    bot_id,
                    hops,
                    room_id: Some(room_id),
                    ..
                },
            ..
        } => Some((room_id.clone(), bot_id.clone(), *hops)),
        _ => None,
    })
}

/// Writes the question to the group's dock; answers the group's name, or
/// the sentence the Bot is told.
async fn ask_group(ctx: &ToolContext, question: &str) -> Result<Option<String>, ToolError> {
    let (Some(team), Some((room_id, sender, hop))) = (
        ctx.env.get::<dyn crate::tools::TeamAccess>(),
        group_request(ctx),
    ) else {
        return Ok(None);
    };
    team.store()
        .mutate(&journal_actor(ctx), |change| {
            let state = change.state();
            let Ok(me) = caller(state, ctx, false) else {
                return Ok(Ok(None));
            };
            let handed: Option<HandedFrom> =
                handed_from_group(state, &me.id, &room_id, &sender, hop);
            let Some(handed) = handed else {
                return Ok(Ok(None));
            };
            // The asking turn's origin rides the card (#550).
            let origin = ctx.sessions.as_ref().and_then(|sessions| {
                super::message::turn_origin(sessions, state, &me, &ctx.session_id)
            });
            let card = match ask_in_group(state, &handed, &me.id, question, origin, change.now_ms())
            {
                Ok(card) => card,
                Err(sentence) => return Ok(Err(ToolError::Refused(sentence))),
            };
            let name = state.rooms.get(&room_id).map(|r| r.name.clone());
            change.put_question(&room_id, &card);
            Ok(Ok(name))
        })
        .await
        .map_err(refusal)?
}

impl Tool for AskUser {
    type Args = AskUserArgs;
    fn name(&self) -> &'static str {
        tool_names::ASK_USER
    }
    fn description(&self) -> &'static str {
        "Ask your owner a question you cannot answer yourself. End your turn after asking; the answer comes as their next message."
    }
    async fn call(&self, ctx: &ToolContext, args: AskUserArgs) -> ToolResult {
        let question = args.question.trim();
        if question.is_empty() || question.chars().count() > MAX_QUESTION {
            return Err(ToolError::Invalid(format!(
                "A question is 1 to {MAX_QUESTION} characters."
            )));
        }
        if let Some(group) = ask_group(ctx, question).await? {
            return Ok(format!(
                "{ASKED_IN_GROUP} {group}, which handed you this work; the answer comes as your next message. End your turn now."
            ));
        }
        Ok("Your owner sees the question in your chat; their answer comes as their next message. End your turn now.".to_owned())
    }
}
