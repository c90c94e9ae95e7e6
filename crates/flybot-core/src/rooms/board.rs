//! The board snapshot a member's turn carries (#1203, #1247): the newest
//! overall task, then its subtasks and any room card not under a different
//! overall task, up to eight cards; done cards stay off; titles and notes one
//! line, capped, with `<` and `>` removed; an unclaimed queue item shows its
//! role and wait, and one line per role with something waiting ends it.

use super::ROOM_BOARD_CARDS;
use crate::tasks::roles::bot_name;
use crate::tasks::text::one_line;
use flybot_protocol::state::{Task, TaskStatus, TeamState};
use flybot_protocol::task::{Column, TaskFields, TaskKind, column_of};
use std::collections::BTreeMap;

/// A card's text as the room sees it: one line, capped, no angle brackets.
pub fn card_text(raw: &str, max: usize) -> String {
    one_line(&raw.replace(['<', '>'], ""), max)
}

/// An age as the board says it: `27 min`, `3h`, `2d`.
pub fn age(ms: u64) -> String {
    let min = ms / 60_000;
    if min < 60 {
        format!("{min} min")
    } else if min < 48 * 60 {
        format!("{}h", min / 60)
    } else {
        format!("{}d", min / (24 * 60))
    }
}

fn column_word(task: &Task) -> &'static str {
    match column_of(task.status) {
        Column::NotStarted => "not started",
        Column::InProgress => "in progress",
        Column::Done => "done",
    }
}

fn is_item(task: &Task, fields: &TaskFields) -> bool {
    fields.queue_role.is_some() && task.status == TaskStatus::Open
}

/// The room's live cards in snapshot order.
pub fn room_cards<'a>(state: &'a TeamState, room_id: &str) -> Vec<&'a Task> {
    let mut live: Vec<&Task> = state
        .tasks
        .values()
        .filter(|t| t.room_id.as_deref() == Some(room_id) && column_of(t.status) != Column::Done)
        .collect();
    live.sort_by_key(|t| (std::cmp::Reverse(t.updated_at), t.id.clone()));
    let overall = live
        .iter()
        .copied()
        .filter(|t| TaskFields::read(t).kind == Some(TaskKind::Group))
        .max_by_key(|t| (t.created_at, t.id.clone()));
    let mut out: Vec<&Task> = Vec::new();
    if let Some(o) = overall {
        out.push(o);
        out.extend(
            live.iter()
                .copied()
                .filter(|t| TaskFields::read(t).parent_id.as_deref() == Some(o.id.as_str())),
        );
    }
    for t in live {
        let f = TaskFields::read(t);
        let under_other = f
            .parent_id
            .as_deref()
            .is_some_and(|p| overall.is_none_or(|o| o.id != p));
        let other_overall = f.kind == Some(TaskKind::Group);
        if !out.iter().any(|x| x.id == t.id) && !under_other && !other_overall {
            out.push(t);
        }
    }
    out
}

/// `formatRoomBoard` (#1203); empty when the room has no live card and no
/// waiting item.
pub fn format_room_board(state: &TeamState, room_id: &str, now: u64) -> String {
    let cards = room_cards(state, room_id);
    let mut lines = Vec::new();
    for t in cards.iter().take(ROOM_BOARD_CARDS) {
        let f = TaskFields::read(t);
        let title = card_text(&t.title, 80);
        if is_item(t, &f) {
            let role = f.queue_role.clone().unwrap_or_default();
            lines.push(format!(
                "- {title} — unassigned [open {} {role}]",
                age(now.saturating_sub(t.created_at))
            ));
            continue;
        }
        let overall = if f.kind == Some(TaskKind::Group) {
            "overall: "
        } else {
            ""
        };
        let progress = f.progress.map(|p| format!(" {p}%")).unwrap_or_default();
        let mut line = format!(
            "- {overall}{title} — {} ({}{progress})",
            bot_name(state, &t.bot_id),
            column_word(t)
        );
        if let Some(note) = f.note.as_deref().filter(|n| !n.trim().is_empty()) {
            line.push_str(&format!(": {}", card_text(note, 80)));
        }
        lines.push(line);
    }
    let mut waiting: BTreeMap<String, (usize, u64)> = BTreeMap::new();
    for t in state
        .tasks
        .values()
        .filter(|t| t.room_id.as_deref() == Some(room_id))
    {
        let f = TaskFields::read(t);
        if let (true, Some(role)) = (is_item(t, &f), f.queue_role.clone()) {
            let e = waiting.entry(role).or_insert((0, u64::MAX));
            e.0 += 1;
            e.1 = e.1.min(t.created_at);
        }
    }
    for (role, (n, oldest)) in waiting {
        lines.push(format!(
            "- Queue {role}: {n} waiting, oldest {}",
            age(now.saturating_sub(oldest))
        ));
    }
    if lines.is_empty() {
        return String::new();
    }
    format!("Board:\n{}", lines.join("\n"))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::fixture::team;
    use super::*;
    use flybot_protocol::task::TaskFields;

    pub fn card(id: &str, bot: &str, status: TaskStatus, f: impl FnOnce(&mut TaskFields)) -> Task {
        let mut t = Task {
            id: id.into(),
            bot_id: bot.into(),
            title: format!("{id} title"),
            status,
            requester_id: Some("member-a".into()),
            room_id: Some("room-1".into()),
            created_at: 0,
            updated_at: 0,
            extra: Default::default(),
        };
        let mut fields = TaskFields::read(&t);
        f(&mut fields);
        fields.write(&mut t);
        t
    }

    #[test]
    /// Rule #1203.
    fn the_board_snapshot_is_the_overall_card_its_subtasks_up_to_eight_and_queue_lines_per_role() {
        let mut state = team();
        let hour = 3_600_000;
        state.tasks.insert(
            "o".into(),
            card("o", "bot-a", TaskStatus::Working, |f| {
                f.kind = Some(TaskKind::Group)
            }),
        );
        for i in 0..10 {
            let id = format!("s{i}");
            state.tasks.insert(
                id.clone(),
                card(&id, "bot-b", TaskStatus::Claimed, |f| {
                    f.parent_id = Some("o".into())
                }),
            );
        }
        state.tasks.insert(
            "done".into(),
            card("done", "bot-b", TaskStatus::Accepted, |_| {}),
        );
        let mut tagged = card("s0", "bot-b", TaskStatus::Claimed, |f| {
            f.parent_id = Some("o".into())
        });
        tagged.title = "<b>s0</b> title".into();
        state.tasks.insert("s0".into(), tagged);
        for i in 0..2 {
            let id = format!("q{i}");
            state.tasks.insert(
                id.clone(),
                card(&id, "bot-a", TaskStatus::Open, |f| {
                    f.queue_role = Some("Dev".into())
                }),
            );
        }
        let text = format_room_board(&state, "room-1", 3 * hour);
        let cards: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("- ") && !l.starts_with("- Queue"))
            .collect();
        assert_eq!(cards.len(), ROOM_BOARD_CARDS);
        assert!(cards[0].starts_with("- overall: o title"));
        assert!(!text.contains('<') && !text.contains("done title"));
        assert!(text.ends_with("- Queue Dev: 2 waiting, oldest 3h"));
    }
}
