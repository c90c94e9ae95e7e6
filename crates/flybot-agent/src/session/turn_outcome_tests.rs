#![allow(clippy::unwrap_used)]
use super::*;

fn entry(seq: u64, event: SessionEvent) -> LogEntry {
    LogEntry {
        seq,
        at: seq,
        event,
    }
}

fn said(turn: &str, text: &str) -> SessionEvent {
    SessionEvent::AssistantMessage {
        turn_id: turn.to_owned(),
        text: text.to_owned(),
        attachments: Vec::new(),
    }
}

fn ended(turn: &str, reason: EndReason) -> SessionEvent {
    SessionEvent::TurnEnd {
        turn_id: turn.to_owned(),
        reason,
        calls: 0,
    }
}

/// A case: its name, the entries of turns `t1` and `t2`, and the end and
/// the answer `t1`'s outcome reads.
type Case = (
    &'static str,
    Vec<SessionEvent>,
    Option<EndReason>,
    Option<&'static str>,
);

#[test]
fn a_turns_outcome_is_its_end_and_its_last_answer_that_is_not_blank() {
    let cases: Vec<Case> = vec![
        (
            "the last answer wins",
            vec![
                said("t1", "first"),
                said("t1", "second"),
                ended("t1", EndReason::Completed),
            ],
            Some(EndReason::Completed),
            Some("second"),
        ),
        (
            "a blank last answer is passed over, as written otherwise",
            vec![
                said("t1", " kept "),
                said("t1", " \n "),
                ended("t1", EndReason::MaxTokens),
            ],
            Some(EndReason::MaxTokens),
            Some(" kept "),
        ),
        (
            "another turn's entries are not read",
            vec![
                said("t1", "mine"),
                said("t2", "theirs"),
                ended("t2", EndReason::Completed),
            ],
            None,
            Some("mine"),
        ),
        (
            "a turn with no answer",
            vec![ended("t1", EndReason::Interrupted)],
            Some(EndReason::Interrupted),
            None,
        ),
    ];
    for (case, events, end, answer) in cases {
        let entries: Vec<LogEntry> = (1..).zip(events).map(|(s, e)| entry(s, e)).collect();
        let outcome = TurnOutcome::of(&entries, "t1");
        assert_eq!(outcome.ended, end, "{case}");
        assert_eq!(outcome.answer.as_deref(), answer, "{case}");
        assert_eq!(
            outcome.completed(),
            end == Some(EndReason::Completed),
            "{case}"
        );
    }
}
