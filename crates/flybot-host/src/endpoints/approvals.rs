//! Approvals through the channel (#540, #754): `approvals` lists the
//! actor's own waiting approvals; `approval-answer {id, answer}` answers one.
//! Only the Bot's owner (the `ownerId` the server derived) answers
//! (`bot/forbidden`); an approval already decided is `bot/stale`.
//! `always-bot` keeps a standing grant on the Bot, `always-room` on the room
//! the ask came from (refused for an own-chat ask); both answer this ask
//! allowed-once and release the other waiting asks the grant covers. Held
//! sends (#52, #754, `rooms::hold`) are listed and answered here too:
//! allowed-once releases one after revalidating it, rejected drops it.

use super::owner::journal_actor;
use crate::host::Host;
use crate::rooms::hold::held_sends;
use crate::turns::approver::{ApprovalRecord, ApprovalStatus, STANDING, put, standing_covers};
use flybot_agent::turn::ApprovalOutcome;
use flybot_core::access::Actor;
use flybot_core::rooms::hold::is_waiting;
use flybot_protocol::approval::Approval;
use flybot_protocol::state::Extra;
use flybot_protocol::{ApiError, ErrorCode};
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListApprovals {
    #[serde(default)]
    pub bot_id: Option<String>,
}

/// The owner's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Answer {
    AllowedOnce,
    Rejected,
    AlwaysBot,
    AlwaysRoom,
}

impl Answer {
    fn as_str(self) -> &'static str {
        match self {
            Answer::AllowedOnce => "allowed-once",
            Answer::Rejected => "rejected",
            Answer::AlwaysBot => "always-bot",
            Answer::AlwaysRoom => "always-room",
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AnswerApproval {
    pub id: String,
    pub answer: Answer,
}

fn records(state: &flybot_protocol::state::TeamState) -> impl Iterator<Item = ApprovalRecord> + '_ {
    state
        .flybot
        .approvals
        .values()
        .filter_map(Approval::as_tool)
        .cloned()
}

/// `approvals {botId?}` → `{approvals}`: the actor's own waiting ones.
pub fn list(host: &Host, actor: &Actor, req: ListApprovals) -> Result<Value, ApiError> {
    host.store().read(|state| {
        let me = actor.member_id(state);
        let mut mine: Vec<(u64, String, Value)> = records(state)
            .filter(|r| r.status == ApprovalStatus::Waiting)
            .filter(|r| Some(&r.owner_id) == me.as_ref())
            .filter(|r| req.bot_id.as_ref().is_none_or(|b| *b == r.bot_id))
            .map(|r| (r.created_at, r.id.clone(), json!(r)))
            .collect();
        // Held sends (#52, #754): the actor's own waiting holds only.
        mine.extend(
            held_sends(state)
                .filter(|h| is_waiting(h.held.status))
                .filter(|h| Some(&h.held.owner_id) == me.as_ref())
                .filter(|h| req.bot_id.as_ref().is_none_or(|b| *b == h.held.from_bot))
                .map(|h| (h.held.created_at, h.id.clone(), json!(h))),
        );
        mine.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        let mine: Vec<Value> = mine.into_iter().map(|(_, _, v)| v).collect();
        Ok(json!({"approvals": mine}))
    })
}

/// Adds a standing grant of `kind` to `extra`, once.
fn add_grant(extra: &mut Extra, kind: &str, label: &str, at: u64, owner_id: &str) {
    let grants = extra
        .entry(STANDING.to_owned())
        .or_insert_with(|| json!([]));
    if !grants.is_array() {
        *grants = json!([]);
    }
    if let Some(list) = grants.as_array_mut() {
        let held = list.iter().any(|g| {
            g.get("kind").and_then(|k| k.as_str()) == Some(kind)
                && g.get("ownerId").and_then(|o| o.as_str()) == Some(owner_id)
        });
        if !held {
            list.push(json!({"kind": kind, "label": label, "at": at, "ownerId": owner_id}));
        }
    }
}

/// `approval-answer {id, answer}` → `{approval, released}`.
pub async fn answer(host: &Host, actor: &Actor, req: AnswerApproval) -> Result<Value, ApiError> {
    let held = host.store().read(|state| {
        state
            .flybot
            .approvals
            .get(&req.id)
            .and_then(Approval::as_held_send)
            .is_some()
    });
    if held {
        let allow = match req.answer {
            Answer::AllowedOnce => true,
            Answer::Rejected => false,
            Answer::AlwaysBot | Answer::AlwaysRoom => {
                return Err(ApiError::invalid(
                    "answer",
                    "A held send is allowed once or rejected; there is no standing grant for it.",
                ));
            }
        };
        return crate::rooms::hold::decide(host, actor, &req.id, allow).await;
    }
    let (record, released) = host
        .mutate(journal_actor(actor), |change| {
            let state = change.state();
            let mut record = state
                .flybot
                .approvals
                .get(&req.id)
                .and_then(Approval::as_tool)
                .cloned()
                .ok_or_else(|| ApiError::not_found("approval", &req.id))?;
            if actor.member_id(state).as_deref() != Some(record.owner_id.as_str()) {
                return Err(ApiError::forbidden(
                    "Only the Bot's owner can answer its approval requests.",
                )
                .with("id", req.id.as_str()));
            }
            if record.status != ApprovalStatus::Waiting {
                return Err(ApiError::new(
                    ErrorCode::Stale,
                    "This approval was already decided; nothing changed.",
                )
                .with("id", req.id.as_str()));
            }
            let now = change.now_ms();
            match req.answer {
                Answer::AlwaysBot => {
                    let mut bot = state
                        .bots
                        .get(&record.bot_id)
                        .cloned()
                        .ok_or_else(|| ApiError::not_found("Bot", &record.bot_id))?;
                    add_grant(&mut bot.extra, &record.tool, &record.label, now, &record.owner_id);
                    bot.updated_at = now;
                    change.put_bot(&bot);
                }
                Answer::AlwaysRoom => {
                    let room_id = record.room_id.clone().ok_or_else(|| {
                        ApiError::invalid(
                            "answer",
                            "always-room is for an ask from a room; this one came from the Bot's own chat. Use always-bot or allowed-once.",
                        )
                    })?;
                    let mut room = state
                        .rooms
                        .get(&room_id)
                        .cloned()
                        .ok_or_else(|| ApiError::not_found("room", &room_id))?;
                    add_grant(&mut room.extra, &record.tool, &record.label, now, &record.owner_id);
                    room.updated_at = now;
                    change.put_room(&room);
                }
                Answer::AllowedOnce | Answer::Rejected => {}
            }
            record.status = match req.answer {
                Answer::Rejected => ApprovalStatus::Rejected,
                Answer::AllowedOnce | Answer::AlwaysBot | Answer::AlwaysRoom => {
                    ApprovalStatus::AllowedOnce
                }
            };
            record.decided_at = Some(now);
            record.answer = Some(req.answer.as_str().to_owned());
            put(change, &record);
            // A standing grant releases every other waiting ask it covers.
            let mut released = Vec::new();
            if matches!(req.answer, Answer::AlwaysBot | Answer::AlwaysRoom) {
                let state = change.state();
                let covered: Vec<ApprovalRecord> = records(state)
                    .filter(|other| other.status == ApprovalStatus::Waiting && other.id != record.id)
                    .filter(|other| {
                        state.bots.get(&other.bot_id).is_some_and(|bot| {
                            standing_covers(state, bot, other.room_id.as_deref(), &other.tool)
                        })
                    })
                    .collect();
                for mut other in covered {
                    other.status = ApprovalStatus::AllowedOnce;
                    other.decided_at = Some(now);
                    other.answer = Some(format!("released by {}", record.id));
                    put(change, &other);
                    released.push(other.id);
                }
            }
            Ok((record, released))
        })
        .await?;
    let waits = &host.turn_parts().waits;
    let outcome = match record.status {
        ApprovalStatus::Rejected => ApprovalOutcome::Rejected,
        ApprovalStatus::AllowedOnce | ApprovalStatus::Waiting | ApprovalStatus::Cancelled => {
            ApprovalOutcome::AllowedOnce
        }
    };
    waits.release(&record.id, outcome);
    for id in &released {
        waits.release(id, ApprovalOutcome::AllowedOnce);
    }
    Ok(json!({"approval": record, "released": released}))
}
