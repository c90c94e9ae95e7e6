//! The answers streaming now, one per Session: the text a running turn has
//! streamed so far (every `text.delta` of the turn, in order), kept by the
//! live feed under its ring's lock so each draft is told with the id of the
//! last entry it holds. A page that opens a chat mid-answer draws the draft,
//! then only the deltas numbered after it: the text from the turn's start,
//! never from the middle of a sentence. A turn's end (`turn.ended`) drops
//! its draft; by then the answer is in the Session's log.

use super::feed::FeedItem;
use crate::events::HostEvent;
use std::collections::HashMap;

/// One Session's streaming answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Draft {
    pub turn_id: String,
    pub text: String,
}

/// The drafts of every Session that streams now.
#[derive(Debug, Default)]
pub struct Drafts {
    by_session: HashMap<String, Draft>,
}

impl Drafts {
    /// Follows one entry of the feed.
    pub fn note(&mut self, item: &FeedItem) {
        let FeedItem::Event(event) = item else { return };
        match event {
            HostEvent::TextDelta {
                session_id,
                turn_id,
                text,
            } => {
                let draft = self
                    .by_session
                    .entry(session_id.clone())
                    .or_insert_with(|| Draft {
                        turn_id: turn_id.clone(),
                        text: String::new(),
                    });
                if draft.turn_id != *turn_id {
                    draft.turn_id.clone_from(turn_id);
                    draft.text.clear();
                }
                draft.text.push_str(text);
            }
            HostEvent::TurnEnded { session_id, .. } => {
                self.by_session.remove(session_id);
            }
            _ => {}
        }
    }

    /// The draft of `session_id`, if it streams now.
    pub fn of(&self, session_id: &str) -> Option<&Draft> {
        self.by_session.get(session_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delta(session: &str, turn: &str, text: &str) -> FeedItem {
        FeedItem::Event(HostEvent::TextDelta {
            session_id: session.to_owned(),
            turn_id: turn.to_owned(),
            text: text.to_owned(),
        })
    }

    fn ended(session: &str, turn: &str) -> FeedItem {
        FeedItem::Event(HostEvent::TurnEnded {
            session_id: session.to_owned(),
            turn_id: turn.to_owned(),
        })
    }

    #[test]
    fn a_draft_holds_the_turns_text_from_its_start_and_goes_at_its_end() {
        let mut drafts = Drafts::default();
        for item in [
            delta("s1", "t1", "Once upon "),
            delta("s2", "t9", "Other"),
            delta("s1", "t1", "a time"),
        ] {
            drafts.note(&item);
        }
        assert_eq!(
            drafts.of("s1"),
            Some(&Draft {
                turn_id: "t1".to_owned(),
                text: "Once upon a time".to_owned()
            })
        );
        drafts.note(&ended("s1", "t1"));
        assert_eq!(drafts.of("s1"), None);
        assert_eq!(drafts.of("s2").map(|d| d.text.as_str()), Some("Other"));
    }

    #[test]
    fn a_new_turn_starts_a_new_draft() {
        let mut drafts = Drafts::default();
        drafts.note(&delta("s1", "t1", "old"));
        drafts.note(&delta("s1", "t2", "new"));
        assert_eq!(drafts.of("s1").map(|d| d.text.as_str()), Some("new"));
    }
}
