//! The steward's and the summary's model calls: one request each, read to
//! its end, and the transcript of a span of the log a summary is asked for.

use super::prompts::{steward_question, steward_system, summary_system};
use crate::model::{ChatMessage, ModelError, ModelProvider, ModelRequest, Role, StreamEvent};
use crate::session::{LogEntry, SessionEvent};
use futures_util::StreamExt;

/// The longest tool result a transcript quotes, in characters.
const TOOL_RESULT_QUOTED: usize = 300;

fn message(role: Role, content: String) -> ChatMessage {
    ChatMessage::text(role, content)
}

/// The span as lines a summary reads; at most `max_chars`, newest kept.
pub fn transcript(entries: &[LogEntry], max_chars: usize) -> String {
    let mut lines: Vec<String> = entries
        .iter()
        .filter_map(|entry| match &entry.event {
            SessionEvent::UserMessage { text, .. } => Some(format!("user: {text}")),
            SessionEvent::AssistantMessage { text, .. } => Some(format!("assistant: {text}")),
            SessionEvent::ToolCall { name, .. } => Some(format!("assistant called {name}")),
            SessionEvent::ToolResult { text, .. } => Some(format!(
                "tool result: {}",
                text.chars().take(TOOL_RESULT_QUOTED).collect::<String>()
            )),
            _ => None,
        })
        .collect();
    let mut used = 0;
    let mut keep = lines.len();
    while keep > 0 && used + lines[keep - 1].len() < max_chars {
        used += lines[keep - 1].len() + 1;
        keep -= 1;
    }
    lines.drain(..keep);
    lines.join("\n")
}

/// One request, read to its end: the answer's text (reasoning off, no
/// tools): the steward's, the summary's and a busy-send acknowledgment's.
pub async fn ask(
    provider: &dyn ModelProvider,
    model: &str,
    messages: Vec<ChatMessage>,
    max_tokens: u32,
) -> Result<String, ModelError> {
    let mut stream = provider.stream(ModelRequest {
        model: model.to_owned(),
        messages,
        tools: Vec::new(),
        max_tokens: Some(max_tokens),
        // Reasoning off: the steward and the summary answer plainly.
        thinking: None,
    });
    let mut text = String::new();
    while let Some(event) = stream.next().await {
        match event? {
            StreamEvent::TextDelta(delta) => text.push_str(&delta),
            StreamEvent::Done(_) => return Ok(text),
            StreamEvent::ReasoningDelta(_) | StreamEvent::ToolCall(_) | StreamEvent::Usage(_) => {}
        }
    }
    Err(ModelError::BadResponse(
        "the answer ended without a finish reason".to_owned(),
    ))
}

/// What the steward is asked about a part.
pub struct StewardAsk<'a> {
    pub size: usize,
    pub check: usize,
    pub hard: usize,
    pub checkpoints: u32,
    pub latest: &'a str,
}

/// One steward request on the Bot's own route.
pub async fn ask_steward(
    provider: &dyn ModelProvider,
    model: &str,
    question: &StewardAsk<'_>,
) -> Result<String, ModelError> {
    let messages = vec![
        message(Role::System, steward_system()),
        message(
            Role::User,
            steward_question(
                question.size,
                question.check,
                question.hard,
                question.checkpoints,
                question.latest,
            ),
        ),
    ];
    ask(provider, model, messages, 16).await
}

/// A summary of `span` (after the earlier summary `before`, if any).
pub async fn summarize(
    provider: &dyn ModelProvider,
    model: &str,
    before: Option<&str>,
    span: &str,
    max_tokens: u32,
) -> Result<String, ModelError> {
    let text = match before {
        Some(before) => format!("Earlier summary:\n{before}\n\nThe conversation since:\n{span}"),
        None => span.to_owned(),
    };
    let messages = vec![
        message(Role::System, summary_system()),
        message(Role::User, text),
    ];
    let summary = ask(provider, model, messages, max_tokens).await?;
    let summary = summary.trim();
    if summary.is_empty() {
        return Err(ModelError::BadResponse("the summary was empty".to_owned()));
    }
    Ok(summary.to_owned())
}
