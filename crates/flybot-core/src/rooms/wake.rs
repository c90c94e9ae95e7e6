//! Task-driven wakes (#1109, #1172, #1205): after a board write and after a
//! turn ends, each owner's next task wakes its own chat with `[Continue
//! task]`; a wake that ends with the same board waits 30 s, 2 min, 10 min,
//! then 30 min before that Session is tried again; a board change or a person
//! speaking clears the wait. The work pass and the queue pass keep their own
//! fingerprints. Write-back reminders stop after two (#1172).

use super::WAKE_BACKOFF_MS;
use super::board::card_text;
use flybot_protocol::state::Task;
use flybot_protocol::task::{Priority, TaskFields, priority_of};

fn priority_word(task: &Task) -> &'static str {
    match priority_of(task) {
        Priority::Urgent => "urgent",
        Priority::High => "high",
        Priority::Normal => "normal",
        Priority::Low => "low",
    }
}

/// The wake's header.
pub const CONTINUE_TASK: &str = "[Continue task]";

/// What a wake compares: status, progress, priority, note, title, who is
/// waiting, and a pending comment's state and target — never `updatedAt`.
pub fn fingerprint(task: &Task) -> String {
    let f = TaskFields::read(task);
    let wb = f
        .write_back
        .as_ref()
        .map(|w| format!("{:?}@{}", w.state, w.target.href))
        .unwrap_or_default();
    format!(
        "{}|{:?}|{:?}|{:?}|{}|{}|{:?}|{wb}",
        task.id,
        task.status,
        f.progress,
        priority_of(task),
        f.note.unwrap_or_default(),
        task.title,
        f.waiting_for,
    )
}

/// A Session's wait after wakes that changed nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backoff {
    pub fingerprint: String,
    pub strikes: u32,
    pub until: u64,
}

/// After a wake's turn ended: a board that did not change adds a strike and
/// the next wait; a change clears the wait.
pub fn after_wake(prev: Option<&Backoff>, before: &str, after: &str, now: u64) -> Option<Backoff> {
    if before != after {
        return None;
    }
    let strikes = match prev {
        Some(b) if b.fingerprint == after => b.strikes + 1,
        Some(_) | None => 1,
    };
    let step = (strikes as usize - 1).min(WAKE_BACKOFF_MS.len() - 1);
    Some(Backoff {
        fingerprint: after.to_string(),
        strikes,
        until: now + WAKE_BACKOFF_MS[step],
    })
}

/// Whether the drive may wake the Session now.
pub fn may_wake(backoff: Option<&Backoff>, current: &str, person_spoke: bool, now: u64) -> bool {
    match backoff {
        None => true,
        Some(_) if person_spoke => true,
        Some(b) => b.fingerprint != current || now >= b.until,
    }
}

/// The wake text (#1205): the card, what to do with it, and the room's board
/// snapshot when the card is a room's.
pub fn wake_text(task: &Task, board: &str) -> String {
    let f = TaskFields::read(task);
    let mut out = format!(
        "{CONTINUE_TASK} {} ({}) {}",
        task.id,
        priority_word(task),
        card_text(&task.title, 120)
    );
    if let Some(wb) = f.write_back.as_ref() {
        out.push_str(&format!(
            "\nPost the decision comment on {} and report it with track_tasks postResult.",
            wb.target.href
        ));
    }
    if task.room_id.is_some() {
        out.push_str("\nSet this card's column and progress with track_tasks; do not post a status in the group and do not wait for a confirmation. A question a person has to decide is one short post in the group.");
    }
    if !board.is_empty() {
        out.push('\n');
        out.push_str(board);
    }
    out
}

/// The cue offering an unclaimed queue item to an idle member (#1247): id,
/// priority and title, never the note.
pub fn offer_text(task: &Task) -> String {
    format!(
        "{CONTINUE_TASK} Queue item {} ({}) {} is waiting for your role: claim it with track_tasks {{ claim: true }} if you are free.",
        task.id,
        priority_word(task),
        card_text(&task.title, 120)
    )
}

/// The one muted line a person sees for a wake in the Bot's chat (issue 31):
/// `Working on 'Write a haiku'`, or `Offered 'Fix the build' from the queue`;
/// `None` for any line that is not a wake. The title is read back from the
/// wake's first line, after its id and priority, where `wake_text` and
/// `offer_text` put it.
pub fn wake_event(text: &str) -> Option<String> {
    let first = text.strip_prefix(CONTINUE_TASK)?.lines().next()?.trim();
    let (queued, rest) = match first.strip_prefix("Queue item ") {
        Some(rest) => (true, rest),
        None => (false, first),
    };
    // `<id> (<priority>) <title>`
    let (_, after_id) = rest.split_once(' ')?;
    let (_, title) = after_id.split_once(") ")?;
    let title = match title.split_once(" is waiting for your role:") {
        Some((title, _)) if queued => title,
        Some(_) | None => title,
    };
    Some(if queued {
        format!("Offered '{title}' from the queue")
    } else {
        format!("Working on '{title}'")
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::board::tests::card;
    use super::*;
    use crate::tasks::drive::is_work;
    use crate::tasks::target::{Decision, decision, parse};
    use flybot_protocol::state::TaskStatus;

    #[test]
    fn a_wake_reads_as_one_event_line_naming_its_card_issue_31() {
        let mut task = card("task-1", "bot-1", TaskStatus::Working, |_| {});
        task.title = "Write a haiku".into();
        let text = wake_text(&task, "Your board:\n- task-1 working");
        assert_eq!(
            wake_event(&text).as_deref(),
            Some("Working on 'Write a haiku'")
        );
        let offer = offer_text(&task);
        assert_eq!(
            wake_event(&offer).as_deref(),
            Some("Offered 'Write a haiku' from the queue")
        );
        assert_eq!(wake_event("Write a haiku, please"), None);
        assert_eq!(wake_event("[Continue task]"), None);
    }

    #[test]
    /// Rule #1109.
    fn a_wake_that_changed_nothing_backs_off_30s_2min_10min_30min() {
        let fp = "same";
        let mut b: Option<Backoff> = None;
        let mut waits = Vec::new();
        for _ in 0..5 {
            b = after_wake(b.as_ref(), fp, fp, 0);
            waits.push(b.as_ref().unwrap().until);
        }
        assert_eq!(waits, vec![30_000, 120_000, 600_000, 1_800_000, 1_800_000]);
        assert!(!may_wake(b.as_ref(), fp, false, 1_000));
        assert!(may_wake(b.as_ref(), "changed", false, 1_000));
        assert!(may_wake(b.as_ref(), fp, true, 1_000));
        assert!(after_wake(b.as_ref(), "a", "b", 0).is_none());
    }

    #[test]
    /// Rule #1109.
    fn the_fingerprint_ignores_updated_at_but_sees_the_board_fields() {
        let a = card("t", "bot-b", TaskStatus::Working, |f| f.progress = Some(10));
        let mut bumped = a.clone();
        bumped.updated_at = 99;
        assert_eq!(fingerprint(&a), fingerprint(&bumped));
        let moved = card("t", "bot-b", TaskStatus::Working, |f| f.progress = Some(20));
        assert_ne!(fingerprint(&a), fingerprint(&moved));
        let text = wake_text(&a, "Board:\n- x");
        assert!(
            text.starts_with("[Continue task] t (normal)")
                && text.contains("track_tasks")
                && text.ends_with("- x")
        );
    }

    #[test]
    /// Rule #1172.
    fn write_back_reminders_stop_after_two() {
        let wb = decision(
            parse("a/b#1").unwrap(),
            Decision::Accepted { title: "T" },
            None,
            "Ada",
            0,
        );
        let mut t = card("t", "bot-b", TaskStatus::Accepted, |f| {
            f.write_back = Some(wb.clone())
        });
        assert!(is_work(&t, 10));
        for wakes in [1, 2] {
            t = card("t", "bot-b", TaskStatus::Accepted, |f| {
                let mut w = wb.clone();
                w.wakes = wakes;
                f.write_back = Some(w);
            });
            assert_eq!(is_work(&t, 10), wakes < 2);
        }
        assert!(wake_text(&t, "").contains("postResult"));
    }
}
