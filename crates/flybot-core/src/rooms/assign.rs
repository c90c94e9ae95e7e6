//! `assignFromDispatch` (#1254): the lead's dispatch line is the assignment.
//! The member's open card for that issue is updated (a card that is not
//! driving — result-ready or blocked — restarts through the machine's edge
//! to working, so the drive wakes it); with no such card one is opened and
//! assigned to the member through the task rules (`track`), so the drive
//! wakes it in its own chat (#1205). One change, written by the host.

use super::dispatch::{Dispatch, card_for};
use crate::tasks::machine::{edge, step};
use crate::tasks::track::{Fresh, TrackContext, TrackItem, track};
use crate::tasks::{Card, Outcome, Stamps};
use flybot_protocol::ApiError;
use flybot_protocol::state::{TaskStatus, TeamState};

/// The longest title a dispatch card takes from its line, in characters.
const TITLE_MAX: usize = 80;
/// The longest note a dispatch line leaves on the card, in characters.
const NOTE_MAX: usize = 2_000;

fn clip(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}

/// The new card's title: the issue, then the line without its @ names.
fn title_of(dispatch: &Dispatch, text: &str) -> String {
    let words: Vec<&str> = text
        .split_whitespace()
        .filter(|w| !w.starts_with('@'))
        .collect();
    let body = words.join(" ");
    let tag = format!("#{}", dispatch.issue);
    let line = if body.contains(&tag) {
        body
    } else {
        format!("{tag} {body}")
    };
    clip(line.trim(), TITLE_MAX)
}

/// Writes the dispatch `lead` posted in `room_id` as a board assign.
pub fn assign_from_dispatch(
    state: &TeamState,
    room_id: &str,
    lead: &str,
    dispatch: &Dispatch,
    text: &str,
    fresh: Fresh<'_>,
    now: u64,
) -> Result<Outcome, ApiError> {
    let note = clip(text.trim(), NOTE_MAX);
    if let Some(task) = card_for(state, room_id, &dispatch.member, dispatch.issue) {
        let mut card = Card::of(task);
        card.fields.note = Some(note);
        let mut stamps = Stamps::new(now);
        let idle = matches!(
            card.task.status,
            TaskStatus::ResultReady | TaskStatus::Blocked
        );
        if idle && edge(card.task.status, TaskStatus::Working) {
            card.fields.waiting_for = None;
            step(&mut card, TaskStatus::Working, lead, &mut stamps, None);
        } else {
            card.task.updated_at = stamps.for_task(&card.task);
        }
        let id = card.task.id.clone();
        let mut out = Outcome::default();
        out.write(card.into_task());
        return Ok(out.answer_with(&id));
    }
    let item = TrackItem {
        title: Some(title_of(dispatch, text)),
        note: Some(note),
        assignee: Some(dispatch.member.clone()),
        ..TrackItem::default()
    };
    let ctx = TrackContext {
        bot_id: lead,
        room_id: Some(room_id),
        session_id: None,
    };
    track(state, ctx, &item, fresh, now)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::board::tests::card;
    use super::super::fixture::team;
    use super::*;
    use flybot_protocol::task::TaskFields;

    fn fresh() -> Fresh<'static> {
        Fresh {
            task_id: "task-new",
            question_id: "question-new",
        }
    }

    fn dispatch(issue: u64) -> Dispatch {
        Dispatch {
            member: "bot-b".into(),
            issue,
        }
    }

    #[test]
    /// Rule #1254.
    fn a_dispatch_opens_a_card_for_the_member_or_restarts_the_one_it_holds() {
        let mut state = team();
        let lead = state.rooms["room-1"].admin.clone().unwrap();
        let out = assign_from_dispatch(
            &state,
            "room-1",
            &lead,
            &dispatch(12),
            "@Bo fix #12 today",
            fresh(),
            100,
        )
        .unwrap();
        let new = out.answer.unwrap();
        assert_eq!(new.bot_id, "bot-b");
        assert_eq!(new.title, "fix #12 today");
        assert_eq!(new.room_id.as_deref(), Some("room-1"));
        state.tasks.insert(
            "t1".into(),
            card("t1", "bot-b", TaskStatus::ResultReady, |f| {
                f.note = Some("was #9".into())
            }),
        );
        let out = assign_from_dispatch(
            &state,
            "room-1",
            &lead,
            &dispatch(9),
            "@Bo redo #9",
            fresh(),
            200,
        )
        .unwrap();
        let again = out.answer.unwrap();
        assert_eq!(again.id, "t1");
        assert_eq!(again.status, TaskStatus::Working);
        assert_eq!(
            TaskFields::read(&again).note.as_deref(),
            Some("@Bo redo #9")
        );
    }
}
