//! `ask_user`: a question for the Bot's owner. The call itself is the
//! record: it is in the Session's log as a `tool/call`, and `messages` draws
//! it as a `question` line the owner answers in the chat.

use crate::tools::{Tool, ToolContext, ToolError, ToolResult};
use flybot_protocol::tool_names;
use schemars::JsonSchema;
use serde::Deserialize;

/// The longest question, in characters.
const MAX_QUESTION: usize = 2_000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskUserArgs {
    /// The question, complete on its own; the owner answers in your chat.
    pub question: String,
}

pub struct AskUser;

impl Tool for AskUser {
    type Args = AskUserArgs;
    fn name(&self) -> &'static str {
        tool_names::ASK_USER
    }
    fn description(&self) -> &'static str {
        "Ask your owner a question you cannot answer yourself. End your turn after asking; the answer comes as their next message."
    }
    async fn call(&self, _ctx: &ToolContext, args: AskUserArgs) -> ToolResult {
        let question = args.question.trim();
        if question.is_empty() || question.chars().count() > MAX_QUESTION {
            return Err(ToolError::Invalid(format!(
                "A question is 1 to {MAX_QUESTION} characters."
            )));
        }
        Ok("Your owner sees the question in your chat; their answer comes as their next message. End your turn now.".to_owned())
    }
}
