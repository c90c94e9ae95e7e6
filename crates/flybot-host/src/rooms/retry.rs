//! A member turn that ended rate-limited is asked again inside the round
//! (#1679, core `rate_limit_retry`): after 2 s, 8 s, then 30 s; a round the
//! person stopped, before or during a wait, is never asked again behind
//! their back.

use super::logs::RoomLogs;
use super::participant::{MemberTurn, RoomParticipant, TurnOutcome};
use flybot_core::rooms::steer::rate_limit_retry;
use flybot_protocol::FailureCode;
use std::time::Duration;

/// Runs `turn`, asking again while it ends rate-limited and the rule allows.
pub async fn run_turn_retrying(
    logs: &RoomLogs,
    participant: &dyn RoomParticipant,
    room_id: &str,
    turn: MemberTurn,
) -> TurnOutcome {
    let mut attempt = 0;
    loop {
        let outcome = participant.run_turn(turn.clone()).await;
        let limited = matches!(
            &outcome,
            TurnOutcome::Failed {
                code: FailureCode::RateLimited
            }
        );
        if !limited {
            return outcome;
        }
        let stopped = logs.run(room_id, |r| r.stopped);
        let Some(wait) = rate_limit_retry(attempt, stopped) else {
            return outcome;
        };
        attempt += 1;
        tokio::time::sleep(Duration::from_millis(wait)).await;
        if logs.run(room_id, |r| r.stopped) {
            return TurnOutcome::Stopped;
        }
    }
}
