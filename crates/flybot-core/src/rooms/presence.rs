//! Who is working (#1213): one line per member holding an unfinished card in
//! the room, an idle line for the rest, at most eight member lines and 400
//! characters. Only card state is rendered: never CI, the queue or a note.

use super::board::{age, card_text};
use super::{ROOM_PRESENCE_BUDGET, ROOM_PRESENCE_LINES};
use flybot_protocol::state::{Task, TaskStatus, TeamState};
use flybot_protocol::task::{Column, TaskFields, WaitingFor, column_of};

fn holds(task: &Task, room_id: &str, bot: &str) -> bool {
    let f = TaskFields::read(task);
    task.bot_id == bot
        && task.room_id.as_deref() == Some(room_id)
        && !task.status.is_terminal()
        && !(f.queue_role.is_some() && task.status == TaskStatus::Open)
}

fn card_line(name: &str, task: &Task, more: usize, now: u64) -> String {
    let f = TaskFields::read(task);
    let number = f
        .target
        .as_ref()
        .map(|t| format!("#{} ", t.number))
        .unwrap_or_default();
    let state = if f.waiting_for == Some(WaitingFor::Input) {
        "waiting on an answer".to_string()
    } else if f.progress.unwrap_or(0) == 0 && column_of(task.status) == Column::NotStarted {
        "just claimed".to_string()
    } else {
        let word = match column_of(task.status) {
            Column::NotStarted => "not started",
            Column::InProgress => "in progress",
            Column::Done => "done",
        };
        format!("{word} {}%", f.progress.unwrap_or(0))
    };
    let mut line = format!(
        "- {name} — {number}{} ({state}, open {}",
        card_text(&task.title, 60),
        age(now.saturating_sub(task.created_at))
    );
    if task.updated_at >= task.created_at + 60_000 {
        line.push_str(&format!(
            ", moved {} ago",
            age(now.saturating_sub(task.updated_at))
        ));
    }
    line.push(')');
    if more > 0 {
        line.push_str(&format!(" +{more} more"));
    }
    line
}

/// `formatRoomPresence` (#1213); `members` is `(id, name)` in room order.
pub fn format_room_presence(
    state: &TeamState,
    room_id: &str,
    members: &[(String, String)],
    now: u64,
) -> String {
    let mut any = false;
    let mut lines: Vec<String> = Vec::new();
    for (id, name) in members {
        let mut cards: Vec<&Task> = state
            .tasks
            .values()
            .filter(|t| holds(t, room_id, id))
            .collect();
        cards.sort_by_key(|t| {
            (
                t.status != TaskStatus::Working,
                std::cmp::Reverse(t.updated_at),
            )
        });
        match cards.first() {
            Some(first) => {
                any = true;
                lines.push(card_line(name, first, cards.len() - 1, now));
            }
            None => lines.push(format!("- {name} — idle (no open card)")),
        }
    }
    if !any {
        return "Who is working: nobody (no open card)".to_string();
    }
    let mut out = String::from("Who is working:");
    let mut shown = 0;
    for line in &lines {
        if shown == ROOM_PRESENCE_LINES
            || out.chars().count() + 1 + line.chars().count() > ROOM_PRESENCE_BUDGET - 24
        {
            break;
        }
        out.push('\n');
        out.push_str(line);
        shown += 1;
    }
    if shown < lines.len() {
        out.push_str(&format!("\n- +{} more member(s)", lines.len() - shown));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::board::tests::card;
    use super::super::fixture::team;
    use super::*;

    fn members(n: usize) -> Vec<(String, String)> {
        (0..n)
            .map(|i| (format!("bot-{i}"), format!("M{i}")))
            .collect()
    }

    #[test]
    /// Rule #1213.
    fn presence_names_holders_and_idle_members_within_eight_lines_and_400_characters() {
        let mut state = team();
        let min = 60_000;
        let mut t = card("t1", "bot-0", TaskStatus::Working, |f| {
            f.progress = Some(15)
        });
        t.updated_at = 20 * min;
        state.tasks.insert("t1".into(), t);
        state.tasks.insert(
            "t2".into(),
            card("t2", "bot-0", TaskStatus::Claimed, |_| {}),
        );
        state.tasks.insert(
            "t3".into(),
            card("t3", "bot-1", TaskStatus::Blocked, |f| {
                f.waiting_for = Some(WaitingFor::Input)
            }),
        );
        let text = format_room_presence(&state, "room-1", &members(3), 27 * min);
        assert!(
            text.contains(
                "- M0 — t1 title (in progress 15%, open 27 min, moved 7 min ago) +1 more"
            ),
            "{text}"
        );
        assert!(text.contains("- M1 — t3 title (waiting on an answer"));
        assert!(text.contains("- M2 — idle (no open card)"));
        let many = format_room_presence(&state, "room-1", &members(20), 27 * min);
        assert!(many.chars().count() <= ROOM_PRESENCE_BUDGET);
        assert!(many.lines().filter(|l| l.starts_with("- M")).count() <= ROOM_PRESENCE_LINES);
        assert!(many.ends_with("more member(s)"));
        let none = format_room_presence(&team(), "room-1", &members(2), 0);
        assert_eq!(none, "Who is working: nobody (no open card)");
    }
}
