//! Approvals through the channel (#540, #754): `approvals` lists the
//! actor's own waiting approvals; `approval-answer {id, answer}` answers one.
//! Only the Bot's owner (the `ownerId` the server derived) answers
//! (`bot/forbidden`); an approval already decided is `bot/stale`.
//! `always-bot` keeps a standing grant on the Bot, `always-room` on the room
//! the ask came from (refused for an own-chat ask); both answer this ask
//! allowed-once and release the other waiting asks the grant covers. Held
//! sends (#52, #754, `rooms::hold`) are listed and answered here too:
//! allowed-once releases one after revalidating it, rejected drops it. The
//! rule is core `approvals::answer_approval`; this side wakes the waiting
//! turns and delivers a released send.

use crate::actor::journal_actor;
use crate::approvals::Approvals;
use crate::rooms::hold::deliver_released;
use flybot_agent::turn::ApprovalOutcome;
use flybot_core::access::Actor;
use flybot_core::approvals::{Answer, Answered, ApprovalStatus, answer_approval, tool_approvals};
use flybot_core::rooms::hold::{held_sends, is_waiting};
use flybot_protocol::ApiError;
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListApprovals {
    #[serde(default)]
    pub bot_id: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AnswerApproval {
    pub id: String,
    pub answer: Answer,
}

/// `approvals {botId?}` → `{approvals}`: the actor's own waiting ones.
pub fn list(approvals: &Approvals, actor: &Actor, req: ListApprovals) -> Result<Value, ApiError> {
    approvals.team.store().read(|state| {
        let me = actor.member_id(state);
        let mut mine: Vec<(u64, String, Value)> = tool_approvals(state)
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

/// `approval-answer {id, answer}` → `{approval, released}` for a tool
/// approval, `{approval, delivered}` for a held send.
pub async fn answer(
    approvals: &Approvals,
    actor: &Actor,
    req: AnswerApproval,
) -> Result<Value, ApiError> {
    let answered = approvals
        .team
        .mutate(journal_actor(actor), |change| {
            let answered =
                answer_approval(change.state(), actor, &req.id, req.answer, change.now_ms())?;
            match &answered {
                Answered::Tool { writes, .. } | Answered::HeldSend { writes, .. } => {
                    change.apply_roster(writes);
                }
            }
            Ok(answered)
        })
        .await?;
    match answered {
        Answered::Tool {
            record, released, ..
        } => {
            let outcome = match record.status {
                ApprovalStatus::Rejected => ApprovalOutcome::Rejected,
                ApprovalStatus::AllowedOnce
                | ApprovalStatus::Waiting
                | ApprovalStatus::Cancelled => ApprovalOutcome::AllowedOnce,
            };
            approvals.waits.release(&record.id, outcome);
            for id in &released {
                approvals.waits.release(id, ApprovalOutcome::AllowedOnce);
            }
            Ok(json!({"approval": record, "released": released}))
        }
        Answered::HeldSend { record, .. } => {
            let delivered = deliver_released(approvals, &record);
            Ok(json!({"approval": record, "delivered": delivered}))
        }
    }
}
