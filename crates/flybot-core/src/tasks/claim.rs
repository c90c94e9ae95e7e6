//! Claims and releases on the pull queues (#1247, #1729): a member of the
//! role claims the highest-priority, oldest item; the claim is a board write
//! on the same card (ownerBotId and claimedBy become the member), takes a
//! 30-minute lease and a fresh worker. The claim reads and takes the item
//! inside one change of the single writer, so it is compare-and-set: two
//! concurrent claims leave exactly one owner.

use super::lease::{LEASE_MS, live_lease_refusal};
use super::machine::step;
use super::queue::{RETRY_MAX_SEC, acting_bot};
use super::roles::{bot_name, bot_role};
use super::text::one_line;
use super::{Card, Effect, Outcome, Stamps, find};
use crate::access::Actor;
use flybot_protocol::state::{Bot, Task, TaskStatus, TeamState};
use flybot_protocol::task::{Evidence, Lease, TaskFields, priority_of};
use flybot_protocol::{ApiError, ErrorCode};
use serde_json::Value;

/// Whether the Bot already holds a card in progress; a blocked card waits on
/// a person and does not count (#1247).
pub fn holds_work(state: &TeamState, bot_id: &str) -> bool {
    state.tasks.values().any(|t| {
        t.bot_id == bot_id && matches!(t.status, TaskStatus::Claimed | TaskStatus::Working)
    })
}

/// Orders queue items: highest priority, then oldest (compareForQueue).
fn queue_key(task: &Task) -> (u8, u64, &str) {
    (priority_of(task).rank(), task.created_at, task.id.as_str())
}

/// The member claiming: its Bot and role, the room it asks about (any of its
/// rooms when `None`) and the time.
struct Claimer<'a> {
    state: &'a TeamState,
    bot: &'a Bot,
    bot_id: &'a str,
    role: &'a str,
    room_id: Option<&'a str>,
    now: u64,
}

/// `task-claim {botId, roomId?, id?}`: answers the claimed card, or no card
/// when the member already holds one or nothing is waiting for its role.
pub fn claim(
    state: &TeamState,
    actor: &Actor,
    bot_id: &str,
    room_id: Option<&str>,
    item_id: Option<&str>,
    worker_id: &str,
    now: u64,
) -> Result<Outcome, ApiError> {
    let bot = acting_bot(state, actor, bot_id)?;
    let role = bot_role(bot).ok_or_else(|| {
        ApiError::new(
            ErrorCode::NotInRole,
            format!("{} carries no role, so it claims no queue item.", bot.name),
        )
        .with("botId", bot_id)
    })?;
    let claimer = Claimer {
        state,
        bot,
        bot_id,
        role,
        room_id,
        now,
    };
    let picked = match item_id {
        Some(item_id) => Some(claimer.named_item(item_id)?),
        None => claimer.next_item(),
    };
    // One member holds one card in progress, so a member already holding
    // one gets nothing.
    let Some(item) = picked.filter(|_| !holds_work(state, bot_id)) else {
        return Ok(Outcome::default());
    };
    Ok(taken(item, bot_id, worker_id, now))
}

impl<'a> Claimer<'a> {
    /// Whether the card sits in a room the member is in (the asked room,
    /// when one is asked).
    fn shares_room(&self, task: &Task) -> bool {
        task.room_id.as_deref().is_some_and(|r| {
            self.room_id.is_none_or(|wanted| wanted == r)
                && self
                    .state
                    .rooms
                    .get(r)
                    .is_some_and(|room| room.members.iter().any(|m| m == self.bot_id))
        })
    }

    /// The item the member names, which must be in its room (first, so a
    /// refusal tells nothing of another room's item, issue 29), a queue
    /// item of its role, not under a live lease, and offered now.
    fn named_item(&self, item_id: &str) -> Result<&'a Task, ApiError> {
        let item = find(self.state, item_id)?;
        if !self.shares_room(item) {
            return Err(ApiError::forbidden(format!(
                "{} is not a member of the item's room.",
                self.bot.name
            )));
        }
        let fields = TaskFields::read(item);
        let Some(item_role) = fields.queue_role.as_deref() else {
            return Err(ApiError::invalid("id", "That card is not a queue item."));
        };
        if item_role != self.role {
            return Err(ApiError::new(
                ErrorCode::NotInRole,
                format!(
                    "{} is a {}, not a {item_role}; only a {item_role} claims this item.",
                    self.bot.name, self.role
                ),
            )
            .with("role", item_role));
        }
        if let Some(refusal) = live_lease_refusal(self.state, item, &fields, self.now) {
            return Err(refusal);
        }
        if item.status != TaskStatus::Open || fields.retry_at.is_some_and(|at| at > self.now) {
            return Err(ApiError::new(
                ErrorCode::Stale,
                format!(
                    "\"{}\" is {} and not offered now; reload the queue.",
                    item.title,
                    item.status.as_str()
                ),
            )
            .with("taskId", item_id));
        }
        Ok(item)
    }

    /// The highest-priority, oldest open item of the member's role offered
    /// now in its rooms.
    fn next_item(&self) -> Option<&'a Task> {
        // Read the two queue fields straight from the record: the pick scans
        // every card, and lifting each one's fields would dominate a claim.
        self.state
            .tasks
            .values()
            .filter(|t| t.status == TaskStatus::Open)
            .filter(|t| t.extra.get("queueRole").and_then(Value::as_str) == Some(self.role))
            .filter(|t| {
                t.extra
                    .get("retryAt")
                    .and_then(Value::as_u64)
                    .is_none_or(|at| at <= self.now)
            })
            .filter(|t| self.shares_room(t))
            .min_by(|a, b| queue_key(a).cmp(&queue_key(b)))
    }
}

/// A workflow node card handed to the run Bot its node opened with (#1373):
/// the run Bot owns and holds it, claimed, so the drive wakes that Bot (and
/// no member of the role) for it. No lease: the host made the run Bot for
/// this card alone.
pub fn assign_to_run_bot(item: &Task, bot_id: &str, now: u64) -> Task {
    let mut stamps = Stamps::new(now);
    let mut card = Card::of(item);
    card.task.bot_id = bot_id.to_owned();
    card.fields.claimed_by = Some(bot_id.to_owned());
    step(&mut card, TaskStatus::Claimed, bot_id, &mut stamps, None);
    card.into_task()
}

/// The item claimed by the member: its owner and holder, under a fresh lease
/// and a fresh worker (#1729).
fn taken(item: &Task, bot_id: &str, worker_id: &str, now: u64) -> Outcome {
    let mut stamps = Stamps::new(now);
    let mut card = Card::of(item);
    card.task.bot_id = bot_id.to_owned();
    card.fields.claimed_by = Some(bot_id.to_owned());
    card.fields.retry_at = None;
    card.fields.lease = Some(Lease {
        holder: bot_id.to_owned(),
        taken_at: now,
        expires_at: now.saturating_add(LEASE_MS),
    });
    card.fields.worker = Some(worker_id.to_owned());
    step(&mut card, TaskStatus::Claimed, bot_id, &mut stamps, None);
    let mut out = Outcome::default();
    out.effects.push(Effect::WorkerStarted {
        worker_id: worker_id.to_owned(),
        task_id: item.id.clone(),
    });
    let id = item.id.clone();
    out.write(card.into_task());
    out.answer_with(&id)
}

/// Puts a claimed item back in its queue: open, owned by its enqueuer again,
/// no lease, no worker.
pub fn requeue(card: &mut Card, out: &mut Outcome) {
    card.task.status = TaskStatus::Open;
    if let Some(by) = card.fields.queue_by.clone() {
        card.task.bot_id = by;
    }
    card.fields.claimed_by = None;
    card.fields.lease = None;
    card.fields.waiting_for = None;
    if let Some(worker_id) = card.fields.worker.take() {
        out.effects.push(Effect::WorkerDropped { worker_id });
    }
}

/// Adds an evidence entry within the eight-entry cap, dropping the oldest.
pub fn push_evidence(fields: &mut TaskFields, check: String, at: u64) {
    if fields.evidence.len() >= super::contract::EVIDENCE_MAX {
        fields.evidence.remove(0);
    }
    fields.evidence.push(Evidence {
        sha: None,
        pr: None,
        check: Some(check),
        at,
    });
}

/// `task-release {botId, id, reason?, retryInSec?}`: the holder returns a
/// claimed item (blocked included) to the queue; it is not offered again
/// before `retryAt`.
pub fn release(
    state: &TeamState,
    actor: &Actor,
    bot_id: &str,
    id: &str,
    reason: Option<&str>,
    retry_in_sec: Option<u64>,
    now: u64,
) -> Result<Outcome, ApiError> {
    if retry_in_sec.is_some_and(|s| s > RETRY_MAX_SEC) {
        return Err(ApiError::invalid(
            "retryInSec",
            format!("retryInSec is at most {RETRY_MAX_SEC} (7 days)."),
        ));
    }
    let bot = acting_bot(state, actor, bot_id)?;
    let task = find(state, id)?;
    let mut card = Card::of(task);
    if card.fields.claimed_by.as_deref() != Some(bot_id) || card.fields.queue_role.is_none() {
        // No title: the item may be another member's (issue 29).
        return Err(ApiError::forbidden(format!(
            "{} does not hold that item; only the member holding a queue item releases it.",
            bot.name
        ))
        .with("taskId", id));
    }
    if !matches!(
        task.status,
        TaskStatus::Claimed | TaskStatus::Working | TaskStatus::Blocked
    ) {
        return Err(super::machine::stale(task, TaskStatus::Open));
    }
    let mut stamps = Stamps::new(now);
    let mut out = Outcome::default();
    requeue(&mut card, &mut out);
    card.fields.retry_at = retry_in_sec
        .filter(|s| *s > 0)
        .map(|s| now.saturating_add(s.saturating_mul(1000)));
    let why = reason.map(|r| one_line(r, 160)).filter(|r| !r.is_empty());
    let line = match why {
        Some(why) => format!("released by {}: {why}", bot_name(state, bot_id)),
        None => format!("released by {}", bot_name(state, bot_id)),
    };
    push_evidence(&mut card.fields, line, now);
    step(&mut card, TaskStatus::Open, bot_id, &mut stamps, None);
    out.write(card.into_task());
    Ok(out.answer_with(id))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::fixture::{apply, member, queue, team};
    use super::*;
    use flybot_protocol::task::Priority;

    #[test]
    /// Rule #1247.
    fn a_claim_takes_the_highest_priority_oldest_item_of_the_callers_role() {
        let mut state = team();
        queue(&mut state, "task-old-normal", "Dev", None, 10);
        queue(&mut state, "task-new-high", "Dev", Some(Priority::High), 20);
        queue(&mut state, "task-old-high", "Dev", Some(Priority::High), 15);
        queue(
            &mut state,
            "task-review",
            "Reviewer",
            Some(Priority::Urgent),
            5,
        );
        let a = member("member-a");
        let out = claim(&state, &a, "bot-dev1", None, None, "worker-1", 100).unwrap();
        let taken = out.answer.clone().unwrap();
        assert_eq!(taken.id, "task-old-high");
        assert_eq!(taken.bot_id, "bot-dev1");
        let f = TaskFields::read(&taken);
        assert_eq!(f.claimed_by.as_deref(), Some("bot-dev1"));
        assert_eq!(f.queue_role.as_deref(), Some("Dev"));
        assert_eq!(f.lease.unwrap().expires_at, 100 + LEASE_MS);
        apply(&mut state, &out);
        // One card in progress per member: the second claim gets nothing.
        let none = claim(&state, &a, "bot-dev1", None, None, "worker-2", 101).unwrap();
        assert!(none.answer.is_none() && none.writes.is_empty());
        // Another role is refused by name.
        let err = claim(&state, &a, "bot-dev2", None, Some("task-review"), "w", 102).unwrap_err();
        assert_eq!(err.code, ErrorCode::NotInRole);
        assert_eq!(err.details["role"], "Reviewer");
        // A live lease refuses a claim naming the holder.
        let err = claim(
            &state,
            &a,
            "bot-dev2",
            None,
            Some("task-old-high"),
            "w",
            102,
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::LeaseHeld);
        assert!(err.message.contains("Name bot-dev1"));
    }

    #[test]
    /// Rule #1247.
    fn a_release_returns_the_item_with_retry_at() {
        let mut state = team();
        queue(&mut state, "task-1", "Dev", None, 10);
        let a = member("member-a");
        let step_out = claim(&state, &a, "bot-dev1", None, None, "worker-1", 100).unwrap();
        apply(&mut state, &step_out);
        let out = release(
            &state,
            &a,
            "bot-dev1",
            "task-1",
            Some("blocked on CI"),
            Some(60),
            200,
        )
        .unwrap();
        assert_eq!(
            out.effects,
            vec![Effect::WorkerDropped {
                worker_id: "worker-1".into()
            }]
        );
        apply(&mut state, &out);
        let t = &state.tasks["task-1"];
        assert_eq!(
            (t.status, t.bot_id.as_str()),
            (TaskStatus::Open, "bot-lead")
        );
        assert_eq!(TaskFields::read(t).retry_at, Some(60_200));
        // Not offered again before retryAt.
        let early = claim(&state, &a, "bot-dev2", None, None, "worker-2", 60_199).unwrap();
        assert!(early.answer.is_none());
        let later = claim(&state, &a, "bot-dev2", None, None, "worker-2", 60_200).unwrap();
        assert_eq!(later.answer.unwrap().id, "task-1");
    }
}
