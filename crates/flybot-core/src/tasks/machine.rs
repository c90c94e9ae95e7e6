//! The state machine (#54, #202): open → claimed → working → blocked ⇄
//! working → result-ready → accepted, cancelled and failed terminal, accepted
//! reachable only from result-ready. Moves after create are the requester's:
//! anyone else is `bot/forbidden`, a move the machine does not draw is
//! `bot/stale`, and both write nothing.

use super::{Card, Effect, Outcome, Stamps, find, group, rework, target};
use crate::access::{Actor, host_owner_id};
use crate::tasks::text::{SUMMARY_MAX, nonblank};
use flybot_protocol::state::{Task, TaskStatus, TeamState};
use flybot_protocol::task::ActorEntry;
use flybot_protocol::{ApiError, ErrorCode};

/// Whether the machine draws the edge `from → to`. Queue edges (a release or
/// an expired lease returning an item to `open`) are not a person's moves and
/// are drawn by `queue` and `lease` alone.
pub fn edge(from: TaskStatus, to: TaskStatus) -> bool {
    use TaskStatus::{Accepted, Blocked, Cancelled, Claimed, Failed, Open, ResultReady, Working};
    match (from, to) {
        (Open, Claimed) | (Claimed, Working) | (Working, Blocked) | (Blocked, Working) => true,
        (Working, ResultReady) | (ResultReady, Accepted) => true,
        // A send-back returns a result to work (#1730).
        (ResultReady, Working) => true,
        (from, Cancelled | Failed) => !from.is_terminal(),
        (Open | Claimed | Working | Blocked | ResultReady | Accepted | Cancelled | Failed, _) => {
            false
        }
    }
}

/// The person a card's moves belong to: its requester, or the host's owner
/// for a card recorded before requesters were.
pub fn requester_of(state: &TeamState, task: &Task) -> Option<String> {
    task.requester_id.clone().or_else(|| host_owner_id(state))
}

/// Whether `actor` is the card's requester (the single owner is everyone).
pub fn is_requester(state: &TeamState, actor: &Actor, task: &Task) -> bool {
    match actor {
        Actor::SingleOwner => true,
        Actor::Member { member_id, .. } => requester_of(state, task).as_ref() == Some(member_id),
    }
}

/// The id actor entries record for a person's move.
pub fn actor_label(state: &TeamState, actor: &Actor) -> String {
    actor.member_id(state).unwrap_or_else(|| "owner".to_owned())
}

/// A move by anyone but the requester; the title is not echoed, since the
/// caller may not see the card (issue 29, core `unseen`).
pub fn forbidden(task: &Task) -> ApiError {
    ApiError::forbidden("Only the person who asked for that card can move it.")
        .with("taskId", task.id.as_str())
}

pub fn stale(task: &Task, to: TaskStatus) -> ApiError {
    ApiError::new(
        ErrorCode::Stale,
        format!(
            "\"{}\" is {}, so it cannot move to {}; reload the board.",
            task.title,
            task.status.as_str(),
            to.as_str()
        ),
    )
    .with("taskId", task.id.as_str())
    .with("status", task.status.as_str())
}

/// Moves the card to `to` with its actor entry and a fresh stamp.
pub fn step(
    card: &mut Card,
    to: TaskStatus,
    actor_id: &str,
    stamps: &mut Stamps,
    question_id: Option<String>,
) {
    let at = stamps.for_task(&card.task);
    card.task.status = to;
    card.task.updated_at = at;
    card.fields.actors.insert(
        to,
        ActorEntry {
            actor_id: actor_id.to_owned(),
            at,
            question_id,
        },
    );
}

/// The checks every requester move shares: the card exists, the actor asked
/// for it, and the machine draws the edge from one of `from`.
fn checked<'a>(
    state: &'a TeamState,
    actor: &Actor,
    id: &str,
    from: &[TaskStatus],
    to: TaskStatus,
) -> Result<&'a Task, ApiError> {
    let task = find(state, id)?;
    if !is_requester(state, actor, task) {
        return Err(forbidden(task));
    }
    if !from.contains(&task.status) || !edge(task.status, to) {
        return Err(stale(task, to));
    }
    Ok(task)
}

/// A plain requester move along one edge.
fn simple(
    state: &TeamState,
    actor: &Actor,
    id: &str,
    from: &[TaskStatus],
    to: TaskStatus,
    now: u64,
) -> Result<Outcome, ApiError> {
    let task = checked(state, actor, id, from, to)?;
    Ok(moved(state, actor, Card::of(task), to, now, None))
}

/// `card` stepped `to` by `actor` at `now` (naming `question_id` on the
/// actor entry when a question moved it), as the rule's one write.
pub fn moved(
    state: &TeamState,
    actor: &Actor,
    card: Card,
    to: TaskStatus,
    now: u64,
    question_id: Option<String>,
) -> Outcome {
    moved_as(&actor_label(state, actor), card, to, now, question_id)
}

/// `moved`, recorded under `label` (the execution service's own label,
/// `execution_seam::service_label`, is not a person's).
pub fn moved_as(
    label: &str,
    mut card: Card,
    to: TaskStatus,
    now: u64,
    question_id: Option<String>,
) -> Outcome {
    let mut stamps = Stamps::new(now);
    step(&mut card, to, label, &mut stamps, question_id);
    Outcome::one(card.into_task())
}

/// `task-accept`: open → claimed.
pub fn accept(state: &TeamState, actor: &Actor, id: &str, now: u64) -> Result<Outcome, ApiError> {
    simple(
        state,
        actor,
        id,
        &[TaskStatus::Open],
        TaskStatus::Claimed,
        now,
    )
}

/// `task-start`: claimed → working only; a blocked card resumes through its
/// approval or its matching answer, never through a start (#207).
pub fn start(state: &TeamState, actor: &Actor, id: &str, now: u64) -> Result<Outcome, ApiError> {
    simple(
        state,
        actor,
        id,
        &[TaskStatus::Claimed],
        TaskStatus::Working,
        now,
    )
}

/// `task-return {id, summary}`: working → result-ready with the summary
/// copied onto the card (a pointer and a copy, never a transcript).
pub fn return_result(
    state: &TeamState,
    actor: &Actor,
    id: &str,
    summary: &str,
    now: u64,
) -> Result<Outcome, ApiError> {
    let summary = nonblank("summary", summary, SUMMARY_MAX)?;
    let task = checked(
        state,
        actor,
        id,
        &[TaskStatus::Working],
        TaskStatus::ResultReady,
    )?;
    let mut card = Card::of(task);
    card.fields.summary = Some(summary);
    Ok(moved(
        state,
        actor,
        card,
        TaskStatus::ResultReady,
        now,
        None,
    ))
}

/// `task-accept-result`: result-ready → accepted. A targeted card gets its
/// write-back (#1154); an accepted rework child returns its original to
/// result-ready (#1730); an accepted child may settle its overall card (#1099).
pub fn accept_result(
    state: &TeamState,
    actor: &Actor,
    id: &str,
    decider: &str,
    now: u64,
) -> Result<Outcome, ApiError> {
    let task = checked(
        state,
        actor,
        id,
        &[TaskStatus::ResultReady],
        TaskStatus::Accepted,
    )?;
    let mut stamps = Stamps::new(now);
    let mut out = Outcome::default();
    let mut card = Card::of(task);
    // A person accepted a result the host verified on its own (#198): the
    // card's evidence reaches level 4. A card no runtime returned has none.
    if card.fields.evidence_level.is_some() {
        card.fields.evidence_level =
            Some(flybot_protocol::evidence::EvidenceLevel::HumanAcceptance);
    }
    accepted(
        state,
        card,
        &actor_label(state, actor),
        decider,
        &mut stamps,
        &mut out,
    );
    Ok(out.answer_with(id))
}

/// What every acceptance does, whoever made it: the move itself, the
/// write-back, the rework fold and the overall-card settle.
pub fn accepted(
    state: &TeamState,
    mut card: Card,
    actor_id: &str,
    decider: &str,
    stamps: &mut Stamps,
    out: &mut Outcome,
) {
    step(&mut card, TaskStatus::Accepted, actor_id, stamps, None);
    if let Some(target) = card.fields.target.clone() {
        card.fields.write_back = Some(target::decision(
            target,
            target::Decision::Accepted {
                title: &card.task.title,
            },
            card.fields.summary.as_deref(),
            decider,
            card.task.updated_at,
        ));
    }
    drop_worker(&mut card, out);
    let id = card.task.id.clone();
    out.write(card.into_task());
    rework::fold_into_original(state, &id, actor_id, stamps, out);
    group::settle_parent_of(state, &id, stamps, out);
}

/// `task-cancel`: any unfinished card, a result-ready one included (#202).
/// The summary, the actor history and the input snapshot stay; active wait
/// markers go (#207).
pub fn cancel(state: &TeamState, actor: &Actor, id: &str, now: u64) -> Result<Outcome, ApiError> {
    let task = checked(
        state,
        actor,
        id,
        &[
            TaskStatus::Open,
            TaskStatus::Claimed,
            TaskStatus::Working,
            TaskStatus::Blocked,
            TaskStatus::ResultReady,
        ],
        TaskStatus::Cancelled,
    )?;
    let mut stamps = Stamps::new(now);
    let mut out = Outcome::default();
    end(
        state,
        Card::of(task),
        TaskStatus::Cancelled,
        &actor_label(state, actor),
        &mut stamps,
        &mut out,
    );
    Ok(out.answer_with(id))
}

/// Ends a card as cancelled or failed: wait markers cleared, worker dropped,
/// the overall card settled.
pub fn end(
    state: &TeamState,
    mut card: Card,
    to: TaskStatus,
    actor_id: &str,
    stamps: &mut Stamps,
    out: &mut Outcome,
) {
    card.fields.waiting_for = None;
    card.fields.approval_id = None;
    card.fields.input_approval_ids.clear();
    step(&mut card, to, actor_id, stamps, None);
    drop_worker(&mut card, out);
    let id = card.task.id.clone();
    out.write(card.into_task());
    group::settle_parent_of(state, &id, stamps, out);
}

fn drop_worker(card: &mut Card, out: &mut Outcome) {
    if let Some(worker_id) = card.fields.worker.take() {
        out.effects.push(Effect::WorkerDropped { worker_id });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use TaskStatus::*;

    const ALL: [TaskStatus; 8] = [
        Open,
        Claimed,
        Working,
        Blocked,
        ResultReady,
        Accepted,
        Cancelled,
        Failed,
    ];

    #[test]
    /// Rule #54.
    fn accepted_is_reachable_only_from_result_ready() {
        for from in ALL {
            assert_eq!(edge(from, Accepted), from == ResultReady, "{from:?}");
        }
    }

    #[test]
    /// Rule #54.
    fn terminal_states_have_no_way_out() {
        for from in [Accepted, Cancelled, Failed] {
            for to in ALL {
                assert!(!edge(from, to), "{from:?} → {to:?}");
            }
        }
    }

    #[test]
    /// Rule #202.
    fn result_ready_may_be_cancelled() {
        assert!(edge(ResultReady, Cancelled));
        assert!(!edge(Blocked, ResultReady));
        assert!(!edge(Open, Working));
    }

    #[test]
    /// Rule #54.
    fn two_moves_in_one_millisecond_still_order() {
        let mut stamps = Stamps::new(10);
        let mut task = super::super::fixture::task("task-1", Open);
        task.updated_at = 10;
        let first = stamps.for_task(&task);
        task.updated_at = first;
        let second = stamps.for_task(&task);
        assert!(first > 10 && second > first);
    }
}
