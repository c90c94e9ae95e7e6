//! The words of the steward's and the summary's requests. The mock model
//! answers requests whose system prompt opens with these headings
//! deterministically, so the steward is tested offline.

/// The system prompt of a steward request opens with this.
pub const STEWARD_HEADING: &str = "## Context steward";
/// The system prompt of a summary (checkpoint or handoff) request opens
/// with this.
pub const SUMMARY_HEADING: &str = "## Conversation summary";
/// The steward request's line that counts this part's checkpoints.
pub const CHECKPOINTS_LINE: &str = "Checkpoints already made in this part: ";
/// The heading of the pinned memory section of a system prompt.
pub const PINNED_HEADING: &str = "## Your pinned memory";

/// The steward's system prompt.
pub fn steward_system() -> String {
    format!(
        "{STEWARD_HEADING}\nYou keep a Bot's conversation inside its model's context window. \
Answer with one word: condense (a summary replaces the older turns and the conversation stays in this part) \
or move (the conversation continues in a fresh part that opens with a handoff note)."
    )
}

/// The steward's question about a part of `size` tokens.
pub fn steward_question(
    size: usize,
    check: usize,
    hard: usize,
    checkpoints: u32,
    latest: &str,
) -> String {
    format!(
        "This part of the conversation holds about {size} tokens; its check line is {check} and its hard line {hard}.\n\
{CHECKPOINTS_LINE}{checkpoints}\n\nThe latest lines:\n{latest}"
    )
}

/// The summary's system prompt.
pub fn summary_system() -> String {
    format!(
        "{SUMMARY_HEADING}\nSummarise the conversation below for the Bot that continues it: \
the user's goals, decisions made, facts learned, open questions and the work in progress. \
Be brief and concrete; write no greeting."
    )
}
