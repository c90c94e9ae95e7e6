//! A dispatch is a board assign (#1254). `work_dispatch` answers only the
//! shape — exactly one named member, an issue/PR id (`#1234` or a
//! `github.com/<owner>/<repo>/(issues|pull)/<n>` link), an imperative within
//! 40 characters of that id, and no `?`; `dispatch_of` adds the room's rules
//! (a Bot's own post by the room's task lead, no `@all`, not quiet or an
//! event, a room with a board). `card_for` is `cardNamesIssue`: the open card
//! that member already holds for the issue.

use flybot_protocol::state::{Task, TeamState};
use flybot_protocol::task::TaskFields;

/// Imperatives a dispatch carries (English verbs and Chinese ones).
const VERBS: [&str; 22] = [
    "fix",
    "rebase",
    "push",
    "review",
    "merge",
    "implement",
    "add",
    "update",
    "close",
    "build",
    "write",
    "test",
    "ship",
    "take",
    "handle",
    "finish",
    "land",
    "revert",
    "debug",
    "修",
    "改",
    "推",
];
const VERBS_ZH: [&str; 4] = ["补", "做", "写", "查"];
/// How near the imperative must be to the id.
pub const DISPATCH_WINDOW: usize = 40;

/// `issueRefs`: the issue numbers a text names, with their char offsets.
pub fn issue_refs(text: &str) -> Vec<(u64, usize)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '#' && (i == 0 || !chars[i - 1].is_alphanumeric()) {
            let digits: String = chars[i + 1..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            if let Ok(n) = digits.parse::<u64>() {
                out.push((n, i));
            }
        }
        i += 1;
    }
    let lower = text.to_lowercase();
    let mut from = 0;
    while let Some(at) = lower[from..].find("github.com/") {
        let start = from + at;
        let rest = &text[start + "github.com/".len()..];
        let parts: Vec<&str> = rest.splitn(5, '/').collect();
        if parts.len() >= 4 && (parts[2] == "issues" || parts[2] == "pull") {
            let digits: String = parts[3]
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            if let Ok(n) = digits.parse::<u64>() {
                out.push((n, text[..start].chars().count()));
            }
        }
        from = start + 1;
    }
    out
}

/// Whether a text names issue `n`.
pub fn names_issue(text: &str, n: u64) -> bool {
    issue_refs(text).iter().any(|(x, _)| *x == n)
}

/// The shape of a dispatch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dispatch {
    pub member: String,
    pub issue: u64,
}

fn imperative_near(text: &str, at: usize) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let lo = at.saturating_sub(DISPATCH_WINDOW);
    let hi = (at + DISPATCH_WINDOW).min(chars.len());
    let window: String = chars[lo..hi].iter().collect::<String>().to_lowercase();
    let words: Vec<&str> = window.split(|c: char| !c.is_alphanumeric()).collect();
    VERBS.iter().any(|v| {
        if v.is_ascii() {
            words.contains(v)
        } else {
            window.contains(v)
        }
    }) || VERBS_ZH.iter().any(|v| window.contains(v))
}

/// `workDispatch(text, { callees })`.
pub fn work_dispatch(text: &str, callees: &[String]) -> Option<Dispatch> {
    if callees.len() != 1 || text.contains('?') || text.contains('？') {
        return None;
    }
    let (issue, _) = issue_refs(text)
        .into_iter()
        .find(|(_, at)| imperative_near(text, *at))?;
    Some(Dispatch {
        member: callees[0].clone(),
        issue,
    })
}

/// The room's side of a dispatch (`dispatchOf`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DispatchRoom {
    pub poster_is_lead: bool,
    pub has_board: bool,
    pub at_all: bool,
    pub quiet_or_event: bool,
}

pub fn dispatch_of(text: &str, callees: &[String], room: DispatchRoom) -> Option<Dispatch> {
    if !room.poster_is_lead || !room.has_board || room.at_all || room.quiet_or_event {
        return None;
    }
    work_dispatch(text, callees)
}

/// `cardNamesIssue`: a card's own fields (title, target) name the issue; a
/// note counts only when those name no issue at all.
pub fn card_names_issue(task: &Task, n: u64) -> bool {
    let f = TaskFields::read(task);
    let own = issue_refs(&task.title)
        .into_iter()
        .map(|(x, _)| x)
        .chain(f.target.as_ref().map(|t| t.number))
        .collect::<Vec<_>>();
    if !own.is_empty() {
        return own.contains(&n);
    }
    f.note.as_deref().is_some_and(|note| names_issue(note, n))
}

/// The newest unfinished card `member` holds in the room for the issue.
pub fn card_for<'a>(
    state: &'a TeamState,
    room_id: &str,
    member: &str,
    issue: u64,
) -> Option<&'a Task> {
    state
        .tasks
        .values()
        .filter(|t| {
            t.bot_id == member && t.room_id.as_deref() == Some(room_id) && !t.status.is_terminal()
        })
        .filter(|t| card_names_issue(t, issue))
        .max_by_key(|t| (t.updated_at, t.id.clone()))
}

#[cfg(test)]
mod tests {
    use super::super::board::tests::card;
    use super::super::fixture::team;
    use super::*;
    use flybot_protocol::state::TaskStatus;

    fn one(id: &str) -> Vec<String> {
        vec![id.to_string()]
    }

    #[test]
    /// Rule #1254.
    fn a_dispatch_is_one_member_an_issue_and_an_imperative_without_a_question() {
        assert_eq!(
            work_dispatch("@Bo #1234 rebase and push", &one("bot-b")),
            Some(Dispatch {
                member: "bot-b".into(),
                issue: 1234
            })
        );
        assert_eq!(
            work_dispatch("@Bo 修一下 https://github.com/a/b/pull/77", &one("bot-b"))
                .map(|d| d.issue),
            Some(77)
        );
        assert_eq!(
            work_dispatch("@Bo can you rebase #1234?", &one("bot-b")),
            None
        );
        assert_eq!(
            work_dispatch("@Bo #1234 is interesting", &one("bot-b")),
            None
        );
        assert_eq!(
            work_dispatch("@Bo @Cy fix #1", &["bot-b".into(), "bot-c".into()]),
            None
        );
        let room = DispatchRoom {
            poster_is_lead: true,
            has_board: true,
            at_all: false,
            quiet_or_event: false,
        };
        assert!(dispatch_of("@Bo fix #9", &one("bot-b"), room).is_some());
        assert!(
            dispatch_of(
                "@Bo fix #9",
                &one("bot-b"),
                DispatchRoom {
                    poster_is_lead: false,
                    ..room
                }
            )
            .is_none()
        );
        assert!(
            dispatch_of(
                "@Bo fix #9",
                &one("bot-b"),
                DispatchRoom {
                    has_board: false,
                    ..room
                }
            )
            .is_none()
        );
    }

    #[test]
    /// Rule #1254.
    fn the_dispatch_updates_the_card_that_names_the_issue_and_a_note_counts_only_alone() {
        let mut state = team();
        state.tasks.insert(
            "t1".into(),
            card("t1", "bot-b", TaskStatus::Working, |f| {
                f.note = Some("see #9".into())
            }),
        );
        let mut titled = card("t2", "bot-b", TaskStatus::Claimed, |f| {
            f.note = Some("also #9".into())
        });
        titled.title = "Fix #12".into();
        state.tasks.insert("t2".into(), titled);
        assert_eq!(
            card_for(&state, "room-1", "bot-b", 9).map(|t| t.id.as_str()),
            Some("t1")
        );
        assert_eq!(
            card_for(&state, "room-1", "bot-b", 12).map(|t| t.id.as_str()),
            Some("t2")
        );
        assert!(card_for(&state, "room-1", "bot-c", 12).is_none());
    }
}
