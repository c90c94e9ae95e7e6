//! The claim is public (#1253): when a room card moves out of open into
//! claimed or working, one short line goes into the room log in the member's
//! voice — `接了 #1253，第一步是 <note>` — logged, not posted into the room's
//! Session: no turn, no round. The same line for the same card is not posted
//! again within `CLAIM_CUE_REPEAT_MS`.

use super::CLAIM_CUE_REPEAT_MS;
use super::dispatch::issue_refs;
use crate::tasks::text::one_line;
use flybot_protocol::state::{Task, TaskStatus};
use flybot_protocol::task::TaskFields;
use serde::{Deserialize, Serialize};

/// The last claim line of a card (`claimCue`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClaimCue {
    pub seq: u64,
    pub at: u64,
    pub text: String,
}

/// Whether a move is a claim the room hears about.
pub fn is_claim_move(before: TaskStatus, after: TaskStatus) -> bool {
    before == TaskStatus::Open && matches!(after, TaskStatus::Claimed | TaskStatus::Working)
}

/// The claim line: the issue number the title carries (else the title), and
/// the card's own note as the first step.
pub fn claim_line(task: &Task) -> String {
    let f = TaskFields::read(task);
    let title = one_line(&task.title, 80);
    let reference = issue_refs(&task.title)
        .first()
        .map(|(n, _)| format!("#{n}"))
        .or_else(|| f.target.as_ref().map(|t| format!("#{}", t.number)))
        .unwrap_or_else(|| title.clone());
    match f
        .note
        .as_deref()
        .map(|n| one_line(n, 120))
        .filter(|n| !n.is_empty())
    {
        Some(note) => format!("接了 {reference}，第一步是 {note}"),
        None if reference == title => format!("接了 {title}"),
        None => format!("接了 {reference} {title}"),
    }
}

/// Whether the line goes out: not the same text within the repeat window.
pub fn should_post(prev: Option<&ClaimCue>, text: &str, now: u64) -> bool {
    prev.is_none_or(|c| c.text != text || now >= c.at.saturating_add(CLAIM_CUE_REPEAT_MS))
}

#[cfg(test)]
mod tests {
    use super::super::board::tests::card;
    use super::*;

    #[test]
    /// Rule #1253.
    fn the_claim_line_is_in_the_members_voice_and_a_reclaim_stays_quiet() {
        let mut t = card("t", "bot-b", TaskStatus::Claimed, |f| {
            f.note = Some("rebase onto main".into())
        });
        t.title = "Fix login #1253".into();
        assert_eq!(claim_line(&t), "接了 #1253，第一步是 rebase onto main");
        let plain = card("p", "bot-b", TaskStatus::Claimed, |_| {});
        assert_eq!(claim_line(&plain), "接了 p title");
        assert!(is_claim_move(TaskStatus::Open, TaskStatus::Claimed));
        assert!(!is_claim_move(TaskStatus::Claimed, TaskStatus::Working));
        let cue = ClaimCue {
            seq: 3,
            at: 1_000,
            text: claim_line(&t),
        };
        assert!(!should_post(
            Some(&cue),
            &cue.text,
            1_000 + CLAIM_CUE_REPEAT_MS - 1
        ));
        assert!(should_post(
            Some(&cue),
            &cue.text,
            1_000 + CLAIM_CUE_REPEAT_MS
        ));
        assert!(should_post(Some(&cue), "接了 #1", 2_000));
    }
}
