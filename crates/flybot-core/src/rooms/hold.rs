//! Held sends (#52, #754): an outbound send that needs the owner's approval
//! is held with a `requestId`, a sha256 version of its content, and the owner
//! and origin the server derived; claims inside the message (meta, text)
//! confer nothing. `decide` needs that owner's session. Release revalidates:
//! a changed request, a gone sender or target, a Bot that changed owners or a
//! reach that no longer holds marks the hold stale instead of sending it.
//! A hold is kept as a `HeldRecord` among the approvals; `decide_held` and
//! `stale_for_deleted_bot` answer the record to write.

use super::reach::{Party, Send, SendKind, Verdict, reach};
use crate::access::Actor;
// The hold's record is data `state.flybot.approvals` holds, so it lives in
// flybot-protocol; the rules that make and judge it are here.
pub use flybot_protocol::approval::{HeldSend, HoldOrigin, HoldStatus};
use flybot_protocol::state::TeamState;
use flybot_protocol::{ApiError, ErrorCode};
use sha2::{Digest, Sha256};

/// A send as it asks to go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SendRequest {
    pub from_bot: String,
    pub to: Party,
    pub room_id: Option<String>,
    pub text: String,
    /// How it travels (`message_bot`, `room`, `remote`): the server's word.
    pub via: String,
    pub hop: u32,
}

/// `isApprovalWaiting` (#754): decide, the chat view, the in-flight filter
/// and the cleanup all ask this.
pub fn is_waiting(status: HoldStatus) -> bool {
    match status {
        HoldStatus::Pending | HoldStatus::PendingApproval => true,
        HoldStatus::Approved | HoldStatus::Rejected | HoldStatus::Stale => false,
    }
}

fn audience(to: &Party) -> String {
    match to {
        Party::Bot(id) => format!("bot:{id}"),
        Party::Remote { handle, .. } => format!("remote:{handle}"),
        Party::Person(id) => format!("person:{id}"),
    }
}

/// The content version: sha256 over sender, audience, room, via, hop and
/// text, each length-prefixed so no two requests share a preimage.
pub fn version(req: &SendRequest) -> String {
    let mut h = Sha256::new();
    for part in [
        req.from_bot.as_str(),
        &audience(&req.to),
        req.room_id.as_deref().unwrap_or(""),
        &req.via,
        &req.hop.to_string(),
        &req.text,
    ] {
        h.update((part.len() as u64).to_be_bytes());
        h.update(part.as_bytes());
    }
    crate::hex::lower_hex(&h.finalize())
}

/// Holds `req` under `request_id`; the owner is the roster's, never the
/// message's.
pub fn hold(
    state: &TeamState,
    req: &SendRequest,
    request_id: &str,
    now: u64,
) -> Result<HeldSend, ApiError> {
    let bot = state
        .bots
        .get(&req.from_bot)
        .ok_or_else(|| ApiError::not_found("bot", &req.from_bot))?;
    Ok(HeldSend {
        request_id: request_id.to_string(),
        version: version(req),
        owner_id: bot.owner_id.clone(),
        origin: HoldOrigin {
            via: req.via.clone(),
            hop: req.hop,
            audience: audience(&req.to),
        },
        from_bot: req.from_bot.clone(),
        status: HoldStatus::Pending,
        created_at: now,
    })
}

/// `decide` (#52): only the sender Bot's owner's session decides a waiting
/// hold. No session is `bot/unauthorized`, another member `bot/forbidden`.
pub fn may_decide(
    state: &TeamState,
    held: &HeldSend,
    actor: Option<&Actor>,
) -> Result<(), ApiError> {
    if !is_waiting(held.status) {
        return Err(ApiError::new(
            ErrorCode::Stale,
            "This send was already decided.",
        ));
    }
    match actor {
        None => Err(ApiError::new(
            ErrorCode::Unauthorized,
            "Sign in to decide this send.",
        )),
        Some(actor) if actor.member_id(state).as_deref() == Some(held.owner_id.as_str()) => Ok(()),
        Some(_) => Err(ApiError::forbidden(
            "Only the sending Bot's owner decides this send.",
        )),
    }
}

/// Why a release did not send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StaleReason {
    Changed,
    SenderGone,
    TargetGone,
    OwnerChanged,
    Unreachable,
    /// The sender was a Chief and `set-main` demoted it (#52).
    Demoted,
}

/// `release()` (#52): revalidated immediately before dispatch.
pub fn release(
    state: &TeamState,
    held: &HeldSend,
    current: &SendRequest,
) -> Result<(), StaleReason> {
    if version(current) != held.version {
        return Err(StaleReason::Changed);
    }
    let Some(bot) = state.bots.get(&held.from_bot) else {
        return Err(StaleReason::SenderGone);
    };
    if bot.owner_id != held.owner_id {
        return Err(StaleReason::OwnerChanged);
    }
    match &current.to {
        Party::Bot(id) if !state.bots.contains_key(id) => return Err(StaleReason::TargetGone),
        Party::Bot(_) | Party::Remote { .. } | Party::Person(_) => {}
    }
    let send = Send {
        from: Party::Bot(current.from_bot.clone()),
        to: current.to.clone(),
        room_id: current.room_id.clone(),
        kind: SendKind::MessageBot,
    };
    match reach(state, &send) {
        Verdict::Allow { .. } => Ok(()),
        Verdict::Deny(_) => Err(StaleReason::Unreachable),
    }
}

pub use flybot_protocol::approval::HeldRecord;

/// The send a held record asks to make now, from the record's own content.
fn request_of(record: &HeldRecord) -> SendRequest {
    SendRequest {
        from_bot: record.held.from_bot.clone(),
        to: Party::Bot(record.to_bot.clone()),
        room_id: None,
        text: record.text.clone(),
        via: record.held.origin.via.clone(),
        hop: record.held.origin.hop,
    }
}

/// The held sends in `state`.
pub fn held_sends(state: &TeamState) -> impl Iterator<Item = HeldRecord> + '_ {
    state
        .flybot
        .approvals
        .values()
        .filter_map(flybot_protocol::approval::Approval::as_held_send)
        .cloned()
}

/// The word a stale hold records as its `staleReason`.
pub fn stale_word(reason: &StaleReason) -> &'static str {
    match reason {
        StaleReason::Changed => "changed",
        StaleReason::SenderGone => "sender-gone",
        StaleReason::TargetGone => "target-gone",
        StaleReason::OwnerChanged => "owner-changed",
        StaleReason::Unreachable => "unreachable",
        StaleReason::Demoted => "demoted",
    }
}

/// Decides a held send (#52, #754): only its owner's session decides a
/// waiting hold; an allow revalidates it at `now` and a hold that no longer
/// holds is marked stale instead of approved. Answers the record as decided.
pub fn decide_held(
    state: &TeamState,
    actor: &Actor,
    mut record: HeldRecord,
    allow: bool,
    now: u64,
) -> Result<HeldRecord, ApiError> {
    may_decide(state, &record.held, Some(actor)).map_err(|e| e.with("id", record.id.as_str()))?;
    record.decided_at = Some(now);
    record.held.status = if !allow {
        HoldStatus::Rejected
    } else {
        match release(state, &record.held, &request_of(&record)) {
            Ok(()) => HoldStatus::Approved,
            Err(why) => {
                record.stale_reason = Some(stale_word(&why).to_owned());
                HoldStatus::Stale
            }
        }
    };
    Ok(record)
}

/// Every waiting hold from or to `bot_id`, marked stale at `now`: deleting
/// either Bot means the send can never be released (#52).
pub fn stale_for_deleted_bot(state: &TeamState, bot_id: &str, now: u64) -> Vec<HeldRecord> {
    held_sends(state)
        .filter(|r| is_waiting(r.held.status))
        .filter(|r| r.held.from_bot == bot_id || r.to_bot == bot_id)
        .map(|mut record| {
            let why = if record.held.from_bot == bot_id {
                StaleReason::SenderGone
            } else {
                StaleReason::TargetGone
            };
            record.held.status = HoldStatus::Stale;
            record.stale_reason = Some(stale_word(&why).to_owned());
            record.decided_at = Some(now);
            record
        })
        .collect()
}

/// Every waiting hold a demoted Chief sent, marked stale at `now`: its
/// sends were held under the reach of a Chief it no longer is (#52), so
/// `set-main` invalidates them eagerly rather than at release.
pub fn stale_for_demoted(state: &TeamState, demoted: &[String], now: u64) -> Vec<HeldRecord> {
    held_sends(state)
        .filter(|r| is_waiting(r.held.status) && demoted.contains(&r.held.from_bot))
        .map(|mut record| {
            record.held.status = HoldStatus::Stale;
            record.stale_reason = Some(stale_word(&StaleReason::Demoted).to_owned());
            record.decided_at = Some(now);
            record
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::fixture::team;
    use super::*;

    fn req(text: &str) -> SendRequest {
        SendRequest {
            from_bot: "bot-a".into(),
            to: Party::Bot("bot-b".into()),
            room_id: None,
            text: text.into(),
            via: "message_bot".into(),
            hop: 1,
        }
    }

    fn member(id: &str) -> Actor {
        Actor::Member {
            member_id: id.into(),
            session_id: format!("s-{id}"),
        }
    }

    #[test]
    /// Rule #52.
    fn a_hold_carries_request_id_a_sha256_version_and_the_server_owner() {
        let state = team();
        let h = hold(&state, &req("ship it"), "req-1", 5).unwrap();
        assert_eq!(h.request_id, "req-1");
        assert_eq!(h.version.len(), 64);
        assert_eq!(h.owner_id, "member-a");
        assert_eq!(h.origin.audience, "bot:bot-b");
        assert_ne!(version(&req("ship it")), version(&req("ship it!")));
    }

    #[test]
    /// Rule #52.
    fn decide_needs_the_owner_session() {
        let state = team();
        let h = hold(&state, &req("x"), "r", 1).unwrap();
        assert_eq!(
            may_decide(&state, &h, None).unwrap_err().code,
            ErrorCode::Unauthorized
        );
        assert_eq!(
            may_decide(&state, &h, Some(&member("member-b")))
                .unwrap_err()
                .code,
            ErrorCode::Forbidden
        );
        assert!(may_decide(&state, &h, Some(&member("member-a"))).is_ok());
    }

    #[test]
    /// Rule #52.
    fn release_marks_the_hold_stale_when_anything_changed() {
        let mut state = team();
        let h = hold(&state, &req("x"), "r", 1).unwrap();
        assert_eq!(release(&state, &h, &req("x")), Ok(()));
        assert_eq!(release(&state, &h, &req("y")), Err(StaleReason::Changed));
        state.bots.get_mut("bot-a").unwrap().owner_id = "member-b".into();
        assert_eq!(
            release(&state, &h, &req("x")),
            Err(StaleReason::OwnerChanged)
        );
        state.bots.get_mut("bot-a").unwrap().owner_id = "member-a".into();
        state.bots.get_mut("bot-b").unwrap().owner_id = "member-b".into();
        assert_eq!(
            release(&state, &h, &req("x")),
            Err(StaleReason::Unreachable)
        );
        state.bots.remove("bot-b");
        assert_eq!(release(&state, &h, &req("x")), Err(StaleReason::TargetGone));
        state.bots.remove("bot-a");
        assert_eq!(release(&state, &h, &req("x")), Err(StaleReason::SenderGone));
    }

    #[test]
    /// Rule #754.
    fn the_waiting_statuses_are_one_rule() {
        assert!(is_waiting(HoldStatus::Pending) && is_waiting(HoldStatus::PendingApproval));
        assert!(!is_waiting(HoldStatus::Stale) && !is_waiting(HoldStatus::Approved));
        let state = team();
        let mut h = hold(&state, &req("x"), "r", 1).unwrap();
        h.status = HoldStatus::PendingApproval;
        assert!(may_decide(&state, &h, Some(&member("member-a"))).is_ok());
        h.status = HoldStatus::Stale;
        assert_eq!(
            may_decide(&state, &h, Some(&member("member-a")))
                .unwrap_err()
                .code,
            ErrorCode::Stale
        );
    }
}
