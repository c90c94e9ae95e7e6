//! `fold_calls`: a turn's events in, one ledger row per model call out (#903).
//! Pure: no clock, no file. The turn loop maps its Session events onto
//! [`TurnEventSummary`] (the only input the ledger needs) and records the rows.
//!
//! The fold's rules:
//! - a model call is a `ModelCallStarted` closed by the next `ModelCallEnded`;
//!   a retry of a failed request is a new start, so the row's wall time runs
//!   from the start of the attempt that answered to its end;
//! - a `ToolCall` belongs to the model call that asked for it: the latest one
//!   started before it;
//! - the issue or PR is the Session's tag when the caller set one, else the
//!   first `#123` or GitHub issue/PR link in the turn's text, else `""`;
//! - the harness is the Session's tier when it is a known id, else `default`.

use super::{CallRow, TokenUsage};

/// The harness ids a row may carry (#874 Step 1).
pub const HARNESS_IDS: [&str; 4] = ["default", "lite", "medium", "heavy"];

/// What the ledger needs to know about one event of a turn, in log order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnEventSummary {
    /// The turn began: who, which turn, its input text and the Session's tags.
    TurnStarted {
        session_id: String,
        bot_id: String,
        /// The turn's id within its Session; with the call's index it makes
        /// the row id, so a turn folded twice is recorded once.
        turn_id: String,
        at_ms: i64,
        /// The turn's input (a person's line, a task prompt, a relayed note).
        text: String,
        /// The Session's harness tier (`rt.noteUsageHarness`), if set.
        harness: Option<String>,
        /// The Session's issue/PR tag (`rt.noteUsageIssuePr`), if set; it wins
        /// over a reference found in the text.
        issue_pr: Option<String>,
    },
    /// More input admitted during the turn (a steer item).
    Text { text: String },
    /// A model request attempt began.
    ModelCallStarted {
        provider: String,
        model: String,
        at_ms: i64,
    },
    /// The open model request ended; `usage` holds what the provider said.
    ModelCallEnded(ModelCallEnd),
    /// The model asked for one tool call (`tool/call`).
    ToolCall,
}

/// The end of a model request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelCallEnd {
    pub at_ms: i64,
    pub usage: TokenUsage,
}

/// Folds a turn's events into one row per model call. A call that never
/// ended keeps `wall_ms: None` and its usage unknown, so
/// [`super::UsageLedger::record`] refuses it rather than inventing a time.
pub fn fold_calls(events: &[TurnEventSummary]) -> Vec<CallRow> {
    let mut session_id = String::new();
    let mut bot_id = String::new();
    let mut turn_id = String::new();
    let mut harness = HARNESS_IDS[0].to_string();
    let mut tagged_issue_pr: Option<String> = None;
    let mut text_issue_pr: Option<String> = None;
    let mut rows: Vec<CallRow> = Vec::new();
    // The row of the model call still waiting for its end.
    let mut open: Option<usize> = None;

    for event in events {
        match event {
            TurnEventSummary::TurnStarted {
                session_id: session,
                bot_id: bot,
                turn_id: turn,
                at_ms: _,
                text,
                harness: tier,
                issue_pr,
            } => {
                session_id.clone_from(session);
                bot_id.clone_from(bot);
                turn_id.clone_from(turn);
                if let Some(tier) = tier.as_deref().filter(|t| HARNESS_IDS.contains(t)) {
                    harness = tier.to_string();
                }
                tagged_issue_pr = issue_pr.clone().filter(|r| !r.trim().is_empty());
                text_issue_pr = text_issue_pr.or_else(|| extract_issue_pr(text));
            }
            TurnEventSummary::Text { text } => {
                text_issue_pr = text_issue_pr.or_else(|| extract_issue_pr(text));
            }
            TurnEventSummary::ModelCallStarted {
                provider,
                model,
                at_ms,
            } => {
                rows.push(CallRow {
                    id: String::new(),
                    session_id: String::new(),
                    bot_id: String::new(),
                    at_ms: *at_ms,
                    provider: provider.clone(),
                    model: model.clone(),
                    usage: TokenUsage::default(),
                    harness: String::new(),
                    issue_pr: String::new(),
                    tool_calls: Some(0),
                    wall_ms: None,
                });
                open = Some(rows.len() - 1);
            }
            TurnEventSummary::ModelCallEnded(end) => {
                if let Some(row) = open.take().and_then(|index| rows.get_mut(index)) {
                    row.usage = end.usage;
                    row.wall_ms = u64::try_from(end.at_ms.saturating_sub(row.at_ms)).ok();
                }
            }
            TurnEventSummary::ToolCall => {
                if let Some(row) = rows.last_mut() {
                    row.tool_calls = Some(row.tool_calls.unwrap_or(0).saturating_add(1));
                }
            }
        }
    }

    let issue_pr = tagged_issue_pr.or(text_issue_pr).unwrap_or_default();
    for (index, row) in rows.iter_mut().enumerate() {
        row.id = format!("{session_id}:{turn_id}:{index}");
        row.session_id.clone_from(&session_id);
        row.bot_id.clone_from(&bot_id);
        row.harness.clone_from(&harness);
        row.issue_pr.clone_from(&issue_pr);
    }
    rows
}

/// The first issue or PR reference in `text`: a GitHub link
/// (`https://github.com/o/r/issues/12`, `.../pull/12`) as `o/r#12`, or a bare
/// `#12` not glued to a word (so `abc#12` and `&#12;` are not references).
pub fn extract_issue_pr(text: &str) -> Option<String> {
    let link = find_github_link(text);
    let bare = find_bare_number(text);
    match (link, bare) {
        (Some((at_link, link)), Some((at_bare, bare))) => {
            Some(if at_link <= at_bare { link } else { bare })
        }
        (Some((_, found)), None) | (None, Some((_, found))) => Some(found),
        (None, None) => None,
    }
}

fn leading_digits(text: &str) -> &str {
    let end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    &text[..end]
}

fn find_github_link(text: &str) -> Option<(usize, String)> {
    const HOST: &str = "github.com/";
    let mut from = 0;
    while let Some(found) = text[from..].find(HOST) {
        let start = from + found;
        let rest = &text[start + HOST.len()..];
        let mut parts = rest.splitn(4, '/');
        let owner = parts.next().unwrap_or_default();
        let repo = parts.next().unwrap_or_default();
        let kind = parts.next().unwrap_or_default();
        let number = leading_digits(parts.next().unwrap_or_default());
        let is_issue_or_pull = kind == "issues" || kind == "pull";
        if !owner.is_empty() && !repo.is_empty() && is_issue_or_pull && !number.is_empty() {
            return Some((start, format!("{owner}/{repo}#{number}")));
        }
        from = start + HOST.len();
    }
    None
}

fn find_bare_number(text: &str) -> Option<(usize, String)> {
    for (at, _) in text.match_indices('#') {
        let glued = text[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '&' || c == '/' || c == '_');
        let number = leading_digits(&text[at + 1..]);
        let after = text[at + 1 + number.len()..].chars().next();
        let ends_cleanly = after.is_none_or(|c| !c.is_alphanumeric() && c != '_');
        if !glued && !number.is_empty() && ends_cleanly {
            return Some((at, format!("#{number}")));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn started(text: &str) -> TurnEventSummary {
        TurnEventSummary::TurnStarted {
            session_id: "s1".into(),
            bot_id: "bot-1".into(),
            turn_id: "t7".into(),
            at_ms: 1_000,
            text: text.into(),
            harness: None,
            issue_pr: None,
        }
    }

    fn call(at_ms: i64) -> TurnEventSummary {
        TurnEventSummary::ModelCallStarted {
            provider: "openai".into(),
            model: "gpt-x".into(),
            at_ms,
        }
    }

    fn end(at_ms: i64, usage: TokenUsage) -> TurnEventSummary {
        TurnEventSummary::ModelCallEnded(ModelCallEnd { at_ms, usage })
    }

    #[test]
    fn usage_fold_turn_with_three_tool_calls_and_two_model_calls() {
        let known = TokenUsage {
            input_tokens: Some(120),
            output_tokens: Some(30),
            cached_tokens: None,
            reasoning_tokens: Some(0),
        };
        let events = [
            started("please fix #903 today"),
            call(1_010),
            end(1_250, known),
            TurnEventSummary::ToolCall,
            TurnEventSummary::ToolCall,
            TurnEventSummary::ToolCall,
            call(1_400),
            end(1_480, TokenUsage::default()),
        ];
        let rows = fold_calls(&events);
        assert_eq!(rows.len(), 2);
        let first = &rows[0];
        assert_eq!(first.id, "s1:t7:0");
        assert_eq!(first.session_id, "s1");
        assert_eq!(first.bot_id, "bot-1");
        assert_eq!(first.at_ms, 1_010);
        assert_eq!(first.provider, "openai");
        assert_eq!(first.model, "gpt-x");
        assert_eq!(first.usage, known);
        assert_eq!(first.harness, "default");
        assert_eq!(first.issue_pr, "#903");
        assert_eq!(first.tool_calls, Some(3));
        assert_eq!(first.wall_ms, Some(240));
        let second = &rows[1];
        assert_eq!(second.id, "s1:t7:1");
        assert_eq!(second.tool_calls, Some(0));
        assert_eq!(second.wall_ms, Some(80));
        assert_eq!(second.usage, TokenUsage::default(), "unknown stays unknown");
        assert!(rows.iter().all(|row| row.missing_fields().is_empty()));
    }

    #[test]
    fn usage_fold_retry_measures_from_the_answering_attempt() {
        let events = [
            started("hi"),
            call(2_000),
            call(4_000),
            end(4_100, TokenUsage::default()),
        ];
        let rows = fold_calls(&events);
        // The first attempt never ended: its row has no wall time and is refused.
        assert_eq!(rows[0].wall_ms, None);
        assert_eq!(rows[0].missing_fields(), vec!["wall_ms"]);
        assert_eq!(rows[1].wall_ms, Some(100));
    }

    #[test]
    fn usage_fold_session_tags_win_and_unknown_harness_is_default() {
        let tagged = TurnEventSummary::TurnStarted {
            session_id: "s".into(),
            bot_id: "b".into(),
            turn_id: "t".into(),
            at_ms: 0,
            text: "see #12".into(),
            harness: Some("heavy".into()),
            issue_pr: Some("acme/site#40".into()),
        };
        let rows = fold_calls(&[tagged, call(1), end(2, TokenUsage::default())]);
        assert_eq!(rows[0].harness, "heavy");
        assert_eq!(rows[0].issue_pr, "acme/site#40");

        let unknown = TurnEventSummary::TurnStarted {
            session_id: "s".into(),
            bot_id: "b".into(),
            turn_id: "t".into(),
            at_ms: 0,
            text: "nothing here".into(),
            harness: Some("turbo".into()),
            issue_pr: None,
        };
        let rows = fold_calls(&[unknown, call(1), end(2, TokenUsage::default())]);
        assert_eq!(rows[0].harness, "default");
        assert_eq!(rows[0].issue_pr, "", "no signal stays '' by design");
    }

    #[test]
    fn usage_fold_steer_text_can_name_the_issue() {
        let events = [
            started("hello"),
            TurnEventSummary::Text {
                text: "it is https://github.com/o/r/pull/5".into(),
            },
            call(1),
            end(3, TokenUsage::default()),
        ];
        assert_eq!(fold_calls(&events)[0].issue_pr, "o/r#5");
    }

    #[test]
    fn usage_extract_issue_pr_cases() {
        let cases = [
            ("fix #123 please", Some("#123")),
            ("#7", Some("#7")),
            ("(#42)", Some("#42")),
            ("abc#12 &#39; #x1", None),
            ("#12abc", None),
            (
                "https://github.com/acme/app/issues/88#issuecomment-1",
                Some("acme/app#88"),
            ),
            (
                "see https://github.com/acme/app/pull/9 and #3",
                Some("acme/app#9"),
            ),
            ("#3 then https://github.com/acme/app/pull/9", Some("#3")),
            ("https://github.com/acme/app/blob/main/x.rs", None),
            ("no reference", None),
        ];
        for (text, expected) in cases {
            assert_eq!(extract_issue_pr(text).as_deref(), expected, "{text}");
        }
    }
}
