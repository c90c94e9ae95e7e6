//! What the task drive reads (#1109, #1154, #1247): a Bot's next card and the
//! queue items to offer. The drive itself (the wake, its text, the Session)
//! belongs to the host's conversation side; these answer only which cards.

use super::claim::holds_work;
use super::roles::bot_role;
use super::target::wants_wake;
use flybot_protocol::state::{Task, TaskStatus, TeamState};
use flybot_protocol::task::{TaskFields, TaskKind, WaitingFor, priority_of};
use std::cmp::Reverse;
use std::collections::BTreeSet;

/// Whether a card is work its Bot should be woken for: open, claimed or
/// working, not waiting for input, not an overall group card, not an
/// unclaimed queue item; or a decided card whose comment is still pending.
pub fn is_work(task: &Task, now: u64) -> bool {
    let fields = TaskFields::read(task);
    if fields
        .write_back
        .as_ref()
        .is_some_and(|wb| wants_wake(wb, now))
    {
        return true;
    }
    let live = matches!(
        task.status,
        TaskStatus::Open | TaskStatus::Claimed | TaskStatus::Working
    );
    let unclaimed_item = fields.queue_role.is_some() && task.status == TaskStatus::Open;
    // A workflow job's own card is not its lead's work: its node cards are.
    live && fields.waiting_for != Some(WaitingFor::Input)
        && fields.kind != Some(TaskKind::Group)
        && !unclaimed_item
        && !super::job_card::is_job_card(task)
}

/// compareForWork: priority first, in progress before not started, newest
/// first.
fn work_key(task: &Task) -> (u8, u8, Reverse<u64>, Reverse<u64>) {
    let started = match task.status {
        TaskStatus::Working => 0,
        TaskStatus::Open
        | TaskStatus::Claimed
        | TaskStatus::Blocked
        | TaskStatus::ResultReady
        | TaskStatus::Accepted
        | TaskStatus::Cancelled
        | TaskStatus::Failed => 1,
    };
    (
        priority_of(task).rank(),
        started,
        Reverse(task.updated_at),
        Reverse(task.created_at),
    )
}

/// The card the drive would wake `bot_id` for next, if any.
pub fn next_work<'a>(state: &'a TeamState, bot_id: &str, now: u64) -> Option<&'a Task> {
    state
        .tasks
        .values()
        .filter(|t| t.bot_id == bot_id && is_work(t, now))
        .min_by_key(|t| work_key(t))
}

/// One offer of an unclaimed queue item to an idle member of its role.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offer {
    pub bot_id: String,
    pub task_id: String,
    pub room_id: String,
}

/// The queue items one drive pass offers (#1247): per room and role, the
/// highest-priority oldest offered item goes to one idle member of the role
/// (not already holding a card in progress, not offered another item in
/// this pass), one item per room and role.
pub fn queue_offers(state: &TeamState, now: u64) -> Vec<Offer> {
    let mut items: Vec<(&Task, String)> = state
        .tasks
        .values()
        .filter(|t| t.status == TaskStatus::Open)
        .filter_map(|t| {
            let fields = TaskFields::read(t);
            let offered = fields.retry_at.is_none_or(|at| at <= now);
            fields.queue_role.filter(|_| offered).map(|role| (t, role))
        })
        .collect();
    items.sort_by_key(|(t, _)| (priority_of(t).rank(), t.created_at, t.id.clone()));
    let mut served: BTreeSet<(String, String)> = BTreeSet::new();
    let mut woken: BTreeSet<String> = BTreeSet::new();
    let mut offers = Vec::new();
    for (task, role) in items {
        let Some(room) = task.room_id.as_deref().and_then(|r| state.rooms.get(r)) else {
            continue;
        };
        if served.contains(&(room.id.clone(), role.clone())) {
            continue;
        }
        let idle = room.members.iter().find(|m| {
            state
                .bots
                .get(*m)
                .is_some_and(|b| bot_role(b) == Some(role.as_str()))
                && !woken.contains(*m)
                && !holds_work(state, m)
        });
        if let Some(bot_id) = idle {
            served.insert((room.id.clone(), role));
            woken.insert(bot_id.clone());
            offers.push(Offer {
                bot_id: bot_id.clone(),
                task_id: task.id.clone(),
                room_id: room.id.clone(),
            });
        }
    }
    offers
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::fixture::{task, team, with_fields};
    use super::super::target::{Decision, decision, parse};
    use super::*;
    use flybot_protocol::task::Priority;

    #[test]
    /// Rule #1109.
    fn the_next_card_is_compare_for_work_and_skips_waits_groups_and_unclaimed_items() {
        let mut state = team();
        let rows = [
            task("t-open", TaskStatus::Open),
            with_fields(task("t-urgent", TaskStatus::Claimed), |f| {
                f.priority = Some(Priority::Urgent)
            }),
            with_fields(task("t-waiting", TaskStatus::Blocked), |f| {
                f.waiting_for = Some(WaitingFor::Input);
                f.priority = Some(Priority::Urgent);
            }),
            with_fields(task("t-group", TaskStatus::Working), |f| {
                f.kind = Some(TaskKind::Group);
                f.priority = Some(Priority::Urgent);
            }),
            with_fields(task("t-item", TaskStatus::Open), |f| {
                f.queue_role = Some("Dev".into());
                f.priority = Some(Priority::Urgent);
            }),
        ];
        for t in rows {
            state.tasks.insert(t.id.clone(), t);
        }
        assert_eq!(next_work(&state, "bot-dev1", 10).unwrap().id, "t-urgent");
        state.tasks.remove("t-urgent");
        assert_eq!(next_work(&state, "bot-dev1", 10).unwrap().id, "t-open");
    }

    #[test]
    /// Rule #1154.
    fn a_pending_comment_is_work_even_on_an_accepted_card() {
        let mut state = team();
        let wb = decision(
            parse("a/b#1").unwrap(),
            Decision::Accepted { title: "T" },
            None,
            "Ada",
            100,
        );
        let t = with_fields(task("t-done", TaskStatus::Accepted), |f| {
            f.write_back = Some(wb)
        });
        state.tasks.insert(t.id.clone(), t);
        assert_eq!(next_work(&state, "bot-dev1", 200).unwrap().id, "t-done");
        // Not a day later (#1172).
        assert!(next_work(&state, "bot-dev1", 100 + 24 * 3_600_000).is_none());
    }

    #[test]
    /// Rule #1247.
    fn one_item_per_room_and_role_goes_to_one_idle_member() {
        let mut state = team();
        for (id, at) in [("t-a", 1), ("t-b", 2)] {
            let mut t = with_fields(task(id, TaskStatus::Open), |f| {
                f.queue_role = Some("Dev".into())
            });
            t.bot_id = "bot-lead".into();
            t.room_id = Some("room-1".into());
            t.created_at = at;
            state.tasks.insert(id.into(), t);
        }
        let offers = queue_offers(&state, 10);
        assert_eq!(offers.len(), 1);
        assert_eq!(offers[0].task_id, "t-a");
        assert_eq!(offers[0].bot_id, "bot-dev1");
        // A member holding a card in progress is not idle.
        state
            .tasks
            .insert("t-busy".into(), task("t-busy", TaskStatus::Working));
        assert_eq!(queue_offers(&state, 10)[0].bot_id, "bot-dev2");
    }
}
