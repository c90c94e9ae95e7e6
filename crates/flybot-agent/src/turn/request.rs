//! Builds a turn's request from the Session log. The context steward
//! (`crate::context`) keeps a part under its lines; as the last safety the
//! request always fits the model's declared window: the oldest whole turns
//! are left out of the request (never out of the log), and the request says
//! that earlier turns were left out.

use crate::model::{ChatMessage, Role, ToolCall, ToolSpec};
use crate::session::{LogEntry, SessionEvent};

/// Characters per token, a cautious estimate for mixed text.
const CHARS_PER_TOKEN: usize = 3;
/// A message's fixed cost in tokens (role, separators).
const MESSAGE_OVERHEAD: usize = 4;

/// What a request must fit in.
#[derive(Debug, Clone, Copy)]
pub struct Window {
    /// The model's declared context window, in tokens.
    pub context_tokens: u32,
    /// Room kept for the answer, in tokens.
    pub reply_tokens: u32,
}

/// The messages of the log's turns, oldest first, one list per turn.
pub fn turns_of(entries: &[LogEntry]) -> Vec<Vec<ChatMessage>> {
    let mut turns: Vec<Vec<ChatMessage>> = Vec::new();
    let mut open_calls: Vec<String> = Vec::new();
    for entry in entries {
        match &entry.event {
            SessionEvent::TurnStart { .. } => {
                close_calls(turns.last_mut(), &mut open_calls);
                turns.push(Vec::new());
            }
            SessionEvent::UserMessage {
                text, attachments, ..
            } => {
                let turn = current(&mut turns);
                close_calls(Some(&mut *turn), &mut open_calls);
                let mut said = message(Role::User, text.clone());
                said.images.clone_from(attachments);
                turn.push(said);
            }
            SessionEvent::StepEnd { reasoning, .. } => {
                if let Some(last) = assistant(&mut turns) {
                    last.reasoning_content.clone_from(reasoning);
                }
            }
            SessionEvent::StepStart { .. } => {
                let turn = current(&mut turns);
                close_calls(Some(&mut *turn), &mut open_calls);
                turn.push(message(Role::Assistant, String::new()));
            }
            SessionEvent::AssistantMessage { text, .. } => {
                if let Some(last) = assistant(&mut turns) {
                    last.content.push_str(text);
                }
            }
            SessionEvent::ToolCall {
                tool_call_id,
                name,
                arguments,
                ..
            } => {
                if let Some(last) = assistant(&mut turns) {
                    last.tool_calls.push(ToolCall {
                        id: tool_call_id.clone(),
                        name: name.clone(),
                        arguments: arguments.clone(),
                    });
                    open_calls.push(tool_call_id.clone());
                }
            }
            SessionEvent::ToolResult {
                tool_call_id, text, ..
            } => {
                if let Some(at) = open_calls.iter().position(|id| id == tool_call_id) {
                    open_calls.remove(at);
                    let mut reply = message(Role::Tool, text.clone());
                    reply.tool_call_id = Some(tool_call_id.clone());
                    current(&mut turns).push(reply);
                }
            }
            SessionEvent::TurnEnd { .. } => close_calls(turns.last_mut(), &mut open_calls),
        }
    }
    close_calls(turns.last_mut(), &mut open_calls);
    for turn in &mut turns {
        // A step that said nothing and called nothing is not sent.
        turn.retain(|m| {
            !(m.role == Role::Assistant && m.content.is_empty() && m.tool_calls.is_empty())
        });
    }
    turns
}

/// The request's messages: the system prompt, a note when earlier turns
/// were left out, and the newest whole turns that fit.
pub fn fit_messages(
    system: &str,
    tools: &[ToolSpec],
    turns: Vec<Vec<ChatMessage>>,
    window: Window,
) -> Vec<ChatMessage> {
    let budget = (window.context_tokens as usize).saturating_sub(window.reply_tokens as usize);
    let fixed = estimate_text(system) + tools_size(tools);
    let note_cost = 24;
    let mut used = fixed;
    let mut keep_from = turns.len();
    for (index, turn) in turns.iter().enumerate().rev() {
        let cost: usize = turn.iter().map(estimate).sum();
        // The newest turn is always sent: it is the one being answered.
        if index + 1 != turns.len() && used + cost + note_cost > budget {
            break;
        }
        used += cost;
        keep_from = index;
    }
    let mut messages =
        Vec::with_capacity(2 + turns[keep_from..].iter().map(Vec::len).sum::<usize>());
    messages.push(message(Role::System, system.to_owned()));
    if keep_from > 0 {
        messages.push(message(
            Role::System,
            format!(
                "{keep_from} earlier turn{} of this conversation {} left out of this request to fit the model's context window.",
                if keep_from == 1 { "" } else { "s" },
                if keep_from == 1 { "was" } else { "were" }
            ),
        ));
    }
    messages.extend(turns.into_iter().skip(keep_from).flatten());
    messages
}

/// The estimated size of a request, in tokens: its messages and the tool
/// schemas it carries.
pub fn estimate_messages(messages: &[ChatMessage], tools: &[ToolSpec]) -> usize {
    messages.iter().map(estimate).sum::<usize>() + tools_size(tools)
}

fn tools_size(tools: &[ToolSpec]) -> usize {
    tools
        .iter()
        .map(|t| estimate_text(&t.description) + t.parameters.text_len().div_ceil(CHARS_PER_TOKEN))
        .sum()
}

fn estimate(message: &ChatMessage) -> usize {
    MESSAGE_OVERHEAD
        + estimate_text(&message.content)
        + message
            .tool_calls
            .iter()
            .map(|c| estimate_text(&c.name) + estimate_text(&c.arguments) + MESSAGE_OVERHEAD)
            .sum::<usize>()
}

fn estimate_text(text: &str) -> usize {
    text.len().div_ceil(CHARS_PER_TOKEN)
}

fn message(role: Role, content: String) -> ChatMessage {
    ChatMessage::text(role, content)
}

fn current(turns: &mut Vec<Vec<ChatMessage>>) -> &mut Vec<ChatMessage> {
    if turns.is_empty() {
        turns.push(Vec::new());
    }
    let last = turns.len() - 1;
    &mut turns[last]
}

fn assistant(turns: &mut [Vec<ChatMessage>]) -> Option<&mut ChatMessage> {
    turns
        .last_mut()
        .and_then(|turn| turn.last_mut())
        .filter(|m| m.role == Role::Assistant)
}

/// Answers every call left open (a turn cut or stopped mid-call), so the
/// request stays one a provider accepts.
fn close_calls(turn: Option<&mut Vec<ChatMessage>>, open: &mut Vec<String>) {
    let Some(turn) = turn else {
        open.clear();
        return;
    };
    for id in open.drain(..) {
        let mut reply = message(
            Role::Tool,
            "No result: the turn ended before this call finished.".to_owned(),
        );
        reply.tool_call_id = Some(id);
        turn.push(reply);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_safety_leaves_out_the_oldest_whole_turns_and_says_so() {
        let turns: Vec<Vec<ChatMessage>> = (0..6)
            .map(|n| vec![message(Role::User, format!("turn {n} {}", "x".repeat(900)))])
            .collect();
        let window = Window {
            context_tokens: 1_200,
            reply_tokens: 200,
        };
        let messages = fit_messages("You are a test Bot.", &[], turns, window);
        assert!(
            messages[1]
                .content
                .starts_with("3 earlier turns of this conversation were left out")
        );
        let kept: Vec<&str> = messages[2..].iter().map(|m| &m.content[..6]).collect();
        assert_eq!(kept, vec!["turn 3", "turn 4", "turn 5"]);
        assert!(estimate_messages(&messages, &[]) <= 1_000);
    }
}
