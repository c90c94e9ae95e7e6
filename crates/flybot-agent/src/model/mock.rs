//! The mock model `mock`: deterministic, no network, always available. With
//! no scenario it answers every call with one plain offline line that says it
//! is the mock. With a scenario it follows the first rule that matches the
//! conversation. `flybot mock-model serve` serves this same model as an
//! OpenAI-compatible HTTP API.
//!
//! # Scenario files
//!
//! A JSON list of rules (or `{"rules": [...]}`); the first rule whose `when`
//! holds answers, and a call no rule matches gets the offline answer.
//!
//! ```json
//! [
//!   {"when": {"userContains": "weather", "step": 0},
//!    "reply": {"toolCalls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}},
//!   {"when": {"afterTool": "get_weather"},
//!    "reply": {"text": "It is sunny in Paris.", "reasoning": "The tool said so."}},
//!   {"when": {"userEquals": "busy"}, "times": 1,
//!    "fail": {"status": 429, "code": "rate_limit_exceeded"}},
//!   {"reply": {"text": "I only know about the weather."}}
//! ]
//! ```
//!
//! - `when` (every condition given must hold; none at all always holds):
//!   `userContains`, `userEquals` (the last user message), `systemContains`,
//!   `step` (0 for the first call of a turn, 1 after one round of tool
//!   results, ...), `afterTool` (the newest message is that tool's result; `*`
//!   for any tool), `model` (the request's model name).
//! - `reply`: `text`, `reasoning`, `toolCalls` (`name`, `arguments` as JSON,
//!   optional `id`, else `call_<step>_<n>`), `finish` (`stop`, `tool-calls`,
//!   `max-tokens`, `content-filter`), `deltaChars` (characters per streamed
//!   text delta; the text comes in four by default), `noUsage` (report no
//!   token counts), `cutAfter` (break the stream after that many deltas).
//! - `fail`: `status`, and the provider's `code` and `type`: answered as a
//!   real provider's refusal (the HTTP server sends that status and body).
//! - `times`: how many calls the rule may answer (unlimited by default).
//!
//! A steward or summary request (`crate::context`) gets the mock's own
//! deterministic answer (`mock_steward`) unless a rule names it with
//! `systemContains`.
//!
//! Usage is counted, not measured: a quarter of the characters sent and of
//! the characters answered, rounded up.

use super::classify::classify;
pub use super::mock_scenario::{Fail, Scenario, ScenarioError};
use super::mock_scenario::{Outcome, Reply, last_user_text, step_of};
use super::mock_steward::steward_reply;
use super::{
    FinishReason, ModelError, ModelProvider, ModelRequest, ModelStream, Role, StreamEvent,
    ToolCall, Usage,
};
use flybot_core::sync::lock;
use std::sync::Mutex;

/// The model's name in the registry and in the usage ledger.
pub const MOCK_MODEL: &str = "mock";

/// What the mock does for one call.
#[derive(Debug, Clone, PartialEq)]
pub enum MockOutcome {
    /// The answer's events, `Usage` and `Done` last.
    Answer(Vec<StreamEvent>),
    /// These events, then the stream breaks off (no finish, no `[DONE]`).
    Cut(Vec<StreamEvent>),
    /// A provider refusal with this status and body codes.
    Fail(Fail),
}

/// The mock model.
#[derive(Debug, Default)]
pub struct MockModel {
    scenario: Option<Scenario>,
    /// How often each rule has answered, for `times`.
    uses: Mutex<Vec<u32>>,
}

impl MockModel {
    /// The mock with no scenario: the offline answer to everything.
    pub fn offline() -> Self {
        MockModel::default()
    }

    pub fn with_scenario(scenario: Scenario) -> Self {
        let uses = vec![0; scenario.rules.len()];
        MockModel {
            scenario: Some(scenario),
            uses: Mutex::new(uses),
        }
    }

    /// Decides the answer to `request`; counts a rule's use.
    pub fn plan(&self, request: &ModelRequest) -> MockOutcome {
        // The steward's and the summary's requests get the mock's own answer
        // unless a rule names them by `systemContains` (a scripted failure).
        let steward = steward_reply(request);
        if let Some(scenario) = &self.scenario {
            let mut uses = lock(&self.uses);
            for (index, rule) in scenario.rules.iter().enumerate() {
                let used = uses.get(index).copied().unwrap_or(0);
                if rule.times.is_some_and(|times| used >= times)
                    || !rule.when.matches(request)
                    || (steward.is_some() && rule.when.system_contains.is_none())
                {
                    continue;
                }
                if let Some(count) = uses.get_mut(index) {
                    *count += 1;
                }
                return match &rule.outcome {
                    Outcome::Reply(reply) => reply_events(request, reply),
                    Outcome::Fail(fail) => MockOutcome::Fail(fail.clone()),
                };
            }
        }
        reply_events(request, &steward.unwrap_or_else(|| offline_reply(request)))
    }
}

/// The answer with no scenario (or no matching rule).
fn offline_reply(request: &ModelRequest) -> Reply {
    // A fenced line (#98) is echoed as its words: the markers are for the
    // model, and the echo is read by a person.
    let unfenced =
        flybot_core::fences::strip_untrusted(last_user_text(&request.messages).unwrap_or(""));
    let said: String = unfenced.trim().chars().take(200).collect();
    // A mock declared with `imageInput` is a fake vision model (issue 32):
    // it says how many pictures the line handed it.
    let pictures = request
        .messages
        .iter()
        .rev()
        .find(|m| m.role == Role::User)
        .map_or(0, |m| m.images.len());
    let said = match pictures {
        0 => said,
        1 => format!("{said} with 1 image"),
        n => format!("{said} with {n} images"),
    };
    Reply {
        text: format!(
            "(mock model) I received: {said}. Add a provider in Settings → Models to talk to a real model."
        ),
        ..Reply::default()
    }
}

fn reply_events(request: &ModelRequest, reply: &Reply) -> MockOutcome {
    let mut events = Vec::new();
    if !reply.reasoning.is_empty() {
        events.push(StreamEvent::ReasoningDelta(reply.reasoning.clone()));
    }
    let size = reply
        .delta_chars
        .unwrap_or_else(|| reply.text.chars().count().div_ceil(4))
        .max(1);
    events.extend(pieces(&reply.text, size).map(|piece| StreamEvent::TextDelta(piece.to_owned())));
    let step = step_of(&request.messages);
    for (n, call) in reply.tool_calls.iter().enumerate() {
        events.push(StreamEvent::ToolCall(ToolCall {
            id: call
                .id
                .clone()
                .unwrap_or_else(|| format!("call_{step}_{n}")),
            name: call.name.clone(),
            arguments: match &call.arguments {
                serde_json::Value::Null => "{}".to_owned(),
                arguments => arguments.to_string(),
            },
        }));
    }
    if let Some(cut) = reply.cut_after {
        events.truncate(cut);
        return MockOutcome::Cut(events);
    }
    let usage = if reply.no_usage {
        Usage::default()
    } else {
        let sent: usize = request
            .messages
            .iter()
            .map(|m| m.content.chars().count())
            .sum();
        let answered = reply.text.chars().count() + reply.reasoning.chars().count();
        Usage {
            input_tokens: Some(tokens(sent)),
            output_tokens: Some(tokens(answered)),
            cached_tokens: None,
            reasoning_tokens: (!reply.reasoning.is_empty())
                .then(|| tokens(reply.reasoning.chars().count())),
        }
    };
    events.push(StreamEvent::Usage(usage));
    let finish = reply.finish.unwrap_or(if reply.tool_calls.is_empty() {
        FinishReason::Stop
    } else {
        FinishReason::ToolCalls
    });
    events.push(StreamEvent::Done(finish));
    MockOutcome::Answer(events)
}

fn tokens(chars: usize) -> u64 {
    u64::try_from(chars.div_ceil(4)).unwrap_or(u64::MAX)
}

/// `text` in pieces of `size` characters.
fn pieces(text: &str, size: usize) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = rest
            .char_indices()
            .nth(size)
            .map_or(rest.len(), |(at, _)| at);
        let (piece, tail) = rest.split_at(end);
        rest = tail;
        Some(piece)
    })
}

impl ModelProvider for MockModel {
    fn name(&self) -> &str {
        MOCK_MODEL
    }

    fn stream(&self, request: ModelRequest) -> ModelStream {
        let items: Vec<Result<StreamEvent, ModelError>> = match self.plan(&request) {
            MockOutcome::Answer(events) => events.into_iter().map(Ok).collect(),
            MockOutcome::Cut(events) => events
                .into_iter()
                .map(Ok)
                .chain([Err(ModelError::Transport(
                    "the stream ended before the answer was complete".to_owned(),
                ))])
                .collect(),
            MockOutcome::Fail(fail) => {
                let codes: Vec<String> = fail.code.into_iter().chain(fail.kind).collect();
                vec![Err(classify(fail.status, &codes))]
            }
        };
        Box::pin(futures_util::stream::iter(items))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ChatMessage, Role};
    use futures_util::StreamExt;

    fn message(role: Role, content: &str) -> ChatMessage {
        ChatMessage::text(role, content)
    }

    fn request(messages: Vec<ChatMessage>) -> ModelRequest {
        ModelRequest {
            model: "mock".into(),
            messages,
            tools: Vec::new(),
            max_tokens: None,
            thinking: None,
        }
    }

    /// The text the mock answers `messages` with, or its failure code.
    fn check(
        mock: &MockModel,
        messages: Vec<ChatMessage>,
    ) -> Result<(String, Vec<String>), String> {
        match mock.plan(&request(messages)) {
            MockOutcome::Answer(events) => {
                let mut text = String::new();
                let mut calls = Vec::new();
                for event in events {
                    match event {
                        StreamEvent::TextDelta(delta) => text.push_str(&delta),
                        StreamEvent::ToolCall(call) => {
                            calls.push(format!("{} {} {}", call.id, call.name, call.arguments));
                        }
                        StreamEvent::ReasoningDelta(_)
                        | StreamEvent::Usage(_)
                        | StreamEvent::Done(_) => {}
                    }
                }
                Ok((text, calls))
            }
            MockOutcome::Cut(_) => Err("cut".into()),
            MockOutcome::Fail(fail) => Err(format!("{} {:?}", fail.status, fail.code)),
        }
    }

    const SCENARIO: &str = r#"[
        {"when": {"userContains": "weather", "step": 0},
         "reply": {"toolCalls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}},
        {"when": {"afterTool": "get_weather"}, "reply": {"text": "It is sunny."}},
        {"when": {"userEquals": "busy"}, "times": 1, "fail": {"status": 429, "code": "rate_limit_exceeded"}},
        {"when": {"systemContains": "pirate"}, "reply": {"text": "Arr."}}
    ]"#;

    #[test]
    fn the_offline_answer_says_it_is_the_mock() {
        let (text, calls) =
            check(&MockModel::offline(), vec![message(Role::User, "hello")]).unwrap();
        assert_eq!(
            text,
            "(mock model) I received: hello. Add a provider in Settings → Models to talk to a real model."
        );
        assert!(calls.is_empty());
    }

    #[test]
    fn the_offline_answer_echoes_a_fenced_line_without_its_markers() {
        let fenced = flybot_core::fences::fence("Bob", "hello from afar");
        let (text, _) = check(&MockModel::offline(), vec![message(Role::User, &fenced)]).unwrap();
        assert!(text.starts_with("(mock model) I received: "), "{text}");
        assert!(text.contains("hello from afar"), "{text}");
        assert!(!text.contains("untrusted-message"), "{text}");
    }

    #[test]
    fn a_scenario_matches_on_the_conversation() {
        let mock = MockModel::with_scenario(Scenario::from_json(SCENARIO).unwrap());
        let asked = message(Role::User, "what is the weather?");
        let (_, calls) = check(&mock, vec![asked.clone()]).unwrap();
        assert_eq!(calls, vec![r#"call_0_0 get_weather {"city":"Paris"}"#]);
        let called = ChatMessage {
            role: Role::Assistant,
            content: String::new(),
            tool_calls: vec![ToolCall {
                id: "call_0_0".into(),
                name: "get_weather".into(),
                arguments: "{}".into(),
            }],
            ..message(Role::Assistant, "")
        };
        let result = ChatMessage {
            tool_call_id: Some("call_0_0".into()),
            ..message(Role::Tool, "sunny")
        };
        let (text, _) = check(&mock, vec![asked, called, result]).unwrap();
        assert_eq!(text, "It is sunny.");
        // `times`: the failure answers once, then the offline answer.
        assert_eq!(
            check(&mock, vec![message(Role::User, "busy")]),
            Err("429 Some(\"rate_limit_exceeded\")".into())
        );
        assert!(
            check(&mock, vec![message(Role::User, "busy")])
                .unwrap()
                .0
                .starts_with("(mock model)")
        );
        let pirate = vec![
            message(Role::System, "You are a pirate."),
            message(Role::User, "hi"),
        ];
        assert_eq!(check(&mock, pirate).unwrap().0, "Arr.");
    }

    #[test]
    fn a_bad_scenario_names_the_rule() {
        let error = Scenario::from_json(r#"[{"reply": {"text": "a"}}, {"when": {}}]"#).unwrap_err();
        assert_eq!(error.0, "rule 1 needs exactly one of reply or fail");
        assert!(Scenario::from_json(r#"[{"when": {"userHas": "x"}, "reply": {}}]"#).is_err());
    }

    #[tokio::test]
    async fn the_stream_comes_in_a_few_deltas_then_usage_and_done() {
        let events: Vec<_> = MockModel::offline()
            .stream(request(vec![message(Role::User, "hello")]))
            .collect()
            .await;
        assert_eq!(events.len(), 6, "four deltas, usage, done: {events:?}");
        assert_eq!(events[5], Ok(StreamEvent::Done(FinishReason::Stop)));
        let Ok(StreamEvent::Usage(usage)) = &events[4] else {
            panic!("{events:?}")
        };
        assert_eq!(usage.input_tokens, Some(2));
    }

    #[tokio::test]
    async fn a_scripted_failure_is_classified_like_a_real_one() {
        let mock = MockModel::with_scenario(
            Scenario::from_json(r#"[{"fail": {"status": 402}}]"#).unwrap(),
        );
        let events: Vec<_> = mock
            .stream(request(vec![message(Role::User, "x")]))
            .collect()
            .await;
        assert_eq!(events, vec![Err(ModelError::Budget)]);
    }
}
