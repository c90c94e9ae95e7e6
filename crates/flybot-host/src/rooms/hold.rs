//! Held sends (#52, #754), the host's side of core `rooms::hold`: a
//! `message_bot` to another owner's Bot (reach allowed it through a grant)
//! is held for the sender's owner in `state.flybot.approvals` with its
//! `requestId`, the sha256 version of its content and the owner and origin
//! the server derived. Only that owner's session decides it; an allow
//! revalidates (the content version, both Bots and their owners, reach)
//! in the same change that records it, and a hold that no longer holds is
//! marked stale instead of sent. Deleting either Bot makes its waiting
//! holds stale at once.

use crate::host::Host;
use flybot_agent::session::{ItemKind, Source};
use flybot_core::access::Actor;
use flybot_core::rooms::hold::{
    HoldStatus, SendRequest, StaleReason, hold, is_waiting, may_decide, release,
};
use flybot_core::rooms::reach::Party;
use flybot_protocol::ApiError;
pub use flybot_protocol::approval::HeldRecord;
use flybot_protocol::approval::{Approval, HeldSendKind};
use flybot_protocol::state::TeamState;
use flybot_store::Change;
use serde_json::{Value, json};

/// How a held send travels.
const VIA: &str = flybot_protocol::tool_names::MESSAGE_BOT;

/// The send `record` asks to make now, from the record's own content.
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

fn put(change: &mut Change<'_>, record: &HeldRecord) {
    change.put_approval(&record.id, record);
}

/// The held sends in `state`.
pub fn held_sends(state: &TeamState) -> impl Iterator<Item = HeldRecord> + '_ {
    state
        .flybot
        .approvals
        .values()
        .filter_map(Approval::as_held_send)
        .cloned()
}

fn stale_word(reason: &StaleReason) -> &'static str {
    match reason {
        StaleReason::Changed => "changed",
        StaleReason::SenderGone => "sender-gone",
        StaleReason::TargetGone => "target-gone",
        StaleReason::OwnerChanged => "owner-changed",
        StaleReason::Unreachable => "unreachable",
    }
}

/// Holds `from_bot`'s message to `to_bot` at `hop`; answers the request id.
pub async fn hold_send(
    host: &Host,
    from_bot: &str,
    to_bot: &str,
    text: &str,
    hop: u32,
) -> Result<String, ApiError> {
    let id = crate::ids::new_id("hold");
    let req = SendRequest {
        from_bot: from_bot.to_owned(),
        to: Party::Bot(to_bot.to_owned()),
        room_id: None,
        text: text.to_owned(),
        via: VIA.to_owned(),
        hop,
    };
    host.mutate(&format!("bot:{from_bot}"), |change| {
        let held = hold(change.state(), &req, &id, change.now_ms())?;
        put(
            change,
            &HeldRecord {
                id: id.clone(),
                kind: HeldSendKind::HeldSend,
                held,
                to_bot: to_bot.to_owned(),
                text: text.to_owned(),
                decided_at: None,
                stale_reason: None,
                extra: Default::default(),
            },
        );
        Ok(())
    })
    .await?;
    Ok(id)
}

/// Decides the held send `id`: `allow` releases it after revalidating,
/// otherwise it is rejected. Answers `{approval, delivered}`.
pub async fn decide(host: &Host, actor: &Actor, id: &str, allow: bool) -> Result<Value, ApiError> {
    let journal = match actor {
        Actor::SingleOwner => "owner",
        Actor::Member { member_id, .. } => member_id.as_str(),
    };
    let record = host
        .mutate(journal, |change| {
            let state = change.state();
            let mut record = state
                .flybot
                .approvals
                .get(id)
                .and_then(Approval::as_held_send)
                .cloned()
                .ok_or_else(|| ApiError::not_found("approval", id))?;
            may_decide(state, &record.held, Some(actor)).map_err(|e| e.with("id", id))?;
            record.decided_at = Some(change.now_ms());
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
            put(change, &record);
            Ok(record)
        })
        .await?;
    let mut delivered = false;
    if record.held.status == HoldStatus::Approved {
        let target = host
            .store()
            .read(|s| s.bots.get(&record.to_bot).map(|b| b.session_id.clone()));
        if let Some(session) = target {
            delivered = host
                .sessions()
                .deliver(
                    &session,
                    &record.text,
                    Source::Bot {
                        bot_id: record.held.from_bot.clone(),
                        hops: record.held.origin.hop,
                    },
                    ItemKind::NextTurn,
                )
                .map_err(|e| tracing::warn!("a released send could not be delivered: {e}"))
                .is_ok();
        }
    }
    Ok(json!({"approval": record, "delivered": delivered}))
}

/// Marks every waiting hold from or to `bot_id` stale, in the change that
/// deletes the Bot.
pub fn invalidate_for_bot(change: &mut Change<'_>, bot_id: &str) {
    let now = change.now_ms();
    let gone: Vec<HeldRecord> = held_sends(change.state())
        .filter(|r| is_waiting(r.held.status))
        .filter(|r| r.held.from_bot == bot_id || r.to_bot == bot_id)
        .collect();
    for mut record in gone {
        let why = if record.held.from_bot == bot_id {
            StaleReason::SenderGone
        } else {
            StaleReason::TargetGone
        };
        record.held.status = HoldStatus::Stale;
        record.stale_reason = Some(stale_word(&why).to_owned());
        record.decided_at = Some(now);
        put(change, &record);
    }
}
