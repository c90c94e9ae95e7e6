//! Bounded approvals records (#754): at most [`PENDING_MAX`] asks wait on
//! one Bot's owner at once (a tool approval or a held send past it is
//! refused at once, never left waiting unseen among hundreds), and
//! `state.flybot.approvals` keeps the newest [`APPROVALS_KEPT`] decided
//! records. Whether a record still waits is one rule ([`waits`], a held
//! send's through `rooms::hold::is_waiting`), so a waiting record is never
//! dropped and never counted as decided.

use super::{Approval, ApprovalStatus};
use crate::rooms::hold::is_waiting;
use flybot_protocol::state::TeamState;

/// Asks that may wait on one Bot's owner at once.
pub const PENDING_MAX: usize = 20;
/// Decided records kept; older ones are removed by the next record's write.
pub const APPROVALS_KEPT: usize = 200;

/// Whether the record still waits on a person.
pub fn waits(approval: &Approval) -> bool {
    match approval {
        Approval::Tool(record) => record.status == ApprovalStatus::Waiting,
        Approval::HeldSend(held) => is_waiting(held.held.status),
        // Kept as written, never acted on: neither waiting nor pruned.
        Approval::Unknown(_) => false,
    }
}

/// The Bot an ask came from.
fn bot_of(approval: &Approval) -> Option<&str> {
    match approval {
        Approval::Tool(record) => Some(&record.bot_id),
        Approval::HeldSend(held) => Some(&held.held.from_bot),
        Approval::Unknown(_) => None,
    }
}

/// Whether `bot_id` may leave one more ask for its owner.
pub fn may_ask(state: &TeamState, bot_id: &str) -> bool {
    let waiting = state
        .flybot
        .approvals
        .values()
        .filter(|a| waits(a) && bot_of(a) == Some(bot_id))
        .count();
    waiting < PENDING_MAX
}

/// The decided records past the newest [`APPROVALS_KEPT`], oldest first:
/// the ids a write of a new record removes.
pub fn past_kept(state: &TeamState) -> Vec<String> {
    let mut decided: Vec<(u64, &str)> = state
        .flybot
        .approvals
        .iter()
        .filter_map(|(id, approval)| {
            let at = match approval {
                Approval::Tool(r) if !waits(approval) => r.decided_at.unwrap_or(r.created_at),
                Approval::HeldSend(h) if !waits(approval) => {
                    h.decided_at.unwrap_or(h.held.created_at)
                }
                Approval::Tool(_) | Approval::HeldSend(_) | Approval::Unknown(_) => return None,
            };
            Some((at, id.as_str()))
        })
        .collect();
    decided.sort();
    let over = decided.len().saturating_sub(APPROVALS_KEPT);
    decided[..over]
        .iter()
        .map(|(_, id)| (*id).to_owned())
        .collect()
}

/// `may_ask` as the refusal a Bot's tool call is told (`bot/busy`).
pub fn admit_ask(state: &TeamState, bot_id: &str) -> Result<(), flybot_protocol::ApiError> {
    if may_ask(state, bot_id) {
        return Ok(());
    }
    Err(flybot_protocol::ApiError::new(
        flybot_protocol::ErrorCode::Busy,
        format!(
            "{PENDING_MAX} of your requests already wait for your owner; wait for an answer before asking again."
        ),
    ))
}

/// The tool approvals still waiting when a host starts, each marked
/// cancelled at `now`: no turn of this process asked them (the one that
/// did was cut with its host), so nobody waits on the answer, and the
/// cut turn's pickup asks again if it still needs the call (#540). A held
/// send waits on its owner, not on a turn, and stays.
pub fn left_by_a_crash(state: &TeamState, now: u64) -> Vec<super::ApprovalRecord> {
    state
        .flybot
        .approvals
        .values()
        .filter_map(Approval::as_tool)
        .filter(|record| record.status == ApprovalStatus::Waiting)
        .map(|record| {
            let mut cleared = record.clone();
            cleared.status = ApprovalStatus::Cancelled;
            cleared.decided_at = Some(now);
            cleared
        })
        .collect()
}
