//! The room's lines in a member's turn (#1203, #1251).
//!
//! The count caps choose the lines (`ROOM_FIRST_LOOK` 12 on a first look,
//! else `ROOM_DELTA_MAX` 24 since the member last saw the room, of which at
//! most `ROOM_EARLIER_MAX` 8 from before the round); `fit_room_lines` then
//! keeps a newer-first slice of at most `ROOM_CONTEXT_BUDGET` (4,000)
//! characters. A long status-shaped Bot line is stored as its one-line stub
//! by every writer of the log (`prepare_room_line`), so the stored line and
//! the next turn cannot disagree; a fenced peer line is compacted inside its
//! fence, and the fence decides before the kind and author exemptions.

use super::log::{AuthorKind, LineKind, RoomLine};
use super::{ROOM_CONTEXT_BUDGET, ROOM_DELTA_MAX, ROOM_EARLIER_MAX, ROOM_FIRST_LOOK};
use crate::fences::{fence, unwrap_fence};

/// The lines the count caps choose, oldest first, and how many of the
/// window's lines they left out.
pub fn choose_by_count(
    lines: &[RoomLine],
    seen: Option<u64>,
    round_start: u64,
) -> (Vec<&RoomLine>, usize) {
    let candidates: Vec<&RoomLine> = match seen {
        None => lines.iter().collect(),
        Some(s) => lines.iter().filter(|l| l.seq > s).collect(),
    };
    let cap = if seen.is_none() {
        ROOM_FIRST_LOOK
    } else {
        ROOM_DELTA_MAX
    };
    let recent = &candidates[candidates.len().saturating_sub(cap)..];
    let earlier: Vec<&RoomLine> = recent
        .iter()
        .copied()
        .filter(|l| l.seq < round_start)
        .collect();
    let earlier_cap = if seen.is_none() {
        ROOM_FIRST_LOOK
    } else {
        ROOM_EARLIER_MAX
    };
    let drop_earlier = earlier.len().saturating_sub(earlier_cap);
    let chosen: Vec<&RoomLine> = recent
        .iter()
        .copied()
        .filter(|l| !earlier[..drop_earlier].iter().any(|e| e.seq == l.seq))
        .collect();
    let left_out = lines.len() - chosen.len();
    (chosen, left_out)
}

/// The fitted lines, oldest first, and how many the budget left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fitted {
    pub lines: Vec<String>,
    pub left_out: usize,
}

/// `fitRoomLines` (#1203): a newer-first slice of rendered lines within the
/// character budget; the newest line is cut to the budget rather than lost.
pub fn fit_room_lines(rendered: &[String], budget: usize) -> Fitted {
    let mut kept: Vec<String> = Vec::new();
    let mut used = 0usize;
    for line in rendered.iter().rev() {
        let n = line.chars().count() + 1;
        if used + n > budget {
            if kept.is_empty() {
                kept.push(line.chars().take(budget.saturating_sub(1)).collect());
            }
            break;
        }
        used += n;
        kept.push(line.clone());
    }
    kept.reverse();
    Fitted {
        left_out: rendered.len() - kept.len(),
        lines: kept,
    }
}

/// The room's lines as one turn shows them: count caps, then the budget,
/// then the notice of what was left out.
pub fn room_lines_text(
    lines: &[RoomLine],
    seen: Option<u64>,
    round_start: u64,
    name: impl Fn(&str) -> String,
) -> String {
    let (chosen, counted_out) = choose_by_count(lines, seen, round_start);
    let rendered: Vec<String> = chosen
        .iter()
        .map(|l| format!("{}: {}", name(&l.author_id), l.text))
        .collect();
    let fitted = fit_room_lines(&rendered, ROOM_CONTEXT_BUDGET);
    let left_out = counted_out + fitted.left_out;
    let mut out = String::new();
    if left_out > 0 {
        out.push_str(&format!(
            "({left_out} earlier line(s) left out; read_group_chat returns an exact earlier line.)\n"
        ));
    }
    out.push_str(&fitted.lines.join("\n"));
    out
}

/// The hints a status narration carries (CI, merge queue, review).
const STATUS_WORDS: [&str; 10] = [
    "ci",
    "checks",
    "pipeline",
    "rebase",
    "rebased",
    "approved",
    "lgtm",
    "merged",
    "mergeable",
    "green",
];
const STATUS_PHRASES: [&str; 5] = [
    "merge queue",
    "merge-queue",
    "review",
    "pull request",
    "pr #",
];

/// Characters from which a status-shaped Bot line is collapsed (#1203).
pub const STATUS_SHAPED_MIN: usize = 400;

/// `statusShaped`: at least 400 characters and two of the status hints.
pub fn status_shaped(text: &str) -> bool {
    if text.chars().count() < STATUS_SHAPED_MIN {
        return false;
    }
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).collect();
    let hits = STATUS_WORDS.iter().filter(|w| words.contains(w)).count()
        + STATUS_PHRASES.iter().filter(|p| lower.contains(*p)).count();
    hits >= 2
}

/// The one-line stub of a status-shaped line: its opening and up to four @
/// names.
pub fn status_stub(text: &str) -> String {
    let opening: String = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .chars()
        .take(120)
        .collect();
    let mut names: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        if let Some(n) = word.strip_prefix('@') {
            let n = n.trim_end_matches(|c: char| !c.is_alphanumeric());
            if !n.is_empty() && !names.iter().any(|x| x == n) && names.len() < 4 {
                names.push(n.to_string());
            }
        }
    }
    let calls = if names.is_empty() {
        String::new()
    } else {
        format!(
            " {}",
            names
                .iter()
                .map(|n| format!("@{n}"))
                .collect::<Vec<_>>()
                .join(" ")
        )
    };
    format!(
        "{opening} …{calls} [status update, {} characters, collapsed]",
        text.chars().count()
    )
}

/// `prepareRoomLine` (#1251): what every writer of the room log stores.
pub fn prepare_room_line(author_kind: AuthorKind, kind: LineKind, text: &str) -> String {
    if let Some((from, body)) = unwrap_fence(text) {
        let body = if status_shaped(&body) {
            status_stub(&body)
        } else {
            body
        };
        return fence(&from, &body);
    }
    match (author_kind, kind) {
        (AuthorKind::Human, _) | (AuthorKind::System, _) => text.to_string(),
        (_, LineKind::Event) | (_, LineKind::Claim) => text.to_string(),
        (AuthorKind::LocalBot, LineKind::Chat) | (AuthorKind::RemoteBot, LineKind::Chat) => {
            if status_shaped(text) {
                status_stub(text)
            } else {
                text.to_string()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(seq: u64, text: &str) -> RoomLine {
        RoomLine {
            seq,
            author_id: "bot-a".into(),
            author_kind: AuthorKind::LocalBot,
            kind: LineKind::Chat,
            text: text.into(),
            at: seq,
            hop: 0,
            attachments: Vec::new(),
        }
    }

    fn status_essay() -> String {
        format!(
            "CI is green on PR #12 and the merge queue picked it up. @Bo @Cy {}",
            "detail ".repeat(80)
        )
    }

    #[test]
    /// Rule #1203.
    fn the_count_caps_are_12_on_a_first_look_24_since_seen_and_8_from_before_the_round() {
        let lines: Vec<RoomLine> = (1..=100).map(|s| line(s, "x")).collect();
        assert_eq!(choose_by_count(&lines, None, 101).0.len(), ROOM_FIRST_LOOK);
        let (delta, _) = choose_by_count(&lines, Some(10), 95);
        assert_eq!(delta.len(), ROOM_EARLIER_MAX + 6);
        assert_eq!(delta.last().map(|l| l.seq), Some(100));
        let (d, _) = choose_by_count(&lines, Some(50), 40);
        assert_eq!(d.len(), ROOM_DELTA_MAX);
    }

    #[test]
    /// Rule #1203.
    fn fit_room_lines_keeps_a_newer_first_slice_of_at_most_4000_characters() {
        let rendered: Vec<String> = (0..100)
            .map(|i| format!("{i:03} {}", "字".repeat(96)))
            .collect();
        let fitted = fit_room_lines(&rendered, ROOM_CONTEXT_BUDGET);
        let total: usize = fitted.lines.iter().map(|l| l.chars().count() + 1).sum();
        assert!(total <= ROOM_CONTEXT_BUDGET);
        assert!(fitted.lines.last().is_some_and(|l| l.starts_with("099")));
        assert_eq!(fitted.lines.len() + fitted.left_out, 100);
        // The prompt stops growing once the budget is reached.
        let lines: Vec<RoomLine> = (1..=1000).map(|s| line(s, &"y".repeat(300))).collect();
        let body = |n: usize| {
            let text = room_lines_text(&lines[..n], Some(0), 1001, |_| "Ada".into());
            text.lines()
                .filter(|l| l.starts_with("Ada:"))
                .map(|l| l.chars().count() + 1)
                .sum::<usize>()
        };
        assert_eq!(body(100), body(1000));
        assert!(body(1000) <= ROOM_CONTEXT_BUDGET);
    }

    #[test]
    /// Rule #1251.
    fn a_status_shaped_bot_line_is_stored_as_its_stub_by_every_writer() {
        let essay = status_essay();
        assert!(status_shaped(&essay));
        let stored = prepare_room_line(AuthorKind::LocalBot, LineKind::Chat, &essay);
        assert!(stored.starts_with("CI is green") && stored.contains("@Bo @Cy"));
        assert!(stored.chars().count() < 250 && !stored.contains('\n'));
        // A person's line, an event line and a long non-status line stay whole.
        assert_eq!(
            prepare_room_line(AuthorKind::Human, LineKind::Chat, &essay),
            essay
        );
        assert_eq!(
            prepare_room_line(AuthorKind::LocalBot, LineKind::Event, &essay),
            essay
        );
        let prose = "a story ".repeat(80);
        assert_eq!(
            prepare_room_line(AuthorKind::LocalBot, LineKind::Chat, &prose),
            prose
        );
    }

    #[test]
    /// Rule #1251.
    fn a_fenced_peer_line_is_compacted_inside_its_fence() {
        let wrapped = fence("Fred's Bot", &status_essay());
        // Even typed as a person's event line, the fence decides first.
        let stored = prepare_room_line(AuthorKind::Human, LineKind::Event, &wrapped);
        let (from, body) = unwrap_fence(&stored).unwrap_or_default();
        assert_eq!(from, "Fred's Bot");
        assert!(body.contains("[status update"));
    }
}
