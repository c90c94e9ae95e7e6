//! `boardCoversCue` (#1109): a Bot's @ of a member whose open card in that
//! room already says the line is a pass, applied in the round before the
//! member's turn, so the board, not another model turn, answers it. A
//! question, a line the card does not already say, and a person's @ still
//! get a turn (the host asks this only of a Bot's line).
//!
//! "Already says" is read plainly: with the @names taken out, the line's
//! words, lowercased and with punctuation folded to spaces, appear in that
//! order in the card's title or note. The card is the member's own, in this
//! room, open, claimed or working, not waiting on an input and not the
//! overall group card.

use flybot_protocol::state::{TaskStatus, TeamState};
use flybot_protocol::task::{TaskFields, TaskKind, WaitingFor};

/// Whether `member`'s open card in `room_id` already shows `cue`, a Bot's
/// line that named the member.
pub fn board_covers_cue(state: &TeamState, room_id: &str, member: &str, cue: &str) -> bool {
    if cue.contains('?') || cue.contains('？') {
        return false;
    }
    let said = words(&without_names(cue));
    if said.is_empty() {
        return false;
    }
    state
        .tasks
        .values()
        .filter(|t| t.bot_id == member && t.room_id.as_deref() == Some(room_id))
        .filter(|t| {
            matches!(
                t.status,
                TaskStatus::Open | TaskStatus::Claimed | TaskStatus::Working
            )
        })
        .any(|t| {
            let f = TaskFields::read(t);
            if f.kind == Some(TaskKind::Group) || f.waiting_for == Some(WaitingFor::Input) {
                return false;
            }
            [Some(t.title.as_str()), f.note.as_deref()]
                .into_iter()
                .flatten()
                .any(|shown| contains_words(&words(shown), &said))
        })
}

/// The line without its `@name` tokens.
fn without_names(text: &str) -> String {
    text.split_whitespace()
        .filter(|token| !token.starts_with('@') && !token.starts_with('＠'))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Lowercased words, punctuation folded to spaces; `#12` keeps its digits.
fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

fn contains_words(shown: &[String], said: &[String]) -> bool {
    shown.windows(said.len()).any(|window| window == said)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use flybot_protocol::state::Task;
    use serde_json::json;

    fn team() -> TeamState {
        let mut state = TeamState::default();
        let cards = [
            json!({"id": "t-1", "botId": "dev", "roomId": "room-1", "title": "Build API #12",
                   "status": "working", "note": "write the handler", "createdAt": 1, "updatedAt": 1}),
            json!({"id": "t-2", "botId": "dev", "roomId": "room-1", "title": "Old thing",
                   "status": "accepted", "createdAt": 1, "updatedAt": 1}),
            json!({"id": "t-3", "botId": "dev", "roomId": "room-1", "title": "Ask first",
                   "status": "blocked", "waitingFor": "input", "createdAt": 1, "updatedAt": 1}),
            json!({"id": "t-4", "botId": "dev", "roomId": "room-2", "title": "Elsewhere",
                   "status": "working", "createdAt": 1, "updatedAt": 1}),
        ];
        for card in cards {
            let task: Task = serde_json::from_value(card).unwrap();
            state.tasks.insert(task.id.clone(), task);
        }
        state
    }

    #[test]
    /// Rule #1109.
    fn a_bots_at_that_the_open_card_already_says_is_a_pass() {
        let state = team();
        let cases = [
            ("@Dev write the handler", true),
            ("@Dev Write the handler.", true),
            ("@Dev build api #12", true),
            ("@Dev write the handler?", false),
            ("@Dev write the tests", false),
            ("@Dev", false),
            ("@Dev old thing", false),
            ("@Dev ask first", false),
            ("@Dev elsewhere", false),
            ("@Dev handler the write", false),
        ];
        for (cue, covered) in cases {
            assert_eq!(
                board_covers_cue(&state, "room-1", "dev", cue),
                covered,
                "{cue}"
            );
        }
        assert!(!board_covers_cue(
            &state,
            "room-1",
            "other",
            "@Other write the handler"
        ));
    }
}
