//! Busy-send acknowledgment (#1584, #1646, #1665, #1678, #1684, #1698): a
//! person's line that reaches a Session while its turn runs earns one short
//! spoken acknowledgment, published at once with an empty text (the page
//! draws blinking dots) and filled by one short model call. Here: the
//! limits, the request's words, the check of the answer, and the ledger of
//! acknowledged lines (`ledger`).

pub mod ledger;

/// The acknowledgment call's reply limit, in tokens (#1665).
pub const ACK_MAX_TOKENS: u32 = 60;
/// The acknowledgment call's hard deadline (#1665).
pub const ACK_TIMEOUT_MS: u64 = 3_000;
/// The longest sentence kept; a longer answer leaves the text empty.
pub const ACK_MAX_CHARS: usize = 240;
/// The model-route key an operator may set for the call
/// (`modelFor['busy-ack']`).
pub const ACK_MODEL_KEY: &str = "busy-ack";

/// The system message of the acknowledgment call.
pub const ACK_SYSTEM: &str = "You write one short, natural sentence that tells a person their new message arrived while you are still busy. Say what the new message is about and what you are doing now. Write in the language of the new message. Do not quote the message, do not use stock phrases, and write only the sentence.";

/// The user message of the acknowledgment call: the new line, what the
/// turn works on and its running tool, when there is one.
pub fn ack_request(line: &str, working_on: &str, running_tool: Option<&str>) -> String {
    let tool = running_tool.map_or_else(
        || "No tool is running.".to_owned(),
        |tool| format!("The running tool: {tool}."),
    );
    format!("The new message:\n{line}\n\nThe request you are working on:\n{working_on}\n\n{tool}")
}

/// The sentence to show from the model's answer: trimmed, one line, not
/// empty and not over [`ACK_MAX_CHARS`]; otherwise none, and the text
/// stays empty (#1665).
pub fn ack_sentence(answer: &str) -> Option<String> {
    let sentence = answer.split_whitespace().collect::<Vec<_>>().join(" ");
    let sentence = sentence
        .trim_matches(|c: char| c == '"' || c == '\'')
        .trim();
    (!sentence.is_empty() && sentence.chars().count() <= ACK_MAX_CHARS).then(|| sentence.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    /// Rule #1665.
    fn ack_sentence_keeps_one_line_and_refuses_empty_or_overlong() {
        assert_eq!(
            ack_sentence("  \"Got it, I will look at the logs\n after this build.\" "),
            Some("Got it, I will look at the logs after this build.".to_owned())
        );
        assert_eq!(ack_sentence("   "), None);
        assert_eq!(ack_sentence(&"word ".repeat(100)), None);
    }

    #[test]
    fn the_request_names_the_line_the_work_and_the_running_tool() {
        let asked = ack_request("Also check prod.", "Fix the build.", Some("run_command"));
        assert!(asked.contains("Also check prod."));
        assert!(asked.contains("Fix the build."));
        assert!(asked.contains("The running tool: run_command."));
        assert!(ack_request("x", "y", None).contains("No tool is running."));
    }
}
