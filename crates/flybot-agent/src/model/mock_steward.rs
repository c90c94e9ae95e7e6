//! The mock's own answers to the context steward and the summary (#796,
//! #1447), so the steward is tested offline and deterministically: the
//! steward says `condense` for a part's first two checkpoints and `move`
//! after them; a summary names how many lines it read and quotes the last.

use super::mock_scenario::Reply;
use super::{ModelRequest, Role};
use crate::context::prompts::{CHECKPOINTS_LINE, STEWARD_HEADING, SUMMARY_HEADING};

/// Checkpoints in one part before the mock steward says `move`.
const CHECKPOINTS_BEFORE_MOVE: u32 = 2;

/// The mock's answer when `request` is a steward or summary request.
pub fn steward_reply(request: &ModelRequest) -> Option<Reply> {
    let system = request
        .messages
        .first()
        .filter(|m| m.role == Role::System)?;
    let asked = request
        .messages
        .iter()
        .rev()
        .find(|m| m.role == Role::User)
        .map_or("", |m| m.content.as_str());
    let text = if system.content.starts_with(STEWARD_HEADING) {
        let made: u32 = asked
            .lines()
            .find_map(|line| line.strip_prefix(CHECKPOINTS_LINE))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(0);
        if made < CHECKPOINTS_BEFORE_MOVE {
            "condense"
        } else {
            "move"
        }
        .to_owned()
    } else if system.content.starts_with(SUMMARY_HEADING) {
        let lines = asked.lines().filter(|l| !l.trim().is_empty()).count();
        let last: String = asked
            .lines()
            .last()
            .unwrap_or("")
            .chars()
            .take(160)
            .collect();
        format!("(mock summary) {lines} lines read; the last: {last}")
    } else {
        return None;
    };
    Some(Reply {
        text,
        ..Reply::default()
    })
}
