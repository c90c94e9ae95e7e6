//! The order strict chat templates accept: one system message, first, and
//! never two user messages in a row. Many local servers (llama.cpp's and
//! vLLM's Jinja templates among them) refuse a second system message or
//! back-to-back user turns, which a Session log makes naturally: a note
//! beside the prompt, a line steered into a turn, a turn that failed before
//! answering. Merging keeps every word and the order they were said in.

use crate::model::{ChatMessage, Role};

/// `messages` with every system message folded into the first, at the
/// front, and each run of user messages folded into one.
pub fn strict_order(messages: Vec<ChatMessage>) -> Vec<ChatMessage> {
    let mut system: Option<ChatMessage> = None;
    let mut rest: Vec<ChatMessage> = Vec::with_capacity(messages.len());
    for message in messages {
        match message.role {
            Role::System => match &mut system {
                Some(first) => join(&mut first.content, &message.content),
                None => system = Some(message),
            },
            Role::User => match rest.last_mut() {
                Some(last) if last.role == Role::User => join(&mut last.content, &message.content),
                _ => rest.push(message),
            },
            Role::Assistant | Role::Tool => rest.push(message),
        }
    }
    system.into_iter().chain(rest).collect()
}

fn join(into: &mut String, more: &str) {
    if more.is_empty() {
        return;
    }
    if !into.is_empty() {
        into.push_str("\n\n");
    }
    into.push_str(more);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roles_and_text(messages: &[ChatMessage]) -> Vec<(Role, &str)> {
        messages
            .iter()
            .map(|m| (m.role, m.content.as_str()))
            .collect()
    }

    #[test]
    fn one_system_message_first_and_no_back_to_back_user_messages() {
        let messages = vec![
            ChatMessage::text(Role::System, "You are Ada."),
            ChatMessage::text(Role::System, "2 earlier turns were left out."),
            ChatMessage::text(Role::User, "first"),
            ChatMessage::text(Role::User, "second"),
            ChatMessage::text(Role::Assistant, "answer"),
            ChatMessage::text(Role::User, "third"),
            ChatMessage::text(Role::System, "a late note"),
            ChatMessage::text(Role::User, "fourth"),
        ];
        assert_eq!(
            roles_and_text(&strict_order(messages)),
            vec![
                (
                    Role::System,
                    "You are Ada.\n\n2 earlier turns were left out.\n\na late note"
                ),
                (Role::User, "first\n\nsecond"),
                (Role::Assistant, "answer"),
                (Role::User, "third\n\nfourth"),
            ]
        );
    }

    #[test]
    fn tool_results_and_calls_keep_their_places() {
        let mut call = ChatMessage::text(Role::Assistant, "");
        call.tool_calls.push(crate::model::ToolCall {
            id: "c1".into(),
            name: "list_files".into(),
            arguments: "{}".into(),
        });
        let mut result = ChatMessage::text(Role::Tool, "a.txt");
        result.tool_call_id = Some("c1".into());
        let messages = vec![
            ChatMessage::text(Role::System, "p"),
            ChatMessage::text(Role::User, "u"),
            call.clone(),
            result.clone(),
            ChatMessage::text(Role::User, "steered"),
        ];
        let strict = strict_order(messages.clone());
        assert_eq!(strict, messages);
    }
}
