//! The archive of a finished card (issue 31): a person who may edit a card
//! by the board's rule (#1058: its requester or its Bot's owner) takes an
//! accepted, cancelled or failed card off the board's Done column. The card
//! keeps its record, its audit and its place in the whole archive
//! (`tasks {archive: true}`, #1252); only the Done slice the board polls
//! (`tasks {archive: true, limit: N}`) leaves it out.

use super::machine::is_requester;
use super::{Card, Outcome, Stamps, find};
use crate::access::{Actor, may_manage_bot};
use flybot_protocol::state::{Task, TeamState};
use flybot_protocol::task::TaskFields;
use flybot_protocol::{ApiError, ErrorCode};

/// Whether `actor` may archive `task` now: it is finished, not archived
/// yet, and the actor is its requester or its Bot's owner.
pub fn may_archive(state: &TeamState, actor: &Actor, task: &Task) -> bool {
    allowed(state, actor, task) && archivable(task).is_ok()
}

fn allowed(state: &TeamState, actor: &Actor, task: &Task) -> bool {
    let owner = state
        .bots
        .get(&task.bot_id)
        .is_some_and(|bot| may_manage_bot(actor, bot));
    is_requester(state, actor, task) || owner
}

fn archivable(task: &Task) -> Result<(), ApiError> {
    let stale =
        |why: String| Err(ApiError::new(ErrorCode::Stale, why).with("taskId", task.id.as_str()));
    if !task.status.is_terminal() {
        return stale(format!(
            "\"{}\" is {}; only a finished card is archived. Cancel it first, or accept its result.",
            task.title,
            task.status.as_str()
        ));
    }
    if TaskFields::read(task).archived_at.is_some() {
        return stale(format!("\"{}\" is archived already.", task.title));
    }
    Ok(())
}

/// `task-archive {id}`: the finished card marked archived at `now`.
pub fn archive(state: &TeamState, actor: &Actor, id: &str, now: u64) -> Result<Outcome, ApiError> {
    let task = find(state, id)?;
    if !allowed(state, actor, task) {
        // No title: the caller may not see the card (issue 29).
        return Err(ApiError::forbidden(
            "Only the person who asked for that card or its Bot's owner can archive it.",
        )
        .with("taskId", task.id.as_str()));
    }
    archivable(task)?;
    let mut card = Card::of(task);
    let at = Stamps::new(now).for_task(&card.task);
    card.task.updated_at = at;
    card.fields.archived_at = Some(at);
    Ok(Outcome::one(card.into_task()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::fixture::{member, task, team};
    use super::*;
    use flybot_protocol::state::TaskStatus;

    fn with(state: &mut TeamState, t: Task) {
        state.tasks.insert(t.id.clone(), t);
    }

    #[test]
    fn a_finished_card_is_archived_once_and_keeps_its_record_issue_31() {
        let mut state = team();
        with(&mut state, task("t", TaskStatus::Accepted));
        let out = archive(&state, &member("member-a"), "t", 50).unwrap();
        let written = out.answer.unwrap();
        assert_eq!(written.status, TaskStatus::Accepted);
        assert!(TaskFields::read(&written).archived_at.is_some());
        with(&mut state, written);
        let again = archive(&state, &member("member-a"), "t", 60).unwrap_err();
        assert_eq!(again.code, ErrorCode::Stale);
    }

    #[test]
    fn an_unfinished_card_or_a_stranger_is_refused_issue_31() {
        let mut state = team();
        with(&mut state, task("t", TaskStatus::Working));
        let working = archive(&state, &member("member-a"), "t", 50).unwrap_err();
        assert_eq!(working.code, ErrorCode::Stale);
        with(&mut state, task("t", TaskStatus::Cancelled));
        let stranger = archive(&state, &member("member-b"), "t", 50).unwrap_err();
        assert_eq!(stranger.code, ErrorCode::Forbidden);
        assert!(!stranger.message.contains('"'), "{}", stranger.message);
    }
}
