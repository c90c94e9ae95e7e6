//! The internal agent as a room participant: a member's group Session in the
//! agent runtime. A turn is one delivered item; its answer is the turn's
//! last assistant message, read back from the Session's log. A person's
//! line steered into a turn that had no step left opens one more turn in
//! the Session (#1267): its answer is posted with the member's reply. A
//! turn a restart cut ends `interrupted` and its pickup goes on with it:
//! the pickup's answer is the turn's.

use super::participant::{
    MemberTurn, ResumeFuture, RoomParticipant, Snapshot, TurnFuture, TurnOutcome,
};
use flybot_agent::session::{EndReason, ItemKind, SessionEvent, Sessions, Source};
use flybot_core::rooms::mentions::is_pass;
use flybot_protocol::FailureCode;

/// The agent runtime behind the room boundary.
#[derive(Clone)]
pub struct AgentParticipant {
    pub sessions: Sessions,
}

/// The Session's last entry as written, from memory (issue 38: this read
/// the whole log back once per member turn).
fn last_seq(sessions: &Sessions, session_id: &str) -> u64 {
    sessions.last_seq_written(session_id).unwrap_or(0)
}

/// The answer of the turn that ended after `after` in the log, with the
/// answers of the turns a steered line opened after it (#1267); a turn a
/// restart cut goes on in its pickup, whose answer is the turn's.
fn outcome_after(sessions: &Sessions, session_id: &str, after: u64) -> TurnOutcome {
    let Ok(entries) = sessions.transcript_written(session_id, after) else {
        return TurnOutcome::Failed {
            code: FailureCode::Log,
        };
    };
    let mut text: Option<String> = None;
    let mut answers: Vec<String> = Vec::new();
    // The files the answers attached (issue 32), in the order attached.
    let mut files: Vec<String> = Vec::new();
    let mut ended = false;
    for entry in &entries {
        match &entry.event {
            SessionEvent::AssistantMessage {
                text: t,
                attachments,
                ..
            } if !t.trim().is_empty() || !attachments.is_empty() => {
                files.extend(attachments.iter().cloned());
                if !t.trim().is_empty() {
                    text = Some(t.clone());
                }
            }
            SessionEvent::TurnEnd { reason, .. } => match reason {
                EndReason::Interrupted => {}
                EndReason::Completed | EndReason::MaxTokens => {
                    ended = true;
                    answers.push(text.take().unwrap_or_default());
                }
                // The member turn itself failed or was stopped: that is its
                // outcome. A later turn only adds to an answer.
                _ if ended => break,
                // A Stop that cut the answer while it streamed: the turn
                // logged what came (step.rs), and the room keeps it.
                EndReason::Aborted { .. } => {
                    return match text.take().filter(|t| !t.trim().is_empty()) {
                        Some(kept) => TurnOutcome::Cut { kept },
                        None => TurnOutcome::Stopped,
                    };
                }
                EndReason::Error { code, .. } => return TurnOutcome::Failed { code: code.clone() },
                EndReason::Blocked { .. } => {
                    return TurnOutcome::Failed {
                        code: FailureCode::Blocked,
                    };
                }
            },
            SessionEvent::AssistantMessage { .. }
            | SessionEvent::TurnStart { .. }
            | SessionEvent::UserMessage { .. }
            | SessionEvent::StepStart { .. }
            | SessionEvent::StepEnd { .. }
            | SessionEvent::ToolCall { .. }
            | SessionEvent::ToolResult { .. } => {}
        }
    }
    if !ended {
        return TurnOutcome::Failed {
            code: FailureCode::NoEnd,
        };
    }
    // A pass (or nothing) beside a real answer is that answer.
    let said: Vec<&str> = answers
        .iter()
        .map(String::as_str)
        .filter(|a| !a.trim().is_empty() && !is_pass(a))
        .collect();
    let joined = said.join("\n\n");
    if !files.is_empty() {
        return TurnOutcome::TextWithFiles {
            text: joined,
            attachments: files,
        };
    }
    if joined.is_empty() {
        return TurnOutcome::Text(answers.into_iter().next().unwrap_or_default());
    }
    TurnOutcome::Text(joined)
}

impl RoomParticipant for AgentParticipant {
    fn open(&self, _room_id: &str, _bot_id: &str, session_id: &str) -> Result<(), String> {
        self.sessions
            .transcript(session_id, u64::MAX)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    fn run_turn(&self, turn: MemberTurn) -> TurnFuture<'_> {
        Box::pin(async move {
            let after = last_seq(&self.sessions, &turn.session_id);
            let delivered = self.sessions.deliver(
                &turn.session_id,
                &turn.text,
                Source::Round {
                    room_id: turn.room_id.clone(),
                    hops: turn.hop,
                },
                ItemKind::NextTurn,
            );
            if delivered.is_err() {
                return TurnOutcome::Failed {
                    code: FailureCode::Log,
                };
            }
            // The answer as written: its line in the room is announced only
            // once durable, and the turn log keeps the two in order.
            if self.sessions.wait_written(&turn.session_id).await.is_err() {
                return TurnOutcome::Failed {
                    code: FailureCode::Log,
                };
            }
            outcome_after(&self.sessions, &turn.session_id, after)
        })
    }

    fn snapshot(&self, session_id: &str) -> Snapshot {
        Snapshot {
            running: self.sessions.is_running(session_id),
        }
    }

    fn cancel(&self, session_id: &str) -> bool {
        self.sessions
            .stop_room_turn(session_id)
            .is_ok_and(|o| o.was_running)
    }

    fn steer(&self, session_id: &str, text: &str) -> bool {
        self.sessions.is_running(session_id)
            && self
                .sessions
                .deliver(
                    session_id,
                    text,
                    Source::User { member_id: None },
                    ItemKind::Steer,
                )
                .is_ok()
    }

    fn mark(&self, session_id: &str) -> u64 {
        last_seq(&self.sessions, session_id)
    }

    fn resume_turn(&self, session_id: &str, after: u64) -> ResumeFuture<'_> {
        let session_id = session_id.to_owned();
        Box::pin(async move {
            // The Sessions' pickup queued the cut turn (or its undelivered
            // input) before the rounds resumed: its end is awaited here.
            if self.sessions.wait_written(&session_id).await.is_err() {
                return Some(TurnOutcome::Failed {
                    code: FailureCode::Log,
                });
            }
            let began = self
                .sessions
                .transcript_written(&session_id, after)
                .ok()?
                .iter()
                .any(|e| matches!(e.event, SessionEvent::TurnStart { .. }));
            began.then(|| outcome_after(&self.sessions, &session_id, after))
        })
    }
}
