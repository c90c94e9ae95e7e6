//! Reading a chat-completions stream: each SSE `data` payload is one chunk;
//! text and DeepSeek's `reasoning_content` pass through as deltas, tool calls
//! are assembled from their fragments and handed out whole, and usage is
//! kept until the end. Events leave in the boundary's order: deltas, tool
//! calls, one `Usage` (its counts `None` where the provider sent none, never
//! zero, #903), then `Done`.

use super::classify::classify_stream_error;
use super::openai_wire::finish_from_wire;
use super::{FinishReason, ModelError, StreamEvent, ToolCall, Usage};
use serde::Deserialize;
use std::borrow::Cow;
use std::collections::VecDeque;

#[derive(Deserialize)]
struct Chunk<'a> {
    #[serde(default, borrow)]
    choices: Vec<Choice<'a>>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    error: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct Choice<'a> {
    #[serde(default, borrow)]
    delta: Delta<'a>,
    #[serde(default, borrow)]
    finish_reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize, Default)]
struct Delta<'a> {
    #[serde(default, borrow)]
    content: Option<Cow<'a, str>>,
    /// DeepSeek's thinking text.
    #[serde(default, borrow)]
    reasoning_content: Option<Cow<'a, str>>,
    /// Ollama's and newer vLLM's name for the same.
    #[serde(default, borrow)]
    reasoning: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    tool_calls: Vec<DeltaToolCall<'a>>,
}

#[derive(Deserialize)]
struct DeltaToolCall<'a> {
    #[serde(default)]
    index: Option<usize>,
    #[serde(default, borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    function: Option<DeltaFunction<'a>>,
}

#[derive(Deserialize)]
struct DeltaFunction<'a> {
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    arguments: Option<Cow<'a, str>>,
}

#[derive(Deserialize, Default)]
struct WireUsage {
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
    prompt_tokens_details: Option<PromptDetails>,
    completion_tokens_details: Option<CompletionDetails>,
    /// DeepSeek's count of prompt tokens served from its cache.
    prompt_cache_hit_tokens: Option<u64>,
}

#[derive(Deserialize, Default)]
struct PromptDetails {
    cached_tokens: Option<u64>,
}

#[derive(Deserialize, Default)]
struct CompletionDetails {
    reasoning_tokens: Option<u64>,
}

/// A tool call whose fragments are still arriving.
#[derive(Default)]
struct PartialCall {
    index: Option<usize>,
    id: String,
    name: String,
    arguments: String,
}

/// What the caller does after a payload.
#[derive(Debug, PartialEq, Eq)]
pub enum Flow {
    More,
    /// `[DONE]` came: the answer is whole.
    Done,
}

/// The state of one stream.
#[derive(Default)]
pub struct Assembler {
    calls: Vec<PartialCall>,
    calls_sent: bool,
    finish: Option<FinishReason>,
    usage: Option<Usage>,
    ended: bool,
}

impl Assembler {
    /// Reads one `data` payload; pushes the events it completes.
    pub fn data(
        &mut self,
        data: &str,
        out: &mut VecDeque<Result<StreamEvent, ModelError>>,
    ) -> Result<Flow, ModelError> {
        if data.trim() == "[DONE]" {
            self.end(out)?;
            return Ok(Flow::Done);
        }
        // The serde error's text may quote the payload: only its place is kept.
        let chunk: Chunk<'_> = serde_json::from_str(data).map_err(|error| {
            ModelError::BadResponse(format!(
                "a stream chunk could not be read (line {}, column {})",
                error.line(),
                error.column()
            ))
        })?;
        if let Some(error) = &chunk.error {
            return Err(classify_stream_error(
                &serde_json::json!({ "error": error }),
            ));
        }
        for choice in chunk.choices {
            let delta = choice.delta;
            if let Some(text) = delta.reasoning_content.or(delta.reasoning)
                && !text.is_empty()
            {
                out.push_back(Ok(StreamEvent::ReasoningDelta(text.into_owned())));
            }
            if let Some(text) = delta.content
                && !text.is_empty()
            {
                out.push_back(Ok(StreamEvent::TextDelta(text.into_owned())));
            }
            for fragment in delta.tool_calls {
                self.tool_fragment(fragment);
            }
            if let Some(reason) = choice.finish_reason {
                self.finish = Some(finish_from_wire(&reason));
                self.send_calls(out);
            }
        }
        if let Some(usage) = chunk.usage {
            // A provider that reports usage on every chunk: the last one counts.
            self.usage = Some(usage_from_wire(usage));
        }
        Ok(Flow::More)
    }

    fn tool_fragment(&mut self, fragment: DeltaToolCall<'_>) {
        let starts_new = match (fragment.index, self.calls.last()) {
            (_, None) => true,
            (Some(index), Some(_)) => !self.calls.iter().any(|c| c.index == Some(index)),
            // No index (some Ollama versions): a new id is a new call.
            (None, Some(last)) => fragment.id.as_deref().is_some_and(|id| id != last.id),
        };
        if starts_new {
            self.calls.push(PartialCall {
                index: fragment.index,
                ..PartialCall::default()
            });
        }
        let call = match fragment.index {
            Some(index) => self.calls.iter_mut().find(|c| c.index == Some(index)),
            None => self.calls.last_mut(),
        };
        let Some(call) = call else { return };
        if let Some(id) = fragment.id
            && !id.is_empty()
        {
            call.id = id.into_owned();
        }
        if let Some(function) = fragment.function {
            if let Some(name) = function.name {
                call.name.push_str(&name);
            }
            if let Some(arguments) = function.arguments {
                call.arguments.push_str(&arguments);
            }
        }
    }

    fn send_calls(&mut self, out: &mut VecDeque<Result<StreamEvent, ModelError>>) {
        if self.calls_sent {
            return;
        }
        self.calls_sent = true;
        for (position, call) in std::mem::take(&mut self.calls).into_iter().enumerate() {
            out.push_back(Ok(StreamEvent::ToolCall(ToolCall {
                id: if call.id.is_empty() {
                    format!("call_{position}")
                } else {
                    call.id
                },
                name: call.name,
                arguments: if call.arguments.trim().is_empty() {
                    "{}".to_owned()
                } else {
                    call.arguments
                },
            })));
        }
    }

    /// The stream is over (`[DONE]`, or the body ended after a finish).
    /// A body that ends before any finish broke off: that is a transport
    /// failure, not an answer.
    pub fn end(
        &mut self,
        out: &mut VecDeque<Result<StreamEvent, ModelError>>,
    ) -> Result<(), ModelError> {
        if self.ended {
            return Ok(());
        }
        self.ended = true;
        let had_calls = !self.calls.is_empty() || self.calls_sent;
        self.send_calls(out);
        out.push_back(Ok(StreamEvent::Usage(self.usage.unwrap_or_default())));
        let finish = self.finish.unwrap_or(if had_calls {
            FinishReason::ToolCalls
        } else {
            FinishReason::Stop
        });
        out.push_back(Ok(StreamEvent::Done(finish)));
        Ok(())
    }

    /// The body ended without `[DONE]`: whole only if a finish was seen.
    pub fn body_ended(
        &mut self,
        out: &mut VecDeque<Result<StreamEvent, ModelError>>,
    ) -> Result<(), ModelError> {
        if self.ended {
            return Ok(());
        }
        if self.finish.is_none() {
            return Err(ModelError::Transport(
                "the stream ended before the answer was complete".to_owned(),
            ));
        }
        self.end(out)
    }
}

fn usage_from_wire(usage: WireUsage) -> Usage {
    Usage {
        input_tokens: usage.prompt_tokens,
        output_tokens: usage.completion_tokens,
        cached_tokens: usage
            .prompt_tokens_details
            .and_then(|d| d.cached_tokens)
            .or(usage.prompt_cache_hit_tokens),
        reasoning_tokens: usage
            .completion_tokens_details
            .and_then(|d| d.reasoning_tokens),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds the payloads; answers every event (errors as their code).
    /// The failure's wire code, leaked so the cases compare with literals.
    fn code_of(error: ModelError) -> &'static str {
        Box::leak(error.code().to_string().into_boxed_str())
    }

    fn run(payloads: &[&str], body_ends: bool) -> Vec<Result<StreamEvent, &'static str>> {
        let mut assembler = Assembler::default();
        let mut out = VecDeque::new();
        let mut failed = None;
        for payload in payloads {
            match assembler.data(payload, &mut out) {
                Ok(Flow::More) => {}
                Ok(Flow::Done) => break,
                Err(error) => {
                    failed = Some(error);
                    break;
                }
            }
        }
        if failed.is_none() && body_ends {
            failed = assembler.body_ended(&mut out).err();
        }
        let mut events: Vec<_> = out.into_iter().map(|e| e.map_err(code_of)).collect();
        if let Some(error) = failed {
            events.push(Err(code_of(error)));
        }
        events
    }

    #[test]
    fn tool_calls_are_assembled_from_fragments() {
        let events = run(
            &[
                r#"{"choices":[{"delta":{"reasoning_content":"hmm"}}]}"#,
                r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"read","arguments":"{\"pa"}}]}}]}"#,
                r#"{"choices":[{"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"list"}}]}}]}"#,
                r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"th\":1}"}}]}}]}"#,
                r#"{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}"#,
                r#"{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":7,"prompt_cache_hit_tokens":2}}"#,
                "[DONE]",
            ],
            false,
        );
        let call = |id: &str, name: &str, arguments: &str| {
            Ok(StreamEvent::ToolCall(ToolCall {
                id: id.into(),
                name: name.into(),
                arguments: arguments.into(),
            }))
        };
        assert_eq!(
            events,
            vec![
                Ok(StreamEvent::ReasoningDelta("hmm".into())),
                call("a", "read", "{\"path\":1}"),
                call("b", "list", "{}"),
                Ok(StreamEvent::Usage(Usage {
                    input_tokens: Some(5),
                    output_tokens: Some(7),
                    cached_tokens: Some(2),
                    reasoning_tokens: None,
                })),
                Ok(StreamEvent::Done(FinishReason::ToolCalls)),
            ]
        );
    }

    #[test]
    fn absent_usage_is_unknown_not_zero() {
        let events = run(
            &[r#"{"choices":[{"delta":{"content":"hi"},"finish_reason":"length"}]}"#],
            true,
        );
        assert_eq!(
            events,
            vec![
                Ok(StreamEvent::TextDelta("hi".into())),
                Ok(StreamEvent::Usage(Usage::default())),
                Ok(StreamEvent::Done(FinishReason::MaxTokens)),
            ]
        );
    }

    #[test]
    fn a_body_ending_before_a_finish_is_a_transport_failure() {
        let events = run(&[r#"{"choices":[{"delta":{"content":"hi"}}]}"#], true);
        assert_eq!(
            events,
            vec![Ok(StreamEvent::TextDelta("hi".into())), Err("TRANSPORT")]
        );
    }

    #[test]
    fn an_error_inside_the_stream_is_classified_by_code() {
        let events = run(
            &[r#"{"error":{"code":"insufficient_quota","message":"sk-1"}}"#],
            false,
        );
        assert_eq!(events, vec![Err("QUOTA")]);
        let events = run(&["not json"], false);
        assert_eq!(events, vec![Err("BAD_RESPONSE")]);
    }
}
