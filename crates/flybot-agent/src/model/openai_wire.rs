//! The chat-completions wire format, both ways: the request this client sends
//! (and the mock server reads back), and the stream chunks the mock server
//! writes (and this client reads, in `openai_stream`). Only the fields that
//! DeepSeek, OpenAI, Ollama and vLLM share, plus `reasoning_effort`.

use super::{
    ChatMessage, FinishReason, ModelRequest, Role, StreamEvent, ToolCall, ToolSchema, ToolSpec,
    Usage,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The body of `POST {baseUrl}/chat/completions`.
#[derive(Debug, Serialize, Deserialize)]
pub struct WireRequest {
    pub model: String,
    pub messages: Vec<WireMessage>,
    #[serde(default)]
    pub stream: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_options: Option<Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<WireTool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// OpenAI's name for the thinking level; sent only for a model whose
    /// `thinking` levels are declared in config.toml.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<String>,
    /// DeepSeek's switch, `{type: enabled | disabled}`; sent only for a
    /// model declared with `thinkingSwitch`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<Value>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct WireMessage {
    pub role: Role,
    /// `null` on an assistant message that only called tools.
    #[serde(default)]
    pub content: Option<WireContent>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<WireToolCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// DeepSeek's thinking text, sent back on an assistant message that
    /// called tools (its thinking models refuse the next step without it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_content: Option<String>,
}

/// Content is a string, or (from some clients) a list of typed parts.
#[derive(Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub enum WireContent {
    Text(String),
    Parts(Vec<Value>),
}

#[derive(Debug, Serialize, Deserialize)]
pub struct WireToolCall {
    #[serde(default)]
    pub id: String,
    #[serde(rename = "type", default = "function_type")]
    pub kind: String,
    pub function: WireFunctionCall,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct WireFunctionCall {
    pub name: String,
    #[serde(default)]
    pub arguments: String,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct WireTool {
    #[serde(rename = "type", default = "function_type")]
    pub kind: String,
    pub function: WireFunction,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct WireFunction {
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub parameters: ToolSchema,
}

fn function_type() -> String {
    "function".to_owned()
}

/// The request the client sends for `request`, streaming with usage.
pub fn to_wire(request: &ModelRequest, reasoning_effort: Option<&str>) -> WireRequest {
    WireRequest {
        model: request.model.clone(),
        messages: request.messages.iter().map(message_to_wire).collect(),
        stream: true,
        stream_options: Some(json!({"include_usage": true})),
        tools: request
            .tools
            .iter()
            .map(|tool| WireTool {
                kind: function_type(),
                function: WireFunction {
                    name: tool.name.clone(),
                    description: tool.description.clone(),
                    parameters: tool.parameters.clone(),
                },
            })
            .collect(),
        max_tokens: request.max_tokens,
        reasoning_effort: reasoning_effort.map(str::to_owned),
        thinking: None,
    }
}

/// A message's content: its text, or with images (issue 32) the text part
/// and one OpenAI `image_url` part per image's data URL.
fn content_to_wire(message: &ChatMessage) -> WireContent {
    if message.images.is_empty() {
        return WireContent::Text(message.content.clone());
    }
    let mut parts = vec![json!({"type": "text", "text": message.content})];
    parts.extend(
        message
            .images
            .iter()
            .map(|url| json!({"type": "image_url", "image_url": {"url": url}})),
    );
    WireContent::Parts(parts)
}

fn message_to_wire(message: &ChatMessage) -> WireMessage {
    let only_calls = message.content.is_empty() && !message.tool_calls.is_empty();
    WireMessage {
        role: message.role,
        content: (!only_calls).then(|| content_to_wire(message)),
        tool_calls: message
            .tool_calls
            .iter()
            .map(|call| WireToolCall {
                id: call.id.clone(),
                kind: function_type(),
                function: WireFunctionCall {
                    name: call.name.clone(),
                    arguments: call.arguments.clone(),
                },
            })
            .collect(),
        tool_call_id: message.tool_call_id.clone(),
        // Only with the calls it led to: a provider that never sent thinking
        // text never sees the field.
        reasoning_content: message
            .reasoning_content
            .clone()
            .filter(|_| message.role == Role::Assistant && !message.tool_calls.is_empty()),
    }
}

/// A received request as the model boundary's type (the mock server's side).
pub fn from_wire(wire: WireRequest) -> ModelRequest {
    ModelRequest {
        model: wire.model,
        messages: wire
            .messages
            .into_iter()
            .map(|message| ChatMessage {
                role: message.role,
                images: match &message.content {
                    Some(WireContent::Parts(parts)) => parts
                        .iter()
                        .filter_map(|part| part.pointer("/image_url/url").and_then(Value::as_str))
                        .map(str::to_owned)
                        .collect(),
                    _ => Vec::new(),
                },
                content: match message.content {
                    None => String::new(),
                    Some(WireContent::Text(text)) => text,
                    Some(WireContent::Parts(parts)) => parts
                        .iter()
                        .filter_map(|part| part.get("text").and_then(Value::as_str))
                        .collect::<Vec<_>>()
                        .join(""),
                },
                tool_calls: message
                    .tool_calls
                    .into_iter()
                    .map(|call| ToolCall {
                        id: call.id,
                        name: call.function.name,
                        arguments: call.function.arguments,
                    })
                    .collect(),
                tool_call_id: message.tool_call_id,
                reasoning_content: message.reasoning_content,
            })
            .collect(),
        tools: wire
            .tools
            .into_iter()
            .map(|tool| ToolSpec {
                name: tool.function.name,
                description: tool.function.description,
                parameters: tool.function.parameters,
            })
            .collect(),
        max_tokens: wire.max_tokens,
        thinking: None,
    }
}

/// The wire spelling of a finish reason.
pub fn finish_to_wire(finish: FinishReason) -> &'static str {
    match finish {
        FinishReason::Stop => "stop",
        FinishReason::ToolCalls => "tool_calls",
        FinishReason::MaxTokens => "length",
        FinishReason::ContentFilter => "content_filter",
    }
}

/// A finish reason as providers spell it; an unknown one is a plain stop.
pub fn finish_from_wire(reason: &str) -> FinishReason {
    match reason {
        "tool_calls" | "function_call" => FinishReason::ToolCalls,
        "length" | "max_tokens" => FinishReason::MaxTokens,
        "content_filter" => FinishReason::ContentFilter,
        _ => FinishReason::Stop,
    }
}

/// The `usage` object for `usage`, with unknown counts left out.
pub fn usage_to_wire(usage: &Usage) -> Value {
    let mut wire = serde_json::Map::new();
    if let Some(input) = usage.input_tokens {
        wire.insert("prompt_tokens".into(), input.into());
    }
    if let Some(output) = usage.output_tokens {
        wire.insert("completion_tokens".into(), output.into());
    }
    if let (Some(input), Some(output)) = (usage.input_tokens, usage.output_tokens) {
        wire.insert("total_tokens".into(), (input + output).into());
    }
    if let Some(cached) = usage.cached_tokens {
        wire.insert(
            "prompt_tokens_details".into(),
            json!({"cached_tokens": cached}),
        );
    }
    if let Some(reasoning) = usage.reasoning_tokens {
        wire.insert(
            "completion_tokens_details".into(),
            json!({"reasoning_tokens": reasoning}),
        );
    }
    Value::Object(wire)
}

/// The stream chunks for `events` (a whole answer, `Done` last): one chunk per
/// delta, the tool calls in one chunk, the finish, then usage if known.
pub fn stream_chunks(id: &str, model: &str, created: u64, events: &[StreamEvent]) -> Vec<Value> {
    let chunk = |choices: Value, usage: Option<Value>| {
        let mut chunk = json!({
            "id": id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": choices,
        });
        if let (Some(usage), Some(object)) = (usage, chunk.as_object_mut()) {
            object.insert("usage".into(), usage);
        }
        chunk
    };
    let delta = |delta: Value, finish: Option<&str>| json!([{"index": 0, "delta": delta, "finish_reason": finish}]);
    let mut chunks = vec![chunk(
        delta(json!({"role": "assistant", "content": ""}), None),
        None,
    )];
    let mut index = 0;
    for event in events {
        match event {
            StreamEvent::TextDelta(text) => {
                chunks.push(chunk(delta(json!({"content": text}), None), None));
            }
            StreamEvent::ReasoningDelta(text) => {
                chunks.push(chunk(delta(json!({"reasoning_content": text}), None), None));
            }
            StreamEvent::ToolCall(call) => {
                chunks.push(chunk(
                    delta(
                        json!({"tool_calls": [{
                            "index": index,
                            "id": call.id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": call.arguments},
                        }]}),
                        None,
                    ),
                    None,
                ));
                index += 1;
            }
            StreamEvent::Usage(usage) => {
                if *usage != Usage::default() {
                    chunks.push(chunk(json!([]), Some(usage_to_wire(usage))));
                }
            }
            StreamEvent::Done(finish) => {
                chunks.push(chunk(delta(json!({}), Some(finish_to_wire(*finish))), None));
            }
        }
    }
    // The finish goes before usage on the wire, as OpenAI sends it.
    if let Some(at) = chunks.iter().position(|c| c.get("usage").is_some())
        && let Some(finish) = chunks.pop()
    {
        chunks.insert(at, finish);
    }
    chunks
}

/// The whole answer of a non-streaming call, for the same `events`.
pub fn completion(id: &str, model: &str, created: u64, events: &[StreamEvent]) -> Value {
    let mut text = String::new();
    let mut reasoning = String::new();
    let mut calls = Vec::new();
    let mut usage = Usage::default();
    let mut finish = FinishReason::Stop;
    for event in events {
        match event {
            StreamEvent::TextDelta(delta) => text.push_str(delta),
            StreamEvent::ReasoningDelta(delta) => reasoning.push_str(delta),
            StreamEvent::ToolCall(call) => calls.push(json!({
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            })),
            StreamEvent::Usage(known) => usage = *known,
            StreamEvent::Done(reason) => finish = *reason,
        }
    }
    let mut message = json!({"role": "assistant", "content": text});
    if let Some(object) = message.as_object_mut() {
        if !reasoning.is_empty() {
            object.insert("reasoning_content".into(), reasoning.into());
        }
        if !calls.is_empty() {
            object.insert("tool_calls".into(), calls.into());
        }
    }
    let mut answer = json!({
        "id": id,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_to_wire(finish)}],
    });
    if usage != Usage::default()
        && let Some(object) = answer.as_object_mut()
    {
        object.insert("usage".into(), usage_to_wire(&usage));
    }
    answer
}

/// The SSE frames (`data: {chunk}\n\n`, then `data: [DONE]` when `done`) for
/// `events`, as `stream_chunks` orders them; the usage chunk only when asked
/// (`stream_options.include_usage`). Text deltas, nearly every frame of a
/// long answer, are written from a template instead of a JSON tree.
pub fn stream_frames(
    id: &str,
    model: &str,
    created: u64,
    events: &[StreamEvent],
    include_usage: bool,
    done: bool,
) -> Vec<String> {
    let quoted = |text: &str| serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned());
    let head = format!(
        r#"data: {{"id":{},"object":"chat.completion.chunk","created":{created},"model":{},"choices":[{{"index":0,"delta":{{"content":"#,
        quoted(id),
        quoted(model)
    );
    let mut frames = Vec::with_capacity(events.len() + 2);
    let mut rest: Vec<StreamEvent> = Vec::new();
    let flush = |rest: &mut Vec<StreamEvent>, frames: &mut Vec<String>, first: bool| {
        let chunks = stream_chunks(id, model, created, rest);
        frames.extend(
            chunks
                .into_iter()
                .skip(usize::from(!first))
                .filter(|chunk| include_usage || chunk.get("usage").is_none())
                .map(|chunk| format!("data: {chunk}\n\n")),
        );
        rest.clear();
    };
    let mut first = true;
    for event in events {
        match event {
            StreamEvent::TextDelta(text) => {
                if first || !rest.is_empty() {
                    flush(&mut rest, &mut frames, first);
                    first = false;
                }
                frames.push(format!(
                    "{head}{}}},\"finish_reason\":null}}]}}\n\n",
                    quoted(text)
                ));
            }
            StreamEvent::ReasoningDelta(_)
            | StreamEvent::ToolCall(_)
            | StreamEvent::Usage(_)
            | StreamEvent::Done(_) => rest.push(event.clone()),
        }
    }
    if first || !rest.is_empty() {
        flush(&mut rest, &mut frames, first);
    }
    if done {
        frames.push("data: [DONE]\n\n".to_owned());
    }
    frames
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_from_the_template_read_as_the_chunks_do() {
        let events = vec![
            StreamEvent::ReasoningDelta("think".into()),
            StreamEvent::TextDelta("a \"quoted\"\n".into()),
            StreamEvent::TextDelta("b".into()),
            StreamEvent::Usage(Usage {
                input_tokens: Some(1),
                ..Usage::default()
            }),
            StreamEvent::Done(FinishReason::Stop),
        ];
        let expect: Vec<String> = stream_chunks("id-1", "m", 0, &events)
            .iter()
            .map(|chunk| format!("data: {chunk}\n\n"))
            .chain(["data: [DONE]\n\n".to_owned()])
            .collect();
        let frames = stream_frames("id-1", "m", 0, &events, true, true);
        let parse = |frames: &[String]| -> Vec<Value> {
            frames
                .iter()
                .map(|f| {
                    let data = f.trim_start_matches("data: ").trim_end();
                    serde_json::from_str(data).unwrap_or(Value::String(data.to_owned()))
                })
                .collect()
        };
        assert_eq!(parse(&frames), parse(&expect));
        let text_only = [StreamEvent::TextDelta("x".into())];
        assert_eq!(
            parse(&stream_frames("i", "m", 0, &text_only, true, false)),
            parse(
                &stream_chunks("i", "m", 0, &text_only)
                    .iter()
                    .map(|c| format!("data: {c}\n\n"))
                    .collect::<Vec<_>>()
            )
        );
    }
}
