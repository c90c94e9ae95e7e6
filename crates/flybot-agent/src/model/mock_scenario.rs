//! The mock model's scenario file: a list of rules, read from JSON, each
//! matching on the conversation and answering with text, tool calls, or a
//! provider failure. The format is documented in `mock`'s module doc.

use super::{ChatMessage, FinishReason, ModelRequest, Role};
use serde::Deserialize;
use serde_json::Value;

/// A parsed scenario: rules in file order; the first that matches answers.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    pub rules: Vec<Rule>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    pub when: When,
    pub outcome: Outcome,
    /// How many times the rule may answer; `None` is unlimited.
    pub times: Option<u32>,
}

/// What a rule answers.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Reply(Reply),
    Fail(Fail),
}

/// Conditions; every one given must hold, and no condition matches always.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct When {
    /// The last user message contains this text.
    #[serde(default)]
    pub user_contains: Option<String>,
    /// The last user message is exactly this text (surrounding space ignored).
    #[serde(default)]
    pub user_equals: Option<String>,
    /// The system prompt contains this text.
    #[serde(default)]
    pub system_contains: Option<String>,
    /// The step within the turn: 0 for the first call after the user's
    /// message, 1 after one round of tool results, ...
    #[serde(default)]
    pub step: Option<u32>,
    /// The newest message is a result of a call to this tool (`*`: any tool).
    #[serde(default)]
    pub after_tool: Option<String>,
    /// The request names this model.
    #[serde(default)]
    pub model: Option<String>,
}

/// A reply: text and/or tool calls, streamed in deltas.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Reply {
    #[serde(default)]
    pub text: String,
    /// Thinking text, streamed as `reasoning_content` before the text.
    #[serde(default)]
    pub reasoning: String,
    #[serde(default)]
    pub tool_calls: Vec<ScriptedCall>,
    /// The finish reason; by default `tool-calls` when there are calls,
    /// else `stop`.
    #[serde(default)]
    pub finish: Option<FinishReason>,
    /// Characters per text delta; by default the text comes in four.
    #[serde(default)]
    pub delta_chars: Option<usize>,
    /// Report no usage at all (the counts stay unknown).
    #[serde(default)]
    pub no_usage: bool,
    /// Break the stream after this many deltas, before the finish.
    #[serde(default)]
    pub cut_after: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScriptedCall {
    /// By default `call_<step>_<n>`.
    #[serde(default)]
    pub id: Option<String>,
    pub name: String,
    /// The arguments as JSON (sent as its text).
    #[serde(default)]
    pub arguments: Value,
}

/// A provider failure, as a real provider would answer it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Fail {
    pub status: u16,
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawRule {
    #[serde(default)]
    when: When,
    #[serde(default)]
    reply: Option<Reply>,
    #[serde(default)]
    fail: Option<Fail>,
    #[serde(default)]
    times: Option<u32>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawScenario {
    List(Vec<RawRule>),
    Object { rules: Vec<RawRule> },
}

/// A scenario that could not be read; the sentence names the rule.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ScenarioError(pub String);

impl Scenario {
    /// Reads a scenario: a JSON list of rules (or `{"rules": [...]}`).
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        let raw: RawScenario = serde_json::from_str(text)
            .map_err(|error| ScenarioError(format!("the scenario is not valid: {error}")))?;
        let rules = match raw {
            RawScenario::List(rules) | RawScenario::Object { rules } => rules,
        };
        let rules = rules
            .into_iter()
            .enumerate()
            .map(|(index, rule)| {
                let outcome = match (rule.reply, rule.fail) {
                    (Some(reply), None) => Outcome::Reply(reply),
                    (None, Some(fail)) => Outcome::Fail(fail),
                    (Some(_), Some(_)) | (None, None) => {
                        return Err(ScenarioError(format!(
                            "rule {index} needs exactly one of reply or fail"
                        )));
                    }
                };
                Ok(Rule {
                    when: rule.when,
                    outcome,
                    times: rule.times,
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Scenario { rules })
    }
}

/// The newest user message's text.
pub fn last_user_text(messages: &[ChatMessage]) -> Option<&str> {
    messages
        .iter()
        .rev()
        .find(|m| m.role == Role::User)
        .map(|m| m.content.as_str())
}

/// The step within the turn: assistant messages since the last user message.
pub fn step_of(messages: &[ChatMessage]) -> u32 {
    let since_user = messages
        .iter()
        .rev()
        .take_while(|m| m.role != Role::User)
        .filter(|m| m.role == Role::Assistant)
        .count();
    u32::try_from(since_user).unwrap_or(u32::MAX)
}

/// The tool whose result is the newest message, if it is one.
fn newest_tool_result(messages: &[ChatMessage]) -> Option<&str> {
    let last = messages.last().filter(|m| m.role == Role::Tool)?;
    let call_id = last.tool_call_id.as_deref()?;
    messages
        .iter()
        .rev()
        .flat_map(|m| m.tool_calls.iter())
        .find(|call| call.id == call_id)
        .map(|call| call.name.as_str())
}

impl When {
    pub fn matches(&self, request: &ModelRequest) -> bool {
        let messages = &request.messages;
        let user = last_user_text(messages).unwrap_or("");
        let system_holds = |needle: &String| {
            messages
                .iter()
                .any(|m| m.role == Role::System && m.content.contains(needle.as_str()))
        };
        let tool_holds = |wanted: &String| match newest_tool_result(messages) {
            Some(name) => wanted == "*" || wanted == name,
            None => wanted == "*" && messages.last().is_some_and(|m| m.role == Role::Tool),
        };
        self.user_contains
            .as_ref()
            .is_none_or(|n| user.contains(n.as_str()))
            && self
                .user_equals
                .as_ref()
                .is_none_or(|n| user.trim() == n.trim())
            && self.system_contains.as_ref().is_none_or(system_holds)
            && self.step.is_none_or(|step| step_of(messages) == step)
            && self.after_tool.as_ref().is_none_or(tool_holds)
            && self
                .model
                .as_ref()
                .is_none_or(|model| *model == request.model)
    }
}
