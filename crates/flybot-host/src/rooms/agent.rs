//! The internal agent as a room participant: a member's group Session in the
//! agent runtime. A turn is one delivered item; its answer is the turn's
//! last assistant message, read back from the Session's log.

use super::participant::{MemberTurn, RoomParticipant, Snapshot, TurnFuture, TurnOutcome};
use flybot_agent::session::{EndReason, ItemKind, SessionEvent, Sessions, Source};
use flybot_protocol::FailureCode;

/// The agent runtime behind the room boundary.
#[derive(Clone)]
pub struct AgentParticipant {
    pub sessions: Sessions,
}

fn last_seq(sessions: &Sessions, session_id: &str) -> u64 {
    sessions
        .transcript_written(session_id, 0)
        .ok()
        .and_then(|log| log.last().map(|e| e.seq))
        .unwrap_or(0)
}

/// The answer of the turn that ended after `after` in the log.
fn outcome_after(sessions: &Sessions, session_id: &str, after: u64) -> TurnOutcome {
    let Ok(entries) = sessions.transcript_written(session_id, after) else {
        return TurnOutcome::Failed {
            code: FailureCode::Log,
        };
    };
    let mut text: Option<String> = None;
    for entry in &entries {
        match &entry.event {
            SessionEvent::AssistantMessage { text: t, .. } if !t.trim().is_empty() => {
                text = Some(t.clone())
            }
            SessionEvent::TurnEnd { reason, .. } => {
                return match reason {
                    EndReason::Completed | EndReason::MaxTokens => {
                        TurnOutcome::Text(text.clone().unwrap_or_default())
                    }
                    EndReason::Aborted { .. } => TurnOutcome::Stopped,
                    EndReason::Error { code, .. } => TurnOutcome::Failed { code: code.clone() },
                    EndReason::Interrupted => TurnOutcome::Failed {
                        code: FailureCode::Interrupted,
                    },
                    EndReason::Blocked { .. } => TurnOutcome::Failed {
                        code: FailureCode::Blocked,
                    },
                };
            }
            SessionEvent::AssistantMessage { .. }
            | SessionEvent::TurnStart { .. }
            | SessionEvent::UserMessage { .. }
            | SessionEvent::StepStart { .. }
            | SessionEvent::StepEnd { .. }
            | SessionEvent::ToolCall { .. }
            | SessionEvent::ToolResult { .. } => {}
        }
    }
    TurnOutcome::Failed {
        code: FailureCode::NoEnd,
    }
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
}
