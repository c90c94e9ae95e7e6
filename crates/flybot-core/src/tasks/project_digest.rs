//! The Project Assistant's daily digest (#1712, Stage 2.5), pure half.
//! `build_digest` answers, in order, what merged since the previous digest,
//! what closed, what is still in progress and on whom, and the next slice,
//! from the Project's board rows (column, status, assignee, updatedAt) and
//! its Project State file list only; a day with no change is one line. One
//! day (in `DIGEST_ZONE`) has one digest: a second build the same day
//! answers `Skipped`, so the host stores one note and delivers once.
//!
//! The assistant writes as the install's GitHub connector account, never
//! as the shared app (`digest_identity`): with no connector signed in, or
//! on a multi-member host whose Project owner is not this host's own user,
//! it refuses and escalates with nothing written. Every note carries
//! `Written-by: Project Assistant (<name>)` and `Posted-for: <login>`.

use crate::access::host_owner_id;
use flybot_protocol::project_memory::DigestNote;
use flybot_protocol::state::TeamState;
use jiff::Timestamp;
use jiff::tz::{Offset, TimeZone};
use serde_json::Value;

/// The digest's zone: one digest per day there.
pub const DIGEST_ZONE: &str = "Asia/Shanghai";
/// Asia/Shanghai's offset: +08:00 all year (no daylight saving since 1991).
const ZONE_HOURS: i8 = 8;
/// Rows one section lists before "and N more".
const SECTION_ROWS: usize = 8;

/// The day `now` falls on in `DIGEST_ZONE`, as `YYYY-MM-DD`.
pub fn digest_day(now_ms: u64) -> String {
    let zone = TimeZone::fixed(Offset::constant(ZONE_HOURS));
    Timestamp::from_millisecond(now_ms as i64)
        .map(|t| t.to_zoned(zone).date().to_string())
        .unwrap_or_default()
}

/// Why the digest refuses and escalates to the owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Escalation {
    NoConnector,
    NotTheHostsUser,
}

impl Escalation {
    pub fn sentence(&self) -> &'static str {
        match self {
            Escalation::NoConnector => {
                "The Project Assistant posts as your GitHub connector's account and none is signed in; connect GitHub in Settings, then the digest runs again."
            }
            Escalation::NotTheHostsUser => {
                "This Project belongs to another member of this shared host; the Project Assistant only posts for the host's own user, so ask the Project's owner to run it on their own install."
            }
        }
    }
}

/// The login the digest posts for: the GitHub connector's signed-in
/// account (`account`), on a single-person host or for a Project the host's
/// own user owns.
pub fn digest_identity(
    state: &TeamState,
    project: &Value,
    account: Option<&str>,
) -> Result<String, Escalation> {
    let login = account
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .ok_or(Escalation::NoConnector)?;
    let owner = project.get("ownerUserId").and_then(Value::as_str);
    if state.members.len() > 1 && owner != host_owner_id(state).as_deref() {
        return Err(Escalation::NotTheHostsUser);
    }
    Ok(login.to_owned())
}

/// What a build answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DigestBuild {
    /// Today already has its digest.
    Skipped,
    Built(DigestNote),
}

fn text(row: &Value, key: &str) -> String {
    row.get(key)
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned()
}

fn section(out: &mut Vec<String>, title: &str, lines: Vec<String>) {
    if lines.is_empty() {
        return;
    }
    out.push(format!("{title}:"));
    let more = lines.len().saturating_sub(SECTION_ROWS);
    out.extend(
        lines
            .into_iter()
            .take(SECTION_ROWS)
            .map(|l| format!("- {l}")),
    );
    if more > 0 {
        out.push(format!("- and {more} more"));
    }
}

/// The digest of `project` at `now` from its board `rows` and Project
/// State `files`, after `previous`; written for `login` by `assistant`.
pub fn build_digest(
    project: &Value,
    rows: &[Value],
    files: &[String],
    previous: Option<&DigestNote>,
    (assistant, login): (&str, &str),
    now: u64,
) -> DigestBuild {
    let day = digest_day(now);
    if previous.is_some_and(|p| p.day == day) {
        return DigestBuild::Skipped;
    }
    let since = previous.map_or(0, |p| p.at);
    let name = project
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("this Project");
    let fresh = |row: &&Value| row.get("updatedAt").and_then(Value::as_u64).unwrap_or(0) > since;
    let with_status = |statuses: &[&str], only_fresh: bool| -> Vec<String> {
        rows.iter()
            .filter(|r| statuses.contains(&text(r, "status").as_str()))
            .filter(|r| !only_fresh || fresh(r))
            .map(|r| {
                let who = text(r, "ownerBotName");
                let who = if who.is_empty() {
                    text(r, "assignee")
                } else {
                    who
                };
                format!("{} — {who}", text(r, "title"))
            })
            .collect()
    };
    let merged = with_status(&["accepted"], true);
    let closed = with_status(&["cancelled", "failed"], true);
    let working = with_status(&["claimed", "working", "blocked", "result-ready"], false);
    let next = with_status(&["open"], false);
    let mut out = vec![format!("Digest of {name} for {day}")];
    if !rows.iter().any(|r| fresh(&r)) {
        out = vec![format!(
            "No change on {name} since the last digest ({day})."
        )];
    } else {
        section(&mut out, "Merged since the last digest", merged);
        section(&mut out, "Closed", closed);
        section(&mut out, "In progress", working);
        section(&mut out, "Next slice", next);
        if !files.is_empty() {
            out.push(format!("Project State: {}", files.join(", ")));
        }
    }
    out.push(format!("Written-by: Project Assistant ({assistant})"));
    out.push(format!("Posted-for: {login}"));
    DigestBuild::Built(DigestNote {
        day,
        text: out.join("\n"),
        at: now,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use flybot_protocol::state::Member;
    use serde_json::json;

    /// 2026-12-05 00:30 in Shanghai is 2026-12-04 16:30 UTC.
    const LATE_UTC: u64 = 1_796_401_800_000;

    fn row(title: &str, status: &str, who: &str, at: u64) -> Value {
        json!({"title": title, "status": status, "ownerBotName": who, "assignee": "bot-x", "updatedAt": at})
    }

    #[test]
    /// Rule #1712.
    fn the_day_is_the_zones_day_not_utcs() {
        assert_eq!(digest_day(LATE_UTC), "2026-12-05");
        assert_eq!(digest_day(LATE_UTC - 3_600_000), "2026-12-04");
    }

    #[test]
    /// Rule #1712.
    fn one_digest_a_day_in_order_and_a_quiet_day_is_one_line() {
        let project = json!({"name": "Site"});
        let rows = [
            row("Parser", "accepted", "Dev", 10),
            row("Old", "accepted", "Dev", 1),
            row("Flaky test", "cancelled", "Rev", 11),
            row("UI", "working", "Ada", 12),
            row("Docs", "open", "Ink", 13),
        ];
        let files = vec!["PROJECT.md".to_owned()];
        let who = ("Site assistant", "ada-gh");
        let previous = DigestNote {
            day: "2026-12-03".into(),
            text: String::new(),
            at: 5,
        };
        let DigestBuild::Built(note) =
            build_digest(&project, &rows, &files, Some(&previous), who, LATE_UTC)
        else {
            panic!("built")
        };
        assert_eq!(
            note.text,
            "Digest of Site for 2026-12-05\nMerged since the last digest:\n- Parser — Dev\nClosed:\n- Flaky test — Rev\nIn progress:\n- UI — Ada\nNext slice:\n- Docs — Ink\nProject State: PROJECT.md\nWritten-by: Project Assistant (Site assistant)\nPosted-for: ada-gh"
        );
        assert_eq!(note.day, "2026-12-05");
        // The same day again: skipped, so nothing is stored or delivered twice.
        assert_eq!(
            build_digest(&project, &rows, &files, Some(&note), who, LATE_UTC + 60_000),
            DigestBuild::Skipped
        );
        // The next day with nothing moved since: one line.
        let DigestBuild::Built(quiet) = build_digest(
            &project,
            &rows,
            &files,
            Some(&note),
            who,
            LATE_UTC + 86_400_000,
        ) else {
            panic!("built")
        };
        assert!(
            quiet
                .text
                .starts_with("No change on Site since the last digest (2026-12-06).\n"),
            "{}",
            quiet.text
        );
        assert!(quiet.text.ends_with("Posted-for: ada-gh"));
    }

    #[test]
    /// Rule #1712.
    fn the_identity_is_the_connector_account_and_a_shared_host_posts_only_for_its_own_user() {
        let mut state = TeamState::default();
        let add = |state: &mut TeamState, id: &str, at| {
            state.members.insert(
                id.into(),
                Member {
                    id: id.into(),
                    name: id.into(),
                    created_at: at,
                    extra: Default::default(),
                },
            );
        };
        add(&mut state, "ada", 1);
        let adas = json!({"ownerUserId": "ada"});
        let bobs = json!({"ownerUserId": "bob"});
        assert_eq!(
            digest_identity(&state, &adas, None),
            Err(Escalation::NoConnector)
        );
        assert_eq!(
            digest_identity(&state, &adas, Some(" ")),
            Err(Escalation::NoConnector)
        );
        assert_eq!(
            digest_identity(&state, &adas, Some("ada-gh")).unwrap(),
            "ada-gh"
        );
        // A single-person host: the owner's own account, whoever the record names.
        assert!(digest_identity(&state, &bobs, Some("ada-gh")).is_ok());
        add(&mut state, "bob", 2);
        assert_eq!(
            digest_identity(&state, &bobs, Some("ada-gh")),
            Err(Escalation::NotTheHostsUser)
        );
        assert!(digest_identity(&state, &adas, Some("ada-gh")).is_ok());
    }
}
