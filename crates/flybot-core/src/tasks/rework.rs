//! A review rejection (#1730): `task-send-back` records the hand-over on the
//! original, moves it to working and opens exactly one rework child; the
//! child's acceptance is the one write that returns the original to
//! result-ready, guarded by the original still being working, so a replay
//! makes no second child and moves the original once.

use super::machine::{actor_label, edge, forbidden, is_requester, stale, step};
use super::roles::{REQUESTER_ROLE, bot_role};
use super::target::{self, Decision};
use super::text::{TEXT_MAX, TITLE_MAX, nonblank};
use super::{Card, Outcome, Stamps, find};
use crate::access::Actor;
use flybot_protocol::ApiError;
use flybot_protocol::state::{Task, TaskStatus, TeamState};
use flybot_protocol::task::{Handoff, TaskClass, TaskFields, TaskSource};

/// The longest hand-over reason (#1720).
pub const REASON_MAX: usize = 300;

/// `task-send-back {id, note}` on a result-ready card. `child_id` is the id
/// the host minted for the rework card; `decider` is the requester's name.
pub fn send_back(
    state: &TeamState,
    actor: &Actor,
    id: &str,
    note: &str,
    child_id: &str,
    decider: &str,
    now: u64,
) -> Result<Outcome, ApiError> {
    let note = nonblank("note", note, TEXT_MAX)?;
    let task = find(state, id)?;
    if !is_requester(state, actor, task) {
        return Err(forbidden(task));
    }
    if task.status != TaskStatus::ResultReady || !edge(task.status, TaskStatus::Working) {
        return Err(stale(task, TaskStatus::Working));
    }
    let actor_id = actor_label(state, actor);
    let mut stamps = Stamps::new(now);
    let mut original = Card::of(task);
    // The hand-over names the Bot's role, never its name: a role-less Bot
    // gets no `handoff`, so send-back never writes one the contract would
    // refuse (#1720).
    let to_role = state
        .bots
        .get(&task.bot_id)
        .and_then(bot_role)
        .filter(|role| role.chars().count() <= 64);
    if let Some(to) = to_role {
        original.fields.handoff = Some(Handoff {
            from: REQUESTER_ROLE.to_owned(),
            to: to.to_owned(),
            at: now,
            reason: note.chars().take(REASON_MAX).collect(),
        });
    }
    if let Some(target) = original.fields.target.clone() {
        original.fields.write_back = Some(target::decision(
            target,
            Decision::SentBack { note: &note },
            original.fields.summary.as_deref(),
            decider,
            now,
        ));
    }
    step(
        &mut original,
        TaskStatus::Working,
        &actor_id,
        &mut stamps,
        None,
    );

    let title: String = format!("Rework: {}", task.title)
        .chars()
        .take(TITLE_MAX)
        .collect();
    let mut child = Card {
        task: Task {
            id: child_id.to_owned(),
            bot_id: task.bot_id.clone(),
            title,
            status: TaskStatus::Open,
            requester_id: task.requester_id.clone(),
            room_id: task.room_id.clone(),
            created_at: now,
            updated_at: now,
            extra: Default::default(),
        },
        fields: TaskFields {
            source: Some(TaskSource::Channel),
            priority: original.fields.priority,
            note: Some(note),
            task_class: Some(TaskClass::Rework),
            rework_of: Some(task.id.clone()),
            run: original.fields.run.clone(),
            ..TaskFields::default()
        },
    };
    step(&mut child, TaskStatus::Open, &actor_id, &mut stamps, None);
    let mut out = Outcome::default();
    out.write(original.into_task());
    out.write(child.into_task());
    Ok(out.answer_with(id))
}

/// After `child_id` was accepted: a rework child returns its original to
/// result-ready when the original is still working (#1730). The child's
/// summary becomes the original's, so the reviewer reads the fixed result.
pub fn fold_into_original(
    state: &TeamState,
    child_id: &str,
    actor_id: &str,
    stamps: &mut Stamps,
    out: &mut Outcome,
) {
    let Some(child) = out.current(state, child_id) else {
        return;
    };
    let child_fields = TaskFields::read(child);
    if child_fields.task_class != Some(TaskClass::Rework) {
        return;
    }
    let Some(original) = child_fields
        .rework_of
        .as_deref()
        .and_then(|id| out.current(state, id))
    else {
        return;
    };
    if original.status != TaskStatus::Working {
        return;
    }
    let mut card = Card::of(original);
    if let Some(summary) = child_fields.summary {
        card.fields.summary = Some(summary);
    }
    step(&mut card, TaskStatus::ResultReady, actor_id, stamps, None);
    out.write(card.into_task());
}

/// The rework chain through `id`, oldest first: its `reworkOf` ancestors,
/// the card, then the children that rework it (oldest child first).
pub fn chain(state: &TeamState, id: &str) -> Vec<String> {
    let mut up = vec![id.to_owned()];
    let mut cursor = id.to_owned();
    while let Some(parent) = state
        .tasks
        .get(&cursor)
        .and_then(|t| TaskFields::read(t).rework_of)
    {
        if up.contains(&parent) || up.len() > 64 {
            break;
        }
        up.push(parent.clone());
        cursor = parent;
    }
    up.reverse();
    let mut cursor = id.to_owned();
    loop {
        let mut children: Vec<&Task> = state
            .tasks
            .values()
            .filter(|t| TaskFields::read(t).rework_of.as_deref() == Some(cursor.as_str()))
            .collect();
        children.sort_by_key(|t| (t.created_at, t.id.clone()));
        match children.first() {
            Some(child) if !up.contains(&child.id) && up.len() <= 64 => {
                up.push(child.id.clone());
                cursor = child.id.clone();
            }
            _ => break,
        }
    }
    up
}
