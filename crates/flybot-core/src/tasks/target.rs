//! Where a card came from (#1154) and the one comment its decision leaves for
//! the card's Bot to post (#1154, #1172). The host holds no token and posts
//! nothing: it writes `writeBack`, and the owning Bot reports how it went.

use super::text::one_line;
use super::{Card, Outcome, Stamps, find};
use crate::access::{Actor, may_manage_bot};
use flybot_protocol::state::TeamState;
use flybot_protocol::task::{Target, WriteBack, WriteBackState};
use flybot_protocol::{ApiError, ErrorCode};

/// A pending comment wakes its Bot at most this many times (#1172).
pub const WRITE_BACK_WAKES_MAX: u32 = 2;
/// A day after the decision a pending comment turns unconfirmed (#1172).
pub const WRITE_BACK_PATIENCE_MS: u64 = 24 * 60 * 60 * 1000;
/// The one line a failed report shows on the card.
pub const REPORT_ERROR_MAX: usize = 300;

/// Parses `https://github.com/<owner>/<repo>/issues|pull/<n>` or
/// `<owner>/<repo>#<n>`; anything else is `bot/invalid`.
pub fn parse(raw: &str) -> Result<Target, ApiError> {
    let text = raw.trim();
    let parts = match text.strip_prefix("https://github.com/") {
        Some(path) => {
            let pieces: Vec<&str> = path.split('/').collect();
            match pieces.as_slice() {
                [owner, repo, "issues" | "pull", number] => Some((*owner, *repo, *number)),
                _ => None,
            }
        }
        None => text.split_once('#').and_then(|(slug, number)| {
            slug.split_once('/')
                .map(|(owner, repo)| (owner, repo, number))
        }),
    };
    let target = parts.and_then(|(owner, repo, number)| {
        let number: u64 = number.parse().ok().filter(|n| *n > 0)?;
        let owner_ok = !owner.is_empty()
            && owner.len() <= 39
            && owner.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        let repo_ok = !repo.is_empty()
            && repo.len() <= 100
            && repo
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
        (owner_ok && repo_ok && number.to_string().len() <= 12).then(|| Target {
            owner: owner.to_owned(),
            repo: repo.to_owned(),
            number,
            href: format!("https://github.com/{owner}/{repo}/issues/{number}"),
        })
    });
    target.ok_or_else(|| {
        ApiError::invalid(
            "target",
            "A target is https://github.com/<owner>/<repo>/issues/<n>, .../pull/<n>, or <owner>/<repo>#<n>.",
        )
    })
}

/// What was decided.
pub enum Decision<'a> {
    Accepted { title: &'a str },
    SentBack { note: &'a str },
}

/// The pending comment for a decision (#1154). No line of the body carries
/// the `Written-by:` shape a review gate parses, not even one quoted from a
/// note or summary, and the decider's name is folded to one line (#1172).
pub fn decision(
    target: Target,
    decision: Decision<'_>,
    summary: Option<&str>,
    decider: &str,
    at: u64,
) -> WriteBack {
    let name = {
        let folded = one_line(decider, 100);
        if folded.is_empty() {
            "someone".to_owned()
        } else {
            folded
        }
    };
    let mut body = match decision {
        Decision::Accepted { title } => format!("Accepted: {}", one_line(title, 200)),
        Decision::SentBack { note } => format!("Sent back: {note}"),
    };
    if let Some(summary) = summary.filter(|s| !s.trim().is_empty()) {
        body.push_str("\n\n");
        body.push_str(summary.trim());
    }
    body.push_str(&format!(
        "\n\nDecided in FlyBot by {name}.\nDecision by: {name}"
    ));
    let body = body.lines().map(defuse).collect::<Vec<_>>().join("\n");
    WriteBack {
        target,
        at,
        state: WriteBackState::Pending,
        body,
        wakes: 0,
        error: None,
        reported_at: None,
    }
}

/// A line that would read as a `Written-by:` attribution loses its hyphen.
fn defuse(line: &str) -> String {
    let start = line
        .char_indices()
        .find(|(_, c)| !(c.is_whitespace() || ">*-_`#".contains(*c)))
        .map_or(line.len(), |(i, _)| i);
    let rest = &line[start..];
    let Some((head, tail)) = rest.split_once(':') else {
        return line.to_owned();
    };
    let squeezed: String = head
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_lowercase();
    if squeezed == "written-by" {
        format!("{}Written by (quoted):{tail}", &line[..start])
    } else {
        line.to_owned()
    }
}

/// `task-post-result {id, ok, error?}`: the owning Bot's report (#1154),
/// made by a person who may act for the card's Bot.
pub fn post_result(
    state: &TeamState,
    actor: &Actor,
    id: &str,
    ok: bool,
    error: Option<&str>,
    now: u64,
) -> Result<Outcome, ApiError> {
    let task = find(state, id)?;
    let owner_may = state
        .bots
        .get(&task.bot_id)
        .is_some_and(|bot| may_manage_bot(actor, bot));
    report(state, owner_may, id, ok, error, now)
}

/// `track_tasks postResult {task, ok, error}`: the report from the Bot's own
/// turn; only the Bot that owns the card reports.
pub fn post_result_by_bot(
    state: &TeamState,
    bot_id: &str,
    id: &str,
    ok: bool,
    error: Option<&str>,
    now: u64,
) -> Result<Outcome, ApiError> {
    let task = find(state, id)?;
    report(state, task.bot_id == bot_id, id, ok, error, now)
}

/// One report per decision, while the comment is pending or unconfirmed; a
/// failure names its one line; the decision itself stays either way.
fn report(
    state: &TeamState,
    allowed: bool,
    id: &str,
    ok: bool,
    error: Option<&str>,
    now: u64,
) -> Result<Outcome, ApiError> {
    let error = match (ok, error.map(|e| one_line(e, REPORT_ERROR_MAX))) {
        (true, _) => None,
        (false, Some(line)) if !line.is_empty() => Some(line),
        (false, _) => {
            return Err(ApiError::invalid(
                "error",
                "A failed post names its error in one line.",
            ));
        }
    };
    let task = find(state, id)?;
    if !allowed {
        return Err(
            ApiError::forbidden("Only the Bot that owns the card reports its comment.")
                .with("taskId", id),
        );
    }
    let mut card = Card::of(task);
    let Some(write_back) = card.fields.write_back.as_mut() else {
        return Err(
            ApiError::new(ErrorCode::Stale, "This card has no comment to report on.")
                .with("taskId", id),
        );
    };
    match write_back.state {
        WriteBackState::Pending | WriteBackState::Unconfirmed => {}
        WriteBackState::Posted | WriteBackState::Failed => {
            return Err(ApiError::new(
                ErrorCode::Stale,
                "This decision's comment was already reported; one report per decision.",
            )
            .with("taskId", id));
        }
    }
    write_back.state = if ok {
        WriteBackState::Posted
    } else {
        WriteBackState::Failed
    };
    write_back.error = error;
    write_back.reported_at = Some(now);
    let mut stamps = Stamps::new(now);
    card.task.updated_at = stamps.for_task(&card.task);
    Ok(Outcome::one(card.into_task()))
}

/// Whether a pending comment should still wake its Bot (#1172): only wakes
/// that went out count, at most two, and never a day after the decision.
pub fn wants_wake(write_back: &WriteBack, now: u64) -> bool {
    write_back.state == WriteBackState::Pending
        && write_back.wakes < WRITE_BACK_WAKES_MAX
        && now < write_back.at.saturating_add(WRITE_BACK_PATIENCE_MS)
}

/// A reminder of the card's pending comment went out (#1172): the card
/// counts it in `writeBack.wakes`, so the cap holds across a restart. Only
/// the decision made at `at` is counted (a newer decision starts again);
/// `None` when there is no such pending comment. No stamp moves: the count
/// is not a change anybody made to the card.
pub fn count_wake(
    task: &flybot_protocol::state::Task,
    at: u64,
) -> Option<flybot_protocol::state::Task> {
    let mut card = Card::of(task);
    let write_back = card.fields.write_back.as_mut()?;
    if write_back.state != WriteBackState::Pending || write_back.at != at {
        return None;
    }
    write_back.wakes = write_back.wakes.saturating_add(1);
    Some(card.into_task())
}

/// A pending comment a day old turns unconfirmed: a quiet card line, not an
/// error. Answers whether it changed.
pub fn settle_unconfirmed(write_back: &mut WriteBack, now: u64) -> bool {
    let due = now >= write_back.at.saturating_add(WRITE_BACK_PATIENCE_MS);
    if write_back.state == WriteBackState::Pending && due {
        write_back.state = WriteBackState::Unconfirmed;
        return true;
    }
    false
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    /// Rule #1154.
    fn both_target_spellings_store_the_issues_href() {
        let a = parse("https://github.com/acme/app/pull/42").unwrap();
        let b = parse("acme/app#42").unwrap();
        assert_eq!(a, b);
        assert_eq!(a.href, "https://github.com/acme/app/issues/42");
        assert_eq!(
            (a.owner.as_str(), a.repo.as_str(), a.number),
            ("acme", "app", 42)
        );
        for bad in [
            "https://gitlab.com/acme/app/issues/1",
            "https://github.com/acme/app/commit/1",
            "acme/app#0",
            "acme#4",
            "acme/app#x",
            "https://github.com/acme/app/issues/1/extra",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    fn target() -> Target {
        parse("acme/app#7").unwrap()
    }

    #[test]
    /// Rule #1172.
    fn the_decider_has_a_field_of_its_own_and_no_written_by_line() {
        let wb = decision(
            target(),
            Decision::SentBack {
                note: "Fix it\nWritten-by: Reviewer (alice)",
            },
            Some("> written-by : bob\nDone."),
            "Ada\nWritten-by: Eve",
            5,
        );
        assert!(wb.body.starts_with("Sent back: Fix it"));
        assert!(wb.body.ends_with(
            "Decided in FlyBot by Ada Written-by: Eve.\nDecision by: Ada Written-by: Eve"
        ));
        for line in wb.body.lines() {
            let bare = line.trim_start_matches(|c: char| c.is_whitespace() || ">*-_`#".contains(c));
            assert!(
                !bare
                    .to_lowercase()
                    .replace(' ', "")
                    .starts_with("written-by:"),
                "{line}"
            );
        }
        assert_eq!(wb.state, WriteBackState::Pending);
    }

    #[test]
    /// Rule #1172.
    fn a_pending_comment_wakes_twice_then_turns_unconfirmed_after_a_day() {
        let mut wb = decision(
            target(),
            Decision::Accepted { title: "T" },
            None,
            "Ada",
            1_000,
        );
        assert!(wb.body.starts_with("Accepted: T"));
        assert!(wants_wake(&wb, 2_000));
        wb.wakes = 2;
        assert!(!wants_wake(&wb, 2_000));
        wb.wakes = 0;
        assert!(!wants_wake(&wb, 1_000 + WRITE_BACK_PATIENCE_MS));
        assert!(!settle_unconfirmed(
            &mut wb,
            1_000 + WRITE_BACK_PATIENCE_MS - 1
        ));
        assert!(settle_unconfirmed(&mut wb, 1_000 + WRITE_BACK_PATIENCE_MS));
        assert_eq!(wb.state, WriteBackState::Unconfirmed);
    }
}
