//! Leases (#1720, #1729): a claim holds its card for 30 minutes. One owner
//! recovers an expired lease: `expire_leases` reads each lease once, clears
//! it, returns a queued card to its role queue with the recovery on its
//! evidence, and drops the dead worker; run inside one change, a second read
//! in the same tick finds no lease and answers 0. A live lease is untouched,
//! so a restart with a live lease changes nothing.

use super::claim::{push_evidence, requeue};
use super::machine::step;
use super::roles::bot_name;
use super::{Card, Outcome, Stamps, find};
use crate::access::{Actor, may_manage_bot, may_manage_room};
use flybot_protocol::state::{Task, TaskStatus, TeamState};
use flybot_protocol::task::TaskFields;
use flybot_protocol::{ApiError, ErrorCode};
use serde_json::{Value, json};

/// A claim's lease: 30 minutes.
pub const LEASE_MS: u64 = 30 * 60 * 1000;

/// The refusal for a claim on a card whose lease is still live.
pub fn live_lease_refusal(
    state: &TeamState,
    task: &Task,
    fields: &TaskFields,
    now: u64,
) -> Option<ApiError> {
    let lease = fields.lease.as_ref().filter(|l| l.expires_at > now)?;
    let holder = bot_name(state, &lease.holder);
    Some(
        ApiError::new(
            ErrorCode::LeaseHeld,
            format!(
                "{holder} holds \"{}\" until its lease ends; claim another item.",
                task.title
            ),
        )
        .with("holder", lease.holder.as_str())
        .with("heldBy", holder)
        .with("expiresAt", lease.expires_at),
    )
}

/// Whether `actor` may expire the card's lease by hand: the owner of the
/// card's Bot or of the room it came from (the host's own timer expires
/// every lease). A member never changes a card it does not manage.
pub fn manages_card(state: &TeamState, actor: &Actor, task: &Task) -> bool {
    state
        .bots
        .get(&task.bot_id)
        .is_some_and(|bot| may_manage_bot(actor, bot))
        || task
            .room_id
            .as_deref()
            .and_then(|id| state.rooms.get(id))
            .is_some_and(|room| may_manage_room(actor, room))
}

/// Whether any unfinished card holds a lease that ended by `now`: the
/// host's timer reads this before it writes.
pub fn any_expired(state: &TeamState, now: u64) -> bool {
    state.tasks.values().any(|task| expired_lease(task, now))
}

/// When the earliest lease on an unfinished card ends, if any card holds
/// one: the host's timer sleeps until then.
pub fn next_expiry(state: &TeamState) -> Option<u64> {
    state
        .tasks
        .values()
        .filter(|task| unfinished(task) && task.extra.contains_key("lease"))
        .filter_map(|task| TaskFields::read(task).lease.map(|l| l.expires_at))
        .min()
}

fn unfinished(task: &Task) -> bool {
    matches!(
        task.status,
        TaskStatus::Claimed | TaskStatus::Working | TaskStatus::Blocked
    )
}

fn expired_lease(task: &Task, now: u64) -> bool {
    unfinished(task)
        && task.extra.contains_key("lease")
        && TaskFields::read(task)
            .lease
            .is_some_and(|lease| lease.expires_at <= now)
}

/// Clears every expired lease on an unfinished card `admits`; answers the
/// writes (their count is the number recovered).
pub fn expire_leases(state: &TeamState, now: u64, admits: impl Fn(&Task) -> bool) -> Outcome {
    let mut stamps = Stamps::new(now);
    let mut out = Outcome::default();
    for task in state.tasks.values() {
        if !expired_lease(task, now) || !admits(task) {
            continue;
        }
        let mut card = Card::of(task);
        let Some(lease) = card.fields.lease.clone() else {
            continue;
        };
        if card.fields.queue_role.is_some() {
            requeue(&mut card, &mut out);
            let line = format!("lease expired (held by {})", bot_name(state, &lease.holder));
            push_evidence(&mut card.fields, line, now);
            // The recovery is the host's move, not the dead holder's.
            step(
                &mut card,
                TaskStatus::Open,
                "lease-expiry",
                &mut stamps,
                None,
            );
        } else {
            // Not a queued item: it only loses the dead lease.
            card.fields.lease = None;
            card.task.updated_at = stamps.for_task(&card.task);
        }
        out.write(card.into_task());
    }
    out
}

/// `task-lease {id}`: `{holder, takenAt, expiresAt, live, heldBy}`, or null.
pub fn lease_view(state: &TeamState, id: &str, now: u64) -> Result<Value, ApiError> {
    let task = find(state, id)?;
    Ok(match TaskFields::read(task).lease {
        None => Value::Null,
        Some(lease) => json!({
            "holder": lease.holder,
            "takenAt": lease.taken_at,
            "expiresAt": lease.expires_at,
            "live": lease.expires_at > now,
            "heldBy": bot_name(state, &lease.holder),
        }),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::Effect;
    use super::super::claim::claim;
    use super::super::fixture::{apply, member, team};
    use super::super::queue::enqueue;
    use super::*;
    use flybot_protocol::task_requests::TaskEnqueue;

    fn claimed_team() -> TeamState {
        let mut state = team();
        let req = TaskEnqueue {
            bot_id: "bot-lead".into(),
            room_id: "room-1".into(),
            role: "Dev".into(),
            title: "Fix #12".into(),
            priority: None,
            note: None,
            cap: None,
            id: None,
            run: None,
        };
        let a = member("member-a");
        let step_out = enqueue(&state, &a, &req, "task-q", 10).unwrap();
        apply(&mut state, &step_out);
        let step_out = claim(&state, &a, "bot-dev1", None, None, "worker-1", 1_000).unwrap();
        apply(&mut state, &step_out);
        state
    }

    #[test]
    /// Rule #1729.
    fn two_expired_reads_requeue_once_and_record_the_holder() {
        let mut state = claimed_team();
        let at = 1_000 + LEASE_MS;
        let first = expire_leases(&state, at, |_| true);
        assert_eq!(first.writes.len(), 1);
        assert_eq!(
            first.effects,
            vec![Effect::WorkerDropped {
                worker_id: "worker-1".into()
            }]
        );
        apply(&mut state, &first);
        let t = &state.tasks["task-q"];
        let f = TaskFields::read(t);
        assert_eq!(
            (t.status, t.bot_id.as_str()),
            (TaskStatus::Open, "bot-lead")
        );
        assert_eq!(f.lease, None);
        assert_eq!(
            f.evidence.last().unwrap().check.as_deref(),
            Some("lease expired (held by Name bot-dev1)")
        );
        assert!(expire_leases(&state, at, |_| true).writes.is_empty());
    }

    #[test]
    /// Rule #1729.
    fn a_live_lease_is_untouched_so_a_restart_changes_nothing() {
        let state = claimed_team();
        assert!(
            expire_leases(&state, 1_000 + LEASE_MS - 1, |_| true)
                .writes
                .is_empty()
        );
        let view = lease_view(&state, "task-q", 2_000).unwrap();
        assert_eq!(view["live"], true);
        assert_eq!(view["heldBy"], "Name bot-dev1");
        let view = lease_view(&state, "task-q", 1_000 + LEASE_MS).unwrap();
        assert_eq!(view["live"], false);
    }

    #[test]
    /// Rule #1729.
    fn a_member_expires_only_the_leases_of_cards_it_manages() {
        let state = claimed_team();
        let at = 1_000 + LEASE_MS;
        assert!(any_expired(&state, at));
        assert_eq!(next_expiry(&state), Some(at));
        // member-b owns only bot-rev: neither the card's Bot nor its room.
        let b = member("member-b");
        let theirs = expire_leases(&state, at, |t| manages_card(&state, &b, t));
        assert!(theirs.writes.is_empty());
        let a = member("member-a");
        let mine = expire_leases(&state, at, |t| manages_card(&state, &a, t));
        assert_eq!(mine.writes.len(), 1);
    }
}
