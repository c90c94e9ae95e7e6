//! The work view, process-local: each running turn's step (#546), tool-call
//! count (#471) and the group that handed its work out (#553), and the ended
//! turns (#353) with the silent-failure streak per place.

use super::event::{EndReason, Source};
use super::inbox::InboxItem;
use flybot_core::fences::failure::failure_sentence;
use serde::Serialize;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};

/// The last turns always kept.
const ENDED_KEPT: usize = 20;
/// Older failures kept, one per place, at most this many.
const FAILURES_KEPT: usize = 50;
const FAILURE_KEPT_MS: u64 = 7 * 24 * 3600 * 1000;
const FAILED_TEXT_MAX: usize = 160;
const STEP_MAX: usize = 80;

/// A running turn as the work view shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunningWork {
    pub session_id: String,
    pub turn_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// Left out while 0 (#471).
    #[serde(skip_serializing_if = "is_zero")]
    pub calls: u32,
    /// The request the turn runs when it is work a group member handed out
    /// (#553); the host shows its room as `fromRoomId` while the rule holds.
    #[serde(skip)]
    pub handed: Option<HandedRequest>,
}

/// Work a member handed out with `message_bot` from its group Session
/// (#553: the request carries `senderRoomId`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandedRequest {
    pub room_id: String,
    pub sender_bot_id: String,
    pub hops: u32,
}

/// The request a turn runs when every input of it is work handed out from
/// a group (the newest of them): such a turn is hidden in the Bot's own
/// chat, so it is no ended turn a notification reads (#353, #553).
pub fn handed_request(items: &[InboxItem]) -> Option<HandedRequest> {
    let mut handed = None;
    for item in items {
        match &item.source {
            Source::Bot {
                bot_id,
                hops,
                room_id: Some(room_id),
                ..
            } => {
                handed = Some(HandedRequest {
                    room_id: room_id.clone(),
                    sender_bot_id: bot_id.clone(),
                    hops: *hops,
                })
            }
            _ => return None,
        }
    }
    handed
}

/// A turn that finished or failed (#353).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EndedTurn {
    /// `<session>:<turn>:<at>`.
    pub id: String,
    pub session_id: String,
    pub at: u64,
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calls: Option<u32>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub silent: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub streak: Option<u32>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[derive(Debug, Default)]
pub struct EndedTurns {
    list: VecDeque<EndedTurn>,
    streaks: HashMap<String, u32>,
}

impl EndedTurns {
    /// Records a turn's end. A stopped or cut turn is not listed.
    pub fn record(
        &mut self,
        session_id: &str,
        turn_id: &str,
        at: u64,
        reason: &EndReason,
        calls: u32,
        said_something: bool,
    ) {
        let failed = match reason {
            EndReason::Completed => None,
            // #1347: the sentence keyed on the code, never the provider's
            // own text; a code nobody mapped reads as our message said it.
            EndReason::Error { code, message } => Some(failure_sentence(
                code,
                if message.is_empty() {
                    code.as_str()
                } else {
                    message
                },
            )),
            EndReason::MaxTokens => Some("The answer reached its token limit.".to_owned()),
            EndReason::Blocked { reason } => Some(reason.clone()),
            EndReason::Aborted { .. } | EndReason::Interrupted => return,
        };
        let silent = failed.is_some() && !said_something;
        let streak = if silent {
            let streak = self.streaks.entry(session_id.to_owned()).or_insert(0);
            *streak += 1;
            Some(*streak)
        } else {
            self.streaks.remove(session_id);
            None
        };
        self.list.push_back(EndedTurn {
            id: format!("{session_id}:{turn_id}:{at}"),
            session_id: session_id.to_owned(),
            at,
            kind: reason.kind(),
            failed: failed.map(|text| text.chars().take(FAILED_TEXT_MAX).collect()),
            calls: (calls > 0).then_some(calls),
            silent,
            streak,
        });
        self.trim(at);
    }

    /// The last 20, plus each place's latest turn past those while it is a
    /// failure younger than 7 days (at most 50).
    fn trim(&mut self, now: u64) {
        if self.list.len() <= ENDED_KEPT {
            return;
        }
        let split = self.list.len() - ENDED_KEPT;
        let recent: Vec<EndedTurn> = self.list.drain(split..).collect();
        let mut older: Vec<EndedTurn> = Vec::new();
        for turn in self.list.drain(..).rev() {
            let place_seen = recent
                .iter()
                .chain(older.iter())
                .any(|t| t.session_id == turn.session_id);
            if !place_seen
                && turn.failed.is_some()
                && now.saturating_sub(turn.at) < FAILURE_KEPT_MS
                && older.len() < FAILURES_KEPT
            {
                older.push(turn);
            }
        }
        older.reverse();
        self.list = older.into_iter().chain(recent).collect();
    }

    /// A failure with no turn behind it (#473): listed like a failed turn.
    pub fn record_failure(&mut self, session_id: &str, id: &str, at: u64, failed: &str) {
        self.list.push_back(EndedTurn {
            id: format!("{session_id}:{id}:{at}"),
            session_id: session_id.to_owned(),
            at,
            kind: "error",
            failed: Some(failed.chars().take(FAILED_TEXT_MAX).collect()),
            calls: None,
            silent: true,
            streak: None,
        });
        self.trim(at);
    }

    pub fn list(&self) -> Vec<EndedTurn> {
        self.list.iter().cloned().collect()
    }
}

/// What a call acts on, from its arguments (#546): whitespace collapsed,
/// at most 80 characters. `run_command` takes its program as `argv`, a
/// list: the step is that list joined with spaces.
pub fn step_of(arguments: &str) -> Option<String> {
    let args: Value = serde_json::from_str(arguments).ok()?;
    let argv = args.get("argv").and_then(Value::as_array).map(|argv| {
        argv.iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" ")
    });
    let text = argv.or_else(|| named_text(&args))?;
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    (!collapsed.is_empty()).then(|| collapsed.chars().take(STEP_MAX).collect())
}

/// A call's progress as its step: one line, at most 80 characters.
pub fn step_of_progress(text: &str) -> Option<String> {
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    (!collapsed.is_empty()).then(|| collapsed.chars().take(STEP_MAX).collect())
}

/// The first of the arguments that usually say what a call acts on.
fn named_text(args: &Value) -> Option<String> {
    [
        "command",
        "cmd",
        "pattern",
        "query",
        "url",
        "file_path",
        "path",
        "description",
    ]
    .iter()
    .find_map(|key| args.get(key).and_then(Value::as_str))
    .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_silent_failure_streak_counts_and_a_finished_turn_resets_it() {
        let mut ended = EndedTurns::default();
        let error = EndReason::Error {
            code: "AUTH".into(),
            message: "The provider refused the API key".into(),
        };
        ended.record("s", "t1", 1, &error, 0, false);
        ended.record("s", "t2", 2, &error, 0, false);
        let list = ended.list();
        assert_eq!(list[1].streak, Some(2));
        assert_eq!(
            list[1].failed.as_deref(),
            Some("The provider refused the API key. Check it in Settings → Models.")
        );
        ended.record("s", "t3", 3, &EndReason::Completed, 3, true);
        ended.record("s", "t4", 4, &error, 0, false);
        let list = ended.list();
        assert_eq!(list[2].calls, Some(3));
        assert_eq!(list[3].streak, Some(1));
    }

    #[test]
    fn old_turns_are_trimmed_but_a_place_keeps_its_latest_failure() {
        let mut ended = EndedTurns::default();
        let error = EndReason::Error {
            code: "TIMEOUT".into(),
            message: String::new(),
        };
        ended.record("other", "t0", 1, &error, 0, false);
        for n in 0..30 {
            ended.record(
                "s",
                &format!("t{n}"),
                10 + n,
                &EndReason::Completed,
                0,
                true,
            );
        }
        let list = ended.list();
        assert_eq!(list.len(), 21);
        assert_eq!(list[0].session_id, "other");
    }

    #[test]
    /// Rule #546.
    fn the_step_is_what_the_call_acts_on() {
        assert_eq!(
            step_of(r#"{"command":"cargo   test\n -p x"}"#).as_deref(),
            Some("cargo test -p x")
        );
        assert_eq!(
            step_of(r#"{"path":"src/lib.rs"}"#).as_deref(),
            Some("src/lib.rs")
        );
        assert_eq!(step_of(r#"{"n":1}"#), None);
        // run_command's argv, the one way it names its program.
        assert_eq!(
            step_of(r#"{"argv":["cargo","test","-p","x"],"cwd":"sub"}"#).as_deref(),
            Some("cargo test -p x")
        );
        assert_eq!(
            step_of(&format!(r#"{{"query":"{}"}}"#, "a".repeat(100))).map(|s| s.len()),
            Some(80)
        );
    }
}
